"""The baseline: plain `tesseract` (psm 3, 300 DPI, eng) on the same pages, as a person would."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pymupdf

from conversion.pipeline.rasterize import RasterOptions, rasterize_page


def plain_tesseract_pages(pdf: Path, workdir: Path) -> tuple[dict[int, str], float]:
    """Text per page (1-based) and the seconds tesseract itself took."""
    texts: dict[int, str] = {}
    seconds = 0.0
    with pymupdf.open(pdf) as doc:
        for index in range(doc.page_count):
            image = rasterize_page(doc, index, RasterOptions(dpi=300, max_dpi=300)).image
            png = workdir / f"plain-p{index}.png"
            image.save(png)
            started = time.perf_counter()
            out = subprocess.run(
                ["tesseract", str(png), "-", "--psm", "3", "-l", "eng"],
                capture_output=True,
                text=True,
                env={**os.environ, "OMP_THREAD_LIMIT": "1"},
                check=True,
            )
            seconds += time.perf_counter() - started
            texts[index + 1] = out.stdout
    return texts, seconds
