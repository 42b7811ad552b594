"""Headings of a LaTeX book against the outline of its source: recall, precision, level order;
ours beside pymupdf4llm (`to_markdown(path, header=False, footer=False)`, headings from its '#'
lines) in the same run, born-digital and as a scan (issue 32).

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/headings_quality.py --split tune [--scan-only]

The book is ../shared/corpus/latex/tufte-sample-book.pdf with its .headings.json (`\\chapter` and
`\\chapter*` = 1, `\\section` = 2, `\\subsection` = 3, in source order). Its pages split into tune
and validation (bench/splits.py); a run converts the chosen pages as one PDF (document-wide rules
see them all) and its scanned copy (bench/structure_corpus.scan).

The truth is every heading the source makes LaTeX print, not only those its sectioning commands
name: the book class sets `\\tableofcontents`, `\\listoffigures`, `\\listoftables`, `\\bibliography`
and `\\printindex` as unnumbered chapters under the class's names ("Contents", "List of Figures",
"List of Tables", "Bibliography", "Index"; level 1), and `\\maketitle` sets the book's `\\title` on
its title page (level 0, above every chapter). `LATEX_GENERATED` holds that rule, `SOURCE_CALLS`
which of those commands sample-book.tex calls before its first `\\chapter` and after its last.
`\\paragraph` heads are run in (the first words of a paragraph, in italics), no heading line.

Truth per page: each source heading, in order, is placed on the first line at or after the
previous one's page that reads as its title (fuzzy), the largest such line (a chapter's title
in the table of contents is smaller than on its own page; a section named as a later
subsection is larger). Measures:
- recall: truth headings found as a heading (fuzzy ratio 85 or more, each output heading once);
- precision: output headings that are truth headings (ours: the document's title, the h1 of
  the page's <header>, and the headings of <main>; pymupdf4llm: its '#' lines);
- level order: of consecutive found truth headings, the share whose levels compare the same way
  (deeper, same, shallower) in the output as in the source.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
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

import pymupdf  # noqa: E402
from bs4 import BeautifulSoup  # noqa: E402
from rapidfuzz import fuzz  # noqa: E402

from bench.latex_papers import norm, page_lines  # noqa: E402
from bench.report import write_result  # noqa: E402
from bench.splits import latex_pages, split_of  # noqa: E402
from bench.structure_corpus import scan  # noqa: E402
from bench.structure_quality import run_ours, structure_of  # noqa: E402
from models.ocr import TesseractEngine  # noqa: E402
from models.ocr.tessdata import find_tessdata  # noqa: E402

BOOK = ROOT.parent / "shared" / "corpus" / "latex" / "tufte-sample-book.pdf"
OUTLINE = BOOK.with_name("tufte-sample-book.headings.json")
MATCH_RATIO = 85  # fuzzy ratio at which two heading texts are the same heading
# Headings LaTeX prints for a command that names none (the book class's names; \maketitle: the
# \title): command -> (level, printed title).
BOOK_TITLE = "A Tufte-Style Book"  # sample-book.tex's \title, without its \thanks
LATEX_GENERATED = {
    "\\maketitle": (0, BOOK_TITLE),
    "\\tableofcontents": (1, "Contents"),
    "\\listoffigures": (1, "List of Figures"),
    "\\listoftables": (1, "List of Tables"),
    "\\bibliography": (1, "Bibliography"),
    "\\printindex": (1, "Index"),
}
# Which of them sample-book.tex (commit efb8c8e8) calls, in its order: (before its first
# \chapter, after its last).
SOURCE_CALLS = (
    ("\\maketitle", "\\tableofcontents", "\\listoffigures", "\\listoftables"),
    ("\\bibliography", "\\printindex"),
)
SYSTEMS = ("ours", "pymupdf4llm")


_norm = norm
_lines = page_lines


def _reads_as(line: str, title: str) -> bool:
    """The printed line is the title, or the title and the book's "Tufte-LaTeX" macro, which the
    outline lost ("\\TL{} Website" is "Website" there, "Tufte-LaTeX Website" on the page). Type
    set letterspaced (\\allcaps: "A T U F T E - S T Y L E") reads with spaces between letters."""
    if fuzz.ratio(line, title) >= 90 or line.replace(" ", "") == title.replace(" ", ""):
        return True
    rest = line.removeprefix(title + " ") if line.startswith(title + " ") else line
    rest = rest.removesuffix(" " + title) if rest.endswith(" " + title) else rest
    return rest != line and _norm(rest).replace(" ", "") == "tuftelatex"


def located_outline() -> list[tuple[int, int, str]]:
    """(1-based page, level, printed title) of every source heading."""
    before, after = ([{"level": LATEX_GENERATED[c][0], "title": LATEX_GENERATED[c][1]}
                      for c in calls] for calls in SOURCE_CALLS)  # fmt: skip
    headings = [*before, *json.loads(OUTLINE.read_text(encoding="utf-8"))["headings"], *after]
    with pymupdf.open(BOOK) as doc:
        pages = [_lines(page) for page in doc]
    out, cursor = [], 0
    for heading in headings:
        title = _norm(heading["title"])
        found = [(size, -pno, pno, text) for pno in range(cursor, len(pages))
                 for text, size in pages[pno] if _reads_as(text, title)]  # fmt: skip
        if not found:
            print(f"not located: {heading['title']!r}", file=sys.stderr)
            continue
        _, _, cursor, printed = max(found)
        if printed.replace(" ", "") == title.replace(" ", ""):
            printed = title  # letterspaced: the words as the source spells them
        out.append((cursor + 1, heading["level"], printed))
    return out


def ours_headings(html: str) -> list[tuple[int, str]]:
    """Our headings: the document's title (the h1 of the page's <header>, outside <main>),
    then those in <main>."""
    top = BeautifulSoup(html, "lxml").select_one("header h1")
    heads = [(1, _norm(top.get_text(" ")))] if top and _norm(top.get_text(" ")) else []
    return heads + [(lv, _norm(t)) for lv, t in structure_of(html).headings]


def pymupdf4llm_headings(pdf: Path) -> list[tuple[int, str]]:
    code = (
        "import sys, pymupdf4llm;"
        "print(pymupdf4llm.to_markdown(sys.argv[1], header=False, footer=False))"
    )
    env = {**os.environ, "TESSDATA_PREFIX": find_tessdata(), "OMP_THREAD_LIMIT": "1"}
    out = subprocess.run([sys.executable, "-c", code, str(pdf)], capture_output=True, text=True,
                         env=env, check=True, timeout=1200)  # fmt: skip
    heads = []
    for line in out.stdout.splitlines():
        match = re.match(r"^(#{1,6})\s+(.*)$", line)
        if match:
            text = _norm(re.sub(r"<[^>]+>|[*_`]", "", match.group(2)))
            if text:
                heads.append((len(match.group(1)), text))
    return heads


def _sign(a: int, b: int) -> int:
    return (b > a) - (b < a)


def scores(truth: list[tuple[int, str]], got: list[tuple[int, str]]) -> dict:
    used: set[int] = set()
    pairs = []  # (truth level, output level) of each found truth heading, in truth order
    for level, title in truth:
        best, best_i = 0.0, None
        for i, (_, text) in enumerate(got):
            score = fuzz.ratio(_norm(title), text)
            if i not in used and score > best:
                best, best_i = score, i
        if best_i is not None and best >= MATCH_RATIO:
            used.add(best_i)
            pairs.append((level, got[best_i][0]))
    steps = list(zip(pairs, pairs[1:], strict=False))
    agree = sum(_sign(a[0], b[0]) == _sign(a[1], b[1]) for a, b in steps)
    return {
        "recall": len(pairs) / len(truth) if truth else None,
        "precision": len(used) / len(got) if got else None,
        "level_order": agree / len(steps) if steps else None,
        "truth": len(truth),
        "found": len(got),
        "missed": [
            t for (_, t) in truth if not any(fuzz.ratio(_norm(t), g) >= MATCH_RATIO for _, g in got)
        ],  # fmt: skip
        "extra": [g for i, (_, g) in enumerate(got) if i not in used],
    }


def headings_arguments(doc: str) -> argparse.ArgumentParser:
    """The options every headings bench takes (this one and bench/headings_papers.py)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--split", choices=("tune", "validation", "all"), default="tune")
    parser.add_argument("--systems", nargs="*", default=list(SYSTEMS))
    parser.add_argument("--variants", nargs="*", default=["digital", "scan"])
    parser.add_argument("--verbose", action="store_true", help="print missed and extra headings")
    return parser


