"""CPU pipeline speed and memory on the corpus, beside plain `tesseract` on the same pages.

Prints seconds per page (rasterize / engine, with the layout model's share on the page's path and
the share it spends beside the OCR on another thread / assemble+render+checks), the CPU seconds a
page costs (user + system of the whole conversion: every thread, Tesseract's included, and the
isolated MuPDF readers; on a busy machine this, not the wall clock, compares two trees), peak
memory, and CER where a transcript exists; writes bench/results/cpu_pipeline-<date>[-TAG].json.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/cpu_pipeline.py [--only NAME ...] [--runs N]
        [--tag TAG]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import resource
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import django  # noqa: E402
import psutil  # noqa: E402

if __name__ == "__main__":  # not again in each isolated PDF reader, which imports this script
    django.setup()

from bench.common import DOCS, RESOURCES, as_pdf, plain_tesseract_pages, warm_up  # noqa: E402
from bench.quality import cer, iter_main_text  # noqa: E402
from bench.report import dated, write_result  # noqa: E402
from conversion.pipeline.convert import convert_pdf  # noqa: E402
from conversion.pipeline.flow import ConvertOptions  # noqa: E402
from models.ocr import TesseractEngine  # noqa: E402

RUNS = 3


def cpu_seconds() -> float:
    """User + system CPU seconds so far of this process (all its threads), of its children
    waited for, and of its live children with what they waited for (the isolate's fork server
    and the readers it forked)."""
    me = psutil.Process()
    total = sum(me.cpu_times()[:4])  # user, system, children_user, children_system
    for child in me.children(recursive=True):
        try:
            total += sum(child.cpu_times()[:4])
        except psutil.NoSuchProcess:
            pass  # ended meanwhile: counted by its parent once waited for
    return total


def converted(pdf: Path, out: Path, engine: TesseractEngine):
    """One conversion and the CPU seconds it cost."""
    before = cpu_seconds()
    result = convert_pdf(pdf, out, engine, ConvertOptions())
    return result, cpu_seconds() - before


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="documents of bench.common.DOCS (default: all)")
    parser.add_argument("--runs", type=int, default=RUNS, help="runs per document (the median)")
    parser.add_argument("--tag", default="", help="suffix of the JSON's name")
    return parser.parse_args()


def main() -> None:
    args = arguments()
    engine = TesseractEngine()
    rows = []
    # Warm-up, not counted: the first read loads Tesseract's models.
    warm_up(engine)
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        for name, truth in DOCS.items():
            if args.only and name not in args.only:
                continue
            pdf = as_pdf(name, tmpdir)
            # Shared 2-core machines are noisy: each figure is the median of the runs.
            timed = [converted(pdf, tmpdir / "out", engine) for _ in range(args.runs)]
            runs = [r for r, _ in timed]
            result = runs[-1]
            pages = result.timings["pages"]

            def per_page(key: str, runs=runs, pages=pages) -> float:
                return statistics.median(r.timings[key] for r in runs) / pages

            def per_engine_page(key: str, runs=runs, result=result) -> float:
                return statistics.median(r.timings.get(key, 0.0) for r in runs) / max(
                    1, result.timings["engine_pages"]
                )

            text = "\n".join(iter_main_text(result.html_path.read_text()))
            plain = [plain_tesseract_pages(pdf, tmpdir) for _ in range(args.runs)]
            plain_text = "\n".join(plain[-1][0].values())
            ref = (RESOURCES / truth).read_text() if truth else None
            rows.append(
                {
                    "document": name,
                    "pages": pages,
                    "rasterize_s_per_page": per_page("rasterize_s"),
                    "engine_s_per_page": per_page("engine_s"),
                    "layout_s_per_page": per_engine_page("layout_s"),
                    "layout_beside_s_per_page": per_engine_page("layout_beside_s"),
                    "assemble_render_check_s_per_page": per_page("assemble_render_check_s"),
                    "total_s_per_page": per_page("total_s"),
                    "cpu_s_per_page": statistics.median(cpu for _, cpu in timed) / pages,
                    "plain_tesseract_s_per_page": statistics.median(s for _, s in plain) / pages,
                    "cer": cer(text, ref) if ref else None,
                    "plain_tesseract_cer": cer(plain_text, ref) if ref else None,
                }
            )
    peak_self_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    peak_children_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    header = (f"{'document':<15}{'pages':>6}{'raster':>8}{'engine':>8}{'layout':>8}{'beside':>8}"
              f"{'render':>8}"
              f"{'total':>8}{'cpu':>8}{'tess':>8}{'CER':>8}{'tessCER':>9}")  # fmt: skip
    print(header)
    print("-" * len(header))
    for r in rows:

        def pct(v):
            return f"{v * 100:.2f}%" if v is not None else "-"

        print(
            f"{r['document']:<15}{r['pages']:>6}{r['rasterize_s_per_page']:>8.2f}"
            f"{r['engine_s_per_page']:>8.2f}{r['layout_s_per_page']:>8.2f}"
            f"{r['layout_beside_s_per_page']:>8.2f}"
            f"{r['assemble_render_check_s_per_page']:>8.2f}"
            f"{r['total_s_per_page']:>8.2f}{r['cpu_s_per_page']:>8.2f}"
            f"{r['plain_tesseract_s_per_page']:>8.2f}"
            f"{pct(r['cer']):>8}{pct(r['plain_tesseract_cer']):>9}"
        )
    pages = sum(r["pages"] for r in rows)
    cpu_all = sum(r["cpu_s_per_page"] * r["pages"] for r in rows) / pages
    print(f"seconds per page (median of {args.runs} runs; cpu: user + system); all {pages} pages: "
          f"{cpu_all:.2f} CPU s/page")  # fmt: skip
    print(f"peak RSS: pipeline {peak_self_mb:.0f} MB, "
          f"plain tesseract {peak_children_mb:.0f} MB")  # fmt: skip
    out = {
        "date": dt.date.today().isoformat(),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
        "settings": {
            "dpi": 300,
            "omp_thread_limit": os.environ.get("OMP_THREAD_LIMIT"),
            "runs": args.runs,
        },
        "rows": rows,
        "cpu_s_per_page_all": cpu_all,
        "peak_rss_mb": {"pipeline": peak_self_mb, "plain_tesseract": peak_children_mb},
    }
    write_result(dated("cpu_pipeline") + (f"-{args.tag}" if args.tag else ""), out)


if __name__ == "__main__":
    main()
