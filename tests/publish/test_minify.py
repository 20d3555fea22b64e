"""The site serves the package's scripts and styles without comments; vendor files pass as they are."""

from __future__ import annotations

import gzip

from helpers import EXAMPLE, build_site

from sessite.publish.minify import minified
from sessite.render.resources import static_dir


def test_scripts_and_styles_lose_comments_not_code(tmp_path):
    site = tmp_path / "site"
    build_site(EXAMPLE, site)
    for name in ("search-core.js", "search.js", "app.js", "style.css"):
        source = (static_dir() / name).read_text(encoding="utf-8")
        served = (site / "static" / name).read_text(encoding="utf-8")
        assert "/*" in source or "//" in source
        assert len(gzip.compress(served.encode())) < len(gzip.compress(source.encode()))
    # Every function the commented source defines is still defined.
    core = (site / "static" / "search-core.js").read_text(encoding="utf-8")
    assert "function search(" in core


def test_vendor_and_minified_files_pass_as_they_are():
    data = b"/* a licence header that must stay */\nvar a = 1;\n"
    assert minified("vendor/lunr/lunr.min.js", data) == data
    assert minified("x.min.js", data) == data
    assert minified("favicon.svg", data) == data
    assert minified("a.js", data) == b"var a=1;"
