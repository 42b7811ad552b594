"""Issue 16 in Debian's Chromium (Playwright): a scan with known problems (a figure, uncertain
lines) uploaded through the form under a long file name lands in the default review queue; a
reviewer fixes its headings and the downloaded HTML's table of contents and <title> follow;
approving with open findings asks first. A batch announces its progress through a live region.
Every page the way passes through: axe 0 violations, and no horizontal scrolling at 320 px."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from django.contrib.auth import get_user_model

from conversion.models import Job, JobStatus
from tests.axe import OVERFLOW_JS
from tests.browser.test_site import assert_axe_clean, sign_in
from tests.conftest import CORPUS, create_reviewer, wait_job

pytestmark = [pytest.mark.browser, pytest.mark.slow]
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API in the test

LONG_NAME = (
    "Quarterly-report-of-the-regional-water-authority-for-the-northern-districts-2024-"
    "final-version-scanned-at-the-front-desk.pdf"
)


def check_page(page, what: str) -> None:
    """axe clean at the desktop width, and no horizontal scrolling at 320 CSS px."""
    assert_axe_clean(page, what)
    size = page.viewport_size
    page.set_viewport_size({"width": 320, "height": 640})
    try:
        measured = page.evaluate(OVERFLOW_JS)
        assert measured["scrollWidth"] <= measured["clientWidth"], (what, measured)
        assert measured["offenders"] == [], (what, measured)
    finally:
        page.set_viewport_size(size)


def record_announcements(page, region_id: str) -> None:
    """Keep every text the live region takes in window.announced (from now on, until the
    page is left)."""
    page.evaluate(
        "(id) => { window.announced = []; const r = document.getElementById(id);"
        " new MutationObserver(() => window.announced.push(r.textContent))"
        ".observe(r, {childList: true, characterData: true, subtree: true}); }",
        region_id,
    )


def _pdf(name: str, source: str) -> dict:
    return {"name": name, "mimeType": "application/pdf", "buffer": (CORPUS / source).read_bytes()}


@pytest.mark.django_db(transaction=True)
def test_problems_reach_the_queue_and_a_heading_fix_reaches_the_download(
    live_server, browser, tmp_path
):
    users = get_user_model().objects
    users.create_user("alice", password="pw-alice-123")
    create_reviewer()
    base = live_server.url

    owner = browser.new_page(viewport={"width": 1280, "height": 900})
    owner.goto(f"{base}/accounts/login/")
    check_page(owner, "sign-in page")
    sign_in(owner, base, "alice", "pw-alice-123")
    check_page(owner, "upload page")
    owner.get_by_label("PDF files").set_input_files(_pdf(LONG_NAME, "c02-22.pdf"))
    owner.get_by_role("button", name="Convert").click()
    owner.wait_for_url(re.compile(r".*/jobs/[0-9a-f-]+/$"))
    job = Job.objects.get()
    check_page(owner, "job page while it runs")
    owner.wait_for_selector("#result-frame", timeout=120_000)
    job = wait_job(job.id)
    assert job.status == JobStatus.NEEDS_REVIEW  # the figure and the uncertain lines
    check_page(owner, "job page with the result")
    # report.html, served under the results' sandbox CSP: axe's script needs that lifted.
    href = owner.get_by_role("link", name="Read the accessibility report").get_attribute("href")
    context = browser.new_context(bypass_csp=True, storage_state=owner.context.storage_state())
    report = context.new_page()
    report.goto(base + href)
    assert "Accessibility report" in report.locator("h1").inner_text()
    check_page(report, "report.html")
    context.close()
    owner.get_by_role("link", name=re.compile("^Delete this document")).click()
    check_page(owner, "delete confirmation")

    # The reviewer finds it in the queue as it opens (no filter chosen), with its counts.
    reviewer = browser.new_page(viewport={"width": 1280, "height": 900})
    sign_in(reviewer, base, "rita", "pw-rita-123")
    reviewer.goto(f"{base}/review/")
    row = reviewer.locator("tbody tr", has_text=LONG_NAME)
    assert row.count() == 1
    cells = row.locator("td").all_inner_texts()
    # The figure at least (a few uncertain words are warnings, not open findings).
    assert cells[1] == str(job.open_findings) and int(cells[1]) >= 1
    check_page(reviewer, "review queue")
    row.get_by_role("link", name=LONG_NAME).click()
    reviewer.wait_for_url(re.compile(r".*/review/[0-9a-f-]+/pages/1/$"))
    findings = reviewer.locator("#findings-heading").locator("xpath=..").inner_text()
    assert "Figure 1 on page 1 has no description" in findings and "Uncertain text" in findings
    check_page(reviewer, "review page")

    # Fix the headings: the first becomes "Chapter Three", two paragraphs become sections.
    editor = reviewer.get_by_label("Page HTML")
    fragment = BeautifulSoup(editor.input_value(), "html.parser")
    heading = fragment.find(re.compile(r"^h[1-6]$"))
    if heading is None:  # the engine read no heading: the reviewer adds the chapter's
        heading = fragment.new_tag("h1")
        fragment.insert(0, heading)
    heading.name, heading.string = "h1", "Chapter Three"
    for i, p in enumerate(fragment.find_all("p", recursive=False)[:2]):
        p.name = "h2"
        p.string = ["The path", "The trees"][i]
    editor.fill(str(fragment))
    reviewer.get_by_role("button", name="Save page 1").click()
    reviewer.wait_for_load_state()
    assert "Page saved" in reviewer.locator(".messages").inner_text()

    # Approving with findings still open (the figure) asks first.
    reviewer.get_by_role("button", name="Approve document").click()
    reviewer.wait_for_load_state()
    assert "still open" in reviewer.locator("main").inner_text()
    check_page(reviewer, "approval confirmation")
    reviewer.get_by_role("button", name="Approve anyway").click()
    reviewer.wait_for_load_state()
    job.refresh_from_db()
    assert job.status == JobStatus.DONE and job.review.state == "approved"

    # The owner's download carries the new title and table of contents.
    owner.goto(f"{base}/jobs/{job.id}/")
    with owner.expect_download() as info:
        owner.get_by_role("link", name="Download HTML").click()
    download = info.value
    assert download.suggested_filename == LONG_NAME.replace(".pdf", ".html")
    html = BeautifulSoup(Path(download.path()).read_text(encoding="utf-8"), "html.parser")
    assert html.title.get_text() == "Chapter Three"
    toc = [a.get_text() for a in html.select("nav.toc a")]
    assert toc == ["Chapter Three", "The path", "The trees"]
    for a in html.select("nav.toc a"):
        assert html.find(id=a["href"][1:]) is not None


@pytest.mark.django_db(transaction=True)
def test_batch_progress_is_announced_in_a_live_region(live_server, browser):
    get_user_model().objects.create_user("alice", password="pw-alice-123")
    base = live_server.url
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    sign_in(page, base, "alice", "pw-alice-123")
    page.get_by_label("PDF files").set_input_files(
        [_pdf("linn.pdf", "linn.pdf"), _pdf(LONG_NAME, "c02-22.pdf")]
    )
    page.get_by_role("button", name="Convert").click()
    page.wait_for_url(re.compile(r".*/batches/[0-9a-f-]+/$"))
    region = page.locator("#batch-live")
    assert region.get_attribute("aria-live") == "polite"
    record_announcements(page, "batch-live")  # every text the region takes while it runs
    check_page(page, "batch page")
    page.wait_for_function(
        "() => document.getElementById('batch-summary').textContent"
        ".startsWith('2 of 2 documents finished')",
        timeout=180_000,
    )
    announced = page.evaluate("() => window.announced")
    assert announced, "the live region never changed"
    assert announced[-1].endswith("2 of 2 documents finished."), announced
    assert any("1 of 2 documents finished." in text for text in announced), announced
    check_page(page, "finished batch page")
    page.goto(f"{base}/")
    check_page(page, "upload page with the list of documents")
    page.goto(f"{base}/api/v1/docs")
    check_page(page, "API reference")
