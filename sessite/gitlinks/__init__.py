"""Commits linked to the sessions that made them: git history read with the ``git`` command,
evidence collected from each session, and the links with their kind and confidence.

Placed below ``outputs`` (which draws the pages) and above ``search``: it reads the repositories
(never writing to them) and the normalized sessions, never a session's format.
"""
