"""CPU engine quality beside plain Tesseract: CER per document against its transcript, and
olmOCR-Bench-style tests (present / absent / order) from tests/resources/olmocr_tests.jsonl.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/ocr_quality.py

Plain Tesseract is `tesseract page.png - --psm 3 -l eng` on the same pages at 300 DPI. Writes
bench/results/ocr_quality-<date>.json.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import django  # noqa: E402

if __name__ == "__main__":  # not again in each isolated PDF reader, which imports this script
    django.setup()

from bench.common import DOCS, RESOURCES, as_pdf, plain_tesseract_pages, warm_up  # noqa: E402
from bench.quality import cer, iter_main_text, run_test  # noqa: E402
from bench.report import dated, write_result  # noqa: E402
from conversion.pipeline.convert import convert_pdf  # noqa: E402
from conversion.pipeline.flow import ConvertOptions  # noqa: E402
from models.ocr import TesseractEngine  # noqa: E402


def ours_by_page(html: str) -> dict[int, str]:
    """Main text per page, split at the page-break markers."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    main = soup.find("main")
    pages: dict[int, list[str]] = {}
    current = 1
    for el in main.find_all(True):
        role = el.get("role", "")
        if "doc-pagebreak" in role:
            current = int(el["id"].split("-")[1])
            continue
        if el.name in ("p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "figcaption"):
            if "furniture" in el.get("class", []):
                continue
            pages.setdefault(current, []).append(" ".join(el.get_text().split()))
    return {n: "\n".join(t) for n, t in pages.items()}


def main() -> None:
    tests = [
        json.loads(line) for line in (RESOURCES / "olmocr_tests.jsonl").read_text().splitlines()
    ]
    engine = TesseractEngine()
    rows, outcomes = [], []
    # Warm-up, not counted: the first read loads Tesseract's models.
    warm_up(engine)
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        for name, truth in {**DOCS, "blank.pdf": None}.items():
            pdf = as_pdf(name, tmpdir)
            started = time.perf_counter()
            result = convert_pdf(pdf, tmpdir / "out", engine, ConvertOptions())
            ours_s = time.perf_counter() - started
            html = result.html_path.read_text()
            ours_pages = ours_by_page(html)
            plain_pages, plain_s = plain_tesseract_pages(pdf, tmpdir)
            ref = (RESOURCES / truth).read_text() if truth else None
            n = result.report["pages"]
            rows.append(
                {
                    "document": name,
                    "pages": n,
                    "cer": cer("\n".join(iter_main_text(html)), ref) if ref else None,
                    "plain_cer": cer("\n".join(plain_pages.values()), ref) if ref else None,
                    "s_per_page": ours_s / n,
                    "plain_s_per_page": plain_s / n,
                }
            )
            for test in (t for t in tests if t["pdf"] == name):
                outcomes.append(
                    {
                        "id": test["id"],
                        "ours": run_test(test, ours_pages),
                        "plain": run_test(test, plain_pages),
                    }
                )

    def pct(v):
        return f"{v * 100:6.2f}%" if v is not None else "      -"

    print(f"{'document':<15}{'pages':>6}{'CER':>9}{'plain CER':>11}{'s/page':>8}{'plain s/p':>10}")
    for r in rows:
        print(f"{r['document']:<15}{r['pages']:>6}{pct(r['cer']):>9}{pct(r['plain_cer']):>11}"
              f"{r['s_per_page']:>8.2f}{r['plain_s_per_page']:>10.2f}")  # fmt: skip
    ours = sum(o["ours"] for o in outcomes)
    plain = sum(o["plain"] for o in outcomes)
    total = len(outcomes)
    print(f"\nolmOCR-style tests passed: ours {ours}/{total}, plain {plain}/{total}")
    for o in outcomes:
        if not o["ours"] or not o["plain"]:
            print(f"  {o['id']:<30} ours={'pass' if o['ours'] else 'FAIL'}  "
                  f"plain={'pass' if o['plain'] else 'FAIL'}")  # fmt: skip
    out = {
        "date": dt.date.today().isoformat(),
        "cpus": os.cpu_count(),
        "rows": rows,
        "tests": outcomes,
        "passed": {"ours": ours, "plain": plain, "total": total},
    }
    write_result(dated("ocr_quality"), out)


if __name__ == "__main__":
    main()
