"""Headings of generated LaTeX papers (bench/latex_papers.py: many classes and heading styles)
against their source's outline: recall, precision, level order, ours beside pymupdf4llm,
born-digital and as a scan (issue 32).

    OMP_THREAD_LIMIT=1 nice .venv/bin/python bench/headings_papers.py --split tune [--verbose]
        [--variants digital scan] [--systems ours pymupdf4llm] [--only paper-001 ...]

Each paper is converted as its own document; its scan is bench/structure_corpus.scan of it. The
truth is the paper's .headings.json (levels: \\title 0 ... \\subsubsection 4; printed text as the
page has it). Measures as bench/headings_quality.py's, summed over the papers (recall: truth
headings found over all truth headings; precision: output headings that are truth headings
over all output headings; level order: agreeing steps over all steps, steps within a paper).
An output heading matches a truth heading at fuzzy ratio 85 or more, both with their label
("Chapter 3", "Appendix A", "2.1", "IV.") set aside: a class prints it on a line of its own, or
apart from the title on its line, or beside it. "Abstract" is neither counted nor held
against a system (classes set it as a heading, a run-in label or not at all; sources do not
say). Run-in heads (\\paragraph) are not in the
truth: a heading made of one cuts its paragraph and counts against precision.
Writes bench/results/headings_papers-<split>.json.
"""

from __future__ import annotations

import json
import os
import random
import re
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

from bench.headings_quality import (  # noqa: E402
    _fmt,
    headings_arguments,
    ours_headings,
    pymupdf4llm_headings,
    scores,
)
from bench.latex_papers import DEFAULT_OUT, generate  # noqa: E402
from bench.report import write_result  # noqa: E402
from bench.structure_corpus import scan  # noqa: E402
from bench.structure_quality import run_ours  # noqa: E402
from models.ocr import TesseractEngine  # noqa: E402

NEUTRAL = {"abstract"}  # headings no system is scored on
# A heading's label: "chapter 3", "appendix a", "2 1" (2.1), "iv", "a 1", "b".
_LABEL = re.compile(r"^(?:(?:chapter|appendix|part)\s+)?(?:\d+|[a-z]|[ivx]+)(?:\s\d+)*\s+(?=\w)")


def papers(split: str, out: Path = DEFAULT_OUT) -> list[tuple[Path, dict]]:
    if not any(out.glob("paper-*.headings.json")):
        generate(out)
    chosen = []
    for meta_path in sorted(out.glob("paper-*.headings.json")):
        meta = json.loads(meta_path.read_text("utf-8"))
        if split == "all" or meta["split"] == split:
            chosen.append((meta_path.with_name(meta_path.name.replace(".headings.json", ".pdf")),
                           meta))  # fmt: skip
    return chosen


def _unlabelled(heads: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Headings with their label set aside (a class prints "Chapter 3" on a line of its own,
    a section's number apart from its title or beside it: the heading is its title either
    way); "Abstract" left out (NEUTRAL)."""
    return [(level, _LABEL.sub("", text)) for level, text in heads if text not in NEUTRAL]


def _sum(rows: list[dict]) -> dict:
    truth = sum(r["truth"] for r in rows)
    found = sum(r["found"] for r in rows)
    hits = sum(r["hits"] for r in rows)
    steps = sum(r["steps"] for r in rows)
    agree = sum(r["agree"] for r in rows)
    return {"recall": hits / truth if truth else None,
            "precision": hits / found if found else None,
            "level_order": agree / steps if steps else None,
            "truth": truth, "found": found}  # fmt: skip


def score_paper(meta: dict, got: list[tuple[int, str]]) -> dict:
    truth = _unlabelled([(h["level"], h["printed"]) for h in meta["headings"]])
    got = _unlabelled(got)
    row = scores(truth, got)
    hits = round(row["recall"] * len(truth)) if row["recall"] is not None else 0
    pairs = hits - 1 if hits else 0
    row.update(hits=hits, steps=pairs,
               agree=round((row["level_order"] or 0) * pairs), got=got)  # fmt: skip
    return row


def main() -> None:
    parser = headings_arguments(__doc__)
    parser.add_argument("--only", nargs="*", help="paper stems (paper-001 ...)")
    parser.add_argument("--name", default="headings_papers")
    args = parser.parse_args()
    chosen = [(pdf, meta) for pdf, meta in papers(args.split)
              if not args.only or pdf.stem in args.only]  # fmt: skip
    engine = TesseractEngine()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for variant in args.variants:
            for system in args.systems:
                started = time.perf_counter()
                per_paper = []
                for pdf, meta in chosen:
                    path = pdf
                    if variant == "scan":
                        path = workdir / f"{pdf.stem}.scan.pdf"
                        if not path.exists():
                            scan(pdf, path, random.Random(pdf.name))
                    if system == "ours":
                        got = ours_headings(run_ours(path, workdir / pdf.stem, engine))
                    else:
                        got = pymupdf4llm_headings(path)
                    row = score_paper(meta, got)
                    row.update(paper=pdf.stem, style=meta["style"])
                    per_paper.append(row)
                    if args.verbose:
                        print(f"  {pdf.stem} {meta['style']:<12} recall={_fmt(row['recall'])} "
                              f"precision={_fmt(row['precision'])} "
                              f"level_order={_fmt(row['level_order'])}\n"
                              f"    missed: {row['missed']}\n    extra: {row['extra']}\n"
                              f"    got: {row['got']}", flush=True)  # fmt: skip
                total = {"variant": variant, "system": system,
                         "s": time.perf_counter() - started, **_sum(per_paper),
                         "papers": per_paper}  # fmt: skip
                rows.append(total)
                print(f"{variant:<8}{system:<12}{total['s']:6.1f}s  "
                      f"recall={_fmt(total['recall'])}  precision={_fmt(total['precision'])}  "
                      f"level_order={_fmt(total['level_order'])}  "
                      f"({total['found']} found, {total['truth']} true)", flush=True)  # fmt: skip
    stems = [p.stem for p, _ in chosen]
    write_result(f"{args.name}-{args.split}",
                 {"split": args.split, "papers": stems, "rows": rows})  # fmt: skip


if __name__ == "__main__":
    main()
