"""Issue 16, review that catches what is wrong: status from the report's evidence, the default
queue worst first, a review edit rebuilding everything derived from the content, approval with
open findings confirmed and recorded, a re-read page losing its approval, findings named for
people."""

from __future__ import annotations

import json
import re

import pytest
from bs4 import BeautifulSoup

from conversion import review, services
from conversion.findings import present
from conversion.models import Job, JobReview, JobStatus, ReviewEvent
from conversion.runner import jobs as runner
from tests import local_store


@pytest.mark.parametrize(
    ("summary", "status"),
    [
        ({"errors": 0, "warnings": 0, "needs_review": 0}, JobStatus.DONE),
        ({"errors": 0, "warnings": 4, "needs_review": 0}, JobStatus.DONE),  # warnings alone
        ({"errors": 1, "warnings": 0, "needs_review": 0}, JobStatus.NEEDS_REVIEW),
        ({"errors": 0, "warnings": 0, "needs_review": 1}, JobStatus.NEEDS_REVIEW),
        ({}, JobStatus.DONE),
    ],
)
def test_status_comes_from_the_evidence(summary, status):
    assert services.status_from_evidence(summary) == status


def test_a_scan_with_a_figure_and_uncertain_lines_ends_needing_review(job):
    # The fixture's job went through job_run_inline (job_finish) before the module's tests.
    report = json.loads(local_store.report_path(job.id).read_text())
    codes = {f["code"] for f in report["findings"]}
    assert {"FIGURE_ALT_REVIEW", "LOW_CONFIDENCE"} <= codes
    assert report["summary"]["errors"] == 0  # the old rule (errors only) said "done"
    open_findings = [f for f in report["findings"] if f["level"] in ("error", "needs_review")]
    assert job.status == JobStatus.NEEDS_REVIEW and job.open_findings == len(open_findings)


def _finished(name: str, summary: dict, owner=None) -> Job:
    return Job.objects.create(
        original_name=name,
        engine="ocr",
        owner=owner,
        status=services.status_from_evidence(summary),
        summary=summary,
    )


def test_the_default_queue_lists_what_needs_review_worst_first_with_counts(reviewer_client, db):
    Job.objects.update(status=JobStatus.DONE)  # other modules' jobs (rolled back after the test)
    _finished("clean.pdf", {"errors": 0, "warnings": 2, "needs_review": 0})
    _finished("few.pdf", {"errors": 0, "warnings": 0, "needs_review": 2})
    _finished("worst.pdf", {"errors": 3, "warnings": 0, "needs_review": 71})
    _finished("middle.pdf", {"errors": 0, "warnings": 1, "needs_review": 32})
    response = reviewer_client.get("/review/")
    page = BeautifulSoup(response.content, "html.parser")
    rows = [
        [td.get_text(" ", strip=True) for td in tr.find_all("td")[:5]]
        for tr in page.select("tbody tr")
    ]
    assert [r[0] for r in rows] == ["worst.pdf", "middle.pdf", "few.pdf"]  # clean.pdf is done
    assert rows[0][1:] == ["74", "3", "71", "0"]  # open, errors, to review, warnings
    assert "3 documents match" in page.get_text(" ")


def test_the_queue_pages(reviewer_client, db):
    Job.objects.update(status=JobStatus.DONE)
    for i in range(55):
        _finished(f"doc-{i:02}.pdf", {"errors": 0, "warnings": 0, "needs_review": 1 + i})
    first = BeautifulSoup(reviewer_client.get("/review/").content, "html.parser")
    assert len(first.select("tbody tr")) == 50
    assert first.select_one("tbody td").get_text(strip=True) == "doc-54.pdf"
    link = first.select_one('nav[aria-label="Pages of the review queue"] a[rel="next"]')
    second = BeautifulSoup(reviewer_client.get("/review/" + link["href"]).content, "html.parser")
    assert [td.get_text(strip=True) for td in second.select("tbody tr td:first-child")] == [
        f"doc-{i:02}.pdf" for i in range(4, -1, -1)
    ]


