"""The conversion's settings as one typed object, in groups (limits, raster, gemma, batching,
timeouts): `config().limits.max_pages` instead of a loose `settings.AXIYA_MAX_PAGES`.

axiya/settings.py stays the one place that reads the environment (axiya/env.py: typed, each
variable named in its error); the object is built from those values once, and again only when
a setting changes (a test's override: Django's setting_changed signal).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed


def _setting(name: str) -> Any:
    """A field read from the Django setting `name` (each field names its own source)."""
    return dataclasses.field(metadata={"setting": name})


@dataclass(frozen=True)
class Limits:
    max_upload_mb: int = _setting("AXIYA_MAX_UPLOAD_MB")
    max_request_mb: int = _setting("AXIYA_MAX_REQUEST_MB")
    max_pages: int = _setting("AXIYA_MAX_PAGES")
    max_image_megapixels: float = _setting("AXIYA_MAX_IMAGE_MEGAPIXELS")

    @property
    def max_bytes(self) -> int:
        return self.max_upload_mb * 1024 * 1024


@dataclass(frozen=True)
class Raster:
    dpi: int = _setting("AXIYA_DPI")
    max_dpi: int = _setting("AXIYA_MAX_DPI")
    max_page_megapixels: float = _setting("AXIYA_MAX_PAGE_MEGAPIXELS")
    # The address-space cap of each child that opens the PDF.
    memory_mb: int = _setting("AXIYA_RASTER_MEMORY_MB")


@dataclass(frozen=True)
class Gemma:
    model_dir: str | None = _setting("AXIYA_MODEL_DIR")
    max_new_tokens: int = _setting("AXIYA_GEMMA_MAX_NEW_TOKENS")
    max_soft_tokens: int = _setting("AXIYA_GEMMA_MAX_SOFT_TOKENS")
    kv_budget_gb: float = _setting("AXIYA_GEMMA_KV_BUDGET_GB")
    device_id: int = _setting("AXIYA_GEMMA_DEVICE_ID")
    cascade: bool = _setting("AXIYA_GEMMA_CASCADE")


@dataclass(frozen=True)
class Batching:
    batch: int = _setting("AXIYA_GEMMA_BATCH")  # pages per model call (an upper bound)
    first_batch: int = _setting("AXIYA_GEMMA_FIRST_BATCH")
    wait_s: float = _setting("AXIYA_GEMMA_BATCH_WAIT_S")
    drain_s: float = _setting("AXIYA_GEMMA_DRAIN_S")
    continuous: bool = _setting("AXIYA_GEMMA_CONTINUOUS")
    prepared_ahead: int = _setting("AXIYA_GEMMA_PREPARED_AHEAD")


@dataclass(frozen=True)
class Timeouts:
    page_s: int = _setting("AXIYA_PAGE_TIMEOUT_S")
    job_s: int = _setting("AXIYA_JOB_TIMEOUT_S")
    recover_after_s: int = _setting("AXIYA_RECOVER_AFTER_S")


@dataclass(frozen=True)
class Store:
    """Where job files live (conversion/storage.py): url None is the local MEDIA_ROOT."""

    url: str | None = _setting("AXIYA_STORAGE_URL")
    endpoint_url: str | None = _setting("AXIYA_S3_ENDPOINT_URL")
    region: str | None = _setting("AXIYA_S3_REGION")
    access_key_id: str | None = _setting("AXIYA_S3_ACCESS_KEY_ID")
    secret_access_key: str | None = _setting("AXIYA_S3_SECRET_ACCESS_KEY")
    max_attempts: int = _setting("AXIYA_S3_MAX_ATTEMPTS")
    timeout_s: float = _setting("AXIYA_S3_TIMEOUT_S")
    local_root: Path = _setting("MEDIA_ROOT")  # also where this host stages and caches files


@dataclass(frozen=True)
class Webhooks:
    allowed_hosts: list[str] = _setting("AXIYA_WEBHOOK_ALLOWED_HOSTS")
    timeout_s: float = _setting("AXIYA_WEBHOOK_TIMEOUT_S")
    attempts: int = _setting("AXIYA_WEBHOOK_ATTEMPTS")
    backoff_s: float = _setting("AXIYA_WEBHOOK_BACKOFF_S")
    public_url: str = _setting("AXIYA_PUBLIC_URL")
    mail_host: str = _setting("EMAIL_HOST")  # "": no e-mail is sent


@dataclass(frozen=True)
class Config:
    limits: Limits
    raster: Raster
    gemma: Gemma
    batching: Batching
    timeouts: Timeouts
    store: Store
    webhooks: Webhooks
    default_engine: str = _setting("AXIYA_DEFAULT_ENGINE")
    # The engine a worker process builds when it starts.
    worker_engine: str | None = _setting("AXIYA_WORKER_ENGINE")
    ocr_languages: str = _setting("AXIYA_OCR_LANGUAGES")
    retention_days: int = _setting("AXIYA_RETENTION_DAYS")
    inline_worker: bool = _setting("AXIYA_INLINE_WORKER")
    inline_housekeeping: bool = _setting("AXIYA_INLINE_HOUSEKEEPING")


_current: Config | None = None


def config() -> Config:
    global _current
    if _current is None:
        _current = _build(Config)
    return _current


def _build(cls: type) -> Any:
    """An instance of cls from the settings its fields name; a field without one is a group."""
    return cls(
        **{
            f.name: getattr(settings, f.metadata["setting"])
            if "setting" in f.metadata
            else _build(f.type if isinstance(f.type, type) else globals()[f.type])
            for f in dataclasses.fields(cls)
        }
    )


def _forget(*, setting: str, **_: object) -> None:
    global _current
    if setting.startswith("AXIYA_") or setting in ("MEDIA_ROOT", "EMAIL_HOST"):
        _current = None


setting_changed.connect(_forget)
