"""The whole conversion, top down, for one PDF: the stages every entry point composes.

validate -> rasterize -> engine -> assemble -> figures -> render (escape + sanitize) -> checks ->
write. The command line runs them in one process; Celery tasks run the same stages per page.
Outputs are written into a temporary folder and moved into place last, so a failure leaves
nothing half-written.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf
from PIL import Image

from conversion.pipeline.accessibility import check_document, check_html
from conversion.pipeline.assemble import AssembleOptions, assemble
from conversion.pipeline.document import Document, Finding, summarize
from conversion.pipeline.errors import ConversionError, EngineFailed, OutputFailed
from conversion.pipeline.rasterize import RasterOptions, rasterize_page
from conversion.pipeline.render import RenderOptions, render_document
from conversion.pipeline.report_html import write_report_html
from conversion.pipeline.textlayer import text_layer_reading
from conversion.pipeline.validate import Limits, validate_pdf
from models.engine import PageEngine, PageImage, PageReading
from models.layout import MUPDF_LOCK

REPORT_VERSION = 1


@dataclass(frozen=True)
class ConvertOptions:
    limits: Limits = field(default_factory=Limits)
    raster: RasterOptions = field(default_factory=RasterOptions)
    language: str | None = None
    batch_size: int = 1


@dataclass
class ConversionResult:
    html_path: Path
    files_dir: Path
    report_path: Path
    document: Document
    report: dict


def read_pages(
    pdf_path: Path,
    engine: PageEngine,
    opts: ConvertOptions,
    *,
    on_page: Callable[[int, int], None] | None = None,
    image_dir: Path,
) -> tuple[list[PageReading], Callable[[int], Image.Image | None], dict]:
    """Validate, rasterize and read every page. Returns readings, a loader of the page images
    that hold figures (kept on disk, so memory does not grow with the page count), and timings."""
    validated = validate_pdf(pdf_path, opts.limits)
    timings = {"rasterize_s": 0.0, "engine_s": 0.0, "text_layer_pages": 0}
    readings: list[PageReading] = []

    def keep_if_figures(reading: PageReading, image: Image.Image) -> None:
        if any(b.kind == "figure" for b in reading.blocks):
            image_dir.mkdir(parents=True, exist_ok=True)
            image.save(image_dir / f"{reading.page_number}.png", compress_level=1)

    def load(number: int) -> Image.Image | None:
        path = image_dir / f"{number}.png"
        if not path.exists():
            return None
        image = Image.open(path)
        image.load()  # and the file is closed
        return image.convert("RGB") if image.mode not in ("L", "RGB") else image  # grey stays

    done = 0

    def page_done() -> None:
        nonlocal done
        done += 1
        if on_page:
            on_page(done, validated.page_count)

    def timed_engine(batch: list[PageImage]) -> list[PageReading]:
        started = time.perf_counter()
        try:
            return run_engine(engine, batch)
        finally:
            timings["engine_s"] += time.perf_counter() - started

    def collect(pending: tuple[Future, list[PageImage]] | None) -> None:
        if pending is None:
            return
        future, batch = pending
        read = future.result()  # the engine's error, if any, is raised here
        for page, reading in zip(batch, read, strict=True):
            keep_if_figures(reading, page.image)
            page_done()
        readings.extend(read)

    # The engine reads a batch in its own thread while this one rasterizes the next page (all
    # PDF work stays in this thread: MuPDF is not thread-safe). Tesseract releases the GIL, so
    # on two cores rasterizing costs no time beside the engine; at most two batches of page
    # images are alive at once, whatever the page count. rasterize_s and engine_s overlap.
    with (
        pymupdf.open(pdf_path) as doc,
        ThreadPoolExecutor(max_workers=1, thread_name_prefix="axiya-engine") as pool,
    ):
        pending: tuple[Future, list[PageImage]] | None = None
        submitted: tuple[Future, list[PageImage]] | None = None
        batch: list[PageImage] = []
        try:
            for index in range(validated.page_count):
                started = time.perf_counter()
                # The engine thread calls MuPDF too (the layout model): one thread at a time.
                with MUPDF_LOCK:
                    page_image = rasterize_page(doc, index, opts.raster)
                    # MuPDF caches decoded images (up to 256 MB): a page's scan is never
                    # needed again.
                    pymupdf.TOOLS.store_shrink(100)
                    layer = text_layer_reading(
                        doc[index], page_number=index + 1, dpi=page_image.dpi,
                        image=page_image.image,
                    )  # fmt: skip
                timings["rasterize_s"] += time.perf_counter() - started
                if layer is not None:
                    readings.append(layer)
                    keep_if_figures(layer, page_image.image)
                    timings["text_layer_pages"] += 1
                    page_done()
                else:
                    batch.append(page_image)
                last = index == validated.page_count - 1
                if batch and (len(batch) >= opts.batch_size or last):
                    submitted = (pool.submit(timed_engine, batch), batch)
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
    timings["pages"] = validated.page_count
    timings["repaired"] = validated.repaired
    return readings, load, timings


def run_engine(engine: PageEngine, pages: list[PageImage]) -> list[PageReading]:
    try:
        readings = engine.predict_batch(pages)
    except ConversionError:
        raise
    except Exception as exc:
        raise EngineFailed(
            f"The {engine.name} engine failed on page {pages[0].page_number}: {exc}",
            page=pages[0].page_number,
        ) from exc
    for page, reading in zip(pages, readings, strict=True):
        reading.page_number = page.page_number
    return readings


def run_engine_stream(
    engine: PageEngine, batches: Iterable[list[PageImage]]
) -> Iterator[list[PageReading]]:
    """Read batches in order, one reading list per batch. An engine with `predict_stream`
    (the gemma engine) works on the next batch while it finishes this one; any other engine
    reads batch by batch. Engine errors become EngineFailed, as in run_engine."""
    stream = getattr(engine, "predict_stream", None)
    if stream is None:
        for pages in batches:
            yield run_engine(engine, pages)
        return
    readings_of = iter(stream(batches))
    while True:
        try:
            readings = next(readings_of)
        except StopIteration:
            return
        except ConversionError:
            raise
        except Exception as exc:
            raise EngineFailed(f"The {engine.name} engine failed: {exc}") from exc
        yield readings


def upright(image: Image.Image, reading: PageReading) -> Image.Image:
    """The page image in the frame the engine's boxes refer to (turned, then deskewed)."""
    if reading.rotation:
        image = image.rotate(-reading.rotation, expand=True)
    if reading.skew:
        image = image.rotate(reading.skew, expand=True, fillcolor="white")
    return image


