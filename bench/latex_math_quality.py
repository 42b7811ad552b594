"""Formulas of real pdflatex pages (bench/latex_math.py) as MathML, in place, with the sentence
around each kept whole; ours beside pymupdf4llm and plain Tesseract in the same run.

    OMP_THREAD_LIMIT=1 nice .venv/bin/python bench/latex_math_quality.py [--part PART|all]
        [--systems ours,pymupdf4llm,tesseract] [--extra PDF ...]   (PART: tune, valid, valid2)

Measures, per document and system (truth: NAME.truth.json beside each PDF):
- mathml: share of display formulas (each row of an align/eqnarray counts) found as a <math>
  element whose TeX (its annotation; else its text) matches the source's loosely: the F1 of
  their normalized TeX tokens (spacing, \\left/\\right, braces dropped) at least `MATCH_F1`;
  a row of a matrix-like array in the output counts for a row of the truth;
- in_place: of those found, the share whose <math> stands after the words right before the
  formula and before the words right after it (the sentence it sits in);
- sentence: share of display formulas whose sentence is kept whole: the lead words before it
  are followed, within the formula's length in words, by the words after it, with the formula
  between them (nothing spliced in, the formula not moved away);
- inline: share of inline formulas ($...$) found as MathML (same match);
- empty_figures: figures in the output (the pages hold none) with no alternative text or one
  that only says "not transcribed".
`--extra` PDFs (no truth: ../shared/corpus/latex, realworld math pages) are converted and their
<math> elements and figures counted. Writes bench/results/latex_math_quality-<date>.json.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bs4 import BeautifulSoup  # noqa: E402

from bench.latex_math import DEFAULT_OUT, PARTS, generate  # noqa: E402
from bench.report import dated, write_result  # noqa: E402
from bench.structure_quality import run_ours, run_pymupdf4llm, run_tesseract  # noqa: E402
from models.ocr import TesseractEngine  # noqa: E402

MATCH_F1 = 0.6  # normalized TeX tokens in common (F1) for a formula to count as found
SYSTEMS = ("ours", "pymupdf4llm", "tesseract")
_DROP = {"{", "}", "\\left", "\\right", "\\,", "\\;", "\\:", "\\!", "\\quad", "\\qquad", "&",
         "\\\\", "\\displaystyle", "\\limits", "\\mathrm", "\\text", "\\begin", "\\end",
         "\\mid", "|", "\\big", "\\Big", "\\bigg", "\\Bigg", "~", "\\nonumber"}  # fmt: skip
_SAME = {"\\dfrac": "\\frac", "\\tfrac": "\\frac", "\\le": "\\leq", "\\ge": "\\geq",
         "\\ne": "\\neq", "\\to": "\\rightarrow", "\\|": "\\Vert", "\\lVert": "\\Vert",
         "\\rVert": "\\Vert", "\\cdots": "\\ldots", "\\dots": "\\ldots", "\\varphi": "\\phi",
         "\\varepsilon": "\\epsilon", "\\vartheta": "\\theta"}  # fmt: skip
_UNICODE = {"∑": "\\sum", "∏": "\\prod", "∫": "\\int", "√": "\\sqrt", "∞": "\\infty",
            "≤": "\\leq", "≥": "\\geq", "≠": "\\neq", "→": "\\rightarrow", "±": "\\pm",
            "−": "-", "·": "\\cdot", "⋅": "\\cdot", "∂": "\\partial", "∇": "\\nabla",
            "∈": "\\in", "×": "\\times", "…": "\\ldots", "‖": "\\Vert"}  # fmt: skip
_ENVS = re.compile(r"\\(begin|end)\{[a-z*]+\}(\{[lcr]+\})?")


def tex_tokens(tex: str) -> Counter:
    """TeX as a bag of tokens: commands, letters, digits and signs, spacing and grouping gone."""
    tex = _ENVS.sub(" ", tex)
    for char, name in _UNICODE.items():
        tex = tex.replace(char, f" {name} ")
    found = re.findall(r"\\[A-Za-z]+|\\.|[A-Za-z]|\d|[^\s]", tex)
    out: Counter = Counter()
    for token in found:
        token = _SAME.get(token, token)
        if token not in _DROP and token not in "_^":
            out[token] += 1
    return out


def f1(a: Counter, b: Counter) -> float:
    common = sum((a & b).values())
    if not common:
        return 0.0
    p, r = common / sum(b.values()), common / sum(a.values())
    return 2 * p * r / (p + r)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


def _flow(html: str) -> tuple[list[str], list[tuple[int, Counter]]]:
    """The reading text as words, <math> elements taken out: the words, and each math's token
    bags (the whole and each row) with the word index where it stands."""
    soup = BeautifulSoup(html, "html.parser")
    root = soup.find("main") or soup.body or soup
    maths = []
    for k, math in enumerate(root.find_all("math")):
        note = math.find("annotation", attrs={"encoding": "application/x-tex"})
        tex = note.get_text() if note else math.get_text(" ")
        math.replace_with(f" \u2063M{k}\u2063 ")
        maths.append(tex)
    for figure in root.find_all("figure"):
        img = figure.find("img")
        figure.replace_with(" " + (img.get("alt", "") if img else "") + " ")
    words: list[str] = []
    places: list[tuple[int, Counter]] = []
    for piece in re.split(r"\u2063", root.get_text(" ")):
        m = re.fullmatch(r"M(\d+)", piece)
        if m:
            tex = maths[int(m.group(1))]
            rows = [tex] + re.split(r"\\\\", tex) if "\\\\" in tex else [tex]
            places.extend((len(words), tex_tokens(row)) for row in rows)
        else:
            words.extend(_words(piece))
    return words, places


def _find(words: list[str], phrase: list[str], start: int = 0) -> int | None:
    n = len(phrase)
    for i in range(start, len(words) - n + 1):
        if words[i : i + n] == phrase:
            return i
    return None


def score(html: str, truth: dict) -> dict:
    words, places = _flow(html)
    found = placed = whole = total = 0
    cursor = 0  # the displays come in order: a lead repeated later is found after the last
    for display in truth["displays"]:
        before, after = _words(display["before"]), _words(display["after"])[:5]
        at = _find(words, before, cursor)
        at = _find(words, before) if at is None else at
        cursor = at + 1 if at is not None else cursor
        end = at + len(before) if at is not None else None
        size = sum(sum(tex_tokens(t).values()) for t in display["tex"])
        nxt = _find(words, after, end) if end is not None else None
        # Whole: the words after follow soon, with the formula between them (its text, an
        # image's alternative or a <math>), not moved away and the halves run together.
        between = nxt is not None and (nxt > end or any(end <= i <= nxt for i, _ in places))
        if between and nxt - end <= size + 2:
            whole += 1
        for tex in display["tex"]:
            total += 1
            bag = tex_tokens(tex)
            hits = [i for i, got in places if f1(bag, got) >= MATCH_F1]
            if hits:
                found += 1
                placed += any(end is not None and end <= i and (nxt is None or i <= nxt)
                              for i in hits)  # fmt: skip
    inline_hits = sum(
        any(f1(tex_tokens(t), got) >= MATCH_F1 for _, got in places) for t in truth["inline"]
    )
    soup = BeautifulSoup(html, "html.parser")
    empty = sum(
        1 for fig in soup.find_all("figure")
        if not (img := fig.find("img")) or not img.get("alt") or "not transcribed" in img["alt"]
    )  # fmt: skip
    return {"mathml": found / total, "in_place": placed / found if found else None,
            "sentence": whole / len(truth["displays"]), "inline": inline_hits
            / max(1, len(truth["inline"])), "empty_figures": empty,
            "formulas": total}  # fmt: skip


def _extra(html: str) -> dict:
    soup = BeautifulSoup(html, "html.parser")
    return {"maths": len(soup.find_all("math")), "figures": len(soup.find_all("figure"))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--part", default="all", choices=[*PARTS, "all"])
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--extra", nargs="*", type=Path, default=[])
    parser.add_argument("--name", default="latex_math_quality")
    args = parser.parse_args()
    systems = args.systems.split(",")
    if not (DEFAULT_OUT / "valid").exists():
        generate(DEFAULT_OUT)
    parts = list(PARTS) if args.part == "all" else [args.part]
    engine = TesseractEngine()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for part in parts:
            for pdf in sorted((DEFAULT_OUT / part).glob("*.pdf")):
                if args.only and not any(o in pdf.stem for o in args.only):
                    continue
                truth = json.loads(pdf.with_suffix(".truth.json").read_text("utf-8"))
                for system in systems:
                    work = Path(tmp) / f"{part}-{pdf.stem}-{system}"
                    work.mkdir()
                    html = _run(system, pdf, work, engine)
                    row = {"part": part, "doc": pdf.stem, "system": system, **score(html, truth)}
                    rows.append(row)
                    print(_line(row), flush=True)
        for pdf in args.extra:
            for system in systems:
                work = Path(tmp) / f"extra-{pdf.stem}-{system}"
                work.mkdir()
                row = {"part": "extra", "doc": pdf.stem, "system": system,
                       **_extra(_run(system, pdf, work, engine))}  # fmt: skip
                rows.append(row)
                print(row, flush=True)
    summary = {
        f"{part}/{system}": _mean([r for r in rows if r["part"] == part and r["system"] == system])
        for part in parts for system in systems
    }  # fmt: skip
    print("\npart/system          mathml in_place sentence inline empty_figures")
    for key, s in summary.items():
        print(f"{key:20} {_fmt(s['mathml'])} {_fmt(s['in_place'])} {_fmt(s['sentence'])}"
              f" {_fmt(s['inline'])} {s['empty_figures']}")  # fmt: skip
    write_result(dated(args.name), {"args": vars(args) | {"extra": [str(p) for p in args.extra]},
                                    "summary": summary, "rows": rows})  # fmt: skip


def _run(system: str, pdf: Path, work: Path, engine) -> str:
    if system == "ours":
        return run_ours(pdf, work, engine)
    if system == "pymupdf4llm":
        return run_pymupdf4llm(pdf)
    return run_tesseract(pdf, work)


def _mean(rows: list[dict]) -> dict:
    """Means weighted by each document's formulas; empty figures summed."""
    total = sum(r["formulas"] for r in rows) or 1
    out = {k: sum(r[k] * r["formulas"] for r in rows) / total for k in ("mathml", "sentence")}
    placed = [r for r in rows if r["in_place"] is not None]
    out["in_place"] = (
        sum(r["in_place"] * r["mathml"] * r["formulas"] for r in placed)
        / max(1e-9, sum(r["mathml"] * r["formulas"] for r in placed))
        if placed
        else None
    )
    out["inline"] = sum(r["inline"] for r in rows) / max(1, len(rows))
    out["empty_figures"] = sum(r["empty_figures"] for r in rows)
    return out


def _fmt(value) -> str:
    return "   -  " if value is None else f"{value:6.2f}"


def _line(row: dict) -> str:
    return (f"{row['part']:5} {row['doc']:10} {row['system']:11} mathml {_fmt(row['mathml'])}"
            f" in_place {_fmt(row['in_place'])} sentence {_fmt(row['sentence'])}"
            f" inline {_fmt(row['inline'])} empty_figures {row['empty_figures']}")  # fmt: skip


if __name__ == "__main__":
    main()
