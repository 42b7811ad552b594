"""conversion.downloads: the names every download of a job gets, and the zip's members."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from conversion import downloads
from conversion.models import Job
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
