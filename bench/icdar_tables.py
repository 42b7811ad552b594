"""ICDAR 2013 tables (issue 32): the competition's born-digital documents (../shared/corpus/
tables-icdar2013) converted by ours beside pymupdf4llm (and plain Tesseract, which makes no
tables: 0), scored by bench/structure_quality.cell_score against the competition's cell truth
(bench/do_no_harm.icdar_tables); tune and validation (bench/splits.py) reported apart.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/icdar_tables.py [--split tune|validation|all]
        [--only ID ...] [--systems ours pymupdf4llm] [--scanned]

--scanned converts each document's scan (bench/structure_corpus.scan, seeded by its id) instead.
Per document: the share of truth cells found with their right and lower neighbours and their
column header; the summary: the mean over documents and the documents scoring 0. Writes
bench/results/icdar_tables-<split>[-scanned]-<date>.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import django  # noqa: E402

django.setup()

from bench.do_no_harm import icdar_tables  # noqa: E402
from bench.report import dated, write_result  # noqa: E402
from bench.splits import SHARED_CORPUS, members, validation_members  # noqa: E402
from bench.structure_corpus import scan  # noqa: E402
from bench.structure_quality import (  # noqa: E402
    cell_score,
    run_ours,
    run_pymupdf4llm,
    structure_of,
)
from models.ocr import TesseractEngine  # noqa: E402

CORPUS = "tables-icdar2013"
FOLDER = SHARED_CORPUS / CORPUS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("tune", "validation", "all"), default="tune")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--systems", nargs="*", default=["ours", "pymupdf4llm"])
    parser.add_argument("--scanned", action="store_true")
    parser.add_argument("--dump", type=Path)
    args = parser.parse_args()
    names = members(CORPUS)
    held = validation_members(CORPUS, names)
    wanted = {"tune": False, "validation": True}.get(args.split)
    chosen = [n for n in names if wanted is None or (n in held) == wanted]
    if args.only:
        chosen = [n for n in chosen if n in args.only]
    engine = TesseractEngine() if "ours" in args.systems else None
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for name in chosen:
            pdf = FOLDER / f"{name}.pdf"
            if args.scanned:
                scanned = workdir / f"{name}.scan.pdf"
                scan(pdf, scanned, random.Random(name))
                pdf = scanned
            truth = icdar_tables(FOLDER / f"{name}-str.xml", None)
            row: dict = {"document": name, "split": "validation" if name in held else "tune"}
            for system in args.systems:
                started = time.perf_counter()
                html = run_ours(pdf, workdir, engine) if system == "ours" else run_pymupdf4llm(pdf)
                if args.dump:
                    args.dump.mkdir(parents=True, exist_ok=True)
                    (args.dump / f"{name}.{system}.html").write_text(html, encoding="utf-8")
                score = cell_score(truth, structure_of(html))
                row[system] = None if score is None else round(score, 3)
                row[f"{system}_s"] = round(time.perf_counter() - started, 1)
            rows.append(row)
            print("  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    summary = {}
    for split in ("tune", "validation"):
        part = [r for r in rows if r["split"] == split]
        for system in args.systems:
            scores = [r[system] for r in part if r[system] is not None]
            if scores:
                summary[f"{split}/{system}"] = {
                    "documents": len(scores),
                    "mean_cells": round(sum(scores) / len(scores), 3),
                    "zero": sum(s == 0 for s in scores),
                }
    print("\n" + "\n".join(f"{k:28} {v}" for k, v in summary.items()))
    tag = args.split + ("-scanned" if args.scanned else "")
    write_result(dated(f"icdar_tables-{tag}"),
                 {"date": str(dt.date.today()), "rows": rows, "summary": summary})  # fmt: skip


if __name__ == "__main__":
    main()
