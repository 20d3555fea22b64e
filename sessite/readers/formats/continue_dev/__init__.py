"""Continue (continue.dev): ``~/.continue/sessions/<id>.json``, the index ``sessions.json``
beside them, and the dev data in ``~/.continue/dev_data/<version>/``.

A session file is ``{sessionId, title, workspaceDirectory, history, mode?, chatModelTitle?,
usage?}``; each history item (a record, numbered 1, 2 … in ``Event.line``) holds one
message (``user``, ``assistant``, ``thinking``, ``tool``, ``system``) and what Continue
kept beside it: the context attached, the model's prompt log, the state of each tool call
(arguments, status, output). Session files hold no times: the index gives each session its
start, and the dev data's ``chatInteraction`` log the time of each reply it logged. The
index and the dev data are claimed too, so every record is accounted for: an index entry
is merged into its session, a dev-data line (a telemetry copy of a model call) is counted.

Modules by job: ``vocabulary`` (tools, reasons), ``neighbours`` (the index and the dev
data, read for a session), ``state`` (one session's reading), ``messages`` (a history
item's events), ``calls`` (tool calls and results), ``session`` (a session file as a
Session; the index and the dev data as records), ``reader`` (detection, folders).
"""

from __future__ import annotations

from sessite.readers.formats.continue_dev.reader import READER, ContinueReader

__all__ = ["READER", "ContinueReader"]
