"""Vendor keys known by a literal prefix and a random body, as one table of data: (kind,
prefix, body, must look random). Each entry is written from the vendor's documented key
format; the set of vendors is the one a maintained peer rule set knows (Betterleaks, the
successor of gitleaks) and sessite's own shapes did not, as ``benchmarks/peer_rules.py``
measures.

Every pattern starts with its prefix, a literal: the regex engine skips ahead with a
substring search and the compiled rule set (``ruleset``) picks the rule only where the
prefix is written, so a hundred entries cost about what one does. The body's alphabet and
least length make the rest; a key glued after word characters is left to the glued-key
rule, as for the older shapes. A body a person typed (``lin_api_your_key_here``, a run of
``abcdef``) is not a key (``precision.example_key``); where the prefix is short or reads
like a word (``API-``, ``rnd_``, ``EXO``), the body must also mix letters and digits, and
the key must not stand inside base64 (no ``+`` or ``/`` either side: ``…+EXO…`` is a blob).
Public keys of these vendors (PostHog's ``phc_``, Flutterwave's ``FLWPUBK``, Supabase's
``sb_publishable_``) are deliberately absent.
"""

from __future__ import annotations

import re
from functools import cache

from sessite.analyze.redact.precision import example_key
from sessite.analyze.redact.types import Check, RuleSpec, Span


def _run(alphabet: str, least: int, most: int | None = None) -> str:
    return f"[{alphabet}]{{{least},{'' if most is None else most}}}"


_AN = "A-Za-z0-9"
_ANU = r"A-Za-z0-9_\-"  # base64url and friends
_B64 = "A-Za-z0-9+/"
_HEX = "a-f0-9"
_HEXI = "a-fA-F0-9"
_LOW = "a-z0-9"
_UP = "A-Z0-9"
# GitLab's routable tokens end in a version and a check: glpat-….01.0g1h2j3k4
_GITLAB_TAIL = r"(?:\.[0-9a-z]{2}\.[0-9a-z]{7,10})?"

