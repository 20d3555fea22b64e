"""AICS 1.0 (AI Coding Session interchange, JSON): the whole reader is ``reader``."""

from sessite.readers.formats.aics.reader import READER

__all__ = ["READER"]
