"""Issue 33 in Debian's Chromium: what a reader perceives of what nobody checked. A download of a
job that needs review opens with a note (visible, in the accessibility tree) that is gone once a
reviewer approves; uncertain words are highlighted and heard as "uncertain:"; page markers are
named "Page N"; a handwritten page shows its image after a note; the site's 403 and 404 pages
have its navigation and a main landmark. axe: 0 violations on each."""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from conversion import review
from conversion.models import JobStatus, ReviewState
from conversion.runner import jobs as runner
from tests.axe import CHROMIUM, CHROMIUM_ARGS
from tests.browser.test_site import assert_axe_clean, sign_in
from tests.conftest import CORPUS, create_reviewer

pytestmark = [pytest.mark.browser, pytest.mark.slow]
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API in the test
REALWORLD = CORPUS / "realworld"


def accessible_tree(page) -> list[tuple[str, str, str]]:
    """(role, name, text) of every node Chromium's accessibility tree exposes, in tree order:
    what a screen reader is given, CSS-generated text included."""
    nodes = page.context.new_cdp_session(page).send("Accessibility.getFullAXTree")["nodes"]
    by_id = {n["nodeId"]: n for n in nodes}

    def text(node: dict) -> str:
        if node.get("role", {}).get("value") == "StaticText":
            return node.get("name", {}).get("value", "")
        kids = [by_id[c] for c in node.get("childIds", []) if c in by_id]
        return " ".join(t for t in (text(k) for k in kids) if t)

    return [
        (n.get("role", {}).get("value", ""), n.get("name", {}).get("value", ""), text(n))
        for n in nodes
        if not n.get("ignored")
    ]


def _download(page, base: str, job, path: Path):
    page.goto(f"{base}/jobs/{job.id}/")
    with page.expect_download() as info:
        page.get_by_role("link", name="Download HTML").click()
    info.value.save_as(path)
    return path


@pytest.mark.django_db(transaction=True)
def test_an_unchecked_download_says_so_until_approved(live_server, browser, tmp_path):
    alice = get_user_model().objects.create_user("alice", password="pw-alice-123")
    create_reviewer()
    job = runner.job_create(owner=alice, upload=CORPUS / "c02-22.pdf", original_name="c02-22.pdf")
    runner.job_run_inline(job_id=job.id)
    job.refresh_from_db()
    assert job.status == JobStatus.NEEDS_REVIEW  # a figure and uncertain words

    context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    sign_in(page, live_server.url, "alice", "pw-alice-123")
    document = context.new_page()
    document.goto(_download(page, live_server.url, job, tmp_path / "first.html").as_uri())

    note = document.get_by_role("note").first
    assert note.is_visible() and note.inner_text().startswith("Not checked by a person")
    tree = accessible_tree(document)
    notes = [t for role, name, t in tree if role == "note" and name == "Not checked by a person"]
    assert notes and "What was not checked" in notes[0]
    # Uncertain words: seen (highlighted, underlined) and heard ("uncertain:" first).
    mark = document.locator("mark.uncertain").first
    style = mark.evaluate(
        "e => [getComputedStyle(e).backgroundColor, getComputedStyle(e).textDecorationLine]"
    )
    assert style[0] not in ("rgba(0, 0, 0, 0)", "rgb(255, 255, 255)") and "underline" in style[1]
    marks = [t for role, _, t in tree if role == "mark"]
    assert marks and all(t.startswith("uncertain:") for t in marks)
    # Page markers are named "Page N" (a bare "1" was heard as "1, separator").
    assert ("doc-pagebreak", "Page 1") in [(role, name) for role, name, _ in tree]
    assert_axe_clean(document, "an unchecked download")

    review.review_set_job_state(job=job, state=ReviewState.APPROVED, actor=None, override=True)
    document.goto(_download(page, live_server.url, job, tmp_path / "approved.html").as_uri())
    assert document.get_by_role("note").count() == 0
    assert "Not checked" not in document.locator("main").inner_text()
    context.close()


def test_a_handwritten_page_shows_its_image_and_says_it_was_not_transcribed(convert_cli):
    html = convert_cli(REALWORLD / "handwriting_bad_ocr.pdf")
    # Its own Chromium on a thread of its own: after this conversion in the test session the
    # main thread may hold a running asyncio loop, where Playwright's sync API refuses to start.
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(_check_handwritten_page, html).result()


def _check_handwritten_page(html: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        # bypass_csp: the output forbids every script; axe is injected by the test only.
        context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(html.as_uri())
        for number in (1, 2):
            # "Page N is handwritten", or "Parts of page N" where the floor kept its sure words.
            note = page.get_by_role("note").filter(
                has_text=re.compile(rf"age {number} .*handwritten")
            )
            assert note.is_visible()
            assert "not transcribed" in note.inner_text()
            assert note.get_by_role("link", name="the accessibility report").count() == 1
            image = page.get_by_role("img", name=f"Page {number} as scanned, not transcribed")
            assert image.evaluate("img => img.complete && img.naturalWidth > 0")
        # The document as a whole opens with the notice of what nobody checked.
        assert page.locator("#document-status [role=note]").inner_text().startswith("Not checked")
        assert_axe_clean(page, "a handwritten document")
        browser.close()


@pytest.mark.django_db(transaction=True)
def test_the_sites_error_pages_have_its_frame_and_pass_axe(live_server, browser):
    get_user_model().objects.create_user("zoe", password="pw-zoe-12345")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    response = page.goto(f"{live_server.url}/no/such/page/")
    assert response.status == 404
    assert page.get_by_role("main").count() == 1
    assert page.get_by_role("navigation", name="Site").count() == 1
    assert page.get_by_role("heading", level=1).inner_text() == "Page not found"
    assert_axe_clean(page, "404 page")

    sign_in(page, live_server.url, "zoe", "pw-zoe-12345")
    response = page.goto(f"{live_server.url}/review/")
    assert response.status == 403
    assert "The review dashboard is for reviewers." in page.get_by_role("main").inner_text()
    assert_axe_clean(page, "403 page")
