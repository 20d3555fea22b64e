"""Sessions out to the interchange formats (AICS, HAIL, Markdown) and the ``sessite`` extension they carry.

The exports are written for other tools first: every event goes where the
format's own readers look for it (AICS messages and content parts, HAIL event
types and content blocks), and every file is valid by its format's rules.
What a format has no field for travels in its extension slot under the key
``sessite`` (``extension``); sessite's AICS and HAIL readers use it to give
back the same session (``sessite.readers.sessite_extension``); other tools
ignore it.

What still changes on a round trip (see docs/exports.md, "Round trips"): the session id
gains the reader's prefix (``aics-…``/``hail-…``), ``source`` names the export
file, and values the model holds that JSON cannot (tuples inside tool input,
datetimes inside metadata) come back as their JSON form.

Modules by job: ``extension`` (JSON forms, the extension slot), ``aics``,
``hail`` and ``markdown`` (one writer each, pure: session in, UTF-8 pieces
out), ``formats`` (the formats by name: suffixes, ``export_chunks``),
``streaming`` (joining pieces, reproducible gzip).
"""
