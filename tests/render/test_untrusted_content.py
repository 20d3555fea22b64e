"""Session text is untrusted: nothing from a session may run in the published site."""

import pytest
from bs4 import BeautifulSoup
from helpers import build_site
from xss_archive import write

DANGEROUS_SCHEMES = ("javascript:", "vbscript:", "data:text", "data:application")


@pytest.fixture(scope="module")
def xss_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("xss")
    report = build_site(write(root / "archive"), root / "site")
    assert report.published
    return report, root / "site"


def test_every_format_produced_a_page(xss_site):
    report, site = xss_site
    pages = sorted(p.name for p in (site / "sessions").glob("*.html"))
    assert len(pages) == 5, pages
    assert {p.split("-", 1)[0] for p in pages} == {"aics", "claude_code", "hail", "claude_ai", "sage"}


def test_no_markup_from_a_session_survives(xss_site):
    _, site = xss_site
    for page in site.rglob("*.html"):
        doc = BeautifulSoup(page.read_text("utf-8"), "html.parser")
        for script in doc.find_all("script"):
            assert script.get("src", "").endswith(".js") and "static/" in script["src"] and not script.string, (
                f"{page.name}: foreign script"
            )
        for svg in doc.select("svg.chart-svg"):  # our build-time charts: only these shapes, text escaped
            assert {el.name for el in svg.find_all(True)} <= {"title", "desc", "g", "a", "rect", "line", "text"}, (
                f"{page.name}: unexpected element in a chart"
            )
        for selector in (
            "iframe",
            "svg:not(.chart-svg)",
            "object",
            "embed",
            "body style",
            "form:not([data-filters]):not([data-site-search]):not([data-search-form])",
            "base",
            "meta[http-equiv=refresh]",
        ):
            assert not doc.select(selector), f"{page.name}: {selector} from session content"
        for el in doc.find_all(True):
            for attr, value in el.attrs.items():
                assert not attr.lower().startswith("on"), f"{page.name}: event handler {attr} on <{el.name}>"
                values = value if isinstance(value, list) else [value]
                for v in values:
                    cleaned = "".join(str(v).split()).lower()
                    assert not cleaned.startswith(DANGEROUS_SCHEMES), f"{page.name}: {attr}={v!r} on <{el.name}>"
        for img in doc.find_all("img"):
            assert img["src"].startswith("data:image/"), f"{page.name}: image from {img['src']}"


def test_payload_text_is_visible_as_text(xss_site):
    _, site = xss_site
    for page in (site / "sessions").glob("*.html"):
        text = BeautifulSoup(page.read_text("utf-8"), "html.parser").get_text()
        assert "<script>window.__xss=1;alert(1)</script>" in text, page.name
