"""The API page and the batch page in Debian's Chromium (issue 33): axe (WCAG 2.2 AA + best
practice) finds nothing in each state the tests visit, and the batch page's "N files are
queued." banner goes away when the last document of the batch ends, without a reload."""

from __future__ import annotations

import os
import re
import shutil

import pytest
from django.contrib.auth import get_user_model

from tests.browser.test_site import assert_axe_clean, sign_in
from tests.conftest import CORPUS

pytestmark = [pytest.mark.browser, pytest.mark.slow]
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API in the test


@pytest.mark.django_db(transaction=True)
def test_the_api_page_is_axe_clean_in_each_state(live_server, browser, settings):
    settings.AXIYA_WEBHOOK_ALLOWED_HOSTS = ["hooks.example.org", "10.0.0.0/8"]
    get_user_model().objects.create_user("alice", password="pw-alice-123", email="a@example.org")
    page = browser.new_page()
    sign_in(page, live_server.url, "alice", "pw-alice-123")
    page.get_by_role("link", name="API token").click()
    page.wait_for_url(re.compile(r".*/account/api/$"))
    assert_axe_clean(page, "API page, no token, no mail server")
    page.get_by_role("button", name="Make an API token").click()
    assert page.locator("#fresh-token").is_visible()
    assert_axe_clean(page, "API page, a new token shown")
    page.get_by_role("button", name="Make a new webhook secret").click()
    assert page.locator("#fresh-secret").is_visible() and not page.locator("#fresh-token").count()
    assert_axe_clean(page, "API page, a new secret shown")
    settings.EMAIL_HOST = "smtp.example.org"
    page.reload()
    page.get_by_label(re.compile("E-mail me at a@example.org")).check()
    page.get_by_role("button", name="Save").click()
    assert page.get_by_label(re.compile("E-mail me at")).is_checked()
    assert_axe_clean(page, "API page, e-mail chosen")
    # Reflow at 320 CSS px: no sideways scroll (the keys and the code wrap).
    page.set_viewport_size({"width": 320, "height": 640})
    assert page.evaluate("document.documentElement.scrollWidth <= 320")


@pytest.mark.django_db(transaction=True)
def test_the_queued_banner_goes_when_the_batch_ends(live_server, browser, tmp_path):
    get_user_model().objects.create_user("alice", password="pw-alice-123")
    page = browser.new_page()
    sign_in(page, live_server.url, "alice", "pw-alice-123")
    # Scans (read by OCR, a few seconds each): the batch is still running when its page opens.
    files = []
    for i in range(2):
        shutil.copy(CORPUS / "linn.pdf", tmp_path / f"scan-{i}.pdf")
        files.append(str(tmp_path / f"scan-{i}.pdf"))
    (tmp_path / "notes.pdf").write_bytes(b"not a pdf at all")
    page.get_by_label("PDF files").set_input_files([*files, str(tmp_path / "notes.pdf")])
    page.get_by_role("button", name="Convert").click()
    page.wait_for_url(re.compile(r".*/batches/[0-9a-f-]+/$"))
    banner = page.locator("#batch-queued")
    assert banner.inner_text() == "2 files are queued."
    page.wait_for_function(
        "() => document.getElementById('batch-summary').textContent.startsWith('2 of 2')",
        timeout=180_000,
    )
    assert banner.count() == 0
    assert "notes.pdf" in page.locator(".rejected").inner_text()
    assert page.get_by_role("link", name="Download all results (zip)").count() == 1
    assert_axe_clean(page, "batch page, ended")
