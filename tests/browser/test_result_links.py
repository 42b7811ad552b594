"""Result links in Debian's Chromium (issue 29): the job page's sandboxed frame loads the
document and its figure for the signed-in owner (the frame's navigation carries the SameSite=Lax
session cookie, its image requests none: they use the figures-only link), and the same link
opened without the owner's session is refused."""

from __future__ import annotations

import os
import re

import pymupdf
import pytest
from django.contrib.auth import get_user_model

from conversion.runner import jobs as runner
from tests import local_store
from tests.browser.test_site import sign_in
from tests.reliability.pdfs import text_pdf

pytestmark = [pytest.mark.browser]
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API in the test


def _job_with_a_figure(owner, tmp_path):
    job = runner.job_create(owner=owner, upload=text_pdf(tmp_path / "a.pdf"))
    for page_id in runner.job_prepare(job_id=job.id):
        runner.page_read(page_id=page_id)
    job = runner.job_finish(job_id=job.id)
    figures = local_store.files_dir(job.id)
    figures.mkdir(parents=True, exist_ok=True)
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 8, 8), False)
    pix.clear_with(128)
    (figures / "figure-1.png").write_bytes(pix.tobytes("png"))
    html = local_store.html_path(job.id)
    figure = '<img id="fig" src="document_files/figure-1.png" alt="A grey square">'
    html.write_text(html.read_text().replace("</main>", f"{figure}</main>", 1))
    return job


@pytest.mark.django_db(transaction=True)
def test_the_frame_loads_for_its_owner_and_the_link_for_no_one_else(live_server, browser, tmp_path):
    users = get_user_model().objects
    alice = users.create_user("alice", password="pw-alice-123")
    users.create_user("bob", password="pw-bob-123")
    job = _job_with_a_figure(alice, tmp_path)
    base = live_server.url

    page = browser.new_page()
    sign_in(page, base, "alice", "pw-alice-123")
    page.goto(f"{base}/jobs/{job.id}/")
    frame = page.frame_locator("#result-frame")
    assert frame.locator("main").inner_text().strip()
    loaded = frame.locator("#fig").evaluate("img => img.complete && img.naturalWidth === 8")
    assert loaded, "the figure in the sandboxed frame did not load"
    link = page.locator("#result-frame").get_attribute("src")
    assert re.fullmatch(r"/view/[^/]+/document\.html", link)

    for who in (None, ("bob", "pw-bob-123")):  # no session at all; another signed-in user
        other = browser.new_context().new_page()
        if who:
            sign_in(other, base, *who)
        response = other.goto(f"{base}{link}")
        assert response.status == 403, who