# (kind, prefix, body after it, the body must mix letters and digits)
VENDOR_KEYS: tuple[tuple[str, str, str, bool], ...] = (
    (
        "1password-secret-key",
        "A3-",
        r"[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})(?:-[A-Z0-9]{5}){3}",
        True,
    ),
    ("1password-token", "ops_eyJ", _run(_B64, 250) + "={0,3}", False),
    ("adobe-client-secret", "p8e-", _run(_AN, 32, 32), True),
    ("aikido-token", "AIK_CI_", _run(_AN, 24), True),
    ("aikido-token", "AIK_SECRET_", _run(_AN, 40), True),
    ("apify-token", "apify_api_", _run(_AN, 30), True),
    ("artifactory-key", "AKCp", _run(_AN, 60), True),
    ("artifactory-token", "cmVmdGtuOjAxOj", _run(_B64, 40) + "={0,2}", False),  # base64 of "reftkn:01:"
    ("asaas-key", "$aact_", r"(?:prod_|hmlg_)?" + _run(_ANU + ":=+/.", 20), True),
    ("atlassian-token", "ATATT", _run(_ANU + "=", 60), True),
    ("aws-bedrock-key", "ABSK", _run(_B64, 100) + "={0,2}", True),
    ("aws-bedrock-key", "bedrock-api-key-", _run(_B64, 24) + "={0,2}", False),
    ("bitbucket-token", "BBDC-", _run(_ANU + "+/", 30), True),
    ("buildkite-token", "bkua_", _run(_AN, 40), True),
    ("buildkite-token", "bkpat_", _run(_ANU, 40), True),
    ("cartesia-key", "sk_car_", _run(_AN, 20), True),
    ("cerebras-key", "csk-", _run(_LOW, 48), True),
    ("circleci-token", "CCIPAT_", _run(_ANU, 40), True),
    ("clojars-token", "CLOJARS_", _run(_LOW, 60), True),
    ("cloudflare-token", "cfut_", _run(_AN, 40), True),
    ("cloudflare-token", "cfat_", _run(_AN, 40), True),
    ("cloudflare-origin-ca-key", "v1.0-", r"[a-f0-9]{24}-[a-f0-9]{146}", False),
    ("cloudsmith-key", "csa_", _run(_AN, 36), True),
    ("cockroachdb-key", "CCDB1_", _run(_ANU, 22), True),
    ("configcat-sdk-key", "configcat-sdk-1/", _run(_ANU, 22, 22) + "/" + _run(_ANU, 22, 22), False),
    ("databricks-token", "dapi", _run(_HEX, 32, 32) + r"(?:-[0-9]+)?", True),
    ("datastax-token", "AstraCS:", _run(_AN, 24) + r"(?::[a-f0-9]{64})?", True),
    ("deno-token", "ddp_", _run(_AN, 36), True),
    ("deno-token", "ddw_", _run(_AN, 36), True),
    ("devcycle-key", "dvc_", r"(?:client|mobile|server)_" + _run(_ANU, 12), True),
    ("devin-key", "apk_user_", _run(_ANU, 40), True),
    ("devin-key", "apk_", _run(_AN, 64), True),
    ("devin-token", "cog_", _run(_LOW, 52), True),
    # A docker config as base64 (a Kubernetes ``.dockerconfigjson``, ``kubectl get secret -o jsonpath`` prints
    # it bare): {"auths": compact, spaced, or indented by two or four spaces or a tab, in base64.
    ("docker-config", "eyJhdXRocyI6", _run(_B64, 40) + "={0,2}", False),
    ("docker-config", "eyAiYXV0aHMi", _run(_B64, 40) + "={0,2}", False),
    ("docker-config", "ewogICJhdXRocyI6", _run(_B64, 40) + "={0,2}", False),
    ("docker-config", "ewogICAgImF1dGhz", _run(_B64, 40) + "={0,2}", False),
    ("docker-config", "ewoJImF1dGhz", _run(_B64, 40) + "={0,2}", False),
    ("docker-swarm-token", "SWMTKN-1-", _run(_LOW, 50) + "-" + _run(_LOW, 25), False),
    ("docker-swarm-key", "SWMKEY-1-", _run(_B64, 40), False),
    ("dockerhub-token", "dckr_pat_", _run(_ANU, 27), True),
    ("dockerhub-token", "dckr_oat_", _run(_ANU, 32), True),
    ("doppler-token", "dp.", r"(?:pt|st|ct|sa|scim|audit)\." + _run(_AN, 40), True),
    ("duffel-token", "duffel_", r"(?:test|live)_" + _run(_ANU + "=", 43), True),
    ("dynatrace-token", "dt0c01.", _run(_AN, 24, 24) + r"\." + _run(_AN, 64, 64), False),
    ("easypost-key", "EZAK", _run(_AN, 54), True),
    ("easypost-key", "EZTK", _run(_AN, 54), True),
    ("elastic-key", "essu_", _run(_ANU + "+/", 40) + "={0,2}", True),
    ("exoscale-key", "EXO", _run(_AN, 24), True),
    ("facebook-token", "EAA", "[A-Z]" + _run(_AN, 100), True),
    ("figma-token", "figd_", _run(_ANU, 32), True),
    ("flutterwave-key", "FLWSECK", r"(?:_TEST)?-" + _run(_AN, 12) + r"(?:-X)?", True),
    ("flyio-token", "FlyV1 ", _run(_ANU + "+/=,", 40), True),
    ("frameio-token", "fio-u-", _run(_ANU + "=", 64), True),
    *(
        ("gitlab-token", prefix, _run(_ANU, 20) + _GITLAB_TAIL, False)
        for prefix in ("glcbt-", "gldt-", "glffct-", "glft-", "glimt-", "glagent-", "gloas-", "glrt-", "glsoat-")
    ),
    ("gitlab-token", "glptt-", _run(_HEX, 40), False),
    ("gitlab-token", "GR1348941", _run(_ANU, 20), False),
    ("grafana-token", "glc_", _run(_B64, 32) + "={0,2}", True),
    ("grafana-token", "glsa_", _run(_AN, 32, 32) + "_" + _run(_AN, 8, 8), False),
    ("grafana-key", "eyJrIjoi", _run(_B64, 40) + "={0,2}", False),  # base64 of {"k":"
    ("harness-token", "pat.", _run(_ANU, 22, 22) + r"\." + _run(_HEX, 24, 24) + r"\." + _run(_AN, 20, 20), False),
    ("harness-token", "sat.", _run(_ANU, 22, 22) + r"\." + _run(_HEX, 24, 24) + r"\." + _run(_AN, 20, 20), False),
    ("heroku-key", "HRKU-AA", _run(_ANU, 50), True),
    ("huggingface-token", "api_org_", _run("A-Za-z", 34), False),
    ("infracost-token", "ico-", _run(_AN, 32), True),
    ("intra42-secret", "s-s4t2", r"(?:ud|af)-" + _run(_HEX, 64, 64), False),
    ("langsmith-key", "lsv2_", r"(?:pt|sk)_" + _run(_HEXI, 32, 32) + "_" + _run(_HEXI, 10, 10), False),
    ("lichess-token", "lip_", _run(_AN, 16), True),
    ("linear-key", "lin_api_", _run(_AN, 40), True),
    ("linear-secret", "lin_oauth_", _run(_HEX, 64), False),
    ("llamacloud-key", "llx-", _run(_AN, 40), True),
    ("mailersend-token", "mlsn.", _run(_AN, 32), True),
    ("mercury-token", "mercury_production_", _run(_ANU, 40), True),
    ("mergify-key", "mergify_application_key_", _run(_ANU, 40), True),
    ("mongodb-atlas-secret", "mdb_sa_sk_", _run(_ANU, 40), True),
    ("neon-key", "napi_", _run(_AN, 64), True),
    ("notion-token", "ntn_", _run(_AN, 40), True),
    ("nvidia-key", "nvapi-", _run(_ANU, 60), True),
    ("nylas-key", "nyk_", _run(_ANU, 40), True),
    ("octopus-key", "API-", _run(_UP, 25), True),
    ("onesignal-key", "os_v2_app_", _run(_LOW, 100), True),
    ("onfido-token", "api_live", r"(?:_us|_ca)?\." + _run(_ANU, 11) + r"(?:\." + _run(_ANU, 32) + ")?", True),
    ("onfido-token", "api_sandbox", r"(?:_us|_ca)?\." + _run(_ANU, 11) + r"(?:\." + _run(_ANU, 32) + ")?", True),
    ("openshift-token", "sha256~", _run(_ANU, 43), True),
    ("paddle-key", "pdl_", r"(?:live|sdbx)_apikey_" + _run(_ANU, 40), True),
    ("perplexity-key", "pplx-", _run(_AN, 48), True),
    ("persona-key", "persona_", r"(?:production|sandbox)_" + _run(_ANU, 20), True),
    ("pinecone-key", "pcsk_", _run(_ANU, 60), True),
    ("pinterest-token", "pina_", _run(_ANU, 20), True),
    ("planetscale-token", "pscale_", r"(?:tkn|oauth|pw)_" + _run(_ANU + "=.", 32), True),
    ("polar-token", "polar_", r"(?:at|oat|pat|rt)_" + _run(_ANU, 20), True),
    ("posthog-key", "phx_", _run(_ANU, 40), True),
    ("postman-key", "PMAK-", _run(_HEXI, 24, 24) + "-" + _run(_HEXI, 34, 34), False),
    ("prefect-key", "pnu_", _run(_AN, 36), True),
    ("pulumi-token", "pul-", _run(_HEX, 40), False),
    ("ramp-secret", "ramp_sec_", _run(_AN, 40), True),
    ("readme-key", "rdme_", _run(_LOW, 70), True),
    ("render-key", "rnd_", _run(_AN, 28), True),
    ("replicate-token", "r8_", _run(_AN, 37), True),
    ("rootly-key", "rootly_", _run(_HEX, 64), False),
    ("rubygems-key", "rubygems_", _run(_HEX, 48), False),
    ("runpod-key", "rpa_", _run(_AN, 30), True),
    ("samsara-token", "samsara_api_", _run(_AN, 24), True),
    ("scalingo-token", "tk-us-", _run(_ANU, 48), True),
    ("sourcegraph-or-segment-token", "sgp_", _run(_AN + "_", 40), True),
    ("brevo-key", "xkeysib-", _run(_HEXI, 64, 64) + "-" + _run(_AN, 16), False),
    ("brevo-key", "xsmtpsib-", _run(_HEXI, 64, 64) + "-" + _run(_AN, 16), False),
    ("sentry-token", "sntrys_eyJ", _run(_B64 + "_=", 60), False),
    ("sentry-token", "sntryu_", _run(_HEX, 64), False),
    ("settlemint-token", "sm_", r"(?:aat|pat|sat)_" + _run(_AN, 16), True),
    ("shippo-token", "shippo_", r"(?:live|test)_" + _run(_HEXI, 40), False),
    ("slack-token", "xapp-", r"[0-9]-[A-Za-z0-9\-]{20,}", True),
    ("slack-cookie", "xoxd-", _run(_ANU + "%/+=", 40), True),
    ("square-token", "sq0atp-", _run(_ANU, 22), True),
    ("square-secret", "sq0csp-", _run(_ANU, 43), True),
    ("supabase-token", "sbp_", _run(_ANU, 40), True),
    ("supabase-secret", "sb_secret_", _run(_ANU, 30), True),
    ("tailscale-key", "tskey-", r"[a-z]+-" + _run(_ANU, 16), True),
    ("thunderstore-token", "tss_", _run(_AN, 28), True),
    ("together-key", "tgp_v1_", _run(_ANU, 40), True),
    ("unkey-key", "unkey_", _run(_AN, 20), True),
    ("upcloud-token", "ucat_", _run(_AN, 24), True),
    ("valtown-token", "vtwn_", _run(_ANU, 20), True),
    ("vault-token", "hvb.", _run(_ANU, 80), True),
    *(("vercel-token", prefix, _run(_ANU, 40), True) for prefix in ("vck_", "vca_", "vcr_", "vci_", "vcp_")),
    ("wakatime-key", "waka_", _run(_ANU, 32), True),
    ("wandb-key", "wandb_v1_", _run(_ANU, 60), True),
    ("xendit-key", "xnd_", r"(?:production|development)_" + _run(_ANU, 40), True),
    ("zuplo-key", "zpka_", _run(_LOW, 32, 32) + "_" + _run(_HEX, 8, 8), False),
)

