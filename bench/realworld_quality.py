"""Real-world pages against hand-made truth: ours beside plain Tesseract and pymupdf4llm.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/realworld_quality.py [--only NAME ...] [--dump DIR]

A bench, not a test: the pages are read from ../shared/corpus/realworld (the olmOCR gnarly PDFs;
see ../shared/corpus/README.md), which only this workplace has; without it the bench says so and
stops. The truth is bench/resources/realworld_tests.jsonl, written by looking at each page's
image (provenance in bench/resources/PROVENANCE.md), olmOCR-Bench style, one test a line:
- present / absent / order: text tests on the page's reading text (bench/quality.run_test);
- table: a cell with its neighbours up / down / left / right and its column's header cell
  (olmOCR-Bench's TableTest), in an HTML table;
- math: a formula present as MathML (its text, as structure_quality compares it, or one row of
  a display of several rows); a scanned
  formula passes as MathML or as an image with a FORMULA_NOT_TRANSCRIBED finding, never inside a
  heading;
- heading: a printed title or section heading is an <h1>-<h6>;
- furniture: a running head, footer, page number or stamp is not in the reading text;
- flag: a handwritten page carries a page-level UNREADABLE finding (routes the job to review).
Each tested page is cut out as a one-page PDF (or, with "scan": true, rasterized as a scan the
way bench/structure_corpus.py makes its scans), as the hold-out's one-page documents are, and
each system reads it through bench/structure_quality.py's run_ours / run_tesseract /
run_pymupdf4llm. Absent and furniture tests fail on a page a system read as (almost) nothing.
Prints the passes per test type and per document, then every test we lose; writes
bench/results/realworld_quality-<date>.json.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import pymupdf  # noqa: E402
from bs4 import BeautifulSoup  # noqa: E402
from rapidfuzz import fuzz  # noqa: E402
from rapidfuzz.distance import Levenshtein  # noqa: E402

# Importing structure_quality sets Django up.
from bench.quality import fuzzy_find, iter_main_text, normalize_text, run_test  # noqa: E402
from bench.splits import TUNE, VALIDATION, members, split_of  # noqa: E402
from bench.structure_corpus import scan  # noqa: E402
from bench.structure_quality import (  # noqa: E402
    TEXT_BLOCKS,
    _grid,
    _math_text,
    arguments,
    run_ours,
    run_pymupdf4llm,
    run_tesseract,
    write_results,
)
from models.ocr import TesseractEngine  # noqa: E402

REALWORLD = ROOT.parent / "shared" / "corpus" / "realworld"
TESTS = ROOT / "bench" / "resources" / "realworld_tests.jsonl"
KINDS = ("present", "absent", "order", "table", "math", "heading", "furniture", "flag")
EMPTY = 20  # characters: a page read as less than this is read as nothing


@dataclass
class Reading:
    """One system's reading of one page, as the tests look at it."""

    blocks: list[str]  # the reading text, block by block, furniture out
    headings: list[str]
    tables: list[list[list[tuple[str, bool]]]]  # grids of (normalized text, header cell)
    maths: list[str]  # each <math>'s text, as structure_quality compares formulas
    findings: list[dict] = field(default_factory=list)  # page-level findings (ours only)

    @property
    def text(self) -> str:
        return "\n".join(self.blocks)


def reading_of(html: str, findings: list[dict]) -> Reading:
    soup = BeautifulSoup(html, "lxml")
    main = soup.find("main") or soup.body or soup
    for el in main.select(".furniture, nav, details"):
        el.decompose()
    maths = []
    for math in main.find_all("math"):
        for annotation in math.find_all(["annotation", "annotation-xml"]):
            annotation.decompose()
        maths.append(_math_text(math.get_text()))
    headings = [
        " ".join(h.get_text(" ").split())
        for h in main.find_all(["h1", "h2", "h3", "h4", "h5", "h6"])
    ]
    tables = [_grid(t) for t in main.find_all("table") if t.find_parent("table") is None]
    blocks = iter_main_text(f"<main>{main.decode_contents()}</main>", blocks=TEXT_BLOCKS)
    return Reading(blocks, headings, [t for t in tables if t], maths, findings)


# -- tests -----------------------------------------------------------------------------------------
def _close(want: str, got: str, max_diffs: int, *, prefix: bool = True) -> bool:
    """Same text within max_diffs edits; a long wanted text may be the opening of a longer cell
    (a table cell of several lines, given by its first words)."""
    want, got = normalize_text(want).casefold(), normalize_text(got).casefold()
    if Levenshtein.distance(want, got) <= max_diffs:
        return True
    return prefix and len(want) >= 20 and Levenshtein.distance(want, got[: len(want)]) <= max_diffs


