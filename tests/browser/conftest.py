"""Browser fixtures: one Chromium for this folder, outputs converted once and cached.

Needs Debian's /usr/bin/chromium (or AXIYA_CHROMIUM); the tests skip cleanly without it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.axe import CHROMIUM, CHROMIUM_ARGS, AxeRunner


@pytest.fixture(scope="package")
def chromium():
    """Debian's Chromium through Playwright, launched once for this folder's tests (a launch
    costs seconds on a loaded machine) and closed after its last one: a live sync Playwright
    leaves an asyncio loop running on the main thread, which no later test should meet."""
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        pytest.skip(f"no Chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def browser(chromium):
    """The folder's Chromium (over tests/conftest.py's one per test); every context and page a
    test opens is closed after it, so no cookie, storage or page polling the live server
    outlives the test."""
    before = set(chromium.contexts)
    yield chromium
    for context in chromium.contexts:
        if context not in before:
            context.close()


@pytest.fixture(scope="package")
def axe(chromium) -> Iterator[AxeRunner]:
    """axe on the folder's Chromium, a fresh context per check."""
    with AxeRunner(browser=chromium) as runner:
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
