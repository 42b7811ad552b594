"""One conversion flow: the command line, the inline runner, Celery workers and a review re-run
write the same bytes for the same PDF, and every path contains a hostile PDF the same way."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from django.core.management import call_command

from conversion import dispatch, downloads
from conversion.models import Job, ReviewEvent
from conversion.pipeline.errors import ConversionError
from conversion.runner import jobs as runner
from tests import local_store
from tests.conftest import CORPUS, create_reviewer, run_convert, wait_job

# ../shared/corpus/ocrmypdf, as copied into tests/resources/corpus (PROVENANCE.md there): a
# skewed page, a page with a figure (its links compared too), a page in French. Multi-page
# documents come out the same inline and on a worker too: the crash tests compare both.
OCRMYPDF = ("skew.pdf", "c02-22.pdf", "francais.pdf")


def _site_outputs(job: Job) -> tuple[str, str]:
    """The HTML and report.json as the site hands them out (downloads: `<stem>_files/` links)."""
    return (
        downloads.document_html(job).decode("utf-8"),
        local_store.report_path(job.id).read_text(encoding="utf-8"),
    )


def _wait_event(job: Job, action: str, timeout: float = 120) -> None:
    deadline = time.time() + timeout
    while not ReviewEvent.objects.filter(job=job, action=action).exists():
        assert time.time() < deadline, f"no {action} on job {job.id}"
        time.sleep(0.3)


def test_every_path_writes_the_same_bytes(celery_worker_process, settings, tmp_path, client):
    sources = {name: CORPUS / name for name in OCRMYPDF}
    expected = {}
    for name, pdf in sources.items():  # the command line
        stem, out = Path(name).stem, tmp_path / "cli"
        call_command("convert", str(pdf), "--out", str(out), "--no-progress")
        expected[name] = (
            (out / f"{stem}.html").read_text(encoding="utf-8"),
            (out / f"{stem}.report.json").read_text(encoding="utf-8"),
        )
        assert (out / f"{stem}.report.html").exists()

    settings.AXIYA_INLINE_WORKER = True  # the in-process runner
    inline = {
        name: dispatch.submit(runner.job_create(owner=None, upload=pdf))
        for name, pdf in sources.items()
    }
    settings.AXIYA_INLINE_WORKER = False  # Celery workers (celery_worker_process)
    queued = {
        name: dispatch.submit(runner.job_create(owner=None, upload=pdf))
        for name, pdf in sources.items()
    }
    for paths in (inline, queued):
        for name, job in paths.items():
            job = wait_job(job.id, timeout=300)
            assert job.status in ("done", "needs_review"), (name, job.error_code)
            assert _site_outputs(job) == expected[name], name
            assert local_store.report_html_path(job.id).exists()
    assert any("_files/figure-" in html for html, _ in expected.values())  # links compared too

    # A review re-run, queued to the worker, after a reviewer's edit of that page: the engine's
    # reading again, and the same bytes as the first conversion.
    client.force_login(create_reviewer())
    for name, job in queued.items():
        # Confirmed: on a page with the document's <h1> the edit would ask first (issue 33).
        client.post(
            f"/review/{job.id}/pages/1/html", {"html": "<p>Temporary edit</p>", "confirm": "on"}
        )
        assert "Temporary edit" in _site_outputs(job)[0]
        response = client.post(f"/review/{job.id}/pages/1/decision", {"decision": "rerun"})
        assert response.status_code == 302
        _wait_event(job, ReviewEvent.Action.RERUN_PAGE)
        assert _site_outputs(job) == expected[name], name


# A page whose rendering needs more memory than a MuPDF child may take: only a capped child
# process can fail on it (the unbounded command line process would render it).
HOSTILE_ENV = {"AXIYA_MAX_PAGE_MEGAPIXELS": "200", "AXIYA_RASTER_MEMORY_MB": "256"}


@pytest.mark.django_db
def test_a_hostile_pdf_is_contained_on_the_command_line_as_on_the_site(settings, tmp_path):
    hostile = CORPUS / "bad" / "enormous.pdf"
    settings.AXIYA_MAX_PAGE_MEGAPIXELS = 200.0
    settings.AXIYA_RASTER_MEMORY_MB = 256
    try:
        job = runner.job_create(owner=None, upload=hostile)
        runner.job_run_inline(job_id=job.id)
        job.refresh_from_db()
        site_code = job.error_code
    except ConversionError as exc:
        site_code = exc.code
    assert site_code  # the site refused it, with a code

    good = shutil.copy(CORPUS / "linn.pdf", tmp_path / "linn.pdf")
    proc = run_convert(str(hostile), str(good), "--out", str(tmp_path / "out"), **HOSTILE_ENV)
    assert proc.returncode != 0
    assert f"enormous.pdf: error {site_code}:" in proc.stderr  # the same code as the site
    assert (tmp_path / "out" / "linn.html").exists()  # the process survived and went on
    assert not (tmp_path / "out" / "enormous.html").exists()  # nothing half-written