def build_document(
    readings: list[PageReading],
    page_images: Callable[[int], Image.Image | None],
    *,
    title: str,
    language: str | None,
    files_dir: Path,
) -> Document:
    """Assemble the tree and crop each figure's region into files_dir."""
    document = assemble(readings, AssembleOptions(default_title=title, language=language))
    by_number = {r.page_number: r for r in readings}
    count = 0
    for page in document.pages:
        figures = [b for b in page.blocks if b.kind == "figure" and b.bbox]
        if not figures:
            continue
        image = page_images(page.number)
        if image is None:
            continue
        image = upright(image, by_number[page.number])
        for block in figures:
            count += 1
            x0, y0, x1, y1 = (int(v) for v in block.bbox)  # type: ignore[misc]
            box = (max(0, x0), max(0, y0), min(image.width, x1), min(image.height, y1))
            if box[2] - box[0] < 8 or box[3] - box[1] < 8:
                continue
            name = f"figure-{count}-p{page.number}.png"
            files_dir.mkdir(parents=True, exist_ok=True)
            crop = image.crop(box)
            crop.thumbnail((1600, 1600))
            crop.save(files_dir / name, compress_level=6)
            block.image = name
    return document


def render_and_check(
    document: Document, *, files_dir_name: str, repaired: bool = False
) -> tuple[str, list[Finding]]:
    html = render_document(document, RenderOptions(files_dir=files_dir_name))
    findings = list(document.findings)
    if repaired:
        findings.append(
            Finding(
                code="PDF_REPAIRED",
                level="warning",
                message="The PDF's structure was damaged and has been repaired; check the result.",
            )
        )
    if not any(page.blocks for page in document.pages):
        findings.append(
            Finding(
                code="BLANK_DOCUMENT",
                level="warning",
                message="No text or figure was found on any page: is this a blank scan?",
            )
        )
    findings += check_document(document) + check_html(html, expected_pages=len(document.pages))
    return html, findings


