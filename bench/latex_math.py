"""Real pdflatex pages with mathematics, and their truth: what born-digital LaTeX papers look like
to the reader (Computer Modern Type 1 fonts, CMEX big operators and delimiters, fraction bars and
radicals' rules drawn as rules, \\displaystyle sums with limits, aligned equations numbered "(3)").

    .venv/bin/python bench/latex_math.py [--out DIR]

Each document is built from a seed: article class, one or two columns, 10-12 pt, English prose
with inline math, display formulas (equation, equation*, \\[ \\], align, eqnarray) from a pool of
templates with their letters and numbers drawn at random. The truth (NAME.truth.json) lists every
display formula's TeX with the prose words right before and after it (the sentence it sits in),
and the inline formulas.

Two parts, fixed before any tuning: `tune` (seeds 0-7, three quarters of the templates) and
`valid` (seeds 100-105, every template: a quarter of them never seen while tuning, and two font
families, txfonts and pxfonts, never seen while tuning); `valid2` (seeds 200-205, Euler math
fonts and the amsart class) was added blind after `valid` had been scored once. Needs
pdflatex (apt: texlive-latex-base texlive-fonts-recommended texlive-latex-recommended); the test
suite does not.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.pdflatex import require_pdflatex, write_document  # noqa: E402

DEFAULT_OUT = ROOT / "bench" / "generated" / "latex_math"
PARTS = {"tune": range(8), "valid": range(100, 106), "valid2": range(200, 206)}
# Math fonts: Computer Modern (most papers) and the Times and Palatino packages of psnfss; the
# validation part adds two font families never seen while tuning.
FONTS = {"tune": ["", "", "", "mathptmx", "mathpazo"],
         "valid": ["", "", "mathptmx", "mathpazo", "txfonts", "pxfonts"],
         # A second blind part, made after the first was scored: Euler math (mathpple) and the
         # AMS article class, never used while tuning.
         "valid2": ["mathpple", "", "mathpple"]}  # fmt: skip
CLASSES = {"tune": "article", "valid": "article", "valid2": "amsart"}

# Display formulas; {a} {b} {c}: letters, {g}: a Greek letter, {n} {m}: small numbers.
TEMPLATES = [
    r"\sum_{{i=1}}^{{n}} {a}_i^2 = \frac{{n(n+1)(2n+1)}}{{{m}}}",
    r"\int_{{0}}^{{\infty}} e^{{-{a}^2}} \, d{a} = \frac{{\sqrt{{\pi}}}}{{2}}",
    r"{a} = \frac{{-{b} \pm \sqrt{{{b}^2 - 4{a}{c}}}}}{{2{a}}}",
    r"f({a}) = \sum_{{k=0}}^{{\infty}} \frac{{f^{{(k)}}({b})}}{{k!}} ({a}-{b})^k",
    r"{A} = \begin{{pmatrix}} {a} & {b} \\ {c} & {n} \end{{pmatrix}}",
    r"\lim_{{n \to \infty}} \left( 1 + \frac{{{n}}}{{n}} \right)^n = e^{{{n}}}",
    r"\bar{{{a}}} = \frac{{1}}{{N}} \sum_{{j=1}}^{{N}} {a}_j",
    r"\hat{{\{g}}} = \frac{{\sum_{{i}} {a}_i {b}_i}}{{\sum_{{i}} {a}_i^2}}",
    r"\left\| {a} \right\|_2 = \sqrt{{\sum_{{i=1}}^{{n}} {a}_i^2}}",
    r"\prod_{{k=1}}^{{{n}}} \left( 1 - \frac{{1}}{{k^2}} \right) \leq \frac{{{n}}}{{{m}}}",
    r"\frac{{\partial {a}}}{{\partial t}} = \{g} \frac{{\partial^2 {a}}}{{\partial {b}^2}}",
    r"\{g}({a}) = \int_{{-\infty}}^{{{a}}} \frac{{1}}{{\sqrt{{2\pi}}}} e^{{-t^2/2}} \, dt",
    r"{a}_{{n+1}} = {a}_n - \frac{{f({a}_n)}}{{f'({a}_n)}}",
    r"\vec{{{a}}} \cdot \vec{{{b}}} = \sum_{{i=1}}^{{{n}}} {a}_i {b}_i",
    r"\det \begin{{pmatrix}} {a} & {b} & 0 \\ 0 & {c} & {n} \\ {m} & 0 & 1 \end{{pmatrix}} = 0",
    r"P({A} \mid {B}) = \frac{{P({B} \mid {A}) \, P({A})}}{{P({B})}}",
    r"\tilde{{{a}}}(\omega) = \int_{{-\infty}}^{{\infty}} {a}(t) e^{{-i \omega t}} \, dt",
    r"\{g}^2 = \frac{{1}}{{{n}}} \sum_{{k=1}}^{{{n}}} \left( {a}_k - \mu \right)^2",
    r"{a}^{{{n}}} + {b}^{{{n}}} \neq {c}^{{{n}}}",
    r"\max_{{{a} \in {A}}} \left[ {b}({a}) - \{g} \, {c}({a}) \right]",
    # What papers set beyond the textbook: cases, blackboard and calligraphic letters, norms
    # and inner products, overlines, words in subscripts, sets in braces, bold vectors.
    r"f({a}) = \begin{{cases}} {a}^2 & \text{{if }} {a} \geq 0 \\ "
    r"-{a} & \text{{otherwise}} \end{{cases}}",
    r"\mathbb{{E}}[{A}] = \sum_{{{a} \in \mathcal{{{B}}}}} {a} \, p({a})",
    r"\overline{{{a} + {b}}} = \overline{{{a}}} + \overline{{{b}}}",
    r"\langle {a}, {b} \rangle \leq \| {a} \| \, \| {b} \|",
    r"{a}_{{\max}} = \max_{{1 \leq i \leq {n}}} |{a}_i|",
    r"S = \left\{{ {a} \in \mathbb{{R}}^{n} : \| {a} \|_2 \leq {m} \right\}}",
    r"\sigma({a})_i = \frac{{e^{{{a}_i}}}}{{\sum_{{j=1}}^{{K}} e^{{{a}_j}}}}",
    r"\binom{{{n}}}{{k}} = \frac{{{n}!}}{{k! \, ({n}-k)!}}",
    r"\mathbf{{{a}}} = W^\top \mathbf{{{b}}} + \mathbf{{{c}}}",
    r"\hat{{\{g}}} = \arg\max_{{\{g}}} \log p({a} \mid \{g})",
    r"\nabla_{{\{g}}} J(\{g}) = \mathbb{{E}} \left[ \nabla_{{\{g}}} \log \pi({a}) \, R \right]",
    r"\int_{{{n}}}^{{{m}}} \frac{{d{a}}}{{{a}^2 + 1}} = \arctan {m} - \arctan {n}",
]
# Aligned rows (align / eqnarray): each a pair of sides.
ROWS = [
    (r"{a}({b})", r"{b}^2 + {n}{b} + {m}"),
    (r"{a}'({b})", r"2{b} + {n}"),
    (r"\{g}_{{k+1}}", r"\{g}_k - \eta \nabla {c}(\{g}_k)"),
    (r"{c}", r"\frac{{{a} + {b}}}{{{n}}}"),
    (r"\sum_{{i=1}}^{{{n}}} {a}_i", r"{m} {b}"),
    (r"\mathcal{{{A}}}({a})", r"\frac{{1}}{{{n}}} \sum_{{k}} \| {a}_k - {b} \|^2"),
    (r"\tilde{{{a}}}_t", r"\alpha \, {a}_{{t-1}} + (1 - \alpha) \, {b}_t"),
]
INLINE = [r"{a}_i", r"\{g} > 0", r"{a}^2 + {b}^2", r"{n} \leq {a} \leq {m}", r"{a}({b})",
          r"\{g}_{{{n}}}", r"{a} \in {A}", r"\frac{{1}}{{{n}}}"]  # fmt: skip
LETTERS = "abcdfgpqrsuvwxyz"
CAPITALS = "ABCDFGHKLMPQRSTUVWXYZ"
GREEK = ["alpha", "beta", "gamma", "delta", "theta", "lambda", "sigma", "phi", "psi", "omega"]
WORDS = str.split(
    "the method converges quickly when the step size is chosen with care and the data are "
    "normalized before each iteration we observe that this bound holds for every sample in "
    "our experiments although the constant depends on the dimension of the problem a careful "
    "analysis shows that the error decreases with the number of terms in the expansion and "
    "that the estimate remains stable under small perturbations of the input"
)
LEADS = ["Then we obtain", "The estimate is given by", "It follows that",
         "Recall the identity", "We define the quantity", "In closed form this reads",
         "Consider the relation", "The update rule becomes", "A direct computation yields",
         "By the previous lemma"]  # fmt: skip
TAILS = ["where the constant is fixed in advance.", "which holds for every admissible choice.",
         "for all values of the parameter.", "as claimed in the introduction.",
         "where each term is bounded by one.", "and the proof is complete."]  # fmt: skip


def _fill(template: str, rng: random.Random) -> str:
    return template.format(a=rng.choice(LETTERS), b=rng.choice(LETTERS), c=rng.choice(LETTERS),
                           A=rng.choice(CAPITALS), B=rng.choice(CAPITALS), g=rng.choice(GREEK),
                           n=rng.randint(2, 9), m=rng.randint(2, 9))  # fmt: skip


def _sentence(rng: random.Random, words: int) -> str:
    start = rng.randrange(len(WORDS) - words)
    text = " ".join(WORDS[start : start + words])
    return text[0].upper() + text[1:] + "."


def _prose(rng: random.Random, inline: list[str], sentences: int) -> str:
    out = []
    for _ in range(sentences):
        text = _sentence(rng, rng.randint(8, 16))
        if rng.random() < 0.5:
            tex = _fill(rng.choice(INLINE), rng)
            inline.append(tex)
            words = text.split()
            at = rng.randint(2, len(words) - 2)
            text = " ".join(words[:at] + [f"${tex}$"] + words[at:])
        out.append(text)
    return " ".join(out)


def _display(rng: random.Random, templates: list[str]) -> tuple[str, list[str]]:
    """A display environment's LaTeX and the TeX of each formula (row) in it."""
    kind = rng.choice(["equation", "equation*", "brackets", "align", "eqnarray", "equation"])
    if kind in ("align", "eqnarray"):
        rows = [tuple(_fill(s, rng) for s in pair) for pair in rng.sample(ROWS, rng.randint(2, 3))]
        if kind == "align":
            body = " \\\\\n".join(f"{lhs} &= {rhs}" for lhs, rhs in rows)
        else:
            body = " \\\\\n".join(f"{lhs} &=& {rhs}" for lhs, rhs in rows)
        formulas = [f"{lhs} = {rhs}" for lhs, rhs in rows]
        return f"\\begin{{{kind}}}\n{body}\n\\end{{{kind}}}", formulas
    tex = _fill(rng.choice(templates), rng)
    if kind == "brackets":
        return f"\\[\n{tex}\n\\]", [tex]
    return f"\\begin{{{kind}}}\n{tex}\n\\end{{{kind}}}", [tex]


