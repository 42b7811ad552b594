"""The review dashboard: staff only, queue filters, alt-text and page-HTML edits (sanitized again),
approve / reject / re-run, the audit trail, and the downloads carrying the reviewer's fix."""

from __future__ import annotations

import io
import json
import zipfile

from django.test import Client

from conversion import review, services
from conversion.models import JobStatus, ReviewEvent
from tests import local_store
from tests.api.test_api import api_for


def test_the_dashboard_is_staff_only(client, job, db):
    assert client.get("/review/").status_code == 302  # anonymous: to the sign-in page
    assert client.get(f"/review/{job.id}/pages/1/").status_code == 302
    client.force_login(job.owner)
    assert client.get("/review/").status_code == 403
    # The owner corrects their own document (issue 33) but decides nothing.
    assert client.get(f"/review/{job.id}/pages/1/").status_code == 200
    response = client.post(f"/review/{job.id}/decision", {"decision": "approve"})
    assert response.status_code == 403


def test_queue_filters(reviewer_client, job):
    url = "/review/?status=all&state=any"
    assert job.original_name.encode() in reviewer_client.get(url).content
    assert job.original_name.encode() in reviewer_client.get(url + "&engine=ocr").content
    assert job.original_name.encode() not in reviewer_client.get(url + "&engine=gemma").content
    has = "needs_review" if job.summary["needs_review"] else "none"
    assert job.original_name.encode() in reviewer_client.get(url + f"&findings={has}").content
    assert job.original_name.encode() not in reviewer_client.get(url + "&status=failed").content


def test_reviewer_fixes_alt_text_and_approves_downloads_carry_it(reviewer_client, reviewer, job):
    figures = review.page_figures(job=job, number=1)
    assert figures and figures[0]["needs_alt"], "c02-22 has a figure without a description"
    page = reviewer_client.get(f"/review/{job.id}/pages/1/")
    assert page.status_code == 200
    assert b"Figure 1 on page 1 has no description" in page.content
    assert f'id="alt-{figures[0]["id"]}"'.encode() in page.content

    alt = "Bar chart of yearly rainfall, highest in 1998"
    response = reviewer_client.post(
        f"/review/{job.id}/pages/1/alt", {"figure": figures[0]["id"], "alt": alt}
    )
    assert response.status_code == 302
    response = reviewer_client.post(
        f"/review/{job.id}/decision", {"decision": "approve", "confirm": "on"}
    )
    assert response.status_code == 302
    job.refresh_from_db()
    assert job.status == JobStatus.DONE and job.review.state == "approved"

    # Every download now carries the fix: web, API, zip; the report is re-checked.
    owner = api_for(job.owner)
    html = b"".join(owner.get(f"/api/v1/jobs/{job.id}/html").streaming_content).decode()
    assert f'alt="{alt}"' in html and 'data-review="alt-missing"' not in html
    archive = zipfile.ZipFile(
        io.BytesIO(b"".join(owner.get(f"/api/v1/jobs/{job.id}/zip").streaming_content))
    )
    assert alt in archive.read("c02-22/c02-22.html").decode()
    report = json.loads(archive.read("c02-22/c02-22.report.json"))
    assert not [f for f in report["findings"] if f["code"] == "FIGURE_ALT_REVIEW"]
    assert report["review"]["state"] == "approved" and report["review"]["reviewer"] == "rita"
    reviewer_client.force_login(job.owner)
    web = reviewer_client.get(f"/jobs/{job.id}/download.html")
    assert alt in b"".join(web.streaming_content).decode()

    events = list(ReviewEvent.objects.filter(job=job).order_by("created_at", "id"))
    assert [e.action for e in events] == ["edit_alt", "approve"]
    assert events[0].actor == reviewer and events[0].after == alt
    assert events[0].target == f"#{figures[0]['id']}" and events[0].page == 1
    assert "not yet described" in events[0].before


