"""Structure against truth: headings with levels, table cells with their neighbours and header,
furniture kept out, reading order, formulas as MathML, figures; ours beside plain Tesseract and
pymupdf4llm (`to_markdown(path, header=False, footer=False)` rendered to HTML) in the same run.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/structure_quality.py [--only NAME ...]

Documents: the by-construction corpus of bench/structure_corpus.py (generated first if missing),
born-digital and as scans, and ../shared/corpus/structure/*.pdf with their *.truth.html (and their
scans, made the same way). Measures, per document and system:
- headings: F1 of headings matched by text (fuzzy) whose level is right (levels shifted so the
  top level is 1 on both sides); `heading_f1_text` ignores levels;
- cells: share of the truth's non-empty table cells found in a table with the same right-hand
  neighbour, the same cell below and the same column header (olmOCR-Bench's table tests);
- furniture_absent: share of running headers, footers, page numbers and stamps not in the
  reading text; text_present: share of truth paragraphs whose opening is in it (an output that
  drops everything does not score);
- order: share of consecutive truth paragraphs (and headings) found in order (two-column pages);
- mathml: share of the truth's formulas present as a <math> element of the same content;
- figures: figures found / in the truth.
Plain text (Tesseract) holds no headings, tables or MathML: those score 0 for it. Writes
bench/results/structure_quality-<date>.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import django  # noqa: E402

django.setup()

from bs4 import BeautifulSoup  # noqa: E402
from rapidfuzz import fuzz  # noqa: E402

from bench.common import plain_tesseract_pages, run_pymupdf4llm  # noqa: E402
from bench.quality import MAIN_BLOCKS, fuzzy_find, normalize_text  # noqa: E402
from bench.splits import TUNE, VALIDATION, members, split_of  # noqa: E402
from bench.structure_corpus import DEFAULT_OUT, generate, scan  # noqa: E402
from conversion.pipeline.convert import ConvertOptions, convert_pdf  # noqa: E402
from models.ocr import TesseractEngine  # noqa: E402

SHARED = ROOT.parent / "shared" / "corpus" / "structure"
SYSTEMS = ("ours", "tesseract", "pymupdf4llm")
TEXT_BLOCKS = MAIN_BLOCKS + ("caption",)  # iter_main_text's blocks, and table captions


@dataclass
class Structure:
    """What a measure needs from an HTML document (truth or output)."""

    headings: list[tuple[int, str]] = field(default_factory=list)
    tables: list[list[list[tuple[str, bool]]]] = field(default_factory=list)  # grid of (text, th)
    paragraphs: list[str] = field(default_factory=list)  # p and li, in order
    sequence: list[str] = field(default_factory=list)  # headings and paragraphs, in order
    text: str = ""  # the reading text, normalized
    maths: list[str] = field(default_factory=list)  # each <math>'s content, normalized
    figures: int = 0
    furniture: list[str] = field(default_factory=list)  # truth only


def _norm(text: str) -> str:
    return normalize_text(text).lower()


def _math_text(text: str) -> str:
    return re.sub(r"\s+", "", text.replace("−", "-").replace("\u2062", "").replace("\u2061", ""))


def _grid(table) -> list[list[tuple[str, bool]]]:
    """The table's cells on a grid, spanning cells repeated over every slot they cover."""
    grid: dict[tuple[int, int], tuple[str, bool]] = {}
    rows = [tr for tr in table.find_all("tr") if tr.find_parent("table") is table]
    for r, tr in enumerate(rows):
        c = 0
        for cell in tr.find_all(["td", "th"], recursive=False):
            while (r, c) in grid:
                c += 1
            rs = int(cell.get("rowspan", 1) or 1)
            cs = int(cell.get("colspan", 1) or 1)
            value = (_norm(cell.get_text(" ")), cell.name == "th")
            for dr in range(rs):
                for dc in range(cs):
                    grid[(r + dr, c + dc)] = value
            c += cs
    if not grid:
        return []
    height = max(r for r, _ in grid) + 1
    width = max(c for _, c in grid) + 1
    return [[grid.get((r, c), ("", False)) for c in range(width)] for r in range(height)]


def _own_text(el) -> str:
    """A list item's own text, without its nested lists."""
    return " ".join(
        part if isinstance(part, str) else part.get_text(" ")
        for part in el.contents
        if isinstance(part, str) or part.name not in ("ul", "ol")
    )


