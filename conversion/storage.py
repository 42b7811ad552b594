"""Where a job's files live: MEDIA_ROOT/jobs/<id>/{source.pdf, pages/N.png, out/...}."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings
from PIL import Image

from conversion.pipeline import flow
from models.engine import PageImage

if TYPE_CHECKING:
    from conversion.models import Page

OUTPUT_STEM = "document"


def incoming_dir() -> Path:
    """Uploads being received and validated, and accepted ones waiting for their row to commit
    (staged_upload): nothing here belongs to a job yet."""
    return Path(settings.MEDIA_ROOT) / "incoming"


def staged_upload(job_id) -> Path:
    return incoming_dir() / f"{job_id}.pdf"


def place_upload(job_id) -> bool:
    """Move a job's staged upload to its folder, once its row is committed. False when there
    was nothing to move (placed before, or the staging was lost)."""
    staged, target = staged_upload(job_id), source_pdf(job_id)
    if not staged.exists():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(staged, target)
    return True


def jobs_root() -> Path:
    return Path(settings.MEDIA_ROOT) / "jobs"


def job_dir(job_id) -> Path:
    return jobs_root() / str(job_id)


def source_pdf(job_id) -> Path:
    return job_dir(job_id) / "source.pdf"


def pages_dir(job_id) -> Path:
    return job_dir(job_id) / "pages"


def page_image(job_id, number: int) -> Path:
    return flow.page_file(pages_dir(job_id), number)


def read_page_image(job_id, number: int) -> Image.Image | None:
    """A rasterized page as RGB; None when it was never rasterized (or its file is gone)."""
    return flow.page_image(pages_dir(job_id), number)


def engine_input(page: Page) -> PageImage:
    """A rasterized page as an engine reads it (FileNotFoundError when it has no image)."""
    return flow.page_input(pages_dir(page.job_id), page.number, page.dpi)


def out_dir(job_id) -> Path:
    return job_dir(job_id) / "out"


def html_path(job_id) -> Path:
    return flow.output_paths(out_dir(job_id), OUTPUT_STEM)[0]


def files_dir(job_id) -> Path:
    return flow.output_paths(out_dir(job_id), OUTPUT_STEM)[1]


def report_path(job_id) -> Path:
    return flow.output_paths(out_dir(job_id), OUTPUT_STEM)[2]


def report_html_path(job_id) -> Path:
    return flow.output_paths(out_dir(job_id), OUTPUT_STEM)[3]
