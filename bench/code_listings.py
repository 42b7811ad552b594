"""Code listings on born-digital pages: pdflatex documents of prose with program listings
(verbatim, listings' lstlisting, alltt), their source the truth, read by ours, pymupdf4llm
(Markdown code fences rendered to HTML) and plain Tesseract in one run.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/code_listings.py [--part tune|valid|all]

Each document (a seed) is an article of prose paragraphs, some with inline \\texttt words, and
2-4 listings of 2-6 lines drawn from a pool of Python, C, shell, SQL, LaTeX and configuration
snippets (indented lines, a blank line inside some), in the typewriter font of the part; odd
seeds use T1 font encoding, which pdflatex sets in bitmap Type 3 fonts (no names, no flags)
where cm-super is not installed. The
part's last document is set wholly in the typewriter font (a typewriter-style report, prose
only): its measure is the prose lines taken for code.

Parts, fixed before any tuning: `tune` (seeds 0-7: Computer Modern's cmtt, Courier),
`valid` (seeds 100-107: Latin Modern's lmtt and txfonts' txtt, never looked at while tuning).

Per document:
- recall: the listings' lines (not blank) found as one line of a <pre> (spaces collapsed);
- indent: of the lines found, those whose indentation against their listing's first line is
  the source's (in characters);
- precision: lines of <pre> blocks that are listing lines, of all their lines (not blank);
- listings_whole: listings whose lines all stand, in order, in one <pre>.
Writes bench/results/code_listings-<date>.json. Needs pdflatex (texlive-latex-recommended and
texlive-fonts-recommended: courier, txfonts, lmodern).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bs4 import BeautifulSoup  # noqa: E402

from bench.pdflatex import require_pdflatex, write_document  # noqa: E402
from bench.report import dated, write_result  # noqa: E402
from bench.structure_quality import run_system  # noqa: E402
from models.ocr import TesseractEngine  # noqa: E402

DEFAULT_OUT = ROOT / "bench" / "generated" / "code_listings"
PARTS = {"tune": range(8), "valid": range(100, 108)}
# The typewriter font of each part: its package line (cmtt is the default).
FONTS = {"tune": ["", "\\usepackage{courier}"],
         "valid": ["\\usepackage{lmodern}", "\\usepackage{txfonts}"]}  # fmt: skip
SYSTEMS = ("ours", "pymupdf4llm", "tesseract")

SNIPPETS = [
    [
        "def mean(values):",
        "    total = 0",
        "    for v in values:",
        "        total += v",
        "    return total / len(values)",
    ],
    ["import json", "", "with open(path) as f:", "    data = json.load(f)", "print(data['name'])"],
    ["for (int i = 0; i < n; i++) {", "    sum += a[i] * b[i];", "}", "return sum;"],
    ["#include <stdio.h>", "", "int main(void) {", '    printf("hello\\n");', "    return 0;", "}"],
    ["$ ./configure --prefix=/usr/local", "$ make -j4", "$ sudo make install"],
    [
        "SELECT name, count(*) AS n",
        "FROM orders",
        "WHERE status = 'open'",
        "GROUP BY name",
        "ORDER BY n DESC;",
    ],
    ["\\begin{tabular}{lr}", "  Name & Value \\\\", "  alpha & 1 \\\\", "\\end{tabular}"],
    ["[server]", "host = 127.0.0.1", "port = 8080", "", "[logging]", "level = debug"],
    [
        "class Stack:",
        "    def __init__(self):",
        "        self.items = []",
        "",
        "    def push(self, x):",
        "        self.items.append(x)",
    ],
    ["while read line; do", '  echo "$line" | cut -d, -f2', "done < input.csv"],
    ["if (x > max) {", "    max = x;", "} else if (x < min) {", "    min = x;", "}"],
    ["git clone https://example.org/repo.git", "cd repo", "git checkout -b fix-42"],
]
PROSE = str.split(
    "the program reads its input once and writes the result to the standard output so that "
    "it can be used in a pipeline we keep the example short but the same structure holds for "
    "larger programs where each function does one thing and the names say what they hold the "
    "listing below shows the whole function with its indentation as printed in the manual "
    "readers who copy it should keep the spaces because the language gives them meaning"
)
INLINE = ["\\texttt{main}", "\\texttt{--verbose}", "\\texttt{config.ini}", "\\texttt{make}"]


def _sentences(rng: random.Random, count: int) -> str:
    out = []
    for _ in range(count):
        start = rng.randrange(len(PROSE) - 16)
        words = PROSE[start : start + rng.randint(9, 16)]
        if rng.random() < 0.3:
            words.insert(rng.randint(1, len(words) - 1), rng.choice(INLINE))
        out.append(" ".join(words).capitalize() + ".")
    return " ".join(out)


def _listing(lines: list[str], kind: str) -> str:
    body = "\n".join(lines)
    if kind == "alltt":  # alltt reads braces and backslashes as TeX: escape them
        body = body.replace("\\", "\\textbackslash ").replace("{", "\\{").replace("}", "\\}")
        body = body.replace("\\textbackslash ", "\\textbackslash{}")
    return f"\\begin{{{kind}}}\n{body}\n\\end{{{kind}}}"


def document(seed: int, fonts: list[str], typewriter: bool) -> tuple[str, dict]:
    """The LaTeX source of one document and its truth: the listings' lines."""
    rng = random.Random(seed)
    font = fonts[seed % len(fonts)]
    columns = "twocolumn," if rng.random() < 0.25 and not typewriter else ""
    body = [f"\\section{{Example {seed}}}", _sentences(rng, rng.randint(3, 5))]
    listings: list[list[str]] = []
    if not typewriter:
        for snippet in rng.sample(SNIPPETS, rng.randint(2, 4)):
            kind = rng.choice(["verbatim", "verbatim", "lstlisting", "alltt"])
            if kind == "alltt" and any("$" in line for line in snippet):
                kind = "verbatim"
            body += [_listing(snippet, kind), _sentences(rng, rng.randint(2, 4))]
            listings.append(snippet)
    else:
        body += [_sentences(rng, 5) for _ in range(4)]
    source = "\n\n".join(
        [f"\\documentclass[{columns}11pt]{{article}}",
         "\\usepackage[T1]{fontenc}" if seed % 2 else "", font,
         "\\usepackage{listings}\\lstset{basicstyle=\\ttfamily,columns=fullflexible,"
         "keepspaces=true}", "\\usepackage{alltt}",
         "\\renewcommand{\\familydefault}{\\ttdefault}" if typewriter else "",
         "\\begin{document}", *body, "\\end{document}"]
    )  # fmt: skip
    return source, {"listings": listings, "typewriter": typewriter}


