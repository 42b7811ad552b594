"""A born-digital formula's glyphs -> TeX: superscripts and subscripts from size and baseline,
limits above and below big operators, math letters and symbols to their TeX names.

Only what the glyphs show without doubt: a formula whose glyphs stack at full size (fractions,
matrices) or hold a glyph with no TeX name gives None, and the caller keeps it as an image with
a finding. The TeX is checked by converting it to MathML.
"""

from __future__ import annotations

import statistics
import unicodedata
from dataclasses import dataclass

import latex2mathml.converter

_SYMBOLS = {
    "∑": r"\sum", "∏": r"\prod", "∫": r"\int", "∮": r"\oint", "−": "-", "×": r"\times",
    "·": r"\cdot", "⋅": r"\cdot", "≤": r"\leq", "≥": r"\geq", "≠": r"\neq", "≈": r"\approx",
    "∞": r"\infty", "→": r"\to", "←": r"\leftarrow", "⇒": r"\Rightarrow", "∈": r"\in",
    "∉": r"\notin", "±": r"\pm", "∓": r"\mp", "∂": r"\partial", "∇": r"\nabla", "∀": r"\forall",
    "∃": r"\exists", "∪": r"\cup", "∩": r"\cap", "⊂": r"\subset", "⊆": r"\subseteq",
    "≡": r"\equiv", "∝": r"\propto", "′": "'", "…": r"\ldots", "⋯": r"\cdots", "∘": r"\circ",
    "{": r"\{", "}": r"\}", "%": r"\%", "#": r"\#", "&": r"\&", "_": r"\_",
}  # fmt: skip
_GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ϵ": "epsilon",
    "ζ": "zeta", "η": "eta", "θ": "theta", "ϑ": "vartheta", "ι": "iota", "κ": "kappa",
    "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma",
    "τ": "tau", "υ": "upsilon", "φ": "phi", "ϕ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega",
    "Γ": "Gamma", "Δ": "Delta", "Θ": "Theta", "Λ": "Lambda", "Ξ": "Xi", "Π": "Pi",
    "Σ": "Sigma", "Φ": "Phi", "Ψ": "Psi", "Ω": "Omega",
}  # fmt: skip
_BIG = {"∑", "∏", "∫", "∮"}
_FENCES = set("()[]{}|‖⟨⟩")
_PLAIN = set("0123456789+-=()[]<>/|!,.;:'*")


@dataclass
class Glyph:
    char: str
    size: float
    x: float  # origin (left end of the baseline)
    y: float  # baseline
    bbox: tuple[float, float, float, float]


def _tex(char: str) -> str | None:
    if char in _SYMBOLS:
        return _SYMBOLS[char]
    folded = unicodedata.normalize("NFKC", char)  # mathematical italic 𝑥 -> x
    if folded in _GREEK:
        return "\\" + _GREEK[folded]
    if len(folded) == 1 and (folded.isascii() and folded.isalnum() or folded in _PLAIN):
        return folded
    return None


def _group(parts: list[str]) -> str:
    return "{" + " ".join(parts) + "}"


def tex_from_glyphs(glyphs: list[Glyph]) -> str | None:
    glyphs = [g for g in glyphs if g.char.strip()]
    if not glyphs:
        return None
    base = max(g.size for g in glyphs)
    full = [g for g in glyphs if g.size >= 0.9 * base]
    baseline = statistics.median(g.y for g in full if g.char not in _BIG | _FENCES)
    # Full-size glyphs on another line: a fraction or a matrix, beyond what is rebuilt here.
    # (Big operators and fences are placed on their own centre, not on the baseline.)
    if any(abs(g.y - baseline) > 0.45 * base for g in full if g.char not in _BIG | _FENCES):
        return None
    limits: dict[int, tuple[list[Glyph], list[Glyph]]] = {}
    used: set[int] = set()
    ops = [g for g in glyphs if g.char in _BIG]
    for op in ops:
        x0, y0, x1, y1 = op.bbox
        grow = 1.5 * (x1 - x0)
        above, below = [], []
        for g in glyphs:
            cx = (g.bbox[0] + g.bbox[2]) / 2
            if g is op or id(g) in used or not x0 - grow <= cx <= x1 + grow or g.size >= base:
                continue
            if g.bbox[3] <= y0 + 0.25 * (y1 - y0):
                above.append(g)
            elif g.bbox[1] >= y1 - 0.25 * (y1 - y0):
                below.append(g)
        used.update(id(g) for g in above + below)
        limits[id(op)] = (sorted(above, key=lambda g: g.x), sorted(below, key=lambda g: g.x))
    out: list[str] = []
    script: tuple[str, list[str]] | None = None  # ("^" or "_", its glyphs' TeX)
    for g in sorted((g for g in glyphs if id(g) not in used), key=lambda g: g.x):
        tex = _tex(g.char)
        if tex is None:
            return None
        # A smaller glyph is a script: raised, a superscript; else a subscript.
        mark = ("^" if g.y < baseline - 0.15 * base else "_") if g.size < 0.9 * base else ""
        if script and script[0] != mark:
            out.append(script[0] + _group(script[1]))
            script = None
        if mark:
            script = script or (mark, [])
            script[1].append(tex)
            continue
        out.append(tex)
        if g.char in _BIG:
            above, below = limits.get(id(g), ([], []))
            parts = [[_tex(x.char) for x in side] for side in (below, above)]
            if any(p is None for side in parts for p in side):
                return None
            if parts[0]:
                out.append("_" + _group(parts[0]))  # type: ignore[arg-type]
            if parts[1]:
                out.append("^" + _group(parts[1]))  # type: ignore[arg-type]
    if script:
        out.append(script[0] + _group(script[1]))
    tex = " ".join(out)
    try:
        latex2mathml.converter.convert(tex)
    except Exception:  # noqa: BLE001 - the converter raises many types on bad TeX
        return None
    return tex
