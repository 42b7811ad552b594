"""ConvertOptions from the settings (axiya.config): the one bridge from settings to the flow."""

from __future__ import annotations

from axiya.config import config
from conversion.engines import engine_spec, handwriting_engine
from conversion.pipeline.flow import ConvertOptions, Isolation
from conversion.pipeline.rasterize import RasterOptions
from conversion.pipeline.validate import Limits


def convert_options(*, language: str | None = None, engine: str | None = None) -> ConvertOptions:
    c = config()
    return ConvertOptions(
        # A batched engine (the model) reads several pages in one call; Tesseract one by one.
        batch_size=c.batching.batch if engine and engine_spec(engine).batched else 1,
        limits=Limits(
            max_bytes=c.limits.max_bytes,
            max_pages=c.limits.max_pages,
            max_image_megapixels=c.limits.max_image_megapixels,
        ),
        raster=RasterOptions(
            dpi=c.raster.dpi, max_dpi=c.raster.max_dpi, max_megapixels=c.raster.max_page_megapixels
        ),
        isolation=Isolation(timeout_s=c.timeouts.page_s, memory_mb=c.raster.memory_mb),
        language=language,
        handwriting_engine=handwriting_engine(engine),
    )
