"""Issue 6, scale-out: two GPU workers (the tiny Gemma package on the CPU here) fed through one
real Redis broker share one long job: each task starts with a small batch, drains the queue in
growing batches, and leaves half of what is left to the other worker near the end."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from conversion import dispatch
from conversion.models import Job, JobStatus, Page, PageStatus
from conversion.runner import jobs as runner
from tests.conftest import TINY_GEMMA_WORKER
from tests.reliability.pdfs import scanned_pdf

pytestmark = pytest.mark.slow


def test_two_gpu_workers_share_one_long_job(
    workers_on, redis_url, gemma_tiny_package: Path, settings, tmp_path: Path
) -> None:
    settings.AXIYA_MODEL_DIR = str(gemma_tiny_package)
    user = get_user_model().objects.create_user("gpu-user", password="pw-gpu-123")
    gemma = {"AXIYA_MODEL_DIR": str(gemma_tiny_package), **TINY_GEMMA_WORKER}
    workers = workers_on(redis_url)
    workers.start(queues="cpu", **gemma)
    for _ in range(2):
        workers.start(queues="gpu", AXIYA_WORKER_ENGINE="gemma", **gemma)
    job = dispatch.submit(
        runner.job_create(owner=user, upload=scanned_pdf(tmp_path / "long.pdf", 20), engine="gemma")
    )
    deadline = time.time() + 300
    while not (job := Job.objects.get(pk=job.id)).is_finished:
        assert time.time() < deadline, f"the job did not finish\n{workers.log_text()}"
        time.sleep(0.5)
    assert job.status in (JobStatus.DONE, JobStatus.NEEDS_REVIEW), job.error_message
    pages = list(Page.objects.filter(job=job))
    assert len(pages) == job.pages_done == 20
    assert all(p.status == PageStatus.DONE and p.attempts == 1 for p in pages)  # each read once
    assert {p.timings["batch"] for p in pages} <= {1.0, 2.0, 3.0, 4.0}  # never past the batch
    gpu_logs = [(Path(settings.DATA_DIR) / f"worker-{i}.log").read_text() for i in (1, 2)]
    assert all("pages in" in log for log in gpu_logs), workers.log_text()  # both read batches
    assert any("draining" in log for log in gpu_logs)