def structure_of(html: str, *, truth: bool = False) -> Structure:
    soup = BeautifulSoup(html, "lxml")
    root = soup.body if truth else (soup.find("main") or soup.body or soup)
    out = Structure()
    if root is None:
        return out
    if truth and root.get("data-furniture"):
        out.furniture = json.loads(root["data-furniture"])
    # A figure's labels (Text in the figure: ...) are the figure's, not the reading text.
    for el in root.select(".furniture, .figure-labels, nav, .docling-meta, details"):
        el.decompose()
    for math in root.find_all("math"):
        content = math.find("semantics")
        for annotation in math.find_all(["annotation", "annotation-xml"]):
            annotation.decompose()
        out.maths.append(_math_text((content or math).get_text()))
    for el in root.find_all(True):
        if el.name in ("h1", "h2", "h3", "h4", "h5", "h6"):
            text = _norm(el.get_text(" "))
            if text:
                out.headings.append((int(el.name[1]), text))
                out.sequence.append(text)
        elif el.name == "table" and el.find_parent("table") is None:
            grid = _grid(el)
            if grid:
                out.tables.append(grid)
        elif el.name in ("p", "li") and el.find_parent(["table", "figure"]) is None:
            text = _norm(_own_text(el))
            if text:
                out.paragraphs.append(text)
                out.sequence.append(text)
        elif el.name in ("img", "figure") and el.find_parent("figure") is None:
            out.figures += 1
    blocks = [" ".join(el.get_text(" ").split()) for el in root.find_all(TEXT_BLOCKS)]
    out.text = _norm("\n".join(blocks) if blocks else root.get_text(" "))
    return out


# -- measures --------------------------------------------------------------------------------------
def _shifted(headings: list[tuple[int, str]]) -> list[tuple[int, str]]:
    top = min((level for level, _ in headings), default=1)
    return [(level - top + 1, text) for level, text in headings]


def heading_scores(truth: Structure, got: Structure) -> tuple[float | None, float | None]:
    """(F1 with levels, F1 on text only); None when the truth has no headings."""
    want, have = _shifted(truth.headings), _shifted(got.headings)
    if not want:
        return None, None
    used: set[int] = set()
    matched = leveled = 0
    for level, text in want:
        best, best_i = 0.0, None
        for i, (_, other) in enumerate(have):
            score = fuzz.ratio(text, other)
            if i not in used and score > best:
                best, best_i = score, i
        if best_i is not None and best >= 85:
            used.add(best_i)
            matched += 1
            leveled += have[best_i][0] == level

    def f1(tp: int) -> float:
        if not tp:
            return 0.0
        precision, recall = tp / len(have), tp / len(want)
        return 2 * precision * recall / (precision + recall)

    return f1(leveled), f1(matched)


def _same(a: str, b: str) -> bool:
    return a == b or (len(a) > 3 and fuzz.ratio(a, b) >= 90)


def _relations(grid, r: int, c: int) -> dict[str, str | None]:
    text = grid[r][c][0]
    right = next((grid[r][k][0] for k in range(c + 1, len(grid[r])) if grid[r][k][0] != text), None)
    below = next((grid[k][c][0] for k in range(r + 1, len(grid)) if grid[k][c][0] != text), None)
    head = 0  # the header rows: every cell a header cell
    while head < len(grid) - 1 and all(th for _, th in grid[head]):
        head += 1
    header = next((grid[k][c][0] for k in range(min(r, head)) if grid[k][c][0]), None)
    return {"right": right, "below": below, "header": header}


def cell_score(truth: Structure, got: Structure) -> float | None:
    """Share of truth cells found with the same neighbour right and below and column header."""
    total = passed = 0
    for grid in truth.tables:
        seen: set[str] = set()
        for r, row in enumerate(grid):
            for c, (text, _) in enumerate(row):
                if not text or (text, r, c) in seen:
                    continue
                seen.add((text, r, c))  # type: ignore[arg-type]
                total += 1
                want = _relations(grid, r, c)
                if any(
                    _same(text, gtext)
                    and all(
                        v is None or (g[k] is not None and _same(v, g[k]))
                        for k, v in want.items()
                        for g in [_relations(ggrid, gr, gc)]
                    )
                    for ggrid in got.tables
                    for gr, grow in enumerate(ggrid)
                    for gc, (gtext, _) in enumerate(grow)
                ):
                    passed += 1
    return passed / total if total else None


