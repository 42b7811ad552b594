"""The EPUB and tagged PDF beside the HTML: seconds per page for each format, the checks their
users trust (EPUBCheck: fatals and errors; the PDF's structure read back with pikepdf), and how
time and memory grow with the page count.

Each document (its first --pages pages) is converted to HTML once on the CPU engine; then the
EPUB and the PDF are made from that HTML, as a download does (format_writers.write_format: the
whole making of that format from the HTML, its self-check included), and timed (median of
--runs, and the least CPU time of them, after one warm-up document: WeasyPrint's first call
loads Pango and its fonts). Times
are wall-clock and CPU seconds of this process: on a shared machine the wall clock mostly
measures the other users' load (the load average is recorded beside). A handmade text document
of 10, 40, 160 and 320 pages shows the growth. Writes bench/results/formats-<set>-<date>.json.

    OMP_THREAD_LIMIT=1 nice -n 10 .venv/bin/python bench/formats.py [--set tests|issue] [--pages 2]

`--pages-per-render 100000` renders each PDF in one piece, as before issue 34's runs (the
comparison in the README).

`--set tests` (default): the tests/resources copies; `--set issue`: the issue's list (the
ocrmypdf corpus, structure/, five realworld pages: a table, math, two columns, handwriting, a
slide) from ../shared/corpus.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import logging
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import django  # noqa: E402
import lxml.html  # noqa: E402

if __name__ == "__main__":  # not again in each isolated PDF reader, which imports this script
    django.setup()

import pymupdf  # noqa: E402

from conversion.pipeline import tagged_pdf  # noqa: E402
from conversion.pipeline.convert import convert_pdf  # noqa: E402
from conversion.pipeline.document import Block, Document, Page, Span  # noqa: E402
from conversion.pipeline.flow import ConvertOptions  # noqa: E402
from conversion.pipeline.format_writers import files_opener, write_format  # noqa: E402
from conversion.pipeline.pdf_check import check_pdf  # noqa: E402
from conversion.pipeline.render import RenderOptions, render_document  # noqa: E402
from models.ocr import TesseractEngine  # noqa: E402
from tests.pipeline.test_epub import ACE, ace_violations, epubcheck, problems  # noqa: E402

DEFAULT_PAGES_PER_RENDER = tagged_pdf.PRINT_PAGES_PER_RENDER
# --pages-per-render, passed to the growth runs' fresh processes (which import this script).
PAGES_PER_RENDER_ENV = "AXIYA_BENCH_PAGES_PER_RENDER"
tagged_pdf.PRINT_PAGES_PER_RENDER = int(
    os.environ.get(PAGES_PER_RENDER_ENV, tagged_pdf.PRINT_PAGES_PER_RENDER)
)
HEADINGS = tuple(f"h{n}" for n in range(1, 7))
TESTS = ROOT / "tests" / "resources" / "corpus"
SHARED = ROOT.parent / "shared" / "corpus"
SETS = {
    "tests": [
        TESTS / "c02-22.pdf",
        TESTS / "multipage.pdf",
        TESTS / "realworld" / "lots_of_sci_tables-p1.pdf",
        TESTS / "realworld" / "olmo-page-1.pdf",
        TESTS / "realworld" / "bws_book_ch2-p5.pdf",
    ],
    "issue": [
        *sorted((SHARED / "ocrmypdf").glob("*.pdf")),
        *sorted((SHARED / "structure").glob("*.pdf")),
        SHARED / "realworld" / "lots_of_sci_tables.pdf",  # a table page
        TESTS / "realworld" / "bws_book_ch2-p5.pdf",  # math
        SHARED / "realworld" / "olmo-page-1.pdf",  # two columns
        SHARED / "realworld" / "handwriting_bad_ocr.pdf",  # handwriting
        SHARED / "realworld" / "most_content_in_image_form.pdf",  # a slide
    ],
}
GROWTH_PAGES = (10, 40, 160, 320)


def first_pages(pdf: Path, pages: int, workdir: Path) -> Path:
    with pymupdf.open(pdf) as doc:
        if doc.page_count <= pages:
            return pdf
        part = pymupdf.open()
        part.insert_pdf(doc, from_page=0, to_page=pages - 1)
        out = workdir / pdf.name
        part.save(out)
        return out


def timed(fn, runs: int) -> tuple[float, float, float, object]:
    """(median wall seconds, median and least CPU seconds of this process, the last result).
    Other processes on the cores only add to a run's CPU time (caches, shared cores), never
    take from it: the least is the cost with the least interference."""
    walls, cpus, result = [], [], None
    for _ in range(runs):
        started, cpu = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), min(cpus), result


def make_formats(html: str, report: dict, files: Path, runs: int) -> dict:
    figures = files_opener(files)
    made = {}
    for fmt in ("epub", "pdf"):

        def write(fmt=fmt) -> tuple[bytes, dict]:
            out = io.BytesIO()
            result = write_format(fmt, html, report, out, figures=figures)
            return out.getvalue(), result

        wall, cpu, least, (data, result) = timed(write, runs)
        made[fmt] = {"wall_s": wall, "cpu_s": cpu, "cpu_min_s": least, "data": data,
                     "result": result}  # fmt: skip
    return made


def document_row(pdf: Path, engine, args, workdir: Path) -> dict:
    source = first_pages(pdf, args.pages, workdir)
    out = workdir / "out"
    result = convert_pdf(source, out, engine, ConvertOptions())
    pages = result.timings["pages"]
    html = result.html_path.read_text(encoding="utf-8")
    made = make_formats(html, result.report, result.files_dir, args.runs)
    epub_path = workdir / f"{pdf.stem}.epub"
    epub_path.write_bytes(made["epub"]["data"])
    check = problems(epubcheck(epub_path, workdir))
    ace = ace_violations(epub_path, workdir) if ACE.exists() else None
    structure = check_pdf(io.BytesIO(made["pdf"]["data"]), headings=_outline(html))
    row = {"document": pdf.name, "pages": pages,
           "html_s_per_page": round(result.timings["total_s"] / pages, 3)}  # fmt: skip
    for fmt in ("epub", "pdf"):
        row[f"{fmt}_s_per_page"] = round(made[fmt]["wall_s"] / pages, 3)
        row[f"{fmt}_cpu_s_per_page"] = round(made[fmt]["cpu_s"] / pages, 3)
        row[f"{fmt}_cpu_min_s_per_page"] = round(made[fmt]["cpu_min_s"] / pages, 3)
    return {
        **row,
        "epubcheck_fatals_errors": check,
        "ace_critical_serious": ace,  # None: DAISY Ace not installed
        "epub_self_check": made["epub"]["result"]["check"]["problems"],
        "pdf_structure_ok": not structure["problems"],
        "pdf_structure": structure,
    }


def _outline(html: str) -> list[str]:
    """The HTML's headings, h1..h6, in order."""
    return [el.tag for el in lxml.html.document_fromstring(html).iter(*HEADINGS)]


