"""Text quality measures shared by tests and bench/: the reading text of an output document and
its character error rate on normalized text."""

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


def iter_main_text(html: str) -> list[str]:
    """The reading text of an output document: <main>, furniture and markers excluded."""
    soup = BeautifulSoup(html, "html.parser")
    main = soup.find("main")
    if main is None:
        return []
    for el in main.select(".furniture"):
        el.decompose()
    blocks = main.find_all(
        ["p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "figcaption"]
    )
    out = []
    for el in blocks:
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
