"""What the CPU benchmarks share: the corpus with its transcripts, an engine warm-up, and the
baseline, plain `tesseract` (psm 3, 300 DPI, eng) on the same pages, as a person would run it."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pymupdf

from conversion.pipeline.convert import convert_pdf
from conversion.pipeline.flow import ConvertOptions
from conversion.pipeline.rasterize import RasterOptions, rasterize_page
from models.ocr.tessdata import find_tessdata
from tests.conftest import image_to_pdf

ROOT = Path(__file__).resolve().parents[1]
RESOURCES = ROOT / "tests" / "resources"
CORPUS_DIR = RESOURCES / "corpus"
# Document -> its transcript under tests/resources (None: no transcript).
DOCS: dict[str, str | None] = {
    "linn.pdf": "corpus/linn.txt",
    "skew.pdf": "corpus/linn.txt",
    "multipage.pdf": "truth/multipage.txt",
    "c02-22.pdf": "truth/c02-22.txt",
    "francais.pdf": "truth/francais.txt",
    "phototest.tif": "corpus/phototest.gold.txt",
    "eurotext.tif": "corpus/eurotext.txt",
}


PLAIN_DPI = 300  # the plain reading's page, as a person scans for Tesseract


def as_pdf(name: str, workdir: Path) -> Path:
    """The corpus file as an upload: scans in TIF/PNG are wrapped into a one-page PDF."""
    src = CORPUS_DIR / name if (CORPUS_DIR / name).exists() else CORPUS_DIR / "bad" / name
    return image_to_pdf(src, workdir / f"{src.stem}.pdf") if src.suffix != ".pdf" else src


def warm_up(engine) -> None:
    """One conversion, not counted: the first read loads Tesseract's models (a dense page:
    the instances that read its two bands too)."""
    with tempfile.TemporaryDirectory() as warm:
        convert_pdf(as_pdf("linn.pdf", Path(warm)), Path(warm) / "out", engine,
                    ConvertOptions())  # fmt: skip


def plain_page_png(doc: pymupdf.Document, index: int, workdir: Path) -> Path:
    """One page (0-based) rendered at PLAIN_DPI for plain Tesseract, saved as a PNG."""
    image = rasterize_page(doc, index, RasterOptions(dpi=PLAIN_DPI, max_dpi=PLAIN_DPI)).image
    png = workdir / f"plain-p{index}.png"
    image.save(png)
    return png


def plain_tesseract_page(doc: pymupdf.Document, index: int, workdir: Path,
                         lang: str = "eng") -> tuple[str, float]:  # fmt: skip
    """One page (0-based) as plain Tesseract reads it: rendered at 300 DPI, `tesseract page.png -
    --psm 3 -l LANG`; its text and the seconds tesseract itself took."""
    png = plain_page_png(doc, index, workdir)
    started = time.perf_counter()
    out = subprocess.run(
        ["tesseract", str(png), "-", "--psm", "3", "-l", lang],
        capture_output=True,
        text=True,
        env={**os.environ, "OMP_THREAD_LIMIT": "1"},
        check=True,
    )
    return out.stdout, time.perf_counter() - started


def plain_tesseract_pages(pdf: Path, workdir: Path) -> tuple[dict[int, str], float]:
    """Text per page (1-based) and the seconds tesseract itself took."""
    texts: dict[int, str] = {}
    seconds = 0.0
    with pymupdf.open(pdf) as doc:
        for index in range(doc.page_count):
            texts[index + 1], took = plain_tesseract_page(doc, index, workdir)
            seconds += took
    return texts, seconds


def run_pymupdf4llm(pdf: Path) -> str:
    """pymupdf4llm in its own process (its layout module patches pymupdf globally)."""
    code = (
        "import sys, pymupdf4llm; from markdown_it import MarkdownIt;"
        "md = pymupdf4llm.to_markdown(sys.argv[1], header=False, footer=False);"
        "print(MarkdownIt('commonmark').enable('table').render(md))"
    )
    env = {**os.environ, "TESSDATA_PREFIX": find_tessdata(), "OMP_THREAD_LIMIT": "1"}
    out = subprocess.run([sys.executable, "-c", code, str(pdf)], capture_output=True, text=True,
                         env=env, check=True, timeout=600)  # fmt: skip
    return f"<html><body><main>{out.stdout}</main></body></html>"
