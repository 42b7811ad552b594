"""Text quality measures shared by tests and bench/: the reading text of an output document, its
character error rate on normalized text, and olmOCR-Bench's text tests (present / absent /
order)."""

from __future__ import annotations

import re
import unicodedata

from bs4 import BeautifulSoup
from rapidfuzz.distance import Levenshtein

_QUOTES = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "—": "-", "–": "-", "ﬁ": "fi",
                         "ﬂ": "fl"})  # fmt: skip


# A bullet glyph opening a line: in HTML a list marker is structure, not text, and transcripts
# write bullets as whatever the typist had ("0" in linn.txt). Dropped from both sides.
_LINE_BULLET = re.compile(r"^[ \t]*(?:[•·●▪■◦‣⁃∙*¢©®°»>-]|0|e|o)[ \t]+(?=\S)", re.MULTILINE)


def normalize_text(text: str) -> str:
    """NFKC, typographic quotes and dashes folded, line-opening bullets dropped, line-end
    hyphenation joined, whitespace collapsed: layout-free text."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    text = _LINE_BULLET.sub("", text)
    # Line-end hyphenation is layout: "func- tion" and "function" are the same text.
    text = re.sub(r"(\w)-\s+([a-z])", r"\1\2", text)
    return re.sub(r"\s+", " ", text).strip()


def cer(hypothesis: str, reference: str) -> float:
    """Levenshtein distance over the reference length, on normalized text (one line per block
    for the hypothesis, so line-opening bullets are seen)."""
    hyp, ref = normalize_text(hypothesis), normalize_text(reference)
    if not ref:
        return 0.0 if not hyp else 1.0
    return Levenshtein.distance(hyp, ref) / len(ref)


# A code listing's <pre> is reading text too (its lines, as the page sets them).
MAIN_BLOCKS = ("p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "figcaption", "pre")


def iter_main_text(html: str, *, blocks: tuple[str, ...] = MAIN_BLOCKS) -> list[str]:
    """The reading text of an output document, block by block: <main>, furniture, markers and
    a figure's labels (the figure's text, not the reading text; a transcript holds none)
    excluded."""
    soup = BeautifulSoup(html, "html.parser")
    main = soup.find("main")
    if main is None:
        return []
    for el in main.select(".furniture, .figure-labels"):
        el.decompose()
    out = []
    for el in main.find_all(list(blocks)):
        if el.name == "li":
            # The item's own text, not its nested list's.
            text = "".join(
                t if isinstance(t, str) else t.get_text()
                for t in el.contents
                if isinstance(t, str) or t.name not in ("ul", "ol")
            )
        else:
            text = el.get_text()
        out.append(" ".join(text.split()))
    return out


def fuzzy_find(haystack: str, needle: str, max_diffs: int) -> int:
    """Start of the best fuzzy occurrence of needle in haystack within max_diffs edits, or -1."""
    if max_diffs == 0:
        return haystack.find(needle)
    best, where = max_diffs + 1, -1
    n = len(needle)
    for start in range(0, max(1, len(haystack) - n + 1)):
        window = haystack[start : start + n + max_diffs]
        d = Levenshtein.distance(needle, window[:n])
        if d < best:
            best, where = d, start
            if d == 0:
                break
    return where if best <= max_diffs else -1


def run_test(test: dict, pages: dict[int, str]) -> bool:
    text = normalize_text(pages.get(test["page"], ""))
    diffs = int(test.get("max_diffs", 0))
    if test["type"] == "present":
        return fuzzy_find(text, normalize_text(test["text"]), diffs) >= 0
    if test["type"] == "absent":
        return fuzzy_find(text, normalize_text(test["text"]), diffs) < 0
    if test["type"] == "order":
        a = fuzzy_find(text, normalize_text(test["before"]), diffs)
        b = fuzzy_find(text, normalize_text(test["after"]), diffs)
        return 0 <= a < b
    raise ValueError(f"unknown test type {test['type']}")
