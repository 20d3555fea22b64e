"""Everything a build writes besides each session's page, with the registry beside it.

``registry`` lists the site-wide aggregates (home, search, git refs, feed, project neighbours) and
the per-session outputs (downloads, the single HTML file); ``aggregate`` is the interface the
pipeline drives. "What pages does a build write" is answered in this one package.
"""