def generate(out: Path = DEFAULT_OUT) -> list[Path]:
    require_pdflatex()
    pdfs = []
    for part, seeds in PARTS.items():
        for seed in seeds:
            source, truth = document(seed, FONTS[part], typewriter=seed == seeds[-1])
            pdfs.append(write_document(out / part, f"code-{seed:03d}", source, truth))
    return pdfs


def _collapsed(line: str) -> str:
    """A line compared with its spaces collapsed and its quotes straight (OT1 cmtt's quote's
    Unicode is U+2019, as every reader of the PDF gives it)."""
    return " ".join(line.translate(_QUOTES).split())


_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"'})


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def score(html: str, truth: dict) -> dict:
    soup = BeautifulSoup(html, "html.parser")
    blocks = [pre.get_text().split("\n") for pre in soup.find_all("pre")]
    truth_lines = {_collapsed(line) for listing in truth["listings"] for line in listing}
    found = indented = whole = total = 0
    for listing in truth["listings"]:
        lines = [line for line in listing if line.strip()]
        total += len(lines)
        base = _indent(lines[0])
        wanted = {_collapsed(x) for x in lines}
        # The <pre> holding most of the listing's lines ("}" alone is in many).
        for block in sorted(blocks, key=lambda b: -len(wanted & {_collapsed(g) for g in b}))[:1]:
            got = {_collapsed(g): g for g in block if g.strip()}
            hits = [line for line in lines if _collapsed(line) in got]
            if not hits:
                continue
            found += len(hits)
            start = _indent(got[_collapsed(lines[0])]) if _collapsed(lines[0]) in got else None
            indented += sum(
                start is not None and _indent(got[_collapsed(h)]) - start == _indent(h) - base
                for h in hits
            )
            order = [_collapsed(g) for g in block if _collapsed(g) in wanted]
            whole += order == [_collapsed(x) for x in lines]
    pre_lines = [g for block in blocks for g in block if g.strip()]
    correct = sum(_collapsed(g) in truth_lines for g in pre_lines)
    return {
        "lines": total, "recall": found / total if total else None,
        "indent": indented / found if found else None,
        "precision": correct / len(pre_lines) if pre_lines else None,
        "pre_lines": len(pre_lines), "wrong_pre_lines": len(pre_lines) - correct,
        "listings": len(truth["listings"]), "listings_whole": whole,
    }  # fmt: skip