NEW_PAGE = (
    "<h1>Chapter Three</h1><p>It was a grey morning.</p>"
    "<h2>The walk</h2><p>They went along the path.</p><h2>The trees</h2><p>Tall ones.</p>"
)


def test_a_heading_fix_rebuilds_toc_title_and_findings(reviewer_client, job):
    before = BeautifulSoup(local_store.html_path(job.id).read_text(), "html.parser")
    assert before.title.get_text() != "Chapter Three" and before.select("nav.toc") == []
    response = reviewer_client.post(f"/review/{job.id}/pages/1/html", {"html": NEW_PAGE})
    assert response.status_code == 302
    after = BeautifulSoup(local_store.html_path(job.id).read_text(), "html.parser")
    assert after.title.get_text() == "Chapter Three"
    toc = after.select("nav.toc a")
    assert [a.get_text() for a in toc] == ["Chapter Three", "The walk", "The trees"]
    for a in toc:  # every entry points at a heading that exists
        assert after.find(id=a["href"][1:]).name in ("h1", "h2")
    assert len(after.find_all("h1")) == 1
    job.refresh_from_db()
    assert job.title == "Chapter Three"
    report = json.loads(local_store.report_path(job.id).read_text())
    assert report["title"] == "Chapter Three"
    # The figure and the uncertain lines are gone with the old text: nothing is left to check.
    assert report["summary"] == {"errors": 0, "warnings": 0, "needs_review": 0}
    assert job.status == JobStatus.DONE
    # The downloaded HTML follows too.
    download = b"".join(reviewer_client.get(f"/jobs/{job.id}/download.html").streaming_content)
    assert b"<title>Chapter Three</title>" in download and b'href="#h-' in download

    # Fewer than three headings: no table of contents, and an edit that adds a problem back
    # puts the job back in the queue.
    figure = next(local_store.files_dir(job.id).glob("*.png"))  # an image must exist to be kept
    img = f'<img src="{local_store.files_dir(job.id).name}/{figure.name}" alt="image">'
    reviewer_client.post(
        f"/review/{job.id}/pages/1/html",
        {"html": f"<h1>Only one</h1><p>Text</p><figure>{img}</figure>", "confirm": "on"},
    )
    after = BeautifulSoup(local_store.html_path(job.id).read_text(), "html.parser")
    assert after.select("nav.toc") == [] and after.title.get_text() == "Only one"
    job.refresh_from_db()
    assert job.status == JobStatus.NEEDS_REVIEW and job.summary["errors"] >= 1


def test_removing_every_heading_keeps_one_title_heading(reviewer_client, job):
    reviewer_client.post(f"/review/{job.id}/pages/1/html", {"html": "<p>Just text.</p>"})
    html = BeautifulSoup(local_store.html_path(job.id).read_text(), "html.parser")
    assert [h.get_text() for h in html.find_all("h1")] == [html.title.get_text()]
    assert html.select_one("header h1.doc-title") is not None


def test_approving_with_open_findings_asks_and_records_the_override(reviewer_client, job):
    open_count = job.open_findings
    assert open_count > 0
    response = reviewer_client.post(f"/review/{job.id}/decision", {"decision": "approve"})
    assert response.status_code == 409
    text = BeautifulSoup(response.content, "html.parser").get_text(" ")
    still_open = f"{open_count} finding{'s are' if open_count != 1 else ' is'} still open"
    assert still_open in text and "Approve anyway" in text
    job.refresh_from_db()
    assert job.status == JobStatus.NEEDS_REVIEW and not JobReview.objects.filter(job=job).exists()

    response = reviewer_client.post(
        f"/review/{job.id}/decision",
        {"decision": "approve", "confirm": "on", "note": "Figure is decorative"},
    )
    assert response.status_code == 302
    job.refresh_from_db()
    assert job.status == JobStatus.DONE and job.review.state == "approved"
    event = ReviewEvent.objects.get(job=job, action="approve")
    plural = "s" if open_count != 1 else ""
    assert f"Approved with {open_count} open finding{plural} (override)" in event.note
    assert "Figure is decorative" in event.note
    report = json.loads(local_store.report_path(job.id).read_text())
    assert report["review"]["open_findings_overridden"] == open_count

    # The same for one page.
    response = reviewer_client.post(f"/review/{job.id}/pages/1/decision", {"decision": "approve"})
    assert response.status_code == 409
    assert "still open on page 1" in response.content.decode()