def _present(text: str, needle: str) -> int:
    needle = needle[:120]
    return fuzzy_find(text, needle, max(1, len(needle) // 10))


def furniture_score(truth: Structure, got: Structure) -> float | None:
    items = [_norm(f) for f in truth.furniture]
    if not items:
        return None
    return sum(_present(got.text, item) < 0 for item in items) / len(items)


def text_score(truth: Structure, got: Structure) -> float | None:
    paras = [p for p in truth.paragraphs if len(p) >= 12]
    if not paras:
        return None
    return sum(_present(got.text, p) >= 0 for p in paras) / len(paras)


def order_score(truth: Structure, got: Structure) -> float | None:
    where = [_present(got.text, item) for item in truth.sequence if len(item) >= 8]
    pairs = list(zip(where, where[1:], strict=False))
    if not pairs:
        return None
    return sum(0 <= a < b for a, b in pairs) / len(pairs)


def math_score(truth: Structure, got: Structure) -> float | None:
    if not truth.maths:
        return None
    return sum(any(fuzz.ratio(m, g) >= 80 for g in got.maths) for m in truth.maths) / len(
        truth.maths
    )


def figure_score(truth: Structure, got: Structure) -> str:
    return f"{got.figures}/{truth.figures}"


# -- systems ---------------------------------------------------------------------------------------
def run_ours(pdf: Path, workdir: Path, engine) -> str:
    result = convert_pdf(pdf, workdir / "ours", engine, ConvertOptions())
    return result.html_path.read_text(encoding="utf-8")


def run_tesseract(pdf: Path, workdir: Path) -> str:
    pages, _ = plain_tesseract_pages(pdf, workdir)
    paras = [p for text in pages.values() for p in re.split(r"\n\s*\n", text) if p.strip()]
    body = "".join(f"<p>{BeautifulSoup(p, 'html.parser').get_text()}</p>" for p in paras)
    return f"<html><body><main>{body}</main></body></html>"


def run_system(system: str, pdf: Path, workdir: Path, engine) -> str:
    """The HTML one of SYSTEMS makes of `pdf`."""
    if system == "ours":
        return run_ours(pdf, workdir, engine)
    if system == "tesseract":
        return run_tesseract(pdf, workdir)
    return run_pymupdf4llm(pdf)


def documents(only: list[str] | None) -> list[tuple[str, Path, Path, bool]]:
    """(name, pdf, truth html, scanned) for every document of the run."""
    if not (DEFAULT_OUT / "report.html").exists():
        generate(DEFAULT_OUT)
    docs = []
    for html in sorted(DEFAULT_OUT.glob("*.html")):
        name = html.stem
        docs.append((name, DEFAULT_OUT / f"{name}.pdf", html, False))
        docs.append((f"{name}.scan", DEFAULT_OUT / f"{name}.scan.pdf", html, True))
    if SHARED.exists():
        scans = DEFAULT_OUT / "shared"
        scans.mkdir(exist_ok=True)
        for pdf in sorted(SHARED.glob("*.pdf")):
            truth = pdf.with_name(pdf.name.removesuffix(".pdf") + ".truth.html")
            scanned = scans / f"{pdf.stem}.scan.pdf"
            if not scanned.exists():
                scan(pdf, scanned, random.Random(pdf.name))
            docs.append((pdf.stem, pdf, truth, False))
            docs.append((f"{pdf.stem}.scan", scanned, truth, True))
    if only:
        docs = [d for d in docs if any(o in d[0] for o in only)]
    return docs


def document_split(name: str) -> str:
    """bench/splits.py's part of a document of this bench (a scan goes with its original)."""
    stem = name.removesuffix(".scan")
    if stem in members("generated"):
        return split_of("generated", stem, members("generated"))
    return split_of("structure", f"{stem}.pdf", members("structure"))


MEASURES = {
    "headings": lambda t, g: heading_scores(t, g)[0],
    "heading_f1_text": lambda t, g: heading_scores(t, g)[1],
    "cells": cell_score,
    "furniture_absent": furniture_score,
    "text_present": text_score,
    "order": order_score,
    "mathml": math_score,
    "figures": figure_score,
}


def arguments(doc: str, *, only: str, dump: str) -> argparse.Namespace:
    """The quality benches' command line: --only, --systems, --dump, --split."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help=only)
    parser.add_argument("--split", choices=(TUNE, VALIDATION, "all"), default="all",
                        help="bench/splits.py's part (all: both, reported apart)")  # fmt: skip
    parser.add_argument("--systems", nargs="*", default=list(SYSTEMS))
    parser.add_argument("--dump", type=Path, help=dump)
    return parser.parse_args()


def main() -> None:
    args = arguments(__doc__, only="documents whose name contains one of these",
                     dump="keep every system's HTML in this folder")  # fmt: skip
    engine = TesseractEngine()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for name, pdf, truth_path, scanned in documents(args.only):
            split = document_split(name)
            if args.split not in ("all", split):
                continue
            truth = structure_of(truth_path.read_text(encoding="utf-8"), truth=True)
            for system in args.systems:
                started = time.perf_counter()
                html = run_system(system, pdf, workdir, engine)
                seconds = time.perf_counter() - started
                if args.dump:
                    args.dump.mkdir(parents=True, exist_ok=True)
                    (args.dump / f"{name}.{system}.html").write_text(html, encoding="utf-8")
                got = structure_of(html)
                row = {"document": name, "split": split, "scanned": scanned, "system": system,
                       "s": seconds}  # fmt: skip
                row.update({key: measure(truth, got) for key, measure in MEASURES.items()})
                if system == "tesseract":
                    row.update(headings=0.0 if truth.headings else None,
                               heading_f1_text=0.0 if truth.headings else None,
                               cells=0.0 if truth.tables else None,
                               mathml=0.0 if truth.maths else None)  # fmt: skip
                rows.append(row)
                print(_line(row), flush=True)
    summary = _summary(rows)
    print("\nmean over documents (generated corpus; scans / born-digital):")
    for line in summary["lines"]:
        print(line)
    write_results("structure_quality", args, rows=rows, summary=summary["table"])


def write_results(name: str, args: argparse.Namespace, **results) -> None:
    """bench/results/<name>-<date>[-<split>][-partial].json (-partial when only some documents or
    systems ran)."""
    out = {"date": dt.date.today().isoformat(), "cpus": os.cpu_count(), **results}
    folder = ROOT / "bench" / "results"
    folder.mkdir(parents=True, exist_ok=True)
    split = "" if args.split == "all" else f"-{args.split}"
    partial = "" if not args.only and set(args.systems) == set(SYSTEMS) else "-partial"
    path = folder / f"{name}-{out['date']}{split}{partial}.json"
    path.write_text(json.dumps(out, indent=2))
    print(f"wrote {path.relative_to(ROOT)}")


def _fmt(value) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def _line(row: dict) -> str:
    cols = "  ".join(f"{k}={_fmt(row[k])}" for k in MEASURES)
    return f"{row['document']:<34}{row['system']:<12}{row['s']:6.1f}s  {cols}"


def _summary(rows: list[dict]) -> dict:
    """Mean of each measure per system, over the generated corpus's scans and born-digital
    documents (the targets), and over the shared documents; tune and validation apart."""
    generated = {p.stem for p in DEFAULT_OUT.glob("*.html")}
    table: dict[str, dict] = {}
    lines = [f"{'set':<28}{'system':<12}" + "".join(f"{k:>17}" for k in MEASURES if k != "figures")]
    sets = (
        ("generated scans", lambda r: r["scanned"] and r["document"].split(".")[0] in generated),
        ("generated digital", lambda r: not r["scanned"] and r["document"] in generated),
        ("shared scans", lambda r: r["scanned"] and r["document"].split(".")[0] not in generated),
        ("shared digital", lambda r: not r["scanned"] and r["document"] not in generated),
    )
    parts = [(f"{name} {s}", pick, s) for s in (TUNE, VALIDATION) for name, pick in sets]
    for label, pick, split in parts:
        for system in SYSTEMS:
            chosen = [r for r in rows if r["system"] == system and r["split"] == split and pick(r)]
            if not chosen:
                continue
            means = {}
            for key in MEASURES:
                if key == "figures":
                    continue
                values = [r[key] for r in chosen if r[key] is not None]
                means[key] = sum(values) / len(values) if values else None
            table.setdefault(label, {})[system] = means
            lines.append(f"{label:<28}{system:<12}" + "".join(f"{_fmt(means[k]):>17}"
                                                               for k in means))  # fmt: skip
    return {"table": table, "lines": lines}


if __name__ == "__main__":
    main()
