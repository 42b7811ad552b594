"""The engine registry: every page engine, its queue, whether it reads in batches and how to build
it, in one place. Engines are built once per process and kept (paperless-ngx registers parsers
once per worker); `unavailable` says, without building one, why an engine cannot run here.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from axiya.config import config
from conversion.pipeline.errors import EngineNotOffered, EngineUnavailable
from models.engine import PageEngine

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EngineSpec:
    name: str
    label: str  # what people read in the form, on the job page and in the review queue
    queue: str  # the Celery queue its page reads go to
    # Reads pages of several jobs in one model call: its pages are claimed and read in batches
    # (conversion.runner.batch) instead of one task a page.
    batched: bool
    build: Callable[[], PageEngine]
    # Why it cannot run here, found without building it (None: it can).
    unavailable: Callable[[], str | None]


def _build_ocr() -> PageEngine:
    from models.ocr import TesseractEngine  # tesserocr is a heavy native import

    try:
        return TesseractEngine(languages=config().ocr_languages)
    except RuntimeError as exc:
        raise EngineUnavailable(str(exc)) from exc


def _ocr_unavailable() -> str | None:
    from models.ocr.tessdata import find_tessdata

    if importlib.util.find_spec("tesserocr") is None:
        return "The ocr engine needs tesserocr (pip install -r requirements.txt)."
    try:
        tessdata = find_tessdata()
    except RuntimeError as exc:
        return str(exc)
    missing = [
        lang
        for lang in config().ocr_languages.split("+")
        if not Path(tessdata, f"{lang}.traineddata").exists()
    ]
    if missing:
        return f"Tesseract has no trained data for {', '.join(missing)} in {tessdata}."
    return None


def _gemma_unavailable() -> str | None:
    model_dir = config().gemma.model_dir
    if not model_dir:
        return "The gemma engine needs a model package: set AXIYA_MODEL_DIR to its folder."
    if not (Path(model_dir) / "manifest.json").is_file():
        return f"AXIYA_MODEL_DIR ({model_dir}) holds no model package (no manifest.json)."
    if importlib.util.find_spec("onnxruntime") is None:
        return "The gemma engine needs onnxruntime (pip install -r requirements-ml.txt)."
    return None


def _build_gemma() -> PageEngine:
    reason = _gemma_unavailable()
    if reason:
        raise EngineUnavailable(reason)
    try:
        from models.gemma.engine import GemmaPageEngine  # onnxruntime: only where it runs
    except ImportError as exc:
        raise EngineUnavailable(f"The gemma engine cannot load: {exc}.") from exc
    try:
        return GemmaPageEngine.from_package(
            config().gemma.model_dir,
            max_new_tokens=config().gemma.max_new_tokens,
            max_soft_tokens=config().gemma.max_soft_tokens,
            batch_size=config().batching.batch,
            kv_budget_gb=config().gemma.kv_budget_gb,
            device_id=config().gemma.device_id,
            continuous=config().batching.continuous,
            prepared_ahead=config().batching.prepared_ahead,
            cascade=config().gemma.cascade,
        )
    except (FileNotFoundError, ValueError, RuntimeError) as exc:
        raise EngineUnavailable(str(exc)) from exc


REGISTRY: dict[str, EngineSpec] = {
    spec.name: spec
    for spec in (
        EngineSpec("ocr", "Tesseract OCR (CPU)", queue="cpu", batched=False,
                   build=_build_ocr, unavailable=_ocr_unavailable),
        EngineSpec("gemma", "Gemma 4 E2B vision model (GPU)", queue="gpu", batched=True,
                   build=_build_gemma, unavailable=_gemma_unavailable),
    )
}  # fmt: skip
ENGINES = tuple(REGISTRY)
_cache: dict[str, PageEngine] = {}
_lock = threading.Lock()


def engine_label(name: str) -> str:
    spec = REGISTRY.get(name)
    return spec.label if spec else name


def engine_spec(name: str | None = None) -> EngineSpec:
    """The registry entry of `name` (the server's default engine when None)."""
    name = name or config().default_engine
    spec = REGISTRY.get(name)
    if spec is None:
        raise EngineUnavailable(f"Unknown engine {name!r}: choose one of {', '.join(ENGINES)}.")
    return spec


def unavailable(name: str | None = None) -> str | None:
    """Why the engine cannot run on this server (unknown, not installed, no model), or None.
    Cheap: nothing is loaded."""
    try:
        return engine_spec(name).unavailable()
    except EngineUnavailable as exc:
        return exc.message


def handwriting_engine(current: str | None = None) -> str | None:
    """The engine a person may try on handwriting, named for them: a GPU engine (the vision
    model) that can run on this server and is not `current`; None where there is none, so no
    finding recommends an engine the server does not have (issue 33)."""
    for name in available_engines():
        if REGISTRY[name].queue == "gpu" and name != (current or config().default_engine):
            return f"the GPU engine ({REGISTRY[name].label})"
    return None


def available_engines() -> list[str]:
    """The engines that can run on this server, in registry order (what the form offers)."""
    return [name for name in ENGINES if unavailable(name) is None]


def require_available(name: str | None = None) -> EngineSpec:
    """The registry entry of an engine a person asked for; EngineNotOffered (ENGINE_UNAVAILABLE,
    422) when it cannot run on this server."""
    spec = engine_spec(name)
    reason = spec.unavailable()
    if reason:
        raise EngineNotOffered(
            f"The engine {spec.label} is not available on this server: {reason} "
            f"Choose another engine ({', '.join(available_engines()) or 'none available'})."
        )
    return spec


def get_engine(name: str | None = None) -> PageEngine:
    spec = engine_spec(name)
    with _lock:
        if spec.name not in _cache:
            _cache[spec.name] = build(spec.name)
            log.info("engine %s ready: %s", spec.name, _cache[spec.name].describe())
        return _cache[spec.name]


def build(name: str) -> PageEngine:
    """A fresh engine (get_engine keeps one per process; a test's faulty worker replaces this)."""
    return REGISTRY[name].build()


def is_loaded(name: str) -> bool:
    """Whether this process holds a built `name` engine (a model loaded)."""
    return name in _cache


def drop(name: str) -> None:
    """Drop this process' `name` engine, whichever it is: the next get_engine builds anew."""
    with _lock:
        _cache.pop(name, None)


def forget(name: str, engine: PageEngine) -> None:
    """Drop a cached engine (one stuck in a page over its time limit): the next call builds a
    fresh instance instead of sharing the busy one."""
    with _lock:
        if _cache.get(name) is engine:
            del _cache[name]
