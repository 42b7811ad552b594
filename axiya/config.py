"""The conversion's settings as one typed object, in groups (limits, raster, gemma, batching,
timeouts): `config().limits.max_pages` instead of a loose `settings.AXIYA_MAX_PAGES`.

axiya/settings.py stays the one place that reads the environment (axiya/env.py: typed, each
variable named in its error); the object is built from those values once, and again only when
a setting changes (a test's override: Django's setting_changed signal).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.core.signals import setting_changed


@dataclass(frozen=True)
class Limits:
    max_upload_mb: int
    max_request_mb: int
    max_pages: int
    max_image_megapixels: float

    @property
    def max_bytes(self) -> int:
        return self.max_upload_mb * 1024 * 1024


@dataclass(frozen=True)
class Raster:
    dpi: int
    max_dpi: int
    max_page_megapixels: float
    memory_mb: int  # address-space cap of each child that opens the PDF


@dataclass(frozen=True)
class Gemma:
    model_dir: str | None
    max_new_tokens: int
    max_soft_tokens: int
    kv_budget_gb: float
    device_id: int


@dataclass(frozen=True)
class Batching:
    batch: int  # pages per model call (an upper bound)
    first_batch: int
    wait_s: float
    drain_s: float
    continuous: bool


@dataclass(frozen=True)
class Timeouts:
    page_s: int
    job_s: int
    recover_after_s: int


@dataclass(frozen=True)
class Config:
    default_engine: str
    worker_engine: str | None  # built when a worker process starts (AXIYA_WORKER_ENGINE)
    ocr_languages: str
    retention_days: int
    inline_worker: bool
    inline_housekeeping: bool
    limits: Limits
    raster: Raster
    gemma: Gemma
    batching: Batching
    timeouts: Timeouts


_current: Config | None = None


def config() -> Config:
    global _current
    if _current is None:
        _current = _build()
    return _current


def _build() -> Config:
    s = settings
    return Config(
        default_engine=s.AXIYA_DEFAULT_ENGINE,
        worker_engine=s.AXIYA_WORKER_ENGINE,
        ocr_languages=s.AXIYA_OCR_LANGUAGES,
        retention_days=s.AXIYA_RETENTION_DAYS,
        inline_worker=s.AXIYA_INLINE_WORKER,
        inline_housekeeping=s.AXIYA_INLINE_HOUSEKEEPING,
        limits=Limits(
            max_upload_mb=s.AXIYA_MAX_UPLOAD_MB,
            max_request_mb=s.AXIYA_MAX_REQUEST_MB,
            max_pages=s.AXIYA_MAX_PAGES,
            max_image_megapixels=s.AXIYA_MAX_IMAGE_MEGAPIXELS,
        ),
        raster=Raster(
            dpi=s.AXIYA_DPI,
            max_dpi=s.AXIYA_MAX_DPI,
            max_page_megapixels=s.AXIYA_MAX_PAGE_MEGAPIXELS,
            memory_mb=s.AXIYA_RASTER_MEMORY_MB,
        ),
        gemma=Gemma(
            model_dir=s.AXIYA_MODEL_DIR,
            max_new_tokens=s.AXIYA_GEMMA_MAX_NEW_TOKENS,
            max_soft_tokens=s.AXIYA_GEMMA_MAX_SOFT_TOKENS,
            kv_budget_gb=s.AXIYA_GEMMA_KV_BUDGET_GB,
            device_id=s.AXIYA_GEMMA_DEVICE_ID,
        ),
        batching=Batching(
            batch=s.AXIYA_GEMMA_BATCH,
            first_batch=s.AXIYA_GEMMA_FIRST_BATCH,
            wait_s=s.AXIYA_GEMMA_BATCH_WAIT_S,
            drain_s=s.AXIYA_GEMMA_DRAIN_S,
            continuous=s.AXIYA_GEMMA_CONTINUOUS,
        ),
        timeouts=Timeouts(
            page_s=s.AXIYA_PAGE_TIMEOUT_S,
            job_s=s.AXIYA_JOB_TIMEOUT_S,
            recover_after_s=s.AXIYA_RECOVER_AFTER_S,
        ),
    )


def _forget(*, setting: str, **_: object) -> None:
    global _current
    if setting.startswith("AXIYA_"):
        _current = None


setting_changed.connect(_forget)