def _neighbour(grid, r: int, c: int, dr: int, dc: int) -> str | None:
    """The next cell from (r, c) in a direction whose text differs (a spanning cell fills
    several slots of the grid)."""
    text = grid[r][c][0]
    r, c = r + dr, c + dc
    while 0 <= r < len(grid) and 0 <= c < len(grid[r]):
        if grid[r][c][0] != text:
            return grid[r][c][0]
        r, c = r + dr, c + dc
    return None


def table_test(test: dict, reading: Reading) -> bool:
    diffs = int(test.get("max_diffs", 0))
    moves = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
    for grid in reading.tables:
        for r, row in enumerate(grid):
            for c, (text, _) in enumerate(row):
                if not _close(test["cell"], text, diffs):
                    continue
                ok = all(
                    (got := _neighbour(grid, r, c, *move)) is not None
                    and _close(test[key], got, diffs)
                    for key, move in moves.items()
                    if key in test
                )
                if ok and "top_heading" in test:
                    # The column's header: a header cell above it, or the table's first row.
                    heads = [grid[k][c][0] for k in range(r) if grid[k][c][1] or k == 0]
                    ok = any(_close(test["top_heading"], h, diffs, prefix=False) for h in heads)
                if ok:
                    return True
    return False


def math_test(test: dict, reading: Reading) -> bool:
    want = _math_text(test["math"])
    # As structure_quality compares formulas; one row of a display of several rows counts.
    if any(fuzz.ratio(want, got) >= 80
           or len(want) >= 0.4 * len(got) and fuzz.partial_ratio(want, got) >= 90
           for got in reading.maths):  # fmt: skip
        return True
    if not test.get("scanned"):
        return False
    as_image = any(f.get("code") == "FORMULA_NOT_TRANSCRIBED" for f in reading.findings)
    in_heading = any(fuzz.partial_ratio(want, _math_text(h)) >= 60 for h in reading.headings)
    return as_image and not in_heading


def heading_test(test: dict, reading: Reading) -> bool:
    """A heading holding the printed one (a logo's word beside a title may come with it), not
    a paragraph that contains it."""
    want = normalize_text(test["text"]).casefold()
    diffs = int(test.get("max_diffs", 0))
    for heading in reading.headings:
        got = normalize_text(heading).casefold()
        if len(got) <= len(want) * 1.3 + 12 and fuzzy_find(got, want, diffs) >= 0:
            return True
    return False


def furniture_test(test: dict, reading: Reading) -> bool:
    """Not in the reading text; a short one (a page number) as a token of a short block."""
    want = normalize_text(test["text"])
    if len(want) >= 8:
        return fuzzy_find(normalize_text(reading.text), want, int(test.get("max_diffs", 0))) < 0
    token = re.compile(rf"(?<!\w){re.escape(want)}(?!\w)")
    return not any(token.search(b) and len(b) <= 120 for b in reading.blocks)


def passes(test: dict, reading: Reading) -> bool:
    kind = test["type"]
    if kind in ("absent", "furniture") and len(reading.text.strip()) < EMPTY:
        return False
    if kind in ("present", "absent", "order"):
        return run_test({**test, "page": 1}, {1: reading.text})
    if kind == "flag":
        return any(f.get("code") == "UNREADABLE" for f in reading.findings)
    return {"table": table_test, "math": math_test, "heading": heading_test,
            "furniture": furniture_test}[kind](test, reading)  # fmt: skip


# -- pages and systems -----------------------------------------------------------------------------
def page_pdf(name: str, page: int, scanned: bool, workdir: Path) -> Path:
    """The page cut out as a one-page PDF, or that PDF rasterized as a scan."""
    stem = f"{Path(name).stem}-p{page}"
    out = workdir / f"{stem}.pdf"
    if not out.exists():
        single = pymupdf.open()
        with pymupdf.open(REALWORLD / name) as doc:
            single.insert_pdf(doc, from_page=page - 1, to_page=page - 1)
        single.save(out)
        single.close()
    if not scanned:
        return out
    scanned_out = workdir / f"{stem}.scan.pdf"
    if not scanned_out.exists():
        scan(out, scanned_out, random.Random(stem))
    return scanned_out


