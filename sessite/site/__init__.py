"""The view model and every URL: a session ready to render, its page parts, where each page lives.

Pure: no I/O and no HTML. ``render`` draws these views, ``outputs`` decides which pages exist.
"""
