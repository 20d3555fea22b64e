"""Sessions out to the interchange formats (AICS, HAIL, Markdown) and the ``sessite`` extension they carry."""