_END = r"(?![A-Za-z0-9])"
_LONGEST_RUN = re.compile(r"[A-Za-z0-9]+")
_SYNTAX = re.compile(r"\{[0-9,]*\}|\(\?[:=!]")  # counts and group openers: no characters of a key
_CLASS = re.compile(r"\[((?:\\.|[^\]\\])+)\]")


def _literal(prefix: str, strict: bool) -> str:
    """The prefix, its boundary after it (see ``by_shape``): a prefix glued to a name is a name;
    a short one (``strict``) glued into base64 (``…+EXO…``) is part of the blob."""
    literal = re.escape(prefix)
    before = "[A-Za-z0-9_+/]" if strict else "[A-Za-z0-9_]"
    return literal + (f"(?<!{before}{literal})" if prefix[0].isalnum() else "")


def _end(strict: bool) -> str:
    return r"(?![A-Za-z0-9+/])" if strict else _END


def _alphabet(body: str) -> str:
    """A loop over every character ``body`` may hold (its classes, letters, digits, the
    punctuation it writes), no other: a match ends where the key can, not in what follows."""
    outside = _SYNTAX.sub("", _CLASS.sub("", body))
    punctuation = {c for c in outside.replace("\\", "") if c in "_-.:/=,%~+"}
    return "[" + "".join(_CLASS.findall(body)) + "A-Za-z0-9" + re.escape("".join(sorted(punctuation))) + "]+"