def main() -> None:
    args = headings_arguments(__doc__).parse_args()
    members = latex_pages(BOOK)
    chosen = [n for n, m in enumerate(members, 1)
              if args.split == "all" or split_of("latex", m, members) == args.split]  # fmt: skip
    truth = [(level, title) for pno, level, title in located_outline() if pno in chosen]
    engine = TesseractEngine()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        digital = workdir / f"tufte-{args.split}.pdf"
        with pymupdf.open(BOOK) as doc:
            doc.select([n - 1 for n in chosen])
            doc.save(digital)
        paths = {"digital": digital}
        if "scan" in args.variants:
            paths["scan"] = workdir / f"tufte-{args.split}.scan.pdf"
            import random

            scan(digital, paths["scan"], random.Random(BOOK.name))
        for variant in args.variants:
            for system in args.systems:
                started = time.perf_counter()
                if system == "ours":
                    html = run_ours(paths[variant], workdir, engine)
                    got = ours_headings(html)
                else:
                    got = pymupdf4llm_headings(paths[variant])
                row = {"variant": variant, "system": system, "s": time.perf_counter() - started}
                row.update(scores(truth, got))
                rows.append(row)
                print(f"{variant:<8}{system:<12}{row['s']:6.1f}s  recall={_fmt(row['recall'])}  "
                      f"precision={_fmt(row['precision'])}  level_order="
                      f"{_fmt(row['level_order'])}  ({row['found']} found, {row['truth']} true)",
                      flush=True)  # fmt: skip
                if args.verbose:
                    print(f"    missed: {row['missed']}\n    extra: {row['extra']}")
                    print(f"    got: {got}")
    write_result(f"headings_quality-{args.split}",
                 {"split": args.split, "pages": chosen, "rows": rows})  # fmt: skip


def _fmt(value) -> str:
    return "-" if value is None else f"{value:.2f}"


if __name__ == "__main__":
    main()
