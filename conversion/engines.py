"""Engines are built once per process and kept (paperless-ngx registers parsers once per worker)."""

from __future__ import annotations

import logging
import threading

from django.conf import settings

from conversion.pipeline.errors import EngineUnavailable
from models.engine import PageEngine

log = logging.getLogger(__name__)
ENGINES = ("ocr", "gemma")
# What people read in the form, on the job page and in the review queue.
ENGINE_LABELS = {
    "ocr": "Tesseract OCR (CPU)",
    "gemma": "Gemma 4 E2B vision model (GPU)",
}
_cache: dict[str, PageEngine] = {}
_lock = threading.Lock()


def engine_label(name: str) -> str:
    return ENGINE_LABELS.get(name, name)


def get_engine(name: str | None = None) -> PageEngine:
    name = name or settings.AXIYA_DEFAULT_ENGINE
    if name not in ENGINES:
        raise EngineUnavailable(f"Unknown engine {name!r}: choose one of {', '.join(ENGINES)}.")
    with _lock:
        if name not in _cache:
            _cache[name] = _build(name)
            log.info("engine %s ready: %s", name, _cache[name].describe())
        return _cache[name]


def _build(name: str) -> PageEngine:
    if name == "ocr":
        from models.ocr import TesseractEngine

        try:
            return TesseractEngine(languages=settings.AXIYA_OCR_LANGUAGES)
        except RuntimeError as exc:
            raise EngineUnavailable(str(exc)) from exc
    model_dir = settings.AXIYA_MODEL_DIR
    if not model_dir:
        raise EngineUnavailable(
            "The gemma engine needs a model package: set AXIYA_MODEL_DIR to its folder."
        )
    try:
        from models.gemma.engine import GemmaPageEngine
    except ImportError as exc:
        raise EngineUnavailable(f"The gemma engine cannot load: {exc}.") from exc
    try:
        return GemmaPageEngine.from_package(
            model_dir,
            max_new_tokens=settings.AXIYA_GEMMA_MAX_NEW_TOKENS,
            max_soft_tokens=settings.AXIYA_GEMMA_MAX_SOFT_TOKENS,
            batch_size=settings.AXIYA_GEMMA_BATCH,
            kv_budget_gb=settings.AXIYA_GEMMA_KV_BUDGET_GB,
            device_id=settings.AXIYA_GEMMA_DEVICE_ID,
            continuous=settings.AXIYA_GEMMA_CONTINUOUS,
        )
    except (FileNotFoundError, ValueError, RuntimeError) as exc:
        raise EngineUnavailable(str(exc)) from exc


def forget(name: str, engine: PageEngine) -> None:
    """Drop a cached engine (one stuck in a page over its time limit): the next call builds a
    fresh instance instead of sharing the busy one."""
    with _lock:
        if _cache.get(name) is engine:
            del _cache[name]
