"""The conversion flow, as plain functions every entry point composes: prepare -> read -> finish.

- prepare: sniff and validate the PDF, then rasterize each page into `<pages_dir>/<n>.png` and
  read its text layer. MuPDF on the untrusted file always runs in an isolated child
  (conversion.pipeline.isolate), whoever calls: the command line, a Celery task, the inline runner.
- read: the engine turns page images (always loaded from those PNGs, as RGB) into readings.
- finish: assemble the readings, crop figures, render, check, and write the outputs (HTML, its
  files folder, report.json, report.html) atomically.

The command line (pipeline/convert.py) runs the three in one process; the site runs prepare per
page chunk, read per page or batch, and finish in tasks (conversion/runner). Same functions, same
inputs, so the same outputs byte for byte. Nothing here touches the database.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from PIL import Image

from conversion.pipeline.accessibility import check_document, check_html, locate, parse_output
from conversion.pipeline.assemble import AssembleOptions, assemble
from conversion.pipeline.document import Document, Finding, summarize
from conversion.pipeline.errors import ConversionError, EmptyFile, EngineFailed, OutputFailed
from conversion.pipeline.format_writers import describe_formats, files_opener
from conversion.pipeline.isolate import run_isolated
from conversion.pipeline.page_scans import UNREADABLE, add_page_scans
from conversion.pipeline.rasterize import (
    RasterOptions,
    RenderedPage,
    render_page_file,
    render_page_pixels,
)
from conversion.pipeline.render import RenderOptions, render_document
from conversion.pipeline.report_html import write_report_html
from conversion.pipeline.validate import Limits, ValidatedPdf, sniff_pdf, validate_pdf
from models.engine import (
    PageEngine,
    PageImage,
    PageReading,
    StreamingEngine,
    reading_from_json,
    reading_to_json,
)

REPORT_VERSION = 1
UNTITLED = "Untitled document"


@dataclass(frozen=True)
class Isolation:
    """Bounds on every child process that opens the untrusted PDF."""

    timeout_s: float = 300.0
    memory_mb: int = 4096


@dataclass(frozen=True)
class ConvertOptions:
    limits: Limits = field(default_factory=Limits)
    raster: RasterOptions = field(default_factory=RasterOptions)
    isolation: Isolation = field(default_factory=Isolation)
    language: str | None = None  # BCP 47, forced; None: detected
    batch_size: int = 1
    # An engine on this server that reads handwriting, named for people ("the GPU engine (...)"),
    # when it is not the one converting: unreadable pages recommend it; None: nothing is.
    handwriting_engine: str | None = None


@dataclass
class Finished:
    """What finish wrote, and the document it wrote it from."""

    html_path: Path
    files_dir: Path
    report_path: Path
    report_html_path: Path
    document: Document
    report: dict


def document_title(name: str) -> str:
    """A document's title before its reading names one: the uploaded file's name."""
    return Path(name).stem or UNTITLED


# --- prepare ------------------------------------------------------------------------------------


def prepare(pdf_path: Path, opts: ConvertOptions) -> ValidatedPdf:
    """Refuse what is not a PDF we can take (a coded ConversionError), in an isolated child."""
    if Path(pdf_path).stat().st_size == 0:
        raise EmptyFile()
    with open(pdf_path, "rb") as fh:
        sniff_pdf(fh.read(1024))
    return run_isolated(
        validate_pdf,
        Path(pdf_path),
        opts.limits,
        timeout_s=opts.isolation.timeout_s,
        memory_mb=opts.isolation.memory_mb,
    )


def page_file(pages_dir: Path, number: int) -> Path:
    return pages_dir / f"{number}.png"


def rasterize(pdf_path: Path, number: int, opts: ConvertOptions, pages_dir: Path) -> RenderedPage:
    """Rasterize page `number` (1-based) into its PNG and read its text layer, isolated."""
    return run_isolated(
        render_page_file,
        Path(pdf_path),
        number - 1,
        opts.raster,
        page_file(pages_dir, number),
        timeout_s=opts.isolation.timeout_s,
        memory_mb=opts.isolation.memory_mb,
    )


def rasterize_in_memory(
    pdf_path: Path, number: int, opts: ConvertOptions
) -> tuple[RenderedPage, Image.Image]:
    """rasterize, the page image kept in memory (no PNG written): the command line's."""
    rendered = run_isolated(
        render_page_pixels,
        Path(pdf_path),
        number - 1,
        opts.raster,
        timeout_s=opts.isolation.timeout_s,
        memory_mb=opts.isolation.memory_mb,
    )
    return rendered.page, rendered.image()