def test_page_html_edit_is_sanitized_again(reviewer_client, reviewer, job):
    evil = (
        '<h2>Corrected heading</h2><p onclick="x()">Fixed text <script>alert(1)</script>'
        '<a href="https://evil.example/">link</a></p><span role="doc-pagebreak" id="page-9"></span>'
    )
    # A first heading at level 2 leaves the document without an <h1>: confirmed.
    response = reviewer_client.post(
        f"/review/{job.id}/pages/1/html", {"html": evil, "confirm": "on"}
    )
    assert response.status_code == 302
    html = local_store.html_path(job.id).read_text()
    assert "Corrected heading" in html and "Fixed text" in html
    for bad in ("<script", "onclick", "evil.example", 'id="page-9"'):
        assert bad not in html
    assert html.count('role="doc-pagebreak') == 1
    event = ReviewEvent.objects.get(job=job, action="edit_html")
    assert event.actor == reviewer and "Corrected heading" in event.after and event.before
    page = reviewer_client.get(f"/review/{job.id}/pages/1/")
    assert b"Edited page HTML" in page.content and b"rita" in page.content


def test_page_decisions_and_reject(reviewer_client, job):
    # "rerun" is queued: tests/system/test_one_flow.py and tests/dispatch/test_rerun.py.
    reviewer_client.post(f"/review/{job.id}/pages/1/html", {"html": "<p>Temporary edit</p>"})
    assert "Temporary edit" in local_store.html_path(job.id).read_text()
    reviewer_client.post(
        f"/review/{job.id}/pages/1/decision", {"decision": "approve", "confirm": "on"}
    )
    reviewer_client.post(
        f"/review/{job.id}/decision", {"decision": "reject", "note": "Columns are mixed up"}
    )
    job.refresh_from_db()
    assert job.review.page_states == {"1": "approved"}
    assert job.review.state == "rejected" and job.review.note == "Columns are mixed up"
    actions = list(ReviewEvent.objects.filter(job=job).values_list("action", flat=True))
    assert set(actions) == {"edit_html", "approve_page", "reject"}
    # The owner sees the verdict on the job page.
    reviewer_client.force_login(job.owner)
    assert b"Columns are mixed up" in reviewer_client.get(f"/jobs/{job.id}/").content


def test_review_frames_use_signed_links(reviewer_client, job):
    page = reviewer_client.get(f"/review/{job.id}/pages/1/")
    anonymous = Client()
    token, figures = page.context["token"], page.context["figures_token"]
    # The frame's own request carries the reviewer's cookie (a same-site navigation) ...
    assert anonymous.get(f"/view/{token}/page-1.html").status_code == 403  # no session
    frame = reviewer_client.get(f"/view/{token}/page-1.html")
    assert frame.status_code == 200
    assert frame["Content-Security-Policy"].startswith("sandbox")
    assert reviewer_client.get(f"/view/{token}x/page-1.html").status_code == 404
    # ... its images none (an opaque origin): they are listed under the figures-only link.
    figure = review.page_figures(job=job, number=1)[0]["src"].split("/")[-1]
    assert f'src="/view/{figures}/document_files/{figure}"' in frame.content.decode()
    assert anonymous.get(f"/view/{figures}/document_files/{figure}").status_code == 200
    assert anonymous.get(f"/view/{token}/document_files/{figure}").status_code == 404
    assert anonymous.get(f"/view/{figures}/document_files/..%2Fdocument.html").status_code == 404


def test_the_audit_trail_outlives_its_job(reviewer_client, reviewer, job):
    reviewer_client.post(
        f"/review/{job.id}/decision", {"decision": "reject", "note": "Columns are mixed up"}
    )
    job_id, name = job.id, job.original_name
    services.job_delete(job=job)
    (event,) = ReviewEvent.objects.filter(job_ref=job_id)
    assert event.job is None and event.job_name == name
    assert (event.action, event.actor, event.note) == ("reject", reviewer, "Columns are mixed up")
