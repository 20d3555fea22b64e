"""Amp (Sourcegraph) threads: the whole reader is ``reader``."""

from sessite.readers.formats.amp.reader import READER

__all__ = ["READER"]