def text_layer(rendered: RenderedPage) -> PageReading | None:
    """The page's trusted text layer as a reading; None when an engine must read the page."""
    return reading_from_json(_without_nul(rendered.text_reading)) if rendered.text_reading else None


def _without_nul(value):
    """Untrusted text (a PDF's text layer, a model's answer) without U+0000: no output carries
    it, and PostgreSQL refuses it in text and jsonb (a tiny random model's answer held one)."""
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {k: _without_nul(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_without_nul(v) for v in value)
    return value


def _clean(reading: PageReading) -> PageReading:
    as_json = reading_to_json(reading)
    cleaned = _without_nul(as_json)
    return reading if cleaned == as_json else reading_from_json(cleaned)


def engine_input(image: Image.Image, number: int, dpi: int, *, drawn: bool = False) -> PageImage:
    """What every engine is given: the page as RGB (the same pixels on every path), and whether
    it is drawn (RenderedPage.drawn)."""
    return PageImage(image=image.convert("RGB"), page_number=number, dpi=dpi or 300, drawn=drawn)


def page_image(pages_dir: Path, number: int) -> Image.Image | None:
    """A rasterized page as RGB, for cropping figures; None when it has no image."""
    path = page_file(pages_dir, number)
    if not path.exists():
        return None
    with Image.open(path) as image:
        return image.convert("RGB")


# --- read ---------------------------------------------------------------------------------------


def read(engine: PageEngine, pages: list[PageImage]) -> list[PageReading]:
    """Read a batch of pages; an engine's own error becomes EngineFailed (it names the page)."""
    try:
        readings = engine.predict_batch(pages)
    except ConversionError:
        raise
    except Exception as exc:
        raise EngineFailed(
            f"The {engine.name} engine failed on page {pages[0].page_number}: {exc}",
            page=pages[0].page_number,
        ) from exc
    readings = [_clean(reading) for reading in readings]
    for page, reading in zip(pages, readings, strict=True):
        reading.page_number = page.page_number
    return readings


def read_stream(
    engine: PageEngine, batches: Iterable[list[PageImage]]
) -> Iterator[list[PageReading]]:
    """Read batches in order, one reading list per batch. A StreamingEngine (the gemma engine)
    works on the next batch while it finishes this one; any other engine reads batch by batch.
    Engine errors become EngineFailed, as in read."""
    if not isinstance(engine, StreamingEngine):
        for pages in batches:
            yield read(engine, pages)
        return
    readings_of = iter(engine.predict_stream(batches))
    while True:
        try:
            readings = next(readings_of)
        except StopIteration:
            return
        except ConversionError:
            raise
        except Exception as exc:
            raise EngineFailed(f"The {engine.name} engine failed: {exc}") from exc
        yield [_clean(reading) for reading in readings]


# --- finish -------------------------------------------------------------------------------------


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
    document = add_page_scans(document)
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
            if block.page_scan:
                box = (0, 0, image.width, image.height)  # the page as the reader turned it
            if box[2] - box[0] < 8 or box[3] - box[1] < 8:
                continue
            name = f"figure-{count}-p{page.number}.png"
            files_dir.mkdir(parents=True, exist_ok=True)
            crop = image.crop(box)
            crop.thumbnail((1600, 1600))
            crop.save(files_dir / name, compress_level=6)
            block.image = name
    return document


def reading_findings(
    document: Document, *, repaired: bool = False, handwriting_engine: str | None = None
) -> list[Finding]:
    """What the reading and the document tree say, before the HTML is checked. Unreadable
    pages recommend `handwriting_engine` when the server has one."""
    findings = [
        replace(f, message=f"{f.message} Or convert it again with {handwriting_engine}.")
        if handwriting_engine and f.code == UNREADABLE
        else f
        for f in document.findings
    ]
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
    return findings + check_document(document)


def render_and_check(
    document: Document,
    *,
    files_dir_name: str,
    repaired: bool = False,
    handwriting_engine: str | None = None,
) -> tuple[str, list[Finding]]:
    html = render_document(document, RenderOptions(files_dir=files_dir_name))
    findings = reading_findings(document, repaired=repaired, handwriting_engine=handwriting_engine)
    tree = parse_output(html)
    return html, locate(tree, findings + check_html(tree, expected_pages=len(document.pages)))


def in_page_order(findings: list[dict]) -> list[dict]:
    """Findings in page order, document-wide ones first; a page's in the order they were found.
    One order for every writer of a report, so the same findings give the same bytes."""
    return sorted(findings, key=lambda f: f.get("page") or 0)


def make_report(*, document: Document, findings: list[Finding], engine: dict, source: str) -> dict:
    """report.json: what was read and what was found. It describes the document, not the run:
    the same PDF gives the same report by any path (run timings live on the job)."""
    as_dicts = in_page_order([f.as_dict() for f in findings])
    return {
        "version": REPORT_VERSION,
        "source": source,
        "title": document.title,
        "language": document.lang,
        "pages": len(document.pages),
        "engine": engine or _text_layer_reader(document),
        "summary": summarize(as_dicts),
        "findings": as_dicts,
        "page_sources": {str(p.number): p.source for p in document.pages},
    }


TEXT_LAYER = "text layer"


def _text_layer_reader(document: Document) -> dict:
    """What read a document no engine touched: every page from its own text layer, through
    PyMuPDF (issue 33: the report said `engine: {}`)."""
    if not document.pages or any(p.source != "text_layer" for p in document.pages):
        return {}
    return {
        "engine": TEXT_LAYER,
        "package": f"PyMuPDF {importlib.metadata.version('PyMuPDF')}",
        "about": "Every page was read from the text the PDF itself holds: no OCR.",
    }


def output_paths(out_dir: Path, stem: str) -> tuple[Path, Path, Path, Path]:
    """(HTML, its files folder, report.json, report.html) of the document `stem` in out_dir."""
    return (
        out_dir / f"{stem}.html",
        out_dir / f"{stem}_files",
        out_dir / f"{stem}.report.json",
        out_dir / f"{stem}.report.html",
    )


def write_outputs(
    out_dir: Path, stem: str, html: str, report: dict, staged_files: Path | None
) -> tuple[Path, Path, Path, Path]:
    """Move the finished outputs into out_dir; on failure nothing of this document remains.
    Returns output_paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = html_path, files_dir, report_path, report_html = output_paths(out_dir, stem)
    stage = Path(tempfile.mkdtemp(prefix=f".{stem}.", dir=out_dir))
    try:
        (stage / html_path.name).write_text(html, encoding="utf-8")
        (stage / report_path.name).write_text(json.dumps(report, indent=2), encoding="utf-8")
        write_report_html(report, stage / report_html.name, document_href=html_path.name)
        if staged_files is not None and staged_files.exists() and any(staged_files.iterdir()):
            shutil.copytree(staged_files, stage / files_dir.name)
        if files_dir.exists():
            shutil.rmtree(files_dir)
        if (stage / files_dir.name).exists():
            os.replace(stage / files_dir.name, files_dir)
        os.replace(stage / report_path.name, report_path)
        os.replace(stage / report_html.name, report_html)
        os.replace(stage / html_path.name, html_path)
    except OSError as exc:
        raise OutputFailed(f"Could not write the result to {out_dir}: {exc.strerror}.") from exc
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return paths


def finish(
    readings: list[PageReading],
    *,
    page_images: Callable[[int], Image.Image | None],
    out_dir: Path,
    stem: str,
    title: str,
    language: str | None,
    repaired: bool,
    engine_info: dict,
    source: str,
    handwriting_engine: str | None = None,
) -> Finished:
    """Assemble, crop figures from the page images (page_images(n): page n as RGB, or None),
    render, check, and write `<stem>.html`, `<stem>_files/`, `<stem>.report.json` and
    `<stem>.report.html` into out_dir."""
    readings = sorted(readings, key=lambda r: r.page_number)
    with tempfile.TemporaryDirectory(prefix="axiya-finish-") as tmp:
        staged = Path(tmp) / "files"
        document = build_document(
            readings,
            page_images,
            title=title,
            language=language,
            files_dir=staged,
        )
        html, findings = render_and_check(
            document,
            files_dir_name=f"{stem}_files",
            repaired=repaired,
            handwriting_engine=handwriting_engine,
        )
        report = make_report(
            document=document, findings=findings, engine=engine_info, source=source
        )
        report["formats"] = describe_formats(html, report, figures=files_opener(staged))
        html_path, files_dir, report_path, report_html = write_outputs(
            out_dir, stem, html, report, staged
        )
    return Finished(html_path, files_dir, report_path, report_html, document, report)
