"""Issue 33's structured editor in Debian's Chromium (Playwright): a reviewer changes a heading's
level, marks a table's header row and caption, and is refused (what and where) when an edit
would remove the document's <h1>; an owner corrects their own document from its job page (alt
text, a heading) and the download carries it; an uncertain word is shown in the page; "Read
page 1 again" updates the review page in place, announced in a polite live region. axe: 0
violations on every state visited."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from django.contrib.auth import get_user_model

from conversion import storage
from conversion.runner import jobs as runner
from tests.browser.test_review_flow import check_page, record_announcements
from tests.browser.test_site import sign_in
from tests.conftest import CORPUS, create_reviewer, handmade_job

pytestmark = [pytest.mark.browser, pytest.mark.slow]
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API in the test


def _block(page, text: str):
    return page.locator("ol.blocks > li", has=page.locator(".block-preview", has_text=text))


def _main(job) -> BeautifulSoup:
    return BeautifulSoup(storage.read_html(job.id), "html.parser").find("main")


def _said(page) -> str:
    return page.locator(".messages").inner_text()


@pytest.mark.django_db(transaction=True)
def test_reviewer_changes_a_heading_marks_a_table_and_is_refused_removing_the_h1(
    live_server, browser
):
    owner = get_user_model().objects.create_user("olga", password="pw-olga-123")
    job = handmade_job(owner)
    create_reviewer()
    base = live_server.url
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    sign_in(page, base, "rita", "pw-rita-123")
    page.goto(f"{base}/review/{job.id}/pages/1/")
    check_page(page, "review page with the structure editor")

    # A heading's level, from the keyboard: the select by its label, then the button.
    block = _block(page, "Regional detail")
    block.get_by_label(re.compile(r"^Kind of block \d+$")).select_option(label="Heading level 2")
    block.get_by_role("button", name=re.compile(r"^Change the kind of block")).press("Enter")
    page.wait_for_load_state()
    assert "Structure saved." in _said(page)
    assert _main(job).find(string="Regional detail").parent.name == "h2"
    check_page(page, "review page after a heading change")

    # The scan can be opened at full size to transcribe from.
    scan = page.get_by_role("link", name="Open the scan of page 1 at full size (new tab)")
    assert scan.count() in (0, 1)  # the hand-made document has no scans

    # Page 3's table: its header row confirmed, its row headers and a caption.
    page.goto(f"{base}/review/{job.id}/pages/3/")
    table = _block(page, "Opening hours")
    table.get_by_label(re.compile("^Caption of table")).fill("Opening hours of the office")
    table.get_by_role("button", name=re.compile("^Save the caption")).click()
    page.wait_for_load_state()
    assert "Structure saved." in _said(page)
    table = _block(page, "Opening hours of the office")
    table.get_by_label(re.compile("^The first row is the header row")).check()
    table.get_by_label(re.compile("^The first column holds the row headers")).check()
    table.get_by_role("button", name=re.compile("^Save the header cells")).click()
    page.wait_for_load_state()
    assert "Structure saved." in _said(page)
    saved = _main(job).find(id="table-3")
    assert saved.caption.get_text() == "Opening hours of the office"
    assert saved.thead.find("th", scope="col") and saved.tbody.find("th", scope="row")
    assert saved.get("data-review") is None
    check_page(page, "review page after marking a table's header cells and caption")
    frame = page.frame(name="page-frame")
    assert frame.locator("#table-3 caption").inner_text() == "Opening hours of the office"

    # Demoting the title heading would leave no <h1>: refused, saying what and where.
    before = storage.read_html(job.id)
    page.goto(f"{base}/review/{job.id}/pages/1/")
    title = _block(page, "Annual report of the Example Society")
    title.get_by_label(re.compile(r"^Kind of block")).select_option(label="Heading level 2")
    title.get_by_role("button", name=re.compile(r"^Change the kind")).click()
    page.wait_for_load_state()
    alert = page.get_by_role("alert").inner_text()
    assert (
        "Page 1, heading “Annual report of the Example Society”: the document would have no "
        "level-1 heading" in alert
    )
    check_page(page, "refused edit")
    assert storage.read_html(job.id) == before
    page.get_by_role("link", name="Go back to page 1 without saving").click()
    page.wait_for_url(re.compile(r".*/pages/1/$"))
    assert _main(job).find("h1") is not None


@pytest.mark.django_db(transaction=True)
def test_owner_corrects_their_own_document(live_server, browser, tmp_path):
    owner = get_user_model().objects.create_user("olga", password="pw-olga-123")
    job = handmade_job(owner)
    base = live_server.url
    page = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    sign_in(page, base, "olga", "pw-olga-123")
    page.goto(f"{base}/jobs/{job.id}/")
    page.get_by_role("link", name=re.compile(r"^Correct the \d+ open items?")).click()
    page.wait_for_url(re.compile(r".*/review/[0-9a-f-]+/pages/1/$"))
    assert page.get_by_role("heading", level=1).inner_text().startswith("Correct:")
    assert page.get_by_role("button", name="Approve document").count() == 0
    check_page(page, "owner's correction page")

    # The figure without a description, on page 2: its alt-text form.
    page.get_by_role("link", name="Page 2", exact=True).click()
    page.get_by_label(re.compile(r"^Alt text for figure-2")).fill(
        "The new meeting hall: a brick building with a pointed roof"
    )
    page.get_by_role("button", name="Save alt text for figure-2").click()
    page.wait_for_load_state()
    assert "Alt text saved." in _said(page)
    check_page(page, "owner's correction page after an alt text")
    page.goto(f"{base}/review/{job.id}/pages/1/")
    block = _block(page, "Each region reports")
    block.get_by_label(re.compile(r"^Kind of block")).select_option(label="Heading level 3")
    block.get_by_role("button", name=re.compile(r"^Change the kind")).click()
    page.wait_for_load_state()
    assert "Structure saved." in _said(page)

    # The download carries both.
    page.goto(f"{base}/jobs/{job.id}/")
    with page.expect_download() as info:
        page.get_by_role("link", name="Download HTML").click()
    html = BeautifulSoup(Path(info.value.path()).read_text(encoding="utf-8"), "html.parser")
    assert html.find("img", alt=re.compile("^The new meeting hall")) is not None
    assert html.find("h3", string=re.compile("^Each region reports")) is not None
    check_page(page, "owner's job page after corrections")


@pytest.mark.django_db(transaction=True)
def test_an_uncertain_word_is_shown_and_a_page_read_again_updates_live(live_server, browser):
    owner = get_user_model().objects.create_user("olga", password="pw-olga-123")
    create_reviewer()
    job = runner.job_create(owner=owner, upload=CORPUS / "c02-22.pdf")
    runner.job_run_inline(job_id=job.id)
    base = live_server.url
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    sign_in(page, base, "rita", "pw-rita-123")
    page.goto(f"{base}/review/{job.id}/pages/1/")

    # "Show it in the page" on an uncertain word: the frame scrolls to it, highlighted.
    group = page.locator("details.findings-group", has_text="Uncertain text")
    if group.get_attribute("open") is None:  # a warning's group starts closed
        group.locator("summary").click()
    link = group.locator("a", has_text="Show it in the page").first
    assert "uncertain" in link.inner_text()  # its name says which finding
    link.click()
    frame = page.frame(name="page-frame")
    frame.wait_for_url(re.compile(r".*\?show=.*"))
    shown = frame.locator(".axiya-shown")
    assert shown.count() == 1 and shown.is_visible()
    assert frame.evaluate("() => location.hash") == "#axiya-shown"
    check_page(page, "review page showing an uncertain word")

    # The scan opens at full size.
    scan = page.get_by_role("link", name="Open the scan of page 1 at full size (new tab)")
    assert page.request.get(base + scan.get_attribute("href")).headers["content-type"] == (
        "image/png"
    )

    # Read page 1 again: the page says so, then updates in place and announces it.
    page.get_by_role("button", name="Read page 1 again").click()
    page.wait_for_url(re.compile(r".*\?reread=\d+$"))
    assert page.locator("#reread-live").get_attribute("aria-live") == "polite"
    record_announcements(page, "reread-live")
    page.wait_for_function(
        "() => document.getElementById('reread-live').textContent.includes('has been read')",
        timeout=180_000,
    )
    assert page.evaluate("() => window.announced")[-1].startswith(
        "Page 1 has been read again: the page, its findings and the editors now show"
    )
    assert not page.url.endswith(tuple("0123456789"))  # the address no longer waits
    assert "Re-ran page" in page.locator("#audit-section").inner_text()  # updated, no reload
    check_page(page, "review page after the page was read again")
