"""Issue 8, input: every cap and limit holds, hostile content is ignored or refused with a code."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pymupdf
import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from conversion import services
from conversion.models import Job, JobStatus, Page, PageStatus
from conversion.pipeline.errors import ConversionError, PageTimeout, PageTooComplex
from conversion.pipeline.isolate import run_isolated
from conversion.pipeline.rasterize import RasterOptions, render_page_file
from conversion.pipeline.validate import Limits, validate_pdf
from conversion.runner import jobs as runner
from models.engine import PageReading, ReadBlock
from tests import local_store
from tests.conftest import CORPUS
from tests.reliability.pdfs import (
    active_content_pdf,
    broken_xref_pdf,
    flate_bomb_pdf,
    gib_bomb_pdf,
    nested_forms_pdf,
    text_pdf,
)


@pytest.fixture
def user(db):
    return get_user_model().objects.create_user("alice", password="pw-alice-123")


def _create_code(path, **kwargs) -> str:
    with pytest.raises(ConversionError) as info:
        runner.job_create(upload=path, **kwargs)
    assert Job.objects.count() == 0  # refused before anything was stored
    return info.value.code


def _convert(job: Job) -> Job:
    for page_id in runner.job_prepare(job_id=job.id):
        runner.page_read(page_id=page_id)
    return runner.job_finish(job_id=job.id)


# --- caps -----------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_size_cap(user, settings):
    settings.AXIYA_MAX_UPLOAD_MB = 1
    assert _create_code(CORPUS / "multipage.pdf", owner=user) == "FILE_TOO_LARGE"  # 1.1 MB


@pytest.mark.django_db
def test_page_cap(user, settings):
    settings.AXIYA_MAX_PAGES = 5
    assert _create_code(CORPUS / "multipage.pdf", owner=user) == "TOO_MANY_PAGES"  # 6 pages


@pytest.mark.django_db
def test_image_pixel_cap(user, settings):
    assert _create_code(CORPUS / "bad" / "hugemono.pdf", owner=user) == "PAGE_TOO_LARGE"
    settings.AXIYA_MAX_IMAGE_MEGAPIXELS = 1.0
    assert _create_code(CORPUS / "linn.pdf", owner=user) == "PAGE_TOO_LARGE"


@pytest.mark.django_db
def test_render_pixel_cap_shrinks_poster_pages(user, settings, tmp_path):
    settings.AXIYA_MAX_PAGE_MEGAPIXELS = 2.0
    job = runner.job_create(owner=user, upload=CORPUS / "bad" / "enormous.pdf")
    runner.job_prepare(job_id=job.id)
    from PIL import Image

    with Image.open(local_store.page_image(job.id, 1)) as img:
        assert img.width * img.height <= 2.0e6 * 1.01


# --- encryption, damage, active content, bombs -----------------------------------------------


@pytest.mark.django_db
def test_encrypted_pdf_is_refused_and_empty_user_password_opens(user, tmp_path):
    src = pymupdf.open(text_pdf(tmp_path / "plain.pdf"))
    locked = tmp_path / "locked.pdf"
    src.save(locked, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="o")
    assert _create_code(locked, owner=user) == "PDF_ENCRYPTED"
    restricted = tmp_path / "restricted.pdf"
    src.save(restricted, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", permissions=0)
    job = _convert(runner.job_create(owner=user, upload=restricted))
    assert job.status in (JobStatus.DONE, JobStatus.NEEDS_REVIEW)
    assert "ferry schedule" in local_store.html_path(job.id).read_text()


@pytest.mark.django_db
def test_broken_xref_is_repaired(user, tmp_path):
    path = broken_xref_pdf(text_pdf(tmp_path / "plain.pdf"), tmp_path / "broken.pdf")
    assert validate_pdf(path, Limits()).repaired
    job = _convert(runner.job_create(owner=user, upload=path))
    assert "ferry schedule" in local_store.html_path(job.id).read_text()


@pytest.mark.django_db
def test_unrepairable_pdf_is_refused_with_a_code(user, tmp_path):
    data = (CORPUS / "linn.pdf").read_bytes()
    path = tmp_path / "cut.pdf"
    path.write_bytes(data[:600])
    assert _create_code(path, owner=user) in ("PDF_DAMAGED", "NO_PAGES")


@pytest.mark.django_db
def test_javascript_and_embedded_files_never_reach_the_output(user, tmp_path):
    path = active_content_pdf(tmp_path / "active.pdf")
    job = _convert(runner.job_create(owner=user, upload=path))
    assert job.status in (JobStatus.DONE, JobStatus.NEEDS_REVIEW)
    out = local_store.out_dir(job.id)
    html = local_store.html_path(job.id).read_text()
    assert "ferry schedule" in html  # it converted
    everything = "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())
    for leak in ("PWNED", "payload.html", "javascript:", "<script"):
        assert leak not in everything, leak


@pytest.mark.django_db
def test_flate_decompression_bomb_is_refused(user, tmp_path):
    path = flate_bomb_pdf(tmp_path / "bomb.pdf", inflated_mb=200)
    assert path.stat().st_size < 2 * 2**20
    started = time.perf_counter()
    assert _create_code(path, owner=user) == "PDF_BOMB"
    assert time.perf_counter() - started < 30


BOMB_RSS_LIMIT_MB = 256  # what refusing a bomb may add to any process on the web host, MiB
SAMPLE_S = 0.005  # how often the reader processes' memory is looked at


def _status_kb(pid: int | str, key: str) -> int:
    """A `key:  N kB` line of /proc/<pid>/status, in KiB (0 once the process is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _children(pid: int) -> list[int]:
    """The processes any thread of `pid` started (Linux /proc/<pid>/task/<tid>/children): a
    walk down from this process stays quick on a busy machine, where a scan of all of /proc
    missed a reader that lived a few milliseconds."""
    found = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            found += map(int, Path(f"/proc/{pid}/task/{tid}/children").read_text().split())
    except (OSError, ValueError):
        pass
    return found


def _grandchildren(pid: int) -> list[int]:
    """Every process below `pid`'s children (the fork server's readers, and below)."""
    below, frontier = [], _children(pid)
    while frontier:
        frontier = [kid for parent in frontier for kid in _children(parent)]
        below += frontier
    return below


class ReaderPeak:
    """The most any reader (a process forked by a descendant of this one: the isolated readers
    under the fork server) added to its memory while this runs, in MiB: its peak RSS (VmHWM)
    over its RSS when first seen, within SAMPLE_S of its start (a forked reader maps less
    than the fork server's RSS, so that is no baseline)."""

    def __init__(self) -> None:
        self.added_mb = 0.0
        self._idle_kb: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> ReaderPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _watch(self) -> None:
        me = os.getpid()
        while not self._stop.wait(SAMPLE_S):
            for pid in _grandchildren(me):
                rss = _status_kb(pid, "VmRSS")
                idle = self._idle_kb.setdefault(pid, rss)
                added = _status_kb(pid, "VmHWM") - idle
                self.added_mb = max(self.added_mb, added / 1024)

    @property
    def readers(self) -> int:
        return len(self._idle_kb)


def _own_peak_reset() -> int:
    """Resets this process's peak RSS to its RSS now (Linux clear_refs 5); the RSS, in KiB."""
    Path("/proc/self/clear_refs").write_text("5")
    return _status_kb("self", "VmRSS")


@pytest.mark.django_db
@pytest.mark.parametrize("where", ["contents", "form"])
def test_a_gib_bomb_is_refused_in_bounded_memory(user, tmp_path, where):
    """Issue 29: a 3.7 MB upload whose page contents (or a form the page draws) inflate to
    3.5 GiB took the web host's reader to 3.1 GB RSS before the coded 413. Uploaded through
    the API, it is refused as PDF_BOMB with every process adding less than 256 MiB."""
    path = gib_bomb_pdf(tmp_path / "bomb.pdf", where=where)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    upload = SimpleUploadedFile("bomb.pdf", path.read_bytes(), "application/pdf")
    idle_kb = _own_peak_reset()
    with ReaderPeak() as readers:
        response = client.post("/api/v1/jobs", {"file": upload}, format="multipart")
    web_added_mb = (_status_kb("self", "VmHWM") - idle_kb) / 1024
    assert response.status_code == 413, response.content
    assert response.json()["error"]["code"] == "PDF_BOMB"
    assert Job.objects.count() == 0
    assert readers.readers and readers.added_mb < BOMB_RSS_LIMIT_MB, readers.added_mb
    assert web_added_mb < BOMB_RSS_LIMIT_MB, web_added_mb


@pytest.mark.django_db
def test_an_image_bomb_is_not_inflated_by_validation(user, tmp_path):
    """Validation reads an image's declared size, never its data (MuPDF decodes no more than
    the declared pixels when it draws): a 3.5 GiB image stream costs it nothing."""
    path = gib_bomb_pdf(tmp_path / "bomb.pdf", where="image")
    with ReaderPeak() as readers:
        job = runner.job_create(owner=user, upload=path)
    assert job.pages_total == 1
    assert readers.readers and readers.added_mb < BOMB_RSS_LIMIT_MB, readers.added_mb


@pytest.mark.django_db
def test_nested_form_xobjects_are_refused_fast(user, tmp_path):
    """Issue 17: 9 levels of forms, each drawing the next 10 times (10**9 draws, 4 KB)."""
    path = nested_forms_pdf(tmp_path / "nested.pdf")
    assert path.stat().st_size < 8 * 1024
    started = time.perf_counter()
    assert _create_code(path, owner=user) == "PAGE_TOO_COMPLEX"
    assert time.perf_counter() - started < 30
    # The isolated rasterizer refuses it too (a job made before this check, another entry).
    started = time.perf_counter()
    with pytest.raises(PageTooComplex):
        run_isolated(render_page_file, path, 0, RasterOptions(), tmp_path / "p.png",
                     timeout_s=300, memory_mb=1024)  # fmt: skip
    assert time.perf_counter() - started < 30


def test_plausibly_nested_forms_pass(tmp_path):
    path = nested_forms_pdf(tmp_path / "ok.pdf", levels=3, fanout=4)
    assert validate_pdf(path, Limits()).page_count == 1
    rendered = run_isolated(render_page_file, path, 0, RasterOptions(dpi=72, max_dpi=72),
                            tmp_path / "p.png", timeout_s=60, memory_mb=1024)  # fmt: skip
    assert rendered.dpi == 72


def test_plausible_streams_pass(tmp_path):
    path = flate_bomb_pdf(tmp_path / "ok.pdf", inflated_mb=2)
    assert validate_pdf(path, Limits()).page_count == 1


# --- timeouts per page and per job, bounded attempts ------------------------------------------


class SlowEngine:
    name = "slow"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def predict_batch(self, pages):
        time.sleep(self.seconds)
        return [PageReading(p.page_number, [ReadBlock("paragraph", "x")], 100, 100)
                for p in pages]  # fmt: skip

    def describe(self) -> dict:
        return {"name": self.name}


@pytest.mark.django_db(transaction=True)
def test_a_page_over_its_time_limit_fails_visibly_after_bounded_attempts(
    user, settings, monkeypatch
):
    job = runner.job_create(owner=user, upload=CORPUS / "linn.pdf")
    (page_id,) = runner.job_prepare(job_id=job.id)
    # The read's limit, set after the page is rasterized (on a busy machine that took over 1 s).
    settings.AXIYA_PAGE_TIMEOUT_S = 1
    monkeypatch.setattr(runner, "get_engine", lambda name=None: SlowEngine(3))
    for _ in range(services.MAX_PAGE_ATTEMPTS):
        started = time.perf_counter()
        with pytest.raises(PageTimeout):
            runner.page_read(page_id=page_id)
        assert time.perf_counter() - started < 2.5
    page = Page.objects.get(pk=page_id)
    assert (page.status, page.error_code, page.attempts) == (PageStatus.FAILED, "PAGE_TIMEOUT", 3)
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.error_code == "PAGE_TIMEOUT"
    assert "Page 1" in job.error_message
    assert runner.page_read(page_id=page_id) is False  # a late message changes nothing


@pytest.mark.django_db
def test_a_job_past_its_deadline_fails(user, settings):
    job = runner.job_create(owner=user, upload=CORPUS / "linn.pdf")
    (page_id,) = runner.job_prepare(job_id=job.id)
    settings.AXIYA_JOB_TIMEOUT_S = 1
    Job.objects.filter(pk=job.id).update(started_at=job.created_at.replace(year=2000))
    assert runner.page_read(page_id=page_id) is False
    job.refresh_from_db()
    assert (job.status, job.error_code) == (JobStatus.FAILED, "JOB_TIMEOUT")
    assert Page.objects.get(pk=page_id).attempts == 0  # the engine never ran


@pytest.mark.django_db
def test_jobs_recover_fails_jobs_past_their_deadline(user, settings):
    job = runner.job_create(owner=user, upload=CORPUS / "linn.pdf")
    Job.objects.filter(pk=job.id).update(
        status=JobStatus.RUNNING, started_at=job.created_at.replace(year=2000)
    )
    settings.AXIYA_JOB_TIMEOUT_S = 60
    assert services.jobs_recover()["failed"] == [str(job.id)]
    job.refresh_from_db()
    assert job.error_code == "JOB_TIMEOUT"


@pytest.mark.django_db
def test_a_page_whose_attempts_all_died_is_given_up(user):
    job = runner.job_create(owner=user, upload=CORPUS / "linn.pdf")
    (page_id,) = runner.job_prepare(job_id=job.id)
    # Three attempts started and none recorded an outcome: each took its worker down.
    Page.objects.filter(pk=page_id).update(status=PageStatus.RUNNING, attempts=3)
    assert runner.page_read(page_id=page_id) is False
    page = Page.objects.get(pk=page_id)
    assert (page.status, page.error_code) == (PageStatus.FAILED, "ENGINE_CRASHED")
    job.refresh_from_db()
    assert (job.status, job.error_code) == (JobStatus.FAILED, "ENGINE_CRASHED")
