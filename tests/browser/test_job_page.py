"""The job page in Debian's Chromium (issue 33): when a job ends its outcome appears in place (no
reload: the polite live region says so and focus moves to the result's heading); axe finds 0
violations on the job page in every state, on the batch page, the report and the site's own
403, 404 and 500 pages."""

from __future__ import annotations

import os

import pytest
from django.contrib.auth import get_user_model
from django.test import RequestFactory

from conversion import error_views, services
from conversion.models import Job, JobStatus
from conversion.runner import jobs as runner
from tests.browser.test_site import assert_axe_clean, sign_in
from tests.conftest import CORPUS

pytestmark = [pytest.mark.browser, pytest.mark.slow]
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API in the test


def _focused_on(ident: str) -> str:
    return f"() => document.activeElement && document.activeElement.id === '{ident}'"


def _axe(page, what: str) -> None:
    print(f"axe: {what}", flush=True)  # which page a hang or failure is on (pytest -s)
    assert_axe_clean(page, what)


@pytest.fixture
def alice():
    return get_user_model().objects.create_user("alice", password="pw-alice-123")


def _signed_in(browser, base: str):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    sign_in(page, base, "alice", "pw-alice-123")
    return page


@pytest.mark.django_db(transaction=True)
def test_focus_lands_on_the_result_when_the_job_ends_without_a_reload(live_server, browser, alice):
    job = runner.job_create(owner=alice, upload=CORPUS / "linn.pdf")  # queued, not started
    page = _signed_in(browser, live_server.url)
    page.goto(f"{live_server.url}/jobs/{job.id}/")
    assert page.locator("#result-heading").count() == 0
    page.evaluate("() => { window.sameDocument = true; }")  # gone if the page reloads

    runner.job_run_inline(job_id=job.id)

    page.wait_for_function(_focused_on("result-heading"), timeout=60_000)
    assert page.evaluate("() => window.sameDocument") is True, "the page reloaded"
    live = page.locator("#progress-live").inner_text()
    assert "The result is below." in live, live
    assert page.locator("#result-frame").count() == 1
    assert page.get_by_role("link", name="Download HTML").count() == 1
    assert_axe_clean(page, "job page, outcome put in place")


@pytest.mark.django_db(transaction=True)
def test_focus_lands_on_the_error_when_the_job_fails(live_server, browser, alice):
    job = runner.job_create(owner=alice, upload=CORPUS / "linn.pdf")
    page = _signed_in(browser, live_server.url)
    page.goto(f"{live_server.url}/jobs/{job.id}/")
    page.evaluate("() => { window.sameDocument = true; }")

    Job.objects.filter(pk=job.pk).update(
        status=JobStatus.FAILED, error_code="ENGINE_FAILED", error_message="The engine failed."
    )

    page.wait_for_function(_focused_on("outcome-heading"), timeout=30_000)
    assert page.evaluate("() => window.sameDocument") is True
    assert page.locator("#outcome-heading").inner_text() == "The server failed to convert this file"
    assert_axe_clean(page, "job page, failure put in place")


@pytest.mark.django_db(transaction=True)
def test_the_sites_404_passes_axe(live_server, browser, alice):
    page = _signed_in(browser, live_server.url)
    response = page.goto(f"{live_server.url}/no/such/page/")
    assert response.status == 404
    assert page.locator("h1").inner_text() == "Page not found"
    assert_axe_clean(page, "404 page")


@pytest.mark.django_db(transaction=True)
def test_every_state_of_the_job_page_and_the_sites_pages_pass_axe(live_server, browser, alice):
    base = live_server.url
    visitor = browser.new_page(viewport={"width": 1280, "height": 900})
    visitor.goto(f"{base}/accounts/login/")
    _axe(visitor, "sign-in page")
    visitor.goto(f"{base}/api/v1/docs")
    _axe(visitor, "API reference, signed out")
    page = _signed_in(browser, base)
    _axe(page, "upload page")

    batch = services.batch_create(owner=alice)
    done = runner.job_create(owner=alice, upload=CORPUS / "linn.pdf", batch=batch)
    waiting = runner.job_create(owner=alice, upload=CORPUS / "skew.pdf", batch=batch)
    page.goto(f"{base}/jobs/{waiting.id}/")
    assert page.locator("#job-status").inner_text() == "Queued"
    _axe(page, "job page, queued")
    page.goto(f"{base}/batches/{batch.id}/")
    _axe(page, "batch page, queued")

    Job.objects.filter(pk=waiting.pk).update(status=JobStatus.RUNNING, pages_total=3, pages_done=1)
    page.goto(f"{base}/jobs/{waiting.id}/")
    _axe(page, "job page, running")

    Job.objects.filter(pk=waiting.pk).update(
        status=JobStatus.FAILED, error_code="PDF_INVALID", error_message="Not a PDF."
    )
    page.goto(f"{base}/jobs/{waiting.id}/")
    assert page.locator("#outcome-heading").count() == 1
    _axe(page, "job page, failed (the file)")

    runner.job_run_inline(job_id=done.id)
    for status in (JobStatus.DONE, JobStatus.NEEDS_REVIEW):
        Job.objects.filter(pk=done.pk).update(status=status)
        page.goto(f"{base}/jobs/{done.id}/")
        page.wait_for_selector("#result-frame")
        _axe(page, f"job page, {status}")
    page.goto(f"{base}/batches/{batch.id}/")
    _axe(page, "batch page, finished")
    page.goto(f"{base}/")
    _axe(page, "upload page with its documents")
    page.goto(f"{base}/jobs/{done.id}/delete")
    _axe(page, "delete confirmation")
    # The report forbids script (a sandbox CSP): axe runs in a context that bypasses it.
    report = browser.new_context(bypass_csp=True)
    report.add_cookies(page.context.cookies())
    report_page = report.new_page()
    report_page.goto(f"{base}/jobs/{done.id}/report.html")
    _axe(report_page, "report")
    report.close()

    response = page.goto(f"{base}/review/")
    assert response.status == 403
    _axe(page, "403 page")
    # The 500 page as the server renders it, served under the site (its stylesheet loads).
    request = RequestFactory().get("/boom/")
    request.user = alice
    body = error_views.server_error(request).content
    page.route(
        f"{base}/boom/",
        lambda route: route.fulfill(status=500, body=body, content_type="text/html"),
    )
    response = page.goto(f"{base}/boom/")
    assert response.status == 500
    _axe(page, "500 page")
    page.goto(f"{base}/")
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_load_state("load")
    _axe(page, "signed out")
