"""Shared test fixtures: paths to the hand-written fixtures and the team's real samples."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sitegen.readers import Problems

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAMPLES = Path(os.environ.get("SESSITE_SAMPLES", REPO.parent / "shared" / "formats" / "samples"))


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def samples() -> Path:
    """The real sample files from ../shared/formats/samples; skips when absent."""
    if not SAMPLES.is_dir():
        pytest.skip(f"shared samples not found at {SAMPLES}")
    return SAMPLES


@pytest.fixture
def problems() -> Problems:
    return Problems()
