"""Byte-identical check for refactors of page reading: convert a fixed set of documents with the
CPU engine, as `manage.py convert` does (settings' options, the registry's engine), and keep each
document's HTML, its files and its reports (JSON, HTML) under DIR, so that before and after
compare with one `diff -r`.

    OMP_THREAD_LIMIT=1 nice -n 19 .venv/bin/python bench/same_output.py DIR [--inputs CACHE]

The set: every PDF of the shared corpus's ocrmypdf/ and structure/, the first REALWORLD_PAGES pages
of every realworld/ PDF, the first PDFJS_PAGES pages of every PDFJS_EVERY-th pdfjs/ PDF (sorted by
name) and the CPU benches' documents (bench.common.DOCS). Page subsets are written once to CACHE
(default bench/generated/same_output_inputs) and reused, so a run from another checkout (the
"before" tree) reads the very same input files: `--inputs` points it at them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import django  # noqa: E402

if __name__ == "__main__":  # not again in each isolated PDF reader, which imports this script
    django.setup()

import pymupdf  # noqa: E402

from bench.common import DOCS, as_pdf  # noqa: E402
from conversion.engines import get_engine  # noqa: E402
from conversion.options import convert_options  # noqa: E402
from conversion.pipeline.convert import convert_pdf  # noqa: E402
from conversion.pipeline.errors import ConversionError  # noqa: E402

DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"
DEFAULT_INPUTS = ROOT / "bench" / "generated" / "same_output_inputs"
REALWORLD_PAGES = 3
PDFJS_PAGES = 2
PDFJS_EVERY = 12  # 479 files: 40 of them; --pdfjs-every 1 for all (issue 30's full check)


def _first_pages(src: Path, pages: int, dest: Path) -> Path:
    """The first `pages` pages of src as dest (once; src itself when it has no more). A PDF that
    MuPDF cannot subset is converted whole: the check then sees what the site sees."""
    if dest.exists():
        return dest
    try:
        with pymupdf.open(src) as doc:
            if doc.needs_pass or doc.page_count <= pages:
                return src
            doc.select(list(range(pages)))
            dest.parent.mkdir(parents=True, exist_ok=True)
            doc.save(dest, garbage=3, deflate=True, no_new_id=True)
    except Exception:
        return src
    return dest


def _bench_document(name: str, bench_dir: Path) -> Path:
    """bench.common's document as a PDF, a wrapped scan written once (as_pdf writes it anew)."""
    wrapped = bench_dir / f"{Path(name).stem}.pdf"
    if Path(name).suffix != ".pdf" and wrapped.exists():
        return wrapped
    bench_dir.mkdir(parents=True, exist_ok=True)
    return as_pdf(name, bench_dir)


def document_set(corpus: Path, inputs: Path, pdfjs_every: int = PDFJS_EVERY) -> list[Path]:
    docs = sorted((corpus / "ocrmypdf").glob("*.pdf")) + sorted(
        (corpus / "structure").glob("*.pdf")
    )
    docs += [
        _first_pages(pdf, REALWORLD_PAGES, inputs / "realworld" / pdf.name)
        for pdf in sorted((corpus / "realworld").glob("*.pdf"))
    ]
    docs += [
        _first_pages(pdf, PDFJS_PAGES, inputs / "pdfjs" / pdf.name)
        for pdf in sorted((corpus / "pdfjs").glob("*.pdf"))[::pdfjs_every]
    ]
    docs += [_bench_document(name, inputs / "bench") for name in DOCS]
    return docs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, metavar="DIR")
    parser.add_argument("--inputs", type=Path, default=DEFAULT_INPUTS, metavar="CACHE")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--list", action="store_true", help="print the document set and stop")
    parser.add_argument("--pdfjs-every", type=int, default=PDFJS_EVERY, metavar="N")
    args = parser.parse_args()
    engine = get_engine("ocr")
    opts = convert_options(engine=engine.name)
    docs = document_set(args.corpus, args.inputs, args.pdfjs_every)
    if args.list:
        print("\n".join(map(str, docs)))
        return
    for number, pdf in enumerate(docs, 1):
        # One folder per document: the corpus folders share stems (ocrmypdf/linn, bench's linn).
        out = args.out / f"{pdf.parent.name}--{pdf.stem}"
        shutil.rmtree(out, ignore_errors=True)
        with tempfile.TemporaryDirectory(prefix="axiya-same-") as tmp:
            try:
                result = convert_pdf(pdf, Path(tmp), engine, opts)
            except ConversionError as exc:
                out.mkdir(parents=True)
                (out / "error.txt").write_text(f"{exc.code}: {exc.message}\n")
                print(f"[{number}/{len(docs)}] {pdf.name}: error {exc.code}", flush=True)
                continue
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copytree(tmp, out)
        print(f"[{number}/{len(docs)}] {pdf.name}: {result.report['pages']} pages", flush=True)


if __name__ == "__main__":
    main()
