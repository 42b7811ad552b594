"""Where a job's files live: MEDIA_ROOT/jobs/<id>/{source.pdf, pages/N.png, out/...}."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings
from PIL import Image

from models.engine import PageImage

if TYPE_CHECKING:
    from conversion.models import Page

OUTPUT_STEM = "document"


def job_dir(job_id) -> Path:
    return Path(settings.MEDIA_ROOT) / "jobs" / str(job_id)


def source_pdf(job_id) -> Path:
    return job_dir(job_id) / "source.pdf"


def page_image(job_id, number: int) -> Path:
    return job_dir(job_id) / "pages" / f"{number}.png"


def read_page_image(job_id, number: int) -> Image.Image | None:
    """A rasterized page as RGB; None when it was never rasterized (or its file is gone)."""
    path = page_image(job_id, number)
    if not path.exists():
        return None
    with Image.open(path) as img:
        return img.convert("RGB")


def engine_input(page: Page) -> PageImage:
    """A rasterized page as an engine reads it (FileNotFoundError when it has no image)."""
    with Image.open(page_image(page.job_id, page.number)) as img:
        return PageImage(image=img.convert("RGB"), page_number=page.number, dpi=page.dpi or 300)


def out_dir(job_id) -> Path:
    return job_dir(job_id) / "out"


def html_path(job_id) -> Path:
    return out_dir(job_id) / f"{OUTPUT_STEM}.html"


def report_path(job_id) -> Path:
    return out_dir(job_id) / f"{OUTPUT_STEM}.report.json"


def files_dir(job_id) -> Path:
    return out_dir(job_id) / f"{OUTPUT_STEM}_files"
