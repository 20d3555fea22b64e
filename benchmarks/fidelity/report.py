"""The fidelity figures as a table (and as JSON for a note)."""

from __future__ import annotations

from typing import Any

from .check import Figures, Report


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.1f} %)" if whole else "-"


def as_rows(report: Report) -> list[dict[str, Any]]:
    rows = []
    for name, f in sorted(report.formats.items()):
        rows.append(
            {
                "format": name,
                "files": f.files,
                "sessions": f.sessions,
                "records": f.records,
                "shown": f.fates.get("shown", 0),
                "merged": f.fates.get("merged", 0),
                "not shown": f.fates.get("not shown", 0),
                "unaccounted": len(f.unaccounted),
                "user texts on a page": _share(f.user_on_page, f.user_texts),
                "assistant texts on a page": _share(f.assistant_on_page, f.assistant_texts),
                "calls paired with results": _share(f.pairs_shown, f.pairs),
                "raw-JSON events": sum(f.raw_json.values()),
                "raw-JSON of named types": sum(f.raw_json_of_named_types().values()),
            }
        )
    return rows


def as_text(report: Report, details: int = 5) -> str:
    lines = []
    for row in as_rows(report):
        lines.append(f"== {row.pop('format')}")
        lines.extend(f"   {key}: {value}" for key, value in row.items())
    for name, f in sorted(report.formats.items()):
        lines.extend(_details(name, f, details))
    if report.unread:
        lines.append(f"files no reader reads ({len(report.unread)}):")
        lines.extend(f"   {p}" for p in report.unread)
    return "\n".join(lines)


def _details(name: str, f: Figures, limit: int) -> list[str]:
    out = []
    for title, items in (
        ("unaccounted records", f.unaccounted),
        ("texts not on a page", f.missing_texts),
        ("calls without their result", f.unpaired),
        ("raw-JSON events", [f"{n} × {t}" for t, n in f.raw_json.most_common()]),
    ):
        if items:
            out.append(f"{name}: {title} ({len(items)}):")
            out.extend(f"   {item}" for item in items[:limit])
    return out