def growth_row(pages: int, runs: int) -> dict:
    """A text document of `pages` pages (a heading and four paragraphs each): seconds per page
    and how much a fresh process grows while each format is made (peak resident memory over
    its size before: lxml's, Pango's and Python's memory alike, the libraries it loads too)."""
    words = "The harbour office keeps the ferry schedule and the night boats run in summer. " * 6
    doc = Document("Growth", "en", [
        Page(n, 10, 10, blocks=[Block(kind="heading", level=2, spans=[Span(f"Section {n}")])]
             + [Block(kind="paragraph", spans=[Span(words)]) for _ in range(4)])
        for n in range(1, pages + 1)
    ])  # fmt: skip
    html = render_document(doc, RenderOptions())
    row = {"pages": pages}
    for fmt, write in (("epub", _epub_of), ("pdf", _pdf_of)):
        wall, cpu, _, _ = timed(lambda write=write: write(html), runs)
        row[f"{fmt}_s_per_page"] = round(wall / pages, 4)
        row[f"{fmt}_cpu_s_per_page"] = round(cpu / pages, 4)
        row[f"{fmt}_rss_growth_mib"] = _rss_growth(write, html)
    return row


def _rss_growth(write, html: str) -> float:
    """MiB a fresh process grows by while write(html) runs (the libraries it loads included)."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(_measure, (write, html))


def _measure(write, html: str) -> float:
    before = _status_kib("VmRSS")
    write(html)
    return round((_status_kib("VmHWM") - before) / 1024, 1)


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    return 0


def _epub_of(html: str) -> None:
    write_format("epub", html, {}, io.BytesIO(), figures=lambda name: None)


def _pdf_of(html: str) -> None:
    write_format("pdf", html, {}, io.BytesIO(), figures=lambda name: None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=SETS, default="tests")
    parser.add_argument("--pages", type=int, default=2, help="first pages of each document")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", help="the documents whose file name contains this")
    parser.add_argument("--no-growth", action="store_true")
    parser.add_argument("--growth-only", action="store_true")
    parser.add_argument(
        "--pages-per-render", type=int, default=tagged_pdf.PRINT_PAGES_PER_RENDER,
        help="print pages WeasyPrint lays out at once (100000: the whole document, as before)",
    )  # fmt: skip
    args = parser.parse_args()
    logging.getLogger("weasyprint").setLevel(logging.ERROR)  # its progress, CSS it skips
    # Read by write_pdf's default, in this process and in the growth runs' fresh ones.
    os.environ[PAGES_PER_RENDER_ENV] = str(args.pages_per_render)
    tagged_pdf.PRINT_PAGES_PER_RENDER = args.pages_per_render
    engine = None if args.growth_only else TesseractEngine()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        _pdf_of(render_document(Document("warm", "en", [Page(1, 10, 10)]), RenderOptions()))
        chosen = [pdf for pdf in SETS[args.set] if (args.only or "") in pdf.name]
        for pdf in [] if args.growth_only else chosen:
            row = document_row(pdf, engine, args, workdir)
            rows.append(row)
            print(
                f"{row['document']:40} {row['pages']:3} p  html {row['html_s_per_page']:.2f}  "
                f"epub {row['epub_s_per_page']:.3f} (cpu {row['epub_cpu_s_per_page']:.3f})  "
                f"pdf {row['pdf_s_per_page']:.3f} (cpu {row['pdf_cpu_s_per_page']:.3f}, least "
                f"{row['pdf_cpu_min_s_per_page']:.3f}) s/page  "
                f"epubcheck {len(row['epubcheck_fatals_errors'])} errors  "
                f"ace {len(row['ace_critical_serious'] or []) if ACE.exists() else '-'}  "
                f"pdf structure {'ok' if row['pdf_structure_ok'] else 'FAILS'}",
                flush=True,
            )
    growth = [] if args.no_growth else [growth_row(n, 1) for n in GROWTH_PAGES]
    for row in growth:
        print(
            f"growth {row['pages']:4} p: epub {row['epub_s_per_page']:.4f} "
            f"(cpu {row['epub_cpu_s_per_page']:.4f}) s/page +{row['epub_rss_growth_mib']} MiB, "
            f"pdf {row['pdf_s_per_page']:.4f} (cpu {row['pdf_cpu_s_per_page']:.4f}) s/page "
            f"+{row['pdf_rss_growth_mib']} MiB"
        )
    name = "growth" if args.growth_only else args.set
    if args.pages_per_render != DEFAULT_PAGES_PER_RENDER:
        name += f"-runs{args.pages_per_render}"
    if args.only:
        name += f"-only-{Path(args.only).stem}"
    out = ROOT / "bench" / "results" / f"formats-{name}-{dt.date.today().isoformat()}.json"
    # Shared 2-core machines are noisy: the load beside the run says how much.
    record = {
        "set": args.set, "pages_per_render": args.pages_per_render,
        "load_average_1m": os.getloadavg()[0], "documents": rows,
    }  # fmt: skip
    out.write_text(json.dumps({**record, "growth": growth}, indent=2))
    print(f"-> {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
