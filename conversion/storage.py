"""Where a job's files live: MEDIA_ROOT/jobs/<id>/{source.pdf, pages/N.png, out/...}."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

OUTPUT_STEM = "document"


def job_dir(job_id) -> Path:
    return Path(settings.MEDIA_ROOT) / "jobs" / str(job_id)


def source_pdf(job_id) -> Path:
    return job_dir(job_id) / "source.pdf"


def page_image(job_id, number: int) -> Path:
    return job_dir(job_id) / "pages" / f"{number}.png"


def out_dir(job_id) -> Path:
    return job_dir(job_id) / "out"


def html_path(job_id) -> Path:
    return out_dir(job_id) / f"{OUTPUT_STEM}.html"


def report_path(job_id) -> Path:
    return out_dir(job_id) / f"{OUTPUT_STEM}.report.json"


def files_dir(job_id) -> Path:
    return out_dir(job_id) / f"{OUTPUT_STEM}_files"
