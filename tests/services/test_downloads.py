"""conversion.downloads: the names every download of a job gets, and the zip's members."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from bs4 import BeautifulSoup
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from conversion import downloads, review, storage
from conversion.models import Job, JobStatus, ReviewState
from conversion.pipeline.document import summarize
from conversion.runner import jobs as runner
from tests.reliability.pdfs import text_pdf


@pytest.mark.parametrize(
    ("upload", "stem"),
    [
        ("report.pdf", "report"),
        ("Report.PDF", "Report"),
        ("annual report 2024.v2.pdf", "annual report 2024.v2"),
        ("...pdf", "document"),  # was "..": zip members "../document.html"
        ("..pdf", "document"),
        ("....", "document"),
        ("", "document"),
        (".pdf", "document"),
        ("C:evil.pdf", "evil"),  # was "C:evil/..." in the zip
        ("c:\\Users\\x\\scan.pdf", "scan"),
        ("../../etc/passwd.pdf", "passwd"),
        ("a/b\\c.pdf", "c"),
        ("tab\there\x00nul\x7f.pdf", "tabherenul"),
        ("right\u202eto-left\u200b.pdf", "rightto-left"),  # format characters (Cf)
        ('what?<is>:"this"|*.pdf', "what__is___this___"),
        ("  .hidden .pdf", "hidden"),
        ("trailing. . .pdf", "trailing"),
        ("CON.pdf", "_CON"),
        ("lpt1.tar.pdf", "_lpt1.tar"),
        ("Łódź – raport.pdf", "Łódź – raport"),
        ("x" * 300 + ".pdf", "x" * downloads.STEM_MAX),
    ],
)
def test_download_names_are_safe_stems(upload, stem):
    job = Job(original_name=upload)
    assert downloads.download_stem(job) == stem
    assert downloads.zip_name(job) == f"{stem}.zip"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("upload", "folder"), [("...pdf", "document"), ("C:evil.pdf", "evil")])
def test_zip_members_stay_inside_one_relative_folder(tmp_path, upload, folder):
    owner = get_user_model().objects.create_user("zoe", password="pw-zoe-12345")
    job = runner.job_create(owner=owner, upload=text_pdf(tmp_path / "in.pdf"), original_name=upload)
    runner.job_run_inline(job_id=job.id)
    client = APIClient()
    client.force_authenticate(owner)
    response = client.get(f"/api/v1/jobs/{job.id}/zip")
    assert response.status_code == 200
    assert f'filename="{folder}.zip"' in response["Content-Disposition"]
    names = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))).namelist()
    assert f"{folder}/{folder}.html" in names
    for name in names:
        parts = name.split("/")
        assert parts[0] == folder and ".." not in parts and ":" not in name, name
    for path in (f"/api/v1/jobs/{job.id}/html", f"/api/v1/jobs/{job.id}/report"):
        disposition = client.get(path)["Content-Disposition"]
        assert f'filename="{folder}.' in disposition, disposition


def _notice(job: Job):
    body = BeautifulSoup(downloads.document_html(job).decode("utf-8"), "html.parser").body
    note = body.select_one('#document-status [role="note"]')
    if note is not None:  # the top of the page: right after the skip link, before the title
        second = body.find_all(True, recursive=False)[1]
        assert second.get("id") == "document-status" and second.find_parent("main") is None
    return note


@pytest.mark.django_db(transaction=True)
def test_an_unchecked_download_opens_with_a_notice_gone_once_approved(tmp_path):
    owner = get_user_model().objects.create_user("zoe", password="pw-zoe-12345")
    job = runner.job_create(
        owner=owner, upload=text_pdf(tmp_path / "in.pdf"), original_name="memo.pdf"
    )
    runner.job_run_inline(job_id=job.id)
    job.refresh_from_db()
    assert job.status == JobStatus.DONE and _notice(job) is None  # nothing open: no notice
    # Open findings, as a scan with uncertain words and a handwritten page gives them.
    report = downloads.read_report(job)
    report["findings"] = [
        {"code": "LOW_CONFIDENCE", "level": "needs_review", "message": "'corprate'."},
        {"code": "LOW_CONFIDENCE", "level": "needs_review", "message": "'tbe'."},
        {"code": "UNREADABLE", "level": "needs_review", "message": "Handwriting.", "page": 2},
        {"code": "PDF_REPAIRED", "level": "warning", "message": "Repaired."},
    ]
    report["summary"] = summarize(report["findings"])
    storage.write_reports(job.id, report_json=json.dumps(report), report_html="")
    stale = Job.objects.get(pk=job.pk)  # a row read before the status changed
    Job.objects.filter(pk=job.pk).update(status=JobStatus.NEEDS_REVIEW)
    job.refresh_from_db()
    assert _notice(stale) is not None  # the state now, not the caller's copy

    note = _notice(job)
    text = " ".join(note.get_text(" ").split())
    assert text.startswith("Not checked by a person")
    assert "Uncertain text (2)" in text and "not transcribed (page 2)" in text
    assert "Repaired" not in text  # a warning is not something left unchecked
    assert note.find("a")["href"] == "memo.report.html"
    assert "document-status" not in storage.read_html(job.id)  # never in the stored document
    with zipfile.ZipFile(downloads.job_zip(job=job)) as zf:
        assert b'id="document-status"' in zf.read("memo/memo.html")

    review.review_set_job_state(job=job, state=ReviewState.APPROVED, actor=None, override=True)
    job.refresh_from_db()
    assert _notice(job) is None

    review.review_set_job_state(
        job=job, state=ReviewState.REJECTED, actor=None, note="Page 2 is upside down."
    )
    text = " ".join(_notice(job).get_text(" ").split())
    assert text.startswith("Rejected by a reviewer") and "Page 2 is upside down." in text
