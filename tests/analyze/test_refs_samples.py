"""Git refs over the team's real samples (../shared/formats/samples), hand-checked.

The samples are full of UUIDs, lockfile and build hashes, colour codes and
rerere/blob ids. Every ref below was checked by hand against its context; a
ref that is not listed here fails the test until someone checks it and adds it.
"""

from __future__ import annotations

import collections

from sessite.analyze.refs import extract_refs
from sessite.model import Problems
from sessite.readers import discover

# (repository, kind, name) as found; None = unknown repository. Hand-checked: all genuine.
CHECKED = {
    # AICS spec example: gitRefs (structured)
    ("myorg/auth-service", "branch", "feature/auth-refactor"),
    ("myorg/auth-service", "issue", "234"),
    ("myorg/auth-service", "commit", "abc1234"),
    # Claude Code: gitBranch (structured); "committed (3bb8701)" in a summary
    (None, "branch", "spotter-fum"),
    (None, "commit", "3bb8701"),
    (None, "commit", "b9288c2"),
    (None, "branch", "master"),
    (None, "branch", "spotter-gqc"),
    (None, "branch", "main"),
    # forge URLs in web-search results and a changelog
    *(("xtermjs/xterm.js", "issue", n) for n in ("512", "657", "934", "1343", "1824", "2757", "3201", "3514", "3864")),
    *(("pydantic/pydantic", "issue", n) for n in ("1209", "1412", "1831", "2060", "2461")),
    # Codex session_meta.git and HAIL context.attributes.git (structured)
    ("Mai0313/claude-code", "branch", "main"),
    ("Mai0313/claude-code", "commit", "87d292ac346e58c85dc4eef0a8dd13bd02ec0c7f"),
    ("hwisu/opensession", "branch", "main"),
    ("hwisu/opensession", "commit", "ccca1f884f6fef63d1707844b7fdbdbb2a75083d"),
    # HAIL Codex session: git fetch/log/pull/commit output and the final summary
    ("hwisu/opensession", "commit", "2669ea672da220adc31fe5220e9054f9be3e85cf"),
    ("hwisu/opensession", "commit", "5285071"),
    ("hwisu/opensession", "commit", "255c441"),
    ("hwisu/opensession", "commit", "c9d88cd"),
    ("hwisu/opensession", "commit", "e64a600"),
    ("hwisu/opensession", "commit", "e95c618"),
    ("hwisu/opensession", "commit", "eb196be"),
    ("hwisu/opensession", "issue", "16"),  # "Merge pull request #16"
}

# Seen in the samples and deliberately NOT refs (rejected by the rules).
NOT_COMMITS = {
    "0db96f2",
    "fde8c6c",
    "e22cb6d",
    "9761fa9",
    "7bd10a9",
    "6f12272",  # git diff "index a..b" blob ids
    "5c46cab58dd23e53ce636af8c9180e88baec958e",  # .git/rr-cache/<id>
    "8463c716",
    "87158ebd9f20",
    "00893aaf",
    "d99ca901cae4",  # UUID parts
    "e32c62d7e49b3852",
    "c44446e9d967cf47",  # cargo build hashes in target/debug/deps
    "896fc424e39ff8d590720331a77e3d80",  # an image URL signature
}


def _found(samples):
    problems = Problems(samples)
    found: dict[tuple, int] = {}
    sessions = 0
    for claim in discover(samples, problems).claims:
        for session in claim.reader.read(claim.path, problems):
            sessions += 1
            refs = extract_refs(session)
            for ref in refs.refs.values():
                repo = ref.key.repo.name if ref.key.repo.known else None
                key = (repo, ref.key.kind, ref.full_name)
                found[key] = found.get(key, 0) + 1
    return found, sessions


def test_every_ref_in_the_samples_was_checked_by_hand(samples):
    found, sessions = _found(samples)
    assert sessions >= 10
    unchecked = sorted(set(found) - CHECKED, key=str)
    assert not unchecked, f"new refs in the samples: check each by hand, then add it to CHECKED: {unchecked}"
    names = {name for _, kind, name in found if kind == "commit"}
    assert not names & NOT_COMMITS


def test_the_samples_still_yield_their_refs(samples):
    found, _ = _found(samples)
    missing = CHECKED - set(found)
    assert not missing, f"refs no longer found: {sorted(missing, key=str)}"
    kinds = collections.Counter(kind for _, kind, _ in found)
    assert kinds == {"issue": 16, "commit": 12, "branch": 7}