def document(
    seed: int, templates: list[str], fonts: list[str], cls: str = "article"
) -> tuple[str, dict]:
    """The LaTeX source of one document and its truth."""
    rng = random.Random(seed)
    font = rng.choice(fonts)
    size = rng.choice(["10pt", "11pt", "12pt"])
    columns = rng.choice(["onecolumn", "twocolumn"])
    inline: list[str] = []
    displays = []
    body = [f"\\section{{Analysis of case {seed}}}", _prose(rng, inline, 4)]
    for k in range(rng.randint(4, 6)):
        if k == 2:
            body.append(f"\\subsection{{Estimates {seed}}}")
        lead = rng.choice(LEADS)
        before = _prose(rng, inline, rng.randint(1, 3)) + " " + lead
        env, formulas = _display(rng, templates)
        tail = rng.choice(TAILS)
        after = " ".join([tail, _prose(rng, inline, rng.randint(1, 3))])
        body.append(f"{before}\n{env}\n{after}\n")
        displays.append({"tex": formulas, "before": lead, "after": tail})
    source = (
        f"\\documentclass[{size},{columns}]{{{cls}}}\n"
        "\\usepackage{amsmath,amssymb}\n"
        + (f"\\usepackage{{{font}}}\n" if font else "")
        + "\\usepackage[margin=1in]{geometry}\n\\pagestyle{plain}\n"
        "\\begin{document}\n" + "\n\n".join(body) + "\n\\end{document}\n"
    )
    truth = {"seed": seed, "size": size, "font": font or "cm", "columns": columns,
             "displays": displays, "inline": inline}  # fmt: skip
    return source, truth


def generate(out: Path = DEFAULT_OUT) -> list[Path]:
    """Render every document of both parts under out/PART/; the PDFs."""
    require_pdflatex()
    pdfs = []
    for part, seeds in PARTS.items():
        templates = TEMPLATES if part != "tune" else [t for i, t in enumerate(TEMPLATES) if i % 4]
        for seed in seeds:
            source, truth = document(seed, templates, FONTS[part], CLASSES[part])
            pdfs.append(write_document(out / part, f"math-{seed:03d}", source, truth))
    return pdfs


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    for pdf in generate(parser.parse_args().out):
        print(pdf)
