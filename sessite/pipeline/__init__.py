"""The pipeline: discover → read → redact → view → render → write, on every core, incrementally."""

from sessite.pipeline.pipeline import build
from sessite.pipeline.report import BuildReport

__all__ = ["BuildReport", "build"]
