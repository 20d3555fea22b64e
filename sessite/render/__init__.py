"""Rendering: one Jinja environment (``renderer``), markdown and code to safe HTML (``markup``),
diffs, the compact timeline, git-ref links, insights figures and chart geometry, and the page plan
(``pages``: which template draws which context). Templates and static files live at the top of
the repository (``resources`` finds them, in a checkout or a wheel).
"""
