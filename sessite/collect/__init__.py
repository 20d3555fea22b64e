"""``sessite collect``: keep every session the agents' folders hold, in an archive that only grows.

Agents delete sessions after a while and rewrite them in place when they compact; a build that
reads their folders follows them, and the pages disappear. ``collect`` copies each session the
discovery of ``sessite discover`` finds into an archive, in the agent's own layout (the path below
the home folder), so ``sessite build ARCHIVE`` reads it like any archive:

- ``layout``: which files each agent folder holds and where each goes in the archive;
- ``snapshot``: a consistent copy of one file while the agent may be writing it (a JSON-lines
  file to its last complete line, a SQLite store through its backup API with its ``-wal``);
- ``compare``: whether a new copy only adds to the one in the archive, or drops some of it;
- ``run``: the pass over every file, which writes nothing when nothing is new;
- ``schedule``: the line that runs it daily on this system.

Nothing here writes to an agent's folder, and nothing is ever deleted from the archive: a copy the
agent shrank or rewrote is kept under ``.sessite-kept/<time>/`` (``readers.kept``).
"""

from sessite.collect.run import ACTIONS, Entry, Outcome, collect
from sessite.collect.schedule import schedule_for

__all__ = ["ACTIONS", "Entry", "Outcome", "collect", "schedule_for"]