def _summary(rows: list[dict]) -> dict:
    lines = sum(r["lines"] for r in rows)
    found = sum((r["recall"] or 0) * r["lines"] for r in rows)
    indented = sum((r["indent"] or 0) * (r["recall"] or 0) * r["lines"] for r in rows)
    pre = sum(r["pre_lines"] for r in rows)
    wrong = sum(r["wrong_pre_lines"] for r in rows)
    return {
        "documents": len(rows), "lines": lines, "recall": found / lines if lines else None,
        "indent": indented / found if found else None,
        "precision": (pre - wrong) / pre if pre else None, "wrong_pre_lines": wrong,
        "listings": sum(r["listings"] for r in rows),
        "listings_whole": sum(r["listings_whole"] for r in rows),
    }  # fmt: skip


def _fmt(value) -> str:
    return "    -" if value is None else f"{value:5.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--part", default="all", choices=[*PARTS, "all"])
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    generate(DEFAULT_OUT)
    parts = list(PARTS) if args.part == "all" else [args.part]
    systems = args.systems.split(",")
    engine = TesseractEngine()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for part in parts:
            for pdf in sorted((DEFAULT_OUT / part).glob("*.pdf")):
                truth = json.loads(pdf.with_suffix(".truth.json").read_text("utf-8"))
                for system in systems:
                    work = Path(tmp) / f"{part}-{pdf.stem}-{system}"
                    work.mkdir()
                    html = run_system(system, pdf, work, engine)
                    row = {"part": part, "doc": pdf.stem, "system": system,
                           "typewriter": truth["typewriter"], **score(html, truth)}  # fmt: skip
                    rows.append(row)
                    print(f"{part:5} {pdf.stem:9} {system:11} recall {_fmt(row['recall'])}"
                          f" indent {_fmt(row['indent'])} precision {_fmt(row['precision'])}"
                          f" wrong {row['wrong_pre_lines']:3} whole {row['listings_whole']}"
                          f"/{row['listings']}", flush=True)  # fmt: skip
    summary = {
        f"{part}/{system}": _summary(
            [r for r in rows if r["part"] == part and r["system"] == system]
        )
        for part in parts for system in systems
    }  # fmt: skip
    print("\npart/system          recall indent precision wrong_pre_lines listings_whole")
    for key, s in summary.items():
        print(f"{key:20} {_fmt(s['recall'])}  {_fmt(s['indent'])}  {_fmt(s['precision'])}"
              f"  {s['wrong_pre_lines']:5}  {s['listings_whole']}/{s['listings']}")  # fmt: skip
    name = "code_listings" + (f"-{args.tag}" if args.tag else "")
    write_result(dated(name), {"args": vars(args), "summary": summary, "rows": rows})


if __name__ == "__main__":
    main()