def test_reading_a_page_again_clears_its_approval(reviewer, job):
    review.review_set_page_state(job=job, number=1, state="approved", actor=reviewer, override=True)
    assert JobReview.objects.get(job=job).page_states == {"1": "approved"}
    event = runner.page_rerun(job_id=job.id, number=1, actor_id=reviewer.pk)
    assert JobReview.objects.get(job=job).page_states == {}
    assert "earlier decision (approved) was cleared" in event.note
    job.refresh_from_db()
    assert job.status == JobStatus.NEEDS_REVIEW  # the same reading: the same open findings


def test_findings_are_named_for_people_grouped_and_skippable(reviewer_client, job):
    response = reviewer_client.get(f"/review/{job.id}/pages/1/")
    page = BeautifulSoup(response.content, "html.parser")
    section = page.find(id="findings-heading").parent
    text = section.get_text(" ")
    assert "Figure 1 on page 1 has no description" in text
    assert re.search(r"(Paragraph \d+|Heading “[^”]*”) on page 1 is uncertain: “[^”]+”", text), text
    assert "nth-of-type" not in text and "#content" not in text and "NEEDSREVIEW" not in text
    groups = section.find_all("details")
    summaries = [" ".join(d.summary.get_text(" ").split()) for d in groups]
    report = json.loads(local_store.report_path(job.id).read_text())
    uncertain = [f for f in report["findings"] if f["code"] == "LOW_CONFIDENCE"]
    assert uncertain
    # A page routes for its uncertain words only when they are a real share of it; else they
    # are listed as warnings (accessibility/rules.py LOW_CONFIDENCE_ROUTE_SHARE).
    level = "To review" if uncertain[0]["level"] == "needs_review" else "Warning"
    assert sorted(summaries) == sorted(
        [
            f"{level}: Uncertain text ({len(uncertain)})",
            "To review: Figures without a description (1)",
        ]
    )
    skip = section.find("a", href="#structure")
    assert skip is not None and page.find(id="structure").name == "section"
    # The link to a figure goes to its alt-text field on this page.
    assert section.find("a", href="#alt-figure-1") is not None
    assert page.find(id="alt-figure-1").name == "textarea"


def test_present_names_blocks_and_falls_back_to_the_message():
    html = (
        '<html><body><main id="content"><span role="doc-pagebreak" id="page-1"></span>'
        '<p>One</p><p>Two <span data-confidence="low">corporate</span></p>'
        '<span role="doc-pagebreak" id="page-2"></span><p>Three</p>'
        '<div class="table-scroll"><table id="table-1"><tr><td>x</td></tr></table></div>'
        "</main></body></html>"
    )
    findings = [
        {"code": "LOW_CONFIDENCE", "level": "needs_review", "page": 1,
         "message": "Low-confidence text to check: 'corporate'.",
         "element": "#content > p:nth-of-type(2) > span"},
        {"code": "TABLE_HEADERS_GUESSED", "level": "needs_review", "element": "#table-1"},
        {"code": "UNREADABLE_REGION", "level": "needs_review", "page": 2,
         "message": "A region could not be read."},
        {"code": "ENGINE_NOTE", "level": "warning", "message": "The answer was cut off."},
    ]  # fmt: skip
    groups = present(html=html, findings=findings)
    texts = [(g.title, [i.text for i in g.items]) for g in groups]
    assert texts == [  # the worst level first, then the largest group, then by name
        ("Tables with guessed header rows", [
            "Table 1 on page 2: no header cells were read, the first row was taken as the header"
        ]),
        ("Uncertain text", ["Paragraph 2 on page 1 is uncertain: “corporate”"]),
        ("Unreadable region", ["Page 2: A region could not be read."]),
        ("Engine note", ["The answer was cut off."]),
    ]  # fmt: skip
