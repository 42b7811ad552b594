"""Browser fixtures: one Chromium for the whole session, outputs converted once and cached.

Needs Debian's /usr/bin/chromium (or AXIYA_CHROMIUM); the tests skip cleanly without it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.axe import CHROMIUM, AxeRunner


@pytest.fixture(scope="session")
def axe() -> Iterator[AxeRunner]:
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        pytest.skip(f"no Chromium at {CHROMIUM}")
    with AxeRunner() as runner:
        yield runner


@pytest.fixture(scope="session")
def browser_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("browser-out")


@pytest.fixture(scope="session")
def convert_cli(browser_out: Path):
    """Convert a corpus PDF with the CLI's ocr engine, once per session per file."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
    import django
    from django.apps import apps

    if not apps.ready:
        django.setup()
    from django.core.management import call_command

    done: dict[str, Path] = {}

    def convert(pdf: Path) -> Path:
        if pdf.stem not in done:
            out = browser_out / "corpus"
            call_command("convert", str(pdf), "--out", str(out), "--engine", "ocr", "--no-progress")
            done[pdf.stem] = out / f"{pdf.stem}.html"
        return done[pdf.stem]

    return convert