@cache
def _exact(entry: int) -> re.Pattern[str]:
    """An entry's own pattern, compiled when a key of its prefix is first met (most builds: never)."""
    _, prefix, body, strict = VENDOR_KEYS[entry]
    return re.compile(_literal(prefix, strict) + body + _end(strict))


def _check(entry: int) -> Check:
    kind, prefix, _, mixed = VENDOR_KEYS[entry]

    def check(match: re.Match[str]) -> list[Span]:
        """The key, exactly (prefix and body, as the entry's own pattern says), unless its random
        part (the longest run of letters and digits) was typed or, where the entry says so, the
        body does not mix letters and digits."""
        exact = _exact(entry).match(match.string, match.start())
        if exact is None or exact.end() > match.end():  # (cannot be: the lookahead said so)
            return []
        body = exact.group(0)[len(prefix) :]
        if example_key(max(_LONGEST_RUN.findall(body) or [""], key=len)):
            return []
        if mixed and not (any(c.isdigit() for c in body) and any(c.isalpha() for c in body)):
            return []
        return [(kind, *exact.span())]

    return check


# A rule per entry: its prefix, its body in a lookahead, then a loop over the body's alphabet that
# takes the match to the key's end (the check cuts it to the key). The compiled set (``ruleset``)
# drops lookaheads, so it holds of each entry only its prefix and one loop. Measured on 12.5 MB of
# the yardstick: with the bodies in the set (and a hint word each), the set's time went from 0.14 s
# to 0.43 s; so, as much as without the table. No hint words either (they would add a fifth): the
# fallback without the set runs each entry's literal search on every string, about twice its time.
# (A pattern that starts with a class, not a literal, costs the set most: Terraform's
# <14>.atlasv1.<60> is left to the name rules.)
VENDOR_SHAPES: tuple[RuleSpec, ...] = (
    *(
        (kind, (), _literal(prefix, mixed) + f"(?={body}{_end(mixed)})" + _alphabet(body), (), _check(n))
        for n, (kind, prefix, body, mixed) in enumerate(VENDOR_KEYS)
    ),
    # GitLab's session cookie, wherever it is written (a cookie jar, a curl -b, a header).
    ("gitlab-session", ("_gitlab_session",), r"_gitlab_session=(?P<secret>[0-9a-z]{32})" + _END),
)
