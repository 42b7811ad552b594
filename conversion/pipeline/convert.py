"""The whole flow for one PDF in this process (the command line, the benches): prepare, read and
finish from conversion.pipeline.flow, the same functions the site's tasks run, so a PDF gives the
same outputs here as through the site. Every MuPDF call on the file runs in an isolated child.
"""

from __future__ import annotations

import functools
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from conversion.pipeline import flow
from conversion.pipeline.document import Document
from conversion.pipeline.flow import ConvertOptions
from models.engine import PageEngine, PageImage, PageReading


@dataclass
class ConversionResult:
    html_path: Path
    files_dir: Path
    report_path: Path
    document: Document
    report: dict
    timings: dict = field(default_factory=dict)  # seconds by stage, pages, text_layer_pages


def read_pages(
    pdf_path: Path,
    engine: PageEngine,
    opts: ConvertOptions,
    *,
    pages_dir: Path,
    page_count: int,
    on_page: Callable[[int, int], None] | None = None,
) -> tuple[list[PageReading], dict]:
    """Rasterize (isolated) and read every page. Returns the readings in page order, timings.
    Page images stay in memory; a page that holds figures is kept in pages_dir for finish."""
    timings = {"rasterize_s": 0.0, "engine_s": 0.0, "text_layer_pages": 0, "engine_pages": 0}
    readings: list[PageReading] = []
    done = 0

    rendered_modes: dict[int, str] = {}  # each page's mode as rendered (the engine's is RGB)

    def keep_if_figures(reading: PageReading, image: Image.Image) -> None:
        if any(b.kind == "figure" for b in reading.blocks):
            pages_dir.mkdir(parents=True, exist_ok=True)
            stored = as_rendered(image, rendered_modes.get(reading.page_number, image.mode))
            stored.save(flow.page_file(pages_dir, reading.page_number), compress_level=1)

    def page_done() -> None:
        nonlocal done
        done += 1
        if on_page:
            on_page(done, page_count)

    def timed_read(batch: list[PageImage]) -> list[PageReading]:
        started = time.perf_counter()
        try:
            return flow.read(engine, batch)
        finally:
            timings["engine_s"] += time.perf_counter() - started

    def collect(pending: tuple[Future, list[PageImage]] | None) -> None:
        if pending is None:
            return
        future, pages = pending
        read = future.result()  # the engine's error, if any, is raised here
        readings.extend(read)
        timings["engine_pages"] += len(read)
        # The layout model's share of the engine's time (models.layout), for bench/cpu_pipeline:
        # on the page's path, and beside the OCR on another thread.
        for key in ("layout_s", "layout_beside_s"):
            timings[key] = timings.get(key, 0.0) + sum(r.timings.get(key, 0.0) for r in read)
        for page, reading in zip(pages, read, strict=True):
            keep_if_figures(reading, page.image)
            page_done()

    # The engine reads a batch in its own thread while this one has the next page rasterized (in
    # a child process): Tesseract releases the GIL, so on two cores rasterizing costs no time
    # beside the engine; at most two batches of page images are alive at once.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="axiya-engine") as pool:
        pending: tuple[Future, list[PageImage]] | None = None
        submitted: tuple[Future, list[PageImage]] | None = None
        batch: list[PageImage] = []
        try:
            for number in range(1, page_count + 1):
                started = time.perf_counter()
                rendered, image = flow.rasterize_in_memory(pdf_path, number, opts)
                layer = flow.text_layer(rendered)
                timings["rasterize_s"] += time.perf_counter() - started
                rendered_modes[number] = image.mode
                if layer is None:
                    batch.append(flow.engine_input(image, number, rendered.dpi,
                                                   drawn=rendered.drawn))  # fmt: skip
                else:
                    readings.append(layer)
                    keep_if_figures(layer, image)
                    timings["text_layer_pages"] += 1
                    page_done()
                del image
                if batch and (len(batch) >= opts.batch_size or number == page_count):
                    submitted = (pool.submit(timed_read, batch), batch)
                    collect(pending)  # the batch before, while the engine reads this one
                    pending, batch = submitted, []
            collect(pending)
        except BaseException:
            # A failed page (or an interrupt) stops the reading: nothing more is started.
            for outstanding in (pending, submitted):
                if outstanding is not None:
                    outstanding[0].cancel()
            raise
    readings.sort(key=lambda r: r.page_number)
    return readings, timings


def as_rendered(image: Image.Image, mode: str) -> Image.Image:
    """A page image kept for finish in the mode it was rendered in, as the site's rasterize
    stores it: a gray page (made RGB for the engine) gray again, the same pixels once
    page_image makes it RGB, and a third of them to filter and compress (about 0.1 s of CPU a
    page). Other modes as the engine had them: RGB."""
    kept = mode if mode in ("L", "RGB") else "RGB"
    return image if image.mode == kept else image.convert(kept)


def convert_pdf(
    pdf_path: Path,
    out_dir: Path,
    engine: PageEngine,
    opts: ConvertOptions,
    *,
    on_page: Callable[[int, int], None] | None = None,
) -> ConversionResult:
    """Convert one PDF into out_dir/<stem>.html, <stem>_files/, <stem>.report.json and
    <stem>.report.html."""
    pdf_path = Path(pdf_path)
    started = time.perf_counter()
    validated = flow.prepare(pdf_path, opts)
    with tempfile.TemporaryDirectory(prefix="axiya-convert-") as tmp:
        pages_dir = Path(tmp) / "pages"
        readings, timings = read_pages(
            pdf_path, engine, opts, pages_dir=pages_dir, page_count=validated.page_count,
            on_page=on_page,
        )  # fmt: skip
        finish_started = time.perf_counter()
        finished = flow.finish(
            readings,
            page_images=functools.partial(flow.page_image, pages_dir),
            out_dir=Path(out_dir),
            stem=pdf_path.stem,
            title=flow.document_title(pdf_path.name),
            language=opts.language,
            repaired=validated.repaired,
            # As on the site: the engine is named when it read at least one page.
            engine_info=engine.describe() if timings["engine_pages"] else {},
            source=pdf_path.name,
            handwriting_engine=opts.handwriting_engine,
        )
    timings["assemble_render_check_s"] = time.perf_counter() - finish_started
    timings["total_s"] = time.perf_counter() - started
    timings["pages"] = validated.page_count
    timings["repaired"] = validated.repaired
    return ConversionResult(
        finished.html_path,
        finished.files_dir,
        finished.report_path,
        finished.document,
        finished.report,
        timings,
    )
