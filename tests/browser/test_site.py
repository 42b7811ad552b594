"""The site in Debian's Chromium (Playwright): upload linn.pdf through the form, watch the per-page
progress reach 100 %, open the result, and run axe (WCAG 2.2 AA + best practice) on the upload page,
the job page and the review page: 0 violations. Keyboard: skip link first, visible focus."""

from __future__ import annotations

import os
import re

import pytest
from django.contrib.auth import get_user_model

from conversion.runner import jobs as runner
from tests.conftest import CORPUS, create_reviewer

pytestmark = [pytest.mark.browser, pytest.mark.slow]
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API in the test

AXE_OPTIONS = {
    "runOnly": {
        "type": "tag",
        "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"],
    },
    "resultTypes": ["violations"],
}


def assert_axe_clean(page, what: str) -> None:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, options=AXE_OPTIONS)
    assert results.violations_count == 0, f"{what}:\n{results.generate_report()}"


def sign_in(page, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_label("Password").press("Enter")
    page.wait_for_url(re.compile(r".*/$"))


@pytest.mark.django_db(transaction=True)
def test_upload_progress_result_and_axe(live_server, browser):
    users = get_user_model().objects
    users.create_user("alice", password="pw-alice-123")
    create_reviewer()
    base = live_server.url

    page = browser.new_page()
    sign_in(page, base, "alice", "pw-alice-123")
    assert_axe_clean(page, "upload page")

    # Keyboard: the first Tab reaches the skip link, and focus is visible.
    page.keyboard.press("Tab")
    focused = page.evaluate(
        "() => [document.activeElement.textContent, getComputedStyle(document.activeElement)"
        ".outlineStyle, getComputedStyle(document.activeElement).outlineWidth]"
    )
    assert focused[0] == "Skip to content" and focused[1] != "none" and focused[2] != "0px"

    page.get_by_label("PDF files").set_input_files(str(CORPUS / "linn.pdf"))
    assert "linn.pdf" in page.locator("#file-list").inner_text()
    page.get_by_role("button", name="Convert").click()
    page.wait_for_url(re.compile(r".*/jobs/[0-9a-f-]+/$"))

    # The progress bar reaches 100 % (the page reloads itself with the result when done).
    page.wait_for_function(
        "() => { const p = document.getElementById('progress');"
        " return p && p.max > 0 && p.value === p.max; }",
        timeout=120_000,
    )
    page.wait_for_selector("#result-frame", timeout=60_000)
    assert "(100 %)" in page.locator("#progress-text").inner_text()

    frame = page.frame_locator("#result-frame")
    assert "LinnSequencer" in frame.locator("main").inner_text()
    assert page.locator("#result-frame").get_attribute("sandbox") == ""
    for name in ("Download HTML", "Download zip (HTML, images, report)"):
        assert page.get_by_role("link", name=name).count() == 1
    assert_axe_clean(page, "job page")

    # The review page, as staff, on a document with a figure: the frame shows it (signed URL).
    job = runner.job_create(owner=None, upload=CORPUS / "c02-22.pdf")
    runner.job_run_inline(job_id=job.id)
    reviewer = browser.new_page()
    sign_in(reviewer, base, "rita", "pw-rita-123")
    reviewer.goto(f"{base}/review/{job.id}/pages/1/")
    reviewer.wait_for_load_state("load")
    loaded = (
        reviewer.frame_locator(".page-frame")
        .locator("img")
        .first.evaluate("img => img.complete && img.naturalWidth > 0")
    )
    assert loaded, "the figure in the sandboxed frame did not load"
    assert_axe_clean(reviewer, "review page")
    reviewer.goto(f"{base}/review/?status=all&state=any")
    assert_axe_clean(reviewer, "review queue")
