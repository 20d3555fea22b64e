"""Gemini Apps activity from Google Takeout: ``My Activity/Gemini Apps/MyActivity.json``.

Not the Gemini CLI (``readers/gemini``): this is the web app's activity log, an array of
items (``header: "Gemini Apps"``), each a prompt with Gemini's answer as HTML, or
something done in the app. It has no conversations, calls or tokens; items are grouped
into one Session per day. Records are the items, numbered 1, 2 … in file order.

Modules by job: ``html`` (the answer's HTML back to Markdown), ``items`` (one item's
events), ``reader`` (detection, days as Sessions).
"""

from __future__ import annotations

from sessite.readers.formats.gemini_takeout.reader import READER, GeminiTakeoutReader

__all__ = ["READER", "GeminiTakeoutReader"]
