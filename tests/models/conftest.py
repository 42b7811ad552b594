"""The Tesseract engine the page-reading tests read with: one per test module, as each module
built its own."""

from __future__ import annotations

import pytest

from models.ocr import TesseractEngine


@pytest.fixture(scope="module")
def engine():
    engine = TesseractEngine()
    yield engine
    engine.close()
