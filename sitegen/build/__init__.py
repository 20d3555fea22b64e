"""The pipeline: discover → read → redact → view → render → write, on every core, incrementally."""

from sitegen.build.pipeline import build
from sitegen.build.report import BuildReport

__all__ = ["BuildReport", "build"]
