"""The search index: normalization shared with the browser, lunr.py -> lunr.js compatibility, chunked ranking.

Tests that need lunr.js run it under node with the vendored copy (static/vendor/lunr).
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

import pytest
from helpers import REPO, build_site
from lunr.builder import Builder
from lunr.stemmer import PorterStemmer
from search_support import read_views, run_node, write_files

from sessite.outputs.search import monolithic_index, session_payload
from sessite.search.index import IndexState
from sessite.search.item import unpacked
from sessite.search.terms import STOP_WORDS, stem, tokens, utf16_key
from sessite.search.weights import FIELDS, ChunkWeights, lunr_json

sys.path.insert(0, str(REPO / "benchmarks"))
import gen_archive  # noqa: E402


def state_of(views, **options) -> IndexState:
    state = IndexState(**options)
    for view in views:
        state.add(*session_payload(view))
    return state


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """150 generated sessions (deterministic): enough documents for ranking to mean something."""
    archive = gen_archive.generate(tmp_path_factory.mktemp("gen") / "archive", 150, seed=7)
    return read_views(archive)


@pytest.fixture(scope="module")
def mono(generated) -> dict:
    """One plain lunr.py index of the generated sessions."""
    return monolithic_index(generated)


@pytest.fixture(scope="module")
def chunked_site(generated, tmp_path_factory):
    """Index files of the generated sessions, cut into many small chunks."""
    state = state_of(generated, chunk_bytes=1500)
    return write_files(state.files(), tmp_path_factory.mktemp("chunked"))


# ---------------------------------------------------------------------------
# normalization: the build and the browser must turn text into the same terms

TRICKY = [
    "Add a token-bucket rate limiter to `api/server.py` for #118.",
    "std::vector<int> v; std::unique_ptr<Foo> p = nullptr;",
    "Content-Type: application/json; charset=utf-8",
    "snake_case camelCase PascalCase XMLHttpRequest getHTTPResponseCode __init__ _private a_b_c",
    "/home/dev/webapp/app/__init__.py:27: csrf = CSRFProtect(app)",
    "https://example.com/a/b?c=d&e=f#frag http://localhost:8080/x",
    "git commit 9c1e4b2d7a0f3e5b8c6d1a2b3c4d5e6f7a8b9c0d on branch feature/rate-limit",
    "caf\u00e9 cafe\u0301 na\u00efve \u00c7A DOIT RESTER SIMPLE",
    "emoji 🚦 inside wo😀rd and ｆｕｌｌｗｉｄｔｈ and 𝐛𝐨𝐥𝐝 and 𠀀𠀁 CJK 東京都 한국어 русский ΟΔΟΣ İstanbul",
    "numbers 3.14159 1e10 0x1F 2026-10-14T09:12:27Z v2.3.0 utf8Decoder abc123def",
    "keys surveys monkeys try lay happy running configuration generalization",
    "a " + "x" * 41 + " " + "y" * 40 + " supercalifragilisticexpialidocious_extra_long_identifier_name_here",
    "the and of to in is it — stop words only",
    "\u2028line\u2029sep\ttab\u00a0nbsp",
]


def test_python_and_javascript_normalize_alike(node):
    answer = run_node(node, {"op": "tokens", "texts": TRICKY})
    for text, js_tokens in zip(TRICKY, answer["tokens"]):
        assert list(tokens(text)) == js_tokens, text


def test_code_words_become_searchable_terms():
    assert list(tokens("std::vector")) == ["std", "vector"]
    assert list(tokens("application/json")) == ["applic", "json"]
    assert list(tokens("snake_case")) == ["snake_case", "snake", "case"]
    assert list(tokens("XMLHttpRequest")) == ["xmlhttprequest", "xml", "http", "request"]
    assert "csrfprotect" in list(tokens("CSRFProtect(app)"))


def test_stop_words_are_lunr_js_stop_words(node):
    words = sorted(STOP_WORDS) + ["vector", "lunr", "constructor", "hasownproperty"]
    answer = run_node(node, {"op": "stem", "words": words})
    assert dict(zip(words, answer["stop"])) == {w: w in STOP_WORDS for w in words}


def _vocabulary(limit: int = 25_000) -> list[str]:
    """Real English-ish words: identifiers and comments of the installed Python packages."""
    words: set[str] = set()
    roots = {Path(p) for p in sys.path if p.endswith("site-packages")} | {Path(re.__file__).parent}
    for root in sorted(roots):
        for path in sorted(root.rglob("*.py"))[:4000]:
            try:
                words.update(re.findall(r"[a-z]{3,}", path.read_text("utf-8", "ignore").lower()))
            except OSError:
                continue
            if len(words) > limit * 3:
                break
    words.update(
        [
            "key",
            "keys",
            "survey",
            "monkey",
            "try",
            "lay",
            "happy",
            "day",
            "toy",
            "sky",
            "yyy",
            "ayy",
            "employ",
            "deploy",
            "query",
            "queries",
            "sses",
            "ies",
            "ses",
            "sss",
            "eed",
            "eeds",
            "feed",
            "agreed",
            "seeds",
            "speed",
            "exceed",
        ]
    )
    return sorted(words)[:: max(1, len(words) // limit)]


def test_stemmer_matches_lunr_js(node):
    """Trap 2: lunr.py's stemmer differs from lunr.js's in step 1c ("key" -> "kei")."""
    words = _vocabulary()
    js = run_node(node, {"op": "stem", "words": words})["stems"]
    ours = [stem(w) for w in words]
    mismatches = [(w, o, j) for w, o, j in zip(words, ours, js) if o != j]
    assert mismatches == [], mismatches[:20]
    # ... and the test means something: lunr.py's own stemmer gets some of these wrong.
    stock = PorterStemmer()
    assert stock.stem("key") == "kei" and stem("key") == "key"
    assert sum(stock.stem(w) != j for w, j in zip(words, js)) > 10


def test_stemming_fix_finds_words_in_the_browser(node, tmp_path):
    site = write_files(_state_from_texts(["The monkey lost its keys during the survey"]).files(), tmp_path)
    answer = run_node(node, {"op": "query", "site": str(site), "queries": ["key", "survey", "monkeys"]})
    assert [r["total"] for r in answer["results"]] == [1, 1, 1]


def _state_from_texts(texts: list[str], **options) -> IndexState:
    state = IndexState(**options)
    for n, text in enumerate(texts):
        state.add(
            f"session {n}",
            "test-agent",
            "",
            "",
            f"sessions/s{n}.html",
            [("", "session", f"session {n}"), (f"e-{n}", "user", text)],
        )
    return state


# ---------------------------------------------------------------------------
# trap 1: term order


def test_lunr_py_order_breaks_lunr_js_and_utf16_order_fixes_it(node, tmp_path):
    # U+FF46 (fullwidth f) sorts before U+1D41B (bold b) by code point, after it in UTF-16.
    words = ["xｆy", "x𝐛y", "plain"]
    builder = Builder()
    builder.ref("id")
    builder.field("body")
    for n, word in enumerate(words):
        builder.add({"id": str(n), "body": [word]})
    raw = builder.build().serialize()
    (tmp_path / "raw.json").write_text(json.dumps(raw))
    (tmp_path / "fixed.json").write_text(json.dumps(lunr_json(raw)))
    broken = run_node(node, {"op": "load", "index": str(tmp_path / "raw.json"), "patch": True})
    assert "Out of order word insertion" in broken.get("error", "")
    fixed = run_node(node, {"op": "load", "index": str(tmp_path / "fixed.json"), "patch": True, "terms": words})
    assert fixed["found"] == {"xｆy": ["0"], "x𝐛y": ["1"], "plain": ["2"]}
    assert sorted(words, key=utf16_key) == sorted(words, key=lambda w: w.encode("utf-16-be").hex())


def test_chunks_are_in_utf16_order_and_astral_words_are_found(node, tmp_path):
    texts = ["xｆy here", "x𝐛y there", "𠀀𠀁 and 東京都", "emoji 🚦 next to wo😀rd"]
    state = _state_from_texts(texts, chunk_bytes=1)  # one term a chunk: every boundary is tested
    site = write_files(state.files(), tmp_path)
    answer = run_node(
        node, {"op": "query", "site": str(site), "queries": ["xｆy", "x𝐛y", "𠀀𠀁", "東京都", "wo", "rd"]}
    )
    assert [[r["ref"] for r in q["top"]] for q in answer["results"]] == [[0], [1], [2], [2], [3], [3]]


# ---------------------------------------------------------------------------
# trap 3: lunr.js's TokenSet merges terms with digits


def _digit_terms(n: int = 20_000) -> list[str]:
    rng = random.Random(3)
    terms = set()
    while len(terms) < n:
        terms.add("".join(rng.choice("0123456789abcdefr") for _ in range(rng.randint(2, 10))))
    return sorted(terms)


def test_digit_terms_vanish_without_the_token_set_fix(node, tmp_path):
    terms = _digit_terms()
    builder = Builder()
    builder.ref("id")
    builder.field("body")
    for n in range(0, len(terms), 50):
        builder.add({"id": str(n), "body": terms[n : n + 50]})
    (tmp_path / "index.json").write_text(json.dumps(lunr_json(builder.build().serialize())))
    probe = terms[::97]
    unpatched = run_node(node, {"op": "load", "index": str(tmp_path / "index.json"), "patch": False, "terms": probe})
    assert unpatched["missing"] > 0 or unpatched["extra"] > 0, "lunr.js 2.3.9 no longer merges digit terms?"
    patched = run_node(node, {"op": "load", "index": str(tmp_path / "index.json"), "patch": True, "terms": probe})
    assert patched["missing"] == 0 and patched["extra"] == 0
    assert all(patched["found"][t] == [str(terms.index(t) // 50 * 50)] for t in probe)


def test_digit_terms_are_found_through_the_chunks(node, tmp_path):
    terms = _digit_terms(6000)
    texts = [" ".join(terms[n : n + 60]) for n in range(0, len(terms), 60)]
    site = write_files(_state_from_texts(texts, chunk_bytes=200_000).files(), tmp_path)  # one big chunk
    probe = terms[::53]
    answer = run_node(node, {"op": "query", "site": str(site), "queries": probe})
    for term, result in zip(probe, answer["results"]):
        assert terms.index(term) // 60 in [r["ref"] for r in result["top"]], term


# ---------------------------------------------------------------------------
# trap 4: user input never reaches lunr's query parser


def test_queries_with_punctuation_never_throw_and_find_code(node, tmp_path):
    texts = [
        "we switched to std::vector<int> instead of a raw array",
        "send Content-Type: application/json to http://localhost:8080/api/v1",
        "rename snake_case helpers in src/sitegen/build.py",
        "plain prose without code",
    ]
    site = write_files(_state_from_texts(texts).files(), tmp_path)
    queries = [
        "std::vector",
        "application/json",
        "http://localhost:8080/api",
        "snake_case",
        "src/sitegen/build.py",
        "title:foo",
        "foo:bar",
        "a^2",
        "~x",
        "+vector -array",
        "+vector -zzz",
        "*",
        "-",
        ":",
        '"unclosed',
        "vector~1",
        "",
        "   ",
    ]
    answer = run_node(node, {"op": "query", "site": str(site), "queries": queries})
    found = {r["query"]: [t["ref"] for t in r["top"]] for r in answer["results"]}
    assert found["std::vector"] == [0]
    assert found["application/json"] == [1]
    assert found["http://localhost:8080/api"] == [1]
    assert found["snake_case"] == [2]
    assert found["src/sitegen/build.py"] == [2]
    assert found["+vector -array"] == []  # -array: not the sessions holding "array"
    assert found["+vector -zzz"] == [0]
    assert found["*"] == found["-"] == found[""] == []
    # lunr.js's own query parser throws on the first of these
    script = (
        "const lunr=require(process.argv[1]);const i=lunr(function(){this.field('b');this.add({id:1,b:'x'})});"
        "try{i.search('std::vector');console.log('ok')}catch(e){console.log(e.name)}"
    )
    import subprocess

    out = subprocess.run(
        [node, "-e", script, str(REPO / "static/vendor/lunr/lunr.min.js")], capture_output=True, text=True
    ).stdout
    assert out.strip() == "QueryParseError"


def test_prefix_and_multiword_queries(node, tmp_path):
    texts = ["the tokenizer splits identifiers", "a token bucket limits requests", "tokens and buckets everywhere"]
    site = write_files(_state_from_texts(texts).files(), tmp_path)
    answer = run_node(
        node,
        {
            "op": "query",
            "site": str(site),
            "queries": ["tok", "token", "token bucket", "tokenize", "identif", "bucket limits", "zzz"],
        },
    )
    found = {r["query"]: sorted(t["ref"] for t in r["top"]) for r in answer["results"]}
    ranked = {r["query"]: [(t["ref"], t["match"]) for t in r["top"]] for r in answer["results"]}
    assert found["tok"] == [0, 1, 2]
    assert found["token"] == [0, 1, 2]  # exact "token", and "tokenizer", "tokens" by prefix/stem
    # sessions with every word first, then those with some of them
    assert sorted(ranked["token bucket"][:2]) == [(1, "whole"), (2, "whole")]
    assert ranked["token bucket"][2:] == [(0, "partial")]
    assert found["tokenize"] == [0, 1, 2]  # its stem is "token"
    assert found["identif"] == [0]  # a prefix of the stem of "identifiers"
    assert ranked["bucket limits"] == [(1, "whole"), (2, "partial")]
    assert found["zzz"] == []


def _filler_words(n: int, seed: int) -> list[str]:
    rnd = random.Random(seed)
    return [f"w{rnd.randrange(5000)}x" for _ in range(n)]


def test_some_words_rank_by_a_length_normalised_score(node, tmp_path):
    """A question whose words no session holds all of still finds the session about them; a huge
    session that mentions them in passing does not win by its size."""
    about = "rotate the log files every night, and compress the rotated log files"
    huge = _filler_words(20_000, 1)
    for n, word in enumerate(["rotate", "log", "files", "night"] * 15):
        huge[n * 300] = word
    texts = [about, " ".join(huge)] + [" ".join(_filler_words(40, s)) for s in range(30)]
    site = write_files(_state_from_texts(texts).files(), tmp_path)
    queries = ["how do I rotate log files weekly", "rotate log files night", "asked session weekly"]
    answer = run_node(node, {"op": "query", "site": str(site), "queries": queries})
    partial, whole, fillers = ([(t["ref"], t["match"]) for t in r["top"]] for r in answer["results"])
    assert partial == [(0, "partial"), (1, "partial")]  # "weekly" is nowhere; the short session is about it
    assert whole == [(0, "whole"), (1, "whole")]
    assert fillers == []  # only fillers ("asked", "session") and a missing word: nothing to go by


def test_an_identifier_guess_never_outranks_the_typed_words(node, tmp_path):
    """Two typed words are also looked up as the identifier they make, at a low weight: a session
    about the words ranks above one that holds the identifier once."""
    about = "the stream feeds the queue; when the stream stalls the queue fills; stream before queue"
    once = " ".join(_filler_words(3000, 2)) + " stream_queue"
    texts = [once, about] + [" ".join(_filler_words(40, s)) for s in range(30)]
    site = write_files(_state_from_texts(texts).files(), tmp_path)
    answer = run_node(node, {"op": "query", "site": str(site), "queries": ["stream queue", "stream_queue"]})
    typed, identifier = ([(t["ref"], t["match"]) for t in r["top"]] for r in answer["results"])
    assert typed == [(1, "whole"), (0, "whole")]
    assert identifier == [(0, "whole"), (1, "apart")]  # typed as an identifier, it ranks first


def test_quoted_phrases_exclusions_and_filters_in_the_query(node, tmp_path):
    texts = [
        "curl said connection refused on port 8080",
        "the connection pool was refused a new slot",
        "connection reset by peer, retried the test",
        "nothing about networking here",
    ]
    site = write_files(_state_from_texts(texts).files(), tmp_path)
    queries = [
        '"connection refused" port',
        "connection -test",
        'connection -"reset by peer"',
        "agent:codex connection",
        "-connection",
    ]
    answer = run_node(node, {"op": "query", "site": str(site), "queries": queries})
    ranked = {r["query"]: [(t["ref"], t["match"]) for t in r["top"]] for r in answer["results"]}
    # a quoted phrase's words are required: sessions lacking one are no result, not even a partial one
    assert ranked['"connection refused" port'] == [(0, "whole"), (1, "partial")]
    assert sorted(ref for ref, _ in ranked["connection -test"]) == [0, 1]  # -test: not the one holding "test"
    assert sorted(ref for ref, _ in ranked['connection -"reset by peer"']) == [0, 1]
    assert sorted(ref for ref, _ in ranked["agent:codex connection"]) == [0, 1, 2]  # filters are the page's to apply
    assert ranked["-connection"] == []  # nothing to look for
    syntax = run_node(node, {"op": "tokens", "texts": ['agent:codex "a b" -c std::vector after:2026-03-01 x']})
    assert syntax["syntax"][0] == {
        "text": ["std::vector", "x"],
        "phrases": ["a b"],
        "exclude": ["c"],
        "filters": [
            {"key": "agent", "value": "codex", "raw": "agent:codex"},
            {"key": "after", "value": "2026-03-01", "raw": "after:2026-03-01"},
        ],
    }


def test_a_prefix_with_very_many_expansions_matches_whole_words(node, tmp_path):
    texts = [" ".join(f"abc{n}x" for n in range(k, k + 50)) for k in range(0, 200, 50)] + ["abc alone"]
    site = write_files(_state_from_texts(texts).files(), tmp_path)
    answer = run_node(node, {"op": "query", "site": str(site), "queries": ["abc", "abc17"]})
    broad, narrow = answer["results"]
    assert broad["broad"] == ["abc"] and [r["ref"] for r in broad["top"]] == [4]
    assert narrow["broad"] == [] and sorted(r["ref"] for r in narrow["top"]) == [0, 3]  # abc17x; abc170x..abc179x


# ---------------------------------------------------------------------------
# the chunked index equals one monolithic lunr.py index


def _decode(state_files) -> dict:
    """term -> field -> {doc: weight} from the chunk files."""
    out = {}
    for url, data in state_files:
        if not url.startswith("search/t/"):
            continue
        entries = json.loads(unpacked(data))
        for term, *columns in entries:
            fields = {}
            for f, (name, _) in enumerate(FIELDS):
                docs, weights, doc = {}, columns[2 * f + 1], 0
                for k, delta in enumerate(columns[2 * f]):
                    doc += delta
                    docs[doc] = weights[k] / 1000
                fields[name] = docs
            out[term] = fields
    return out


def test_every_weight_equals_lunr_py(generated, mono):
    terms = {term: posting["_index"] for term, posting in mono["invertedIndex"]}
    reference = {}
    for ref, elements in mono["fieldVectors"]:
        field, doc = ref.split("/")
        for i in range(0, len(elements), 2):
            reference[(elements[i], field, int(doc))] = elements[i + 1]
    chunked = _decode(state_of(generated, chunk_bytes=3000).files())
    assert set(chunked) == set(terms)
    mine = {(terms[t], f, d): w for t, fields in chunked.items() for f, docs in fields.items() for d, w in docs.items()}
    assert mine == reference


def test_chunk_weights_match_lunr_py_builder_directly():
    weights = ChunkWeights(3, {"title": 6, "body": 30})
    builder = Builder()
    for name, boost in FIELDS:
        builder.field(name, boost)
    for n, (t, b) in enumerate(
        [(["a", "b"], ["a"] * 7 + ["c"] * 3), (["a", "c", "d"], ["c"] * 12), (["e"], ["a", "e"] * 4)]
    ):
        builder.add({"id": str(n), "title": t, "body": b})
    index = builder.build()
    for term, posting in index.inverted_index.items():
        df = sum(len(posting[f]) for f, _ in FIELDS)
        for field, _ in FIELDS:
            docs = sorted(int(d) for d in posting[field])
            tfs = [builder.field_term_frequencies[f"{field}/{d}"][term] for d in docs]
            lengths = [builder.field_lengths[f"{field}/{d}"] for d in range(3)]
            got = weights.milli(field, weights.idf(df), docs, tfs, weights.norms(field, lengths))
            want = [
                round(
                    dict(
                        zip(
                            index.field_vectors[f"{field}/{d}"].elements[::2],
                            index.field_vectors[f"{field}/{d}"].elements[1::2],
                        )
                    )[posting["_index"]]
                    * 1000
                )
                for d in docs
            ]
            assert got == want, (term, field)


def _parity_queries(views) -> list[str]:
    rng = random.Random(11)
    words = []
    for view in rng.sample(views, 30):
        _, _, _, _, _, events = session_payload(view)
        text = rng.choice([t for _, _, t in events if t])
        raw = re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", text)
        if raw:
            words.append(rng.choice(raw))
    queries = words[:20]
    queries += [f"{a} {b}" for a, b in zip(words[::2], words[1::2])][:8]
    queries += [w[:3] for w in words[:6]]  # prefixes
    queries += ["std::vector", "application/json", "snake_case", "test", "error fix", "import config"]
    return queries


def test_top_ten_equals_monolithic_lunr_index(generated, mono, chunked_site, node, tmp_path):
    (tmp_path / "mono.json").write_text(json.dumps(mono))
    queries = _parity_queries(generated)
    answer = run_node(
        node,
        {
            "op": "query",
            "site": str(chunked_site),
            "queries": queries,
            "monolithic": str(tmp_path / "mono.json"),
            "top": 10,
        },
    )
    assert answer["bounds"] > 50, "the archive should be split into many chunks"
    compared = 0
    for result in answer["results"]:
        assert [r["ref"] for r in result["top"]] == [r["ref"] for r in result["mono"]], result["query"]
        for mine, theirs in zip(result["top"], result["mono"]):
            assert mine["score"] == pytest.approx(theirs["score"], rel=1e-9)
        compared += bool(result["top"])
        assert len(result["chunks"]) < answer["bounds"] / 2, f"{result['query']} loaded most of the index"
    assert compared >= len(queries) * 0.6


# ---------------------------------------------------------------------------
# the aggregate in the build


def test_built_site_has_search_files_and_a_search_box_everywhere(example_site):
    report, site = example_site
    assert (site / "search.html").is_file()
    meta = (site / "search" / "meta.js").read_text()
    assert meta.startswith("sessiteSearch.meta(")
    data = json.loads(meta[len("sessiteSearch.meta(") : meta.rindex(")")])
    assert data["n"] == report.sessions
    assert len(data["docs"]) == 2 * report.sessions
    assert len(list((site / "search" / "t").glob("*.js"))) == len(data["bounds"])
    assert (site / "static" / "vendor" / "lunr" / "lunr.min.js").is_file()
    assert (site / "static" / "vendor" / "lunr" / "LICENSE").is_file()
    for page in [site / "index.html", site / "search.html", *sorted((site / "sessions").glob("*.html"))[:3]]:
        html = page.read_text()
        assert "data-site-search" in html, page
        assert "static/search.js" in html
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), f"inline script in {page.name}"


def _search_files(site: Path) -> dict:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in (site / "search").rglob("*.js")}


def test_parallel_sequential_and_incremental_builds_write_the_same_index(tmp_path):
    archive = gen_archive.generate(tmp_path / "archive", 110, seed=5)  # > 2 MB: the build uses worker processes
    cache = tmp_path / "cache"
    one = build_site(archive, tmp_path / "one", jobs=1, cache_dir=cache / "one")
    two = build_site(archive, tmp_path / "two", jobs=2, cache_dir=cache / "two")
    assert one.problems == two.problems == []
    assert _search_files(tmp_path / "one") == _search_files(tmp_path / "two")
    assert len(_search_files(tmp_path / "one")) > 110
    # change one session: the others' items come from the cache, the index must not notice
    victim = sorted(archive.rglob("*.jsonl"))[3]
    victim.write_text(victim.read_text().replace("pytest", "cargo nextest"))
    again = build_site(archive, tmp_path / "two", jobs=2, cache_dir=cache / "two")
    assert again.reused == 109
    build_site(archive, tmp_path / "clean", jobs=1, cache_dir=cache / "clean")
    assert _search_files(tmp_path / "two") == _search_files(tmp_path / "clean")
    assert _search_files(tmp_path / "two") != _search_files(tmp_path / "one")


def test_forked_chunk_encoding_writes_the_same_files(generated, monkeypatch):
    import sessite.search.index as search_index

    monkeypatch.setattr(search_index, "FORK_POSTINGS", 0)
    serial = dict(state_of(generated, chunk_bytes=3000).files(jobs=1))
    forked = dict(state_of(generated, chunk_bytes=3000).files(jobs=2))
    assert list(serial) == list(forked) and serial == forked


def test_snippet_files_are_inert_data(tmp_path):
    from xss_archive import write

    site = tmp_path / "site"
    build_site(write(tmp_path / "archive"), site)
    for path in (site / "search").rglob("*.js"):
        text = path.read_text()
        # one call with JSON arguments; a payload can only ever be a JSON string
        assert re.fullmatch(r"sessiteSearch\.(meta|facts|chunk|frag)\(.*\);\n", text, re.S), path
        json.loads("[" + text[text.index("(") + 1 : text.rindex(")")] + "]")


def test_empty_and_textless_sessions(tmp_path, node):
    state = IndexState()
    state.add("", "agent", "", "", "sessions/a.html", [("", "session", "")])
    files = dict(state.files())
    assert "search/meta.js" in files
    site = write_files(files.items(), tmp_path)
    answer = run_node(node, {"op": "query", "site": str(site), "queries": ["anything"]})
    assert answer["results"][0]["total"] == 0
    empty = dict(IndexState().files())
    assert list(empty) == ["search/meta.js"]


def test_add_keeps_no_session_objects(generated):
    import gc

    state = state_of(generated[:20])
    referrers = [r for view in generated[:20] for r in gc.get_referrers(view.session) if r is state.__dict__]
    assert referrers == []
    assert all(isinstance(v, type(state.title_lengths)) for v in state.postings.values())
