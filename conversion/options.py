"""ConvertOptions from Django settings: the one bridge from settings to the pipeline."""

from __future__ import annotations

from django.conf import settings

from conversion.engines import engine_spec
from conversion.pipeline.flow import ConvertOptions, Isolation
from conversion.pipeline.rasterize import RasterOptions
from conversion.pipeline.validate import Limits


def convert_options(*, language: str | None = None, engine: str | None = None) -> ConvertOptions:
    # A batched engine (the model) reads several pages in one call; Tesseract one by one.
    batch = settings.AXIYA_GEMMA_BATCH if engine and engine_spec(engine).batched else 1
    return ConvertOptions(
        batch_size=batch,
        limits=Limits(
            max_bytes=settings.AXIYA_MAX_UPLOAD_MB * 1024 * 1024,
            max_pages=settings.AXIYA_MAX_PAGES,
            max_image_megapixels=settings.AXIYA_MAX_IMAGE_MEGAPIXELS,
        ),
        raster=RasterOptions(
            dpi=settings.AXIYA_DPI,
            max_dpi=settings.AXIYA_MAX_DPI,
            max_megapixels=settings.AXIYA_MAX_PAGE_MEGAPIXELS,
        ),
        isolation=Isolation(
            timeout_s=settings.AXIYA_PAGE_TIMEOUT_S, memory_mb=settings.AXIYA_RASTER_MEMORY_MB
        ),
        language=language,
    )