def make_report(
    *, document: Document, findings: list[Finding], engine: dict, timings: dict, source: str
) -> dict:
    as_dicts = [f.as_dict() for f in findings]
    return {
        "version": REPORT_VERSION,
        "source": source,
        "title": document.title,
        "language": document.lang,
        "pages": len(document.pages),
        "engine": engine,
        "timings": timings,
        "summary": summarize(as_dicts),
        "findings": as_dicts,
        "page_sources": {str(p.number): p.source for p in document.pages},
    }


def write_outputs(
    out_dir: Path, stem: str, html: str, report: dict, staged_files: Path | None
) -> tuple[Path, Path, Path]:
    """Move the finished outputs into out_dir; on failure nothing of this document remains."""
    out_dir.mkdir(parents=True, exist_ok=True)
    html_path = out_dir / f"{stem}.html"
    report_path = out_dir / f"{stem}.report.json"
    files_dir = out_dir / f"{stem}_files"
    stage = Path(tempfile.mkdtemp(prefix=f".{stem}.", dir=out_dir))
    try:
        (stage / html_path.name).write_text(html, encoding="utf-8")
        (stage / report_path.name).write_text(json.dumps(report, indent=2), encoding="utf-8")
        if staged_files is not None and staged_files.exists() and any(staged_files.iterdir()):
            shutil.copytree(staged_files, stage / files_dir.name)
        if files_dir.exists():
            shutil.rmtree(files_dir)
        if (stage / files_dir.name).exists():
            os.replace(stage / files_dir.name, files_dir)
        os.replace(stage / report_path.name, report_path)
        os.replace(stage / html_path.name, html_path)
    except OSError as exc:
        raise OutputFailed(f"Could not write the result to {out_dir}: {exc.strerror}.") from exc
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return html_path, files_dir, report_path


def convert_pdf(
    pdf_path: Path,
    out_dir: Path,
    engine: PageEngine,
    opts: ConvertOptions,
    *,
    on_page: Callable[[int, int], None] | None = None,
) -> ConversionResult:
    pdf_path = Path(pdf_path)
    stem = pdf_path.stem
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="axiya-convert-") as tmp:
        readings, load_image, timings = read_pages(
            pdf_path, engine, opts, on_page=on_page, image_dir=Path(tmp) / "pages"
        )
        t0 = time.perf_counter()
        staged = Path(tmp) / "files"
        document = build_document(
            readings, load_image, title=stem, language=opts.language, files_dir=staged
        )
        html, findings = render_and_check(
            document, files_dir_name=f"{stem}_files", repaired=bool(timings.get("repaired"))
        )
        timings["assemble_render_check_s"] = time.perf_counter() - t0
        timings["total_s"] = time.perf_counter() - started
        report = make_report(
            document=document,
            findings=findings,
            engine=engine.describe(),
            timings=timings,
            source=pdf_path.name,
        )
        html_path, files_dir, report_path = write_outputs(out_dir, stem, html, report, staged)
        write_report_html(report, out_dir / f"{stem}.report.html", document_href=html_path.name)
    return ConversionResult(html_path, files_dir, report_path, document, report)


def iter_main_text(html: str) -> Iterable[str]:
    """The reading text of an output document: <main>, furniture and markers excluded."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    main = soup.find("main")
    if main is None:
        return []
    for el in main.select(".furniture"):
        el.decompose()
    blocks = main.find_all(
        ["p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "figcaption"]
    )
    out = []
    for el in blocks:
        if el.name == "li":
            # The item's own text, not its nested list's.
            text = "".join(
                t if isinstance(t, str) else t.get_text()
                for t in el.contents
                if isinstance(t, str) or t.name not in ("ul", "ol")
            )
        else:
            text = el.get_text()
        out.append(" ".join(text.split()))
    return out
