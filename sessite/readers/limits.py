"""The caps that keep any input bounded: one place, so ``docs/limits.md`` and the code agree.

A small hostile file can claim gigabytes (a zstd frame of 6 million tiny messages, a
gzip of 2 GB of spaces, a write-ahead log whose commit says the database is huge, a
generated column that prints half a billion characters). Each cap below costs one
problem line naming the file and the cap when reached, and the build goes on.
"""

from __future__ import annotations

MIB = 1024 * 1024

# One line of a JSON-lines file: a longer line is skipped (its bytes read in chunks, never held).
MAX_LINE_BYTES = 64 * MIB
# Arrays and objects in one decoded JSON value (a line, an array element, a document, a
# database cell): each costs 100-600 bytes once decoded, so this bounds one value near 500 MB.
MAX_CONTAINERS = 1_000_000
# Elements of a top-level JSON array read (a claude.ai export's conversations), and messages
# of one thread or conversation kept: as many as the lines a JSON-lines file is read to.
MAX_RECORDS = 250_000
# Bytes a gzip file is unpacked to (``convert`` of a ``.gz``).
MAX_GUNZIP_BYTES = 256 * MIB
# Bytes all the zstd values of one database are decompressed to, together (each value on
# its own is capped by ``zstd.MAX_OUTPUT``).
MAX_ZSTD_PER_DATABASE = 512 * MIB
# What SQLite may build while a reader queries a database: the longest string or blob
# (``SQLITE_LIMIT_LENGTH``), and the virtual-machine steps one database may take.
SQLITE_MAX_LENGTH = 256 * MIB
SQLITE_STEP_BUDGET = 2_000_000_000
SQLITE_PROGRESS_EVERY = 100_000  # steps between two looks at the budget
# Folders below the archive's root that discovery walks into.
MAX_FOLDER_DEPTH = 64