def read(system: str, pdf: Path, workdir: Path, engine) -> Reading:
    findings: list[dict] = []
    if system == "ours":
        html = run_ours(pdf, workdir, engine)
        report = json.loads((workdir / "ours" / f"{pdf.stem}.report.json").read_text())
        findings = [f for f in report.get("findings", []) if f.get("page") == 1]
    elif system == "tesseract":
        html = run_tesseract(pdf, workdir)
    else:
        html = run_pymupdf4llm(pdf)
    return reading_of(html, findings)


def _key(test: dict) -> tuple[str, int, bool]:
    return test["pdf"], test["page"], bool(test.get("scan"))


def main() -> None:
    args = arguments(__doc__, only="PDFs whose name contains one of these",
                     dump="keep every system's reading text in this folder")  # fmt: skip
    if not REALWORLD.is_dir():
        print(f"skipped: {REALWORLD} is absent (the real-world PDFs are only in ../shared)")
        return
    tests = [json.loads(line) for line in TESTS.read_text(encoding="utf-8").splitlines()]
    if args.only:
        tests = [t for t in tests if any(o in t["pdf"] for o in args.only)]
    names = members("realworld")
    for test in tests:
        test["split"] = split_of("realworld", test["pdf"], names)
    tests = [t for t in tests if args.split in ("all", t["split"])]
    engine = TesseractEngine()
    outcomes: dict[str, dict[str, bool]] = defaultdict(dict)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for key in sorted({_key(t) for t in tests}):
            pdf = page_pdf(*key, workdir)
            on_page = [t for t in tests if _key(t) == key]
            for system in args.systems:
                reading = read(system, pdf, workdir, engine)
                if args.dump:
                    args.dump.mkdir(parents=True, exist_ok=True)
                    (args.dump / f"{pdf.stem}.{system}.txt").write_text(
                        "\n".join(reading.blocks)
                        + "\n\n# headings\n"
                        + "\n".join(reading.headings),
                        encoding="utf-8",
                    )
                for test in on_page:
                    outcomes[test["id"]][system] = passes(test, reading)
            counts = "  ".join(
                f"{s} {sum(outcomes[t['id']][s] for t in on_page)}/{len(on_page)}"
                for s in args.systems
            )
            print(f"{pdf.name:<48}{counts}", flush=True)
    summary = {
        split: _summary(chosen, outcomes, args.systems, split)
        for split in (TUNE, VALIDATION)
        if (chosen := [t for t in tests if t["split"] == split])
    }
    rows = [{"id": t["id"], "type": t["type"], "split": t["split"], **outcomes[t["id"]]}
            for t in tests]  # fmt: skip
    write_results("realworld_quality", args, summary=summary, tests=rows)


def _summary(tests: list[dict], outcomes: dict, systems: list[str], split: str) -> dict:
    """Passes per test type and per document, printed; the tests ours fails and a baseline
    passes, listed (one split's tests)."""
    print(f"\n== {split} ({len({t['pdf'] for t in tests})} PDFs, {len(tests)} tests)")
    table: dict[str, dict] = {"by_type": {}, "by_document": {}}
    for label, group in (("by_type", "type"), ("by_document", "pdf")):
        names = KINDS if group == "type" else sorted({t["pdf"] for t in tests})
        print(f"\n{group:<40}" + "".join(f"{s:>14}" for s in systems))
        for name in names:
            chosen = [t for t in tests if t[group] == name]
            if not chosen:
                continue
            row = {s: sum(outcomes[t["id"]][s] for t in chosen) for s in systems}
            table[label][name] = {**row, "total": len(chosen)}
            print(f"{name:<40}" + "".join(f"{f'{row[s]}/{len(chosen)}':>14}" for s in systems))
    totals = {s: sum(outcomes[t["id"]][s] for t in tests) for s in systems}
    table["total"] = {**totals, "total": len(tests)}
    print(f"{'all':<40}" + "".join(f"{f'{totals[s]}/{len(tests)}':>14}" for s in systems))
    if "ours" in systems:
        lost = [
            t["id"]
            for t in tests
            if not outcomes[t["id"]]["ours"] and any(outcomes[t["id"]].values())
        ]
        table["ours_loses"] = lost
        print(f"\nours fails, a baseline passes ({len(lost)}):")
        for test_id in lost:
            print(f"  {test_id:<64}" + " ".join(
                f"{s}={'pass' if outcomes[test_id][s] else 'FAIL'}" for s in systems))  # fmt: skip
    return table


if __name__ == "__main__":
    main()
