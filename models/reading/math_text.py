"""A born-digital formula's glyphs -> TeX: superscripts and subscripts from size and baseline,
limits above and below big operators, fractions over their drawn bars (big operators inside
them too), overlines, radicals, matrices, binomials and cases from rows inside tall delimiters
(built from the extension font's pieces), accents and negations over their glyphs, an
equation's number at the end of its row, rows of a display one under the other, math letters
and symbols to their TeX names (a symbol with no name here is itself).

Only what the glyphs show without doubt: full-size glyphs stacked with no bar and no
delimiters around them, a bar with nothing under it, or a glyph with no meaning (an unmapped
slot, a private-use code) give None, and the caller keeps the formula as an image with a
finding. The TeX is checked by converting it to MathML.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from dataclasses import dataclass

import latex2mathml.converter

from models.reading.params.math import MATH, MathParams

_SYMBOLS = {
    "∑": r"\sum", "∏": r"\prod", "∫": r"\int", "∮": r"\oint", "−": "-", "×": r"\times",
    "·": r"\cdot", "⋅": r"\cdot", "≤": r"\leq", "≥": r"\geq", "≠": r"\neq", "≈": r"\approx",
    "∞": r"\infty", "→": r"\to", "←": r"\leftarrow", "⇒": r"\Rightarrow", "∈": r"\in",
    "∉": r"\notin", "±": r"\pm", "∓": r"\mp", "∂": r"\partial", "∇": r"\nabla", "∀": r"\forall",
    "∃": r"\exists", "∪": r"\cup", "∩": r"\cap", "⊂": r"\subset", "⊆": r"\subseteq",
    "≡": r"\equiv", "∝": r"\propto", "′": "'", "″": "''", "‴": "'''", "…": r"\ldots",
    "⋯": r"\cdots", "∘": r"\circ",
    "⌊": r"\lfloor", "⌋": r"\rfloor", "⌈": r"\lceil", "⌉": r"\rceil", "⟨": r"\langle",
    "⟩": r"\rangle", "‖": r"\|", "\\": r"\backslash",
    "{": r"\{", "}": r"\}", "%": r"\%", "#": r"\#", "&": r"\&", "_": r"\_",
    "∥": r"\|", "∣": r"\mid", "⊤": r"\top", "⊥": r"\perp", "†": r"\dagger", "∗": "*",
    "ℓ": r"\ell", "∅": r"\emptyset", "¬": r"\neg", "∧": r"\wedge", "∨": r"\vee",
    "↦": r"\mapsto", "⊗": r"\otimes", "⊕": r"\oplus", "∼": r"\sim", "≃": r"\simeq",
    "≪": r"\ll", "≫": r"\gg", "∖": r"\setminus", "⊇": r"\supseteq", "⊃": r"\supset",
    "⇔": r"\Leftrightarrow", "↔": r"\leftrightarrow", "⟶": r"\longrightarrow",
    "⋃": r"\bigcup", "⋂": r"\bigcap", "⋀": r"\bigwedge", "⋁": r"\bigvee",
    "⨁": r"\bigoplus", "⨂": r"\bigotimes", "∐": r"\coprod",
    "⟹": r"\Longrightarrow", "≜": r"\triangleq", "≺": r"\prec", "≻": r"\succ",
}  # fmt: skip
# Greek letters and their TeX names.
GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ϵ": "epsilon",
    "ζ": "zeta", "η": "eta", "θ": "theta", "ϑ": "vartheta", "ι": "iota", "κ": "kappa",
    "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma",
    "τ": "tau", "υ": "upsilon", "φ": "phi", "ϕ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega",
    "Γ": "Gamma", "Δ": "Delta", "Θ": "Theta", "Λ": "Lambda", "Ξ": "Xi", "Π": "Pi",
    "Σ": "Sigma", "Φ": "Phi", "Ψ": "Psi", "Ω": "Omega",
}  # fmt: skip
_BIG = {"∑", "∏", "∫", "∮", "⋃", "⋂", "⋀", "⋁", "⨁", "⨂", "∐"}
# TeX's math extension font (cmex) embedded without a ToUnicode map gives its big operators as
# the letters of their slots (text and display sizes).
_CMEX = {"P": "∑", "X": "∑", "Q": "∏", "Y": "∏", "R": "∫", "Z": "∫", "H": "∮", "I": "∮"}
_CMEX.update(dict.fromkeys("pqrst", "√"))  # radical signs of five sizes
# Big unions, intersections, wedges, circled sums and products, coproducts (text, display).
_CMEX.update(zip("S[T\\V^W_LMNO`a", "⋃⋃⋂⋂⋀⋀⋁⋁⨁⨁⨂⨂∐∐", strict=True))
# Angle brackets, brackets, floors, ceilings and braces of the \Big size.
_CMEX.update(zip("DEhijklmno", "⟨⟩[]⌊⌋⌈⌉{}", strict=True))
# Its first slots are delimiters in three sizes (\big to \Bigg), a slot for each.
_CMEX.update(
    (chr(slot), fence)
    for slot, fence in enumerate("()[]⌊⌋⌈⌉{}⟨⟩|‖/\\()()[]⌊⌋⌈⌉{}⟨⟩/\\()[]⌊⌋⌈⌉{}⟨⟩/\\/\\")
)
_FENCES = set("()[]{}|‖⟨⟩⌊⌋⌈⌉")
# The pieces tall delimiters are built from (top, extension, bottom), by the extension font's
# slot or by the private-use code points its Unicode map gives them; a brace's extension
# (slot ">", U+F8F4) belongs to either brace: it takes the one it stacks with.
_PIECES = dict(zip("0@B1AC2463578:<9;=", "((()))[[[]]]{{{}}}", strict=True))
_PIECES.update(
    zip(
        "\uf8eb\uf8ec\uf8ed\uf8f6\uf8f7\uf8f8\uf8ee\uf8ef\uf8f0\uf8f9\uf8fa\uf8fb"
        "\uf8f1\uf8f2\uf8f3\uf8fc\uf8fd\uf8fe",
        "((()))[[[]]]{{{}}}",
        strict=True,
    )
)
_PIECES.update({">": "\ufffd", "\uf8f4": "\ufffd", "B": "(", "C": ")"})
_PIECE_EXTENT = 1.8  # a piece's height, in sizes
_DELIMITER_EXTENTS = (1.2, 1.8, 2.4, 3.0)  # \big, \Big, \bigg, \Bigg
# Letters of TeX's blackboard, calligraphic and fraktur fonts, and their Unicode names.
# By the font families of TeX's math (Computer Modern and AMS, txfonts, pxfonts, Euler, Latin
# Modern): blackboard fonts first (txfonts' "txsyb" is no "txsy").
_STYLED_FONTS = {"MSBM": "DOUBLE-STRUCK", "TXSYB": "DOUBLE-STRUCK", "PXSYB": "DOUBLE-STRUCK",
                 "BLACKBOARD": "DOUBLE-STRUCK", "BBOLD": "DOUBLE-STRUCK",
                 "DSROM": "DOUBLE-STRUCK", "CMSY": "SCRIPT", "TXSY": "SCRIPT", "PXSY": "SCRIPT",
                 "MATHSYMBOLS": "SCRIPT", "RSFS": "SCRIPT", "EUSM": "SCRIPT", "EUSB": "SCRIPT",
                 "EUFM": "FRAKTUR", "EUFB": "FRAKTUR", "FRAKTUR": "FRAKTUR"}  # fmt: skip
# The extension font of each family (big operators, delimiters, radicals by slot); not the
# "a" fonts of extra symbols (txexa).
_EXTENSION_FONT = re.compile(r"(?:CM|TX|PX|EU|LM)EX(?:\d|$|-)|MATHEXTENSION")
# Math italic fonts: letters side by side in them are a product, not a word (Euler's is
# upright in design).
_ITALIC_FONTS = ("CMMI", "TXMI", "PXMI", "EURM", "EURB", "MATHITALIC", "ITAL", "OBLIQUE", "-IT",
                 "MATHIT")  # fmt: skip
_STYLES = {"DOUBLE-STRUCK": r"\mathbb", "SCRIPT": r"\mathcal", "FRAKTUR": r"\mathfrak",
           "MATHEMATICAL DOUBLE-STRUCK": r"\mathbb", "MATHEMATICAL SCRIPT": r"\mathcal",
           "BLACK-LETTER": r"\mathfrak", "MATHEMATICAL FRAKTUR": r"\mathfrak"}  # fmt: skip
# Tall delimiters around rows with no bar between them: a matrix, a binomial, cases.
_MATRICES = {("(", ")"): "pmatrix", ("[", "]"): "bmatrix", ("|", "|"): "vmatrix",
             ("‖", "‖"): "Vmatrix", ("{", "}"): "Bmatrix", ("{", None): "cases"}  # fmt: skip
# Operator names set upright ("lim", "sin"): TeX's \lim, \sin; the first ones take limits
# under them in a display (lim over n -> infinity).
_LIMIT_NAMES = {"lim", "liminf", "limsup", "max", "min", "sup", "inf", "det", "gcd", "Pr"}
OPERATOR_NAMES = _LIMIT_NAMES | {
    "sin", "cos", "tan", "cot", "sec", "csc", "sinh", "cosh", "tanh", "coth", "arcsin", "arccos",
    "arctan", "log", "ln", "lg", "exp", "deg", "dim", "ker", "arg", "hom",
}  # fmt: skip
_PLAIN = set("0123456789+-=()[]<>/|!,.;:'*")
# Accents set over a letter as glyphs of their own (TeX's \hat is the spacing circumflex of the
# text font; \vec the combining arrow of the math italic font), and the slash TeX lays over a
# relation to negate it (\neq is "=" under it).
_ACCENTS = {
    "ˆ": "hat", "\u0302": "hat", "˜": "tilde", "\u0303": "tilde", "¯": "bar", "\u0304": "bar",
    "\u0305": "bar", "˙": "dot", "\u0307": "dot", "¨": "ddot", "\u0308": "ddot", "ˇ": "check",
    "\u030c": "check", "´": "acute", "\u0301": "acute", "`": "grave", "\u0300": "grave",
    "˘": "breve", "\u0306": "breve", "\u20d7": "vec",
}  # fmt: skip
_NEGATION = "\u0338"
_NEGATED = {"=": r"\neq", "∈": r"\notin", "≡": r"\not\equiv", "<": r"\not<", ">": r"\not>"}
# An equation's number at the right end of its row: "(3)", "(2.1)", "(4a)", "(A.2)".
_EQUATION_NUMBER = re.compile(r"\((?:[A-Z]\.)?\d+(?:\.\d+)*[a-z]?\)")


@dataclass
class Glyph:
    char: str
    size: float
    x: float  # origin (left end of the baseline)
    y: float  # baseline
    bbox: tuple[float, float, float, float]
    font: str = ""


Bar = tuple[float, float, float]  # a horizontal rule drawn in the formula: x0, x1, y


def _tex(char: str) -> str | None:
    if char in _SYMBOLS:
        return _SYMBOLS[char]
    name = unicodedata.name(char, "")
    for style, command in _STYLES.items():  # ℝ is \mathbb{R}, not R
        if name.startswith(style) and name.split()[-1].isalpha() and len(name.split()[-1]) == 1:
            letter = name.split()[-1]
            return command + "{" + (letter if "CAPITAL" in name else letter.lower()) + "}"
    folded = unicodedata.normalize("NFKC", char)  # mathematical italic 𝑥 -> x
    if folded in GREEK:
        return "\\" + GREEK[folded]
    if len(folded) == 1 and (folded.isascii() and folded.isalnum() or folded in _PLAIN):
        return folded
    # Another mathematical symbol or letter with no name here is itself (MathML takes it as
    # it is); an unmapped slot, a private-use code or a loose accent is not guessed.
    if char != "\ufffd" and unicodedata.category(char) in ("Sm", "So", "Ll", "Lu"):
        return char
    return None


def _group(parts: list[str]) -> str:
    return "{" + " ".join(parts) + "}"


def _extent(slot: str) -> float | None:
    """The height of a delimiter of TeX's extension font, in sizes (it hangs from its
    origin: PDF readers box it a few points tall at its top)."""
    code = ord(slot)
    if slot in _PIECES:
        return _PIECE_EXTENT
    if code < 0x30:  # cmex10's slots 0x00-0x2F: delimiters in four growing sizes
        return _DELIMITER_EXTENTS[min(code // 0x10 + (code >= 0x12) * (code < 0x20), 3)]
    if slot in "DEhijklmno":
        return _DELIMITER_EXTENTS[1]
    return None


def _decoded(glyph: Glyph) -> Glyph:
    """A glyph with its character as TeX means it: the extension font's slots (big operators,
    delimiters and the pieces of tall ones) and letters of the blackboard and calligraphic
    fonts (an "R" of msbm is ℝ)."""
    font = glyph.font.upper()
    char = glyph.char
    if _EXTENSION_FONT.search(font.split("+")[-1]):
        extent = _extent(char) if char in _CMEX or char in _PIECES else None
        if char in _PIECES:
            decoded = _PIECES[char]
        elif char in _CMEX:
            decoded = _CMEX[char]
        elif ord(char) >= 0x80 and (_tex(char) or char in _BIG):  # past ASCII: real Unicode
            decoded = char  # a font with a Unicode map: its characters are right
        else:
            decoded = "\ufffd"  # another slot: no TeX name, no guess
        bbox = glyph.bbox
        if extent is not None and decoded in _FENCES:
            bbox = (bbox[0], glyph.y, bbox[2], glyph.y + extent * glyph.size)
        return Glyph(decoded, glyph.size, glyph.x, glyph.y, bbox, "CMEX-piece"
                     if char in _PIECES else glyph.font)  # fmt: skip
    for key, alphabet in _STYLED_FONTS.items():
        upper_only = alphabet == "SCRIPT"  # (a symbol font's small letters are no letters)
        if key in font and char.isascii() and char.isalpha() and (char.isupper() or not upper_only):
            styled = _styled(alphabet, char)
            return Glyph(styled, glyph.size, glyph.x, glyph.y, glyph.bbox, glyph.font)
    return glyph


def _styled(alphabet: str, letter: str) -> str:
    """The letter of a styled alphabet: ℝ (letterlike symbols), else 𝒜 (mathematical)."""
    case = "CAPITAL" if letter.isupper() else "SMALL"
    for prefix in ("", "MATHEMATICAL "):
        try:
            return unicodedata.lookup(f"{prefix}{alphabet} {case} {letter.upper()}")
        except KeyError:
            continue
    return letter


def _merged_pieces(glyphs: list[Glyph]) -> list[Glyph]:
    """The pieces of a tall delimiter (top, extensions, bottom: a 3-row matrix's parenthesis)
    made one glyph spanning them all."""
    pieces = sorted((g for g in glyphs if g.font == "CMEX-piece"), key=lambda g: g.y)
    out = [g for g in glyphs if g.font != "CMEX-piece"]
    stacks: list[list[Glyph]] = []
    for piece in pieces:
        for stack in stacks:
            last = stack[-1]
            same = last.char == piece.char or "\ufffd" in (last.char, piece.char)
            if same and _overlap(last, piece) > 0 and piece.bbox[1] <= last.bbox[3] + 1:
                stack.append(piece)
                break
        else:
            stacks.append([piece])
    for stack in stacks:
        char = next((g.char for g in stack if g.char != "\ufffd"), "\ufffd")
        box = (min(g.bbox[0] for g in stack), stack[0].bbox[1], max(g.bbox[2] for g in stack),
               max(g.bbox[3] for g in stack))  # fmt: skip
        out.append(Glyph(char, stack[0].size, stack[0].x, stack[0].y, box, "CMEX10"))
    return out


def _upright(glyph: Glyph) -> bool:
    font = glyph.font.upper()
    return glyph.char.isascii() and not any(k in font for k in _ITALIC_FONTS)


def _words(glyphs: list[Glyph], params: MathParams) -> tuple[list[Glyph], dict[int, str]]:
    """Glyphs set side by side at one size on one baseline read as one: the digits of a number
    ("100", "2.5": one number to a reader, not "1 0 0"), the letters of an operator name set
    upright ("lim"), and other upright words, text inside the formula ("and": \\text{and}, not
    the product a n d), three dots or more an ellipsis (\\ldots, \\cdots); the glyphs with those
    put together, and the TeX of each."""
    made: dict[int, str] = {}
    merged: set[int] = set()
    tokens: list[Glyph] = []

    def runs_of(keep, gap: float, same: bool = False) -> list[list[Glyph]]:
        runs: list[list[Glyph]] = []
        for g in sorted(glyphs, key=lambda g: g.x):
            if id(g) in merged or not keep(g):
                continue
            for run in runs:
                last = run[-1]
                if (abs(last.size - g.size) < params.same_size_ratio * g.size
                        and abs(last.y - g.y) < params.same_baseline_ratio * g.size
                        and params.word_overlap_ratio * g.size < g.bbox[0] - last.bbox[2]
                        < gap * g.size
                        and (not same or last.char == g.char)):  # fmt: skip
                    run.append(g)
                    break
            else:
                runs.append([g])
        return runs

    def put_together(part: list[Glyph], word: str, tex: str) -> None:
        x0, y0 = min(g.bbox[0] for g in part), min(g.bbox[1] for g in part)
        x1, y1 = max(g.bbox[2] for g in part), max(g.bbox[3] for g in part)
        token = Glyph(word, part[0].size, part[0].x, part[0].y, (x0, y0, x1, y1), part[0].font)
        made[id(token)] = tex
        merged.update(id(g) for g in part)
        tokens.append(token)

    for run in runs_of(lambda g: g.char in ".·⋅", params.dots_gap_ratio, same=True):
        if len(run) >= params.ellipsis_min_dots:
            put_together(run, "…", r"\ldots" if run[0].char == "." else r"\cdots")
    # Dots one under the other (\vdots) or stepping down to the right (\ddots), in a matrix.
    dots = sorted((g for g in glyphs if g.char == "." and id(g) not in merged), key=lambda g: g.y)
    for first in dots:
        if id(first) in merged:
            continue
        run = [first]
        for g in dots:
            dy, dx = g.y - run[-1].y, g.bbox[0] - run[-1].bbox[0]
            if (
                id(g) not in merged
                and params.dots_step_low_ratio * g.size
                < dy
                < (params.dots_step_high_ratio * g.size)
                and abs(dx) < params.dots_step_high_ratio * g.size
            ):
                run.append(g)
        if len(run) >= params.ellipsis_min_dots:
            upright = abs(run[-1].bbox[0] - first.bbox[0]) < params.dots_step_low_ratio * first.size
            put_together(run, "⋮" if upright else "⋱", r"\vdots" if upright else r"\ddots")
    digits_and_letters = runs_of(
        lambda g: g.char.isdigit() and g.char.isascii() or g.char == "."
        or _upright(g) and g.char.isalpha(), params.word_gap_ratio,
    )  # fmt: skip
    for run in digits_and_letters:
        text = "".join(g.char for g in run)
        # Numbers (a point only between digits) and words.
        for m in re.finditer(r"\d+(?:\.\d+)*|[A-Za-z]+", text):
            part = run[m.start() : m.end()]
            word = m.group()
            if len(part) < 2:
                continue
            if word[0].isdigit():
                put_together(part, word, word)
            else:
                put_together(
                    part, word, "\\" + word if word in OPERATOR_NAMES else r"\text{" + word + "}"
                )
    return [g for g in glyphs if id(g) not in merged] + tokens, made


def _overlap(a: Glyph, b: Glyph) -> float:
    """How far the two glyphs' boxes overlap across (pt)."""
    return min(a.bbox[2], b.bbox[2]) - max(a.bbox[0], b.bbox[0])


def _accented(glyphs: list[Glyph], made: dict[int, str], params: MathParams) -> list[Glyph]:
    """Accents (\\hat x, \\vec u) and negations (\\neq) made one glyph with the glyph they
    mark, its TeX in `made`: the one they overlap most across, else (TeX sets them with no
    width, right before their letter) the next one within reach on their line. An accent over
    nothing stays, and has no TeX name: the caller gives up."""
    out = list(glyphs)
    for mark in [g for g in glyphs if g.char in _ACCENTS or g.char == _NEGATION]:
        reach = params.accent_reach_ratio * mark.size

        # A mark with no width marks what follows it (an accent with a width overlaps it).
        blank = mark.bbox[2] - mark.bbox[0] < params.blank_mark_ratio * mark.size

        def distance(g: Glyph, mark: Glyph = mark, blank: bool = blank) -> float:
            across = _overlap(g, mark)
            return -across if across > 0 and not blank else g.bbox[0] - mark.bbox[2]

        near = [g for g in out if g is not mark and g.char not in _ACCENTS
                and min(g.bbox[3], mark.bbox[3]) > max(g.bbox[1], mark.bbox[1])
                and (g.bbox[0] >= mark.bbox[0] if blank else g.bbox[2] > mark.bbox[0])
                and distance(g) <= reach]  # fmt: skip
        if not near:
            continue
        base = min(near, key=distance)
        inner = made.get(id(base)) or _tex(base.char)
        if inner is None:
            continue
        if mark.char == _NEGATION:
            tex = _NEGATED.get(base.char, r"\not " + inner)
        else:
            tex = "\\" + _ACCENTS[mark.char] + _group([inner])
        box = tuple(f(base.bbox[k], mark.bbox[k]) for k, f in enumerate((min, min, max, max)))
        token = Glyph("\x01", base.size, base.x, base.y, box, base.font)  # type: ignore[arg-type]
        made[id(token)] = tex
        out = [g for g in out if g is not mark and g is not base] + [token]
    return out


def _equation_numbers(glyphs: list[Glyph], made: dict[int, str], params: MathParams) -> list[Glyph]:
    """An equation's number ("(3)") at the right end of its row, set apart from the formula by
    a wide space, made one glyph (its TeX `\\qquad (3)` in `made`): it stays with its row, and
    is no parenthesis of the formula."""
    out = list(glyphs)
    for close in [g for g in glyphs if g.char == ")"]:
        band = [g for g in out if g is not close
                and min(g.bbox[3], close.bbox[3]) > max(g.bbox[1], close.bbox[1])]  # fmt: skip
        if any(g.bbox[0] >= close.bbox[2] - params.bar_reach_pt for g in band):
            continue  # not the row's right end
        run = [close]
        for g in sorted((g for g in band if g.x < close.x), key=lambda g: -g.x):
            if run[0].bbox[0] - g.bbox[2] > params.word_gap_ratio * g.size or abs(g.y - close.y) > (
                params.same_baseline_ratio * g.size
            ):
                break
            run.insert(0, g)
            if g.char == "(":
                break
        text = "".join(g.char for g in run)
        if not _EQUATION_NUMBER.fullmatch(text):
            continue
        rest = [g for g in band if g not in run and g.bbox[2] <= run[0].bbox[0]]
        gap = run[0].bbox[0] - max((g.bbox[2] for g in rest), default=run[0].bbox[0])
        if not rest or gap < params.equation_number_gap_ratio * close.size:
            continue
        x0, y0 = run[0].bbox[0], min(g.bbox[1] for g in run)
        token = Glyph("\x02", close.size, run[0].x, close.y, (x0, y0, close.bbox[2],
                      max(g.bbox[3] for g in run)), close.font)  # fmt: skip
        made[id(token)] = r"\qquad " + text
        out = [g for g in out if g not in run] + [token]
    return out


def tex_from_glyphs(
    glyphs: list[Glyph], bars: list[Bar] | None = None, *, params: MathParams = MATH
) -> str | None:
    """The TeX of a formula's glyphs and the rules drawn in it, checked by converting it to
    MathML; None when the glyphs do not show it without doubt. An equation's number stays at
    the end of its row (`\\qquad (3)`): the text refers to it."""
    # (Decoded first: the extension font's slot 32, a \Bigg "(", is a space character.)
    made: dict[int, str] = {}
    decoded = _merged_pieces([g for g in map(_decoded, glyphs) if g.char.strip()])
    decoded = _accented(_equation_numbers(decoded, made, params), made, params)
    glyphs, words = _words(decoded, params)
    words.update(made)
    tex = _tex_of(glyphs, bars or [], words, params)
    if tex is None:
        return None
    try:
        latex2mathml.converter.convert(tex)
    except Exception:  # the converter raises many types on bad TeX
        return None
    return tex


def _limits(
    glyphs: list[Glyph], base: float, params: MathParams
) -> dict[int, tuple[list[Glyph], list[Glyph]]]:
    """Per big operator (and operator name taking limits): the small glyphs over it and under
    it. A glyph near two operators (sums side by side) is a limit of the nearer; a limit is one
    line (a script of the glyph after the operator, nearer its baseline, is not), and takes the
    small glyphs beside it on that line (a minus sign whose box reaches down)."""
    ops = [g for g in glyphs if g.char in _BIG | _LIMIT_NAMES]
    claims: dict[int, tuple[float, Glyph, int]] = {}  # glyph -> (distance, operator, side)
    for op in ops:
        x0, y0, x1, y1 = op.bbox
        if op.char in _BIG:
            grow = params.big_op_reach_ratio * (x1 - x0)
        else:
            grow = params.name_reach_ratio * op.size
        for g in glyphs:
            cx = (g.bbox[0] + g.bbox[2]) / 2
            if g is op or g.char in _BIG or not x0 - grow <= cx <= x1 + grow or g.size >= base:
                continue
            if op.char in _LIMIT_NAMES:  # a name's box holds its descenders: its baseline
                low, high = params.name_limit_low_ratio, params.name_limit_high_ratio
                side = 1 if low * base < g.y - op.y < high * base else None
            # Limits sit right over or under their operator, not a row away (an operator from
            # a font without metrics has a short box: the bounds go by the formula's size).
            elif y0 - params.limit_above_ratio * base <= g.bbox[1] and (
                g.bbox[3] <= y0 + params.limit_box_share * (y1 - y0)
            ):
                side = 0
            elif y1 - params.limit_box_share * (y1 - y0) <= g.bbox[1] and (
                g.bbox[3] <= y1 + params.limit_below_ratio * base
            ):
                side = 1
            else:
                side = None
            distance = abs(cx - (x0 + x1) / 2)
            if side is not None and (id(g) not in claims or distance < claims[id(g)][0]):
                claims[id(g)] = (distance, op, side)
    out: dict[int, tuple[list[Glyph], list[Glyph]]] = {}
    taken: set[int] = set()
    for op in ops:
        sides: list[list[Glyph]] = []
        for side in (0, 1):
            mine = [g for g in glyphs if id(g) in claims and claims[id(g)][1:] == (op, side)]
            line: list[Glyph] = []
            if mine:
                centre = (op.bbox[0] + op.bbox[2]) / 2
                first = min(mine, key=lambda g: abs((g.bbox[0] + g.bbox[2]) / 2 - centre))
                y = first.y
                line = [g for g in mine if abs(g.y - y) <= params.limit_line_ratio * g.size]
                grew = True
                while grew:  # small glyphs on the line, next to it
                    grew = False
                    left = min(g.bbox[0] for g in line)
                    right = max(g.bbox[2] for g in line)
                    for g in glyphs:
                        if (id(g) not in claims and id(g) not in taken and g not in line
                                and g.size < base
                                and abs(g.y - y) <= params.limit_line_ratio * g.size
                                and g.bbox[0] <= right + params.limit_beside_ratio * g.size
                                and g.bbox[2] >= left - params.limit_beside_ratio * g.size
                                ):  # fmt: skip
                            line.append(g)
                            grew = True
                line = _run_around(first, line, params.limit_run_gap_ratio)
            taken.update(id(g) for g in line)
            sides.append(sorted(line, key=lambda g: g.x))
        out[id(op)] = (sides[0], sides[1])
    return out


def _run_around(first: Glyph, line: list[Glyph], gap_ratio: float) -> list[Glyph]:
    """The glyphs of `line` set one after another from `first` (each gap under `gap_ratio` of
    a size): a limit is one run, the script of a glyph beside the operator on its height
    ("(k)" of f^{(k)} over a sum's infinity) is not part of it."""
    ordered = sorted(line, key=lambda g: g.bbox[0])
    at = ordered.index(first)
    lo = hi = at
    while lo > 0 and ordered[lo].bbox[0] - ordered[lo - 1].bbox[2] <= gap_ratio * first.size:
        lo -= 1
    while hi + 1 < len(ordered) and (
        ordered[hi + 1].bbox[0] - ordered[hi].bbox[2] <= gap_ratio * first.size
    ):
        hi += 1
    return ordered[lo : hi + 1]


def _nearer(glyph: Glyph, y: float, bars: list[Bar], params: MathParams) -> bool:
    """`glyph` stands nearer one of `bars` across its column than the bar at height `y`."""
    cx = (glyph.bbox[0] + glyph.bbox[2]) / 2
    reach = params.bar_reach_pt
    return any(
        b[0] - reach <= cx <= b[1] + reach and abs(glyph.y - b[2]) < abs(glyph.y - y) for b in bars
    )


def _radicals(
    glyphs: list[Glyph], bars: list[Bar], words: dict[int, str], params: MathParams
) -> tuple[list[Glyph] | None, list[Bar]]:
    """Square roots: a radical sign and the rule drawn from its top right, over what it holds
    (\\sqrt{5}), each made one glyph on the baseline of what it holds (its TeX in `words`);
    with the bars left for fractions. None for the glyphs when what is under a radical's rule
    cannot be read."""
    out = list(glyphs)
    left = list(bars)
    for sign in sorted((g for g in glyphs if g.char == "√"), key=lambda g: g.size):
        x0, y0, x1, y1 = sign.bbox
        reach = params.radical_reach_ratio * sign.size
        over = [b for b in left if abs(b[0] - x1) <= reach and y0 - reach <= b[2] <= y1]
        if not over:
            continue  # a radical without its rule: no TeX name, the caller gives up
        bar = min(over, key=lambda b: abs(b[0] - x1))
        ends = params.bar_reach_pt
        inside = [g for g in out if g is not sign
                  and bar[0] - ends <= (g.bbox[0] + g.bbox[2]) / 2 <= bar[1] + ends
                  and bar[2] < g.y <= bar[2] + params.radicand_depth_ratio * g.size]  # fmt: skip
        inner = [b for b in left if b != bar and bar[0] - ends <= b[0] and b[1] <= bar[1] + ends
                 and bar[2] < b[2] < bar[2] + params.radicand_bars_ratio * sign.size]  # fmt: skip
        tex = _tex_of(inside, inner, words, params)
        if tex is None:
            return None, bars
        largest = max(x.size for x in inside)
        full = [g.y for g in inside if g.size >= params.full_size_ratio * largest]
        token = Glyph("√", sign.size, x0, statistics.median(full), (x0, bar[2], bar[1], y1))
        words[id(token)] = r"\sqrt" + _group([tex])
        gone = {id(g) for g in inside} | {id(sign)}
        out = [g for g in out if id(g) not in gone] + [token]
        left = [b for b in left if b != bar and b not in inner]
    return out, left


def _fractions(
    glyphs: list[Glyph],
    bars: list[Bar],
    base: float,
    used: set[int],
    words: dict[int, str],
    params: MathParams,
    limits: dict[int, tuple[list[Glyph], list[Glyph]]],
) -> tuple[dict[int, str], list[Glyph]] | None:
    """A fraction: what stands over a drawn bar and what stands under it, within its length. It
    sits on the row's baseline, a little under its bar (the math axis). Outer bars first (the
    longest): a bar within its length over or under it is a fraction inside its numerator or
    denominator (a/b over c, 1 over 1 + 1/x), rebuilt with it, and reaches a row further.
    Each fraction made one glyph (its TeX in the dict), the glyphs it takes added to `used`;
    None when a rule is no fraction bar."""
    fractions: dict[int, str] = {}
    tokens: list[Glyph] = []
    taken: set[Bar] = set()
    over_reach, under_reach = params.numerator_ratio * base, params.denominator_ratio * base
    ends = params.bar_reach_pt
    for bar in sorted(bars, key=lambda bar: bar[0] - bar[1]):
        if bar in taken:
            continue
        x0, x1, y = bar
        top, bottom = y - over_reach, y + under_reach
        inner = [
            b for b in bars
            if b != bar and b not in taken and x0 - ends <= b[0] and b[1] <= x1 + ends
        ]  # fmt: skip
        over_bars: list[Bar] = []
        under_bars: list[Bar] = []
        grew = True
        while grew:
            grew = False
            for b in inner:
                if b in over_bars or b in under_bars:
                    continue
                if top < b[2] < y:
                    over_bars.append(b)
                    top, grew = min(top, b[2] - over_reach), True
                elif y < b[2] < bottom:
                    under_bars.append(b)
                    bottom, grew = max(bottom, b[2] + under_reach), True
        within = [g for g in glyphs if id(g) not in used
                  and x0 - ends <= (g.bbox[0] + g.bbox[2]) / 2 <= x1 + ends]  # fmt: skip
        # What stands nearer another bar across it (not one inside this fraction) is that
        # fraction's: the rows of an aligned display stacking 1/6 over 1/6.
        others = [b for b in bars if b != bar and b not in over_bars + under_bars]
        over = [g for g in within if g.char not in _BIG and top < g.y < y
                and not _nearer(g, y, others, params)]  # fmt: skip
        under = [g for g in within if g.char not in _BIG
                 and y < g.y - params.denominator_drop_ratio * g.size and g.y < bottom
                 and not _nearer(g, y, others, params)]  # fmt: skip
        # A big operator inside (the sum under a softmax's bar) goes with its limits to the
        # side its middle stands on (its baseline is its top, in the extension font).
        for op in (g for g in within if g.char in _BIG and id(g) in limits):
            middle = (op.bbox[1] + op.bbox[3]) / 2
            side = over if top < middle < y else under if y < middle < bottom else None
            if side is not None:
                side.extend([op, *limits[id(op)][0], *limits[id(op)][1]])
        if not over and under:  # a rule with nothing over it, right over what it marks
            marked = [g for g in under if g.y <= y + params.overline_depth_ratio * base]
            tex = _tex_of(marked, [], words, params)
            if tex is None:
                return None
            used.update(id(g) for g in marked)
            taken.add(bar)
            size = max(g.size for g in marked)
            line = statistics.median(g.y for g in marked if g.size >= params.full_size_ratio * size)
            token = Glyph("\x04", size, x0, line, (x0, y, x1, max(g.bbox[3] for g in marked)))
            fractions[id(token)] = r"\overline" + _group([tex])
            tokens.append(token)
            continue
        numerator = _tex_of(over, over_bars, words, params)
        denominator = _tex_of(under, under_bars, words, params)
        if numerator is None or denominator is None:
            return None  # a rule that is no fraction bar (an overline): not guessed
        used.update(id(g) for g in over + under)
        taken.update([bar, *over_bars, *under_bars])
        axis = y + params.math_axis_ratio * base
        token = Glyph("\x00", base, x0, axis, (x0, y - base, x1, y + base))
        fractions[id(token)] = r"\frac" + _group([numerator]) + _group([denominator])
        tokens.append(token)
    return fractions, tokens


def _baselines(glyphs: list[Glyph], base: float, params: MathParams) -> list[float] | None:
    """Rows: baselines of full-size glyphs a line apart. Closer than that with no bar between
    (a matrix, a stack): beyond what is rebuilt here, None."""
    full_size = params.full_size_ratio * base
    full = sorted(g.y for g in glyphs if g.size >= full_size and g.char not in _BIG | _FENCES)
    if not full:
        full = sorted(g.y for g in glyphs)
    lines = [[full[0]]]
    for y in full[1:]:
        if y - lines[-1][-1] > params.row_join_ratio * base:
            if y - lines[-1][-1] < params.row_gap_ratio * base:
                return None
            lines.append([])
        lines[-1].append(y)
    return [statistics.median(line) for line in lines]


def _row_lines(glyphs: list[Glyph], base: float, params: MathParams) -> list[float]:
    """The baselines of the full-size glyphs, those closer than a row apart taken as one."""
    full = sorted(g.y for g in glyphs if g.size >= params.full_size_ratio * base
                  and g.char not in _BIG | _FENCES)  # fmt: skip
    lines: list[list[float]] = []
    for y in full:
        if lines and y - lines[-1][-1] <= params.row_join_ratio * base:
            lines[-1].append(y)
        else:
            lines.append([y])
    return [statistics.median(line) for line in lines]


def _columns(glyphs: list[Glyph], gap: float) -> list[tuple[float, float]]:
    """Spans across of the glyphs (all rows together), split where nothing stands for `gap`."""
    spans: list[list[float]] = []
    for g in sorted(glyphs, key=lambda g: g.bbox[0]):
        if spans and g.bbox[0] - spans[-1][1] < gap:
            spans[-1][1] = max(spans[-1][1], g.bbox[2])
        else:
            spans.append([g.bbox[0], g.bbox[2]])
    return [(a, b) for a, b in spans]


def _matrices(
    glyphs: list[Glyph], bars: list[Bar], base: float, words: dict[int, str], params: MathParams
) -> list[Glyph] | None:
    """Rows of full-size glyphs with no bar between them inside a tall pair of delimiters (a
    matrix, a binomial) or right of a tall brace alone (cases): cells by the columns of space
    that run down all rows, each cell rebuilt on its own, the whole made one glyph on the
    math axis (its TeX in `words`). None when a cell cannot be read."""
    out = list(glyphs)
    tall = params.tall_fence_ratio * base
    for left in sorted((g for g in glyphs if g.char in "([{|‖"), key=lambda g: g.bbox[0]):
        if left not in out or left.bbox[3] - left.bbox[1] < tall:
            continue
        top, bottom = left.bbox[1], left.bbox[3]

        def level(g: Glyph, top: float = top, bottom: float = bottom) -> bool:
            return min(g.bbox[3], bottom) - max(g.bbox[1], top) > params.fence_share * (
                g.bbox[3] - g.bbox[1]
            )

        closing = {"(": ")", "[": "]", "{": "}", "|": "|", "‖": "‖"}[left.char]
        rights = [g for g in out if g is not left and g.char == closing and g.x > left.x
                  and g.bbox[3] - g.bbox[1] >= tall and level(g)]  # fmt: skip
        right = min(rights, key=lambda g: g.x) if rights else None
        kind = _MATRICES.get((left.char, right.char if right else None))
        if kind is None:
            continue
        end = right.bbox[0] if right else float("inf")
        inside = [g for g in out if g is not left and g is not right
                  and left.bbox[2] <= (g.bbox[0] + g.bbox[2]) / 2 <= end
                  and top <= (g.bbox[1] + g.bbox[3]) / 2 <= bottom]  # fmt: skip
        lines = _row_lines(inside, base, params)
        x0 = left.bbox[2]
        x1 = min(end, max((g.bbox[2] for g in inside), default=x0))
        between = [b for b in bars if b[1] > x0 and b[0] < x1 and top <= b[2] <= bottom]
        if len(lines) < 2 or any(lines[0] < b[2] < lines[-1] for b in between):
            continue  # one row, or a fraction's bar: the delimiters are \left( \right)
        rows: list[list[Glyph]] = [[] for _ in lines]
        for g in inside:
            rows[min(range(len(lines)), key=lambda i: abs(lines[i] - g.y))].append(g)
        spans = _columns(inside, params.matrix_column_gap_ratio * base)
        texs = []
        for row in rows:
            cells = []
            for a, b in spans:
                cell = [g for g in row if a <= g.bbox[0] and g.bbox[2] <= b]
                tex = _tex_of(cell, [], words, params) if cell else ""
                if tex is None:
                    return None
                cells.append(tex)
            texs.append(" & ".join(cells))
        body = " \\\\ ".join(texs)
        # Its rows stand evenly over and under the row it sits on (the delimiters' height, a
        # sum of pieces, is known only roughly).
        middle = (lines[0] + lines[-1]) / 2
        box = (left.bbox[0], top, right.bbox[2] if right else x1, bottom)
        token = Glyph("\x03", base, left.x, middle, box)
        words[id(token)] = f"\\begin{{{kind}}} {body} \\end{{{kind}}}"
        gone = {id(g) for g in inside} | {id(left), id(right)}
        out = [g for g in out if id(g) not in gone] + [token]
    return out


def _tex_of(
    glyphs: list[Glyph], bars: list[Bar], words: dict[int, str], params: MathParams
) -> str | None:
    """The glyphs as TeX: limits of big operators first, then fractions over their bars, then
    the rows of the display (each a baseline of full-size glyphs), top down. words: the TeX of
    the numbers and operator names among the glyphs (see _words)."""
    if not glyphs:
        return None
    # The text size, not a big operator's or delimiter's (a font of Palatino sets its sum
    # larger than its letters).
    base = max((g.size for g in glyphs if g.char not in _BIG | _FENCES),
               default=max(g.size for g in glyphs))  # fmt: skip
    glyphs = _matrices(glyphs, bars, base, words, params)
    if glyphs is None:
        return None
    glyphs, bars = _radicals(glyphs, bars, words, params)
    if glyphs is None:
        return None
    limits = _limits(glyphs, base, params)
    used = {id(g) for above, below in limits.values() for g in above + below}
    made = _fractions(glyphs, bars, base, used, words, params, limits)
    if made is None:
        return None
    fractions, tokens = made
    rest = [g for g in glyphs if id(g) not in used] + tokens
    baselines = _baselines(rest, base, params)
    if baselines is None:
        return None
    rows: list[list[Glyph]] = [[] for _ in baselines]
    for g in rest:
        y = (g.bbox[1] + g.bbox[3]) / 2 if g.char in _BIG | _FENCES else g.y
        rows[min(range(len(baselines)), key=lambda i: abs(baselines[i] - y))].append(g)
    texs = [
        _row(row, b, base, fractions, limits, words, params)
        for row, b in zip(rows, baselines, strict=True)
    ]
    if any(t is None for t in texs):
        return None
    joined = " \\\\ ".join(texs)  # type: ignore[arg-type]
    return joined if len(texs) == 1 else r"\begin{array}{l} " + joined + r" \end{array}"


def _row(glyphs, baseline, base, fractions, limits, words, params: MathParams) -> str | None:
    """One row of the display, left to right: scripts by size and baseline (the scripts after
    one glyph are its subscript and its superscript, however they interleave: f_{n+1}^2 sets
    the 2 over the n), limits after their operator."""
    out: list[str] = []
    scripts: dict[str, list[str]] = {}  # "_" and "^": the TeX of the glyphs of each

    def flush() -> None:
        out.extend(mark + _group(scripts[mark]) for mark in ("_", "^") if mark in scripts)
        scripts.clear()

    for g in sorted(glyphs, key=lambda g: g.x):
        tex = fractions.get(id(g)) or words.get(id(g)) or _tex(g.char)
        if tex is None:
            return None
        # A smaller glyph is a script: raised, a superscript; else a subscript.
        small = id(g) not in fractions and g.size < params.full_size_ratio * base
        mark = ("^" if g.y < baseline - params.raised_ratio * base else "_") if small else ""
        if mark == "^" and set(tex) == {"'"} and not scripts:
            out.append(tex)  # a raised prime is TeX's f' (f^{'} has a prime with no base)
            continue
        if mark:
            scripts.setdefault(mark, []).append(tex)
            continue
        flush()
        out.append(tex)
        if id(g) in limits:
            above, below = limits[id(g)]
            parts = [[words.get(id(x)) or _tex(x.char) for x in side] for side in (below, above)]
            if any(p is None for side in parts for p in side):
                return None
            if parts[0]:
                out.append("_" + _group(parts[0]))  # type: ignore[arg-type]
            if parts[1]:
                out.append("^" + _group(parts[1]))  # type: ignore[arg-type]
    flush()
    return " ".join(out)
