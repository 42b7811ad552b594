"""Text quality measures shared by tests and bench/: character error rate on normalized text."""

from __future__ import annotations

import re
import unicodedata

from rapidfuzz.distance import Levenshtein

_QUOTES = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "—": "-", "–": "-", "ﬁ": "fi",
                         "ﬂ": "fl"})  # fmt: skip


# A bullet glyph opening a line: in HTML a list marker is structure, not text, and transcripts
# write bullets as whatever the typist had ("0" in linn.txt). Dropped from both sides.
_LINE_BULLET = re.compile(r"^[ \t]*(?:[•·●▪■◦‣⁃∙*¢©®°»>-]|0|e|o)[ \t]+(?=\S)", re.MULTILINE)


def normalize_text(text: str) -> str:
    """NFKC, typographic quotes and dashes folded, line-opening bullets dropped, whitespace
    collapsed: layout-free text."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    text = _LINE_BULLET.sub("", text)
    return re.sub(r"\s+", " ", text).strip()


def cer(hypothesis: str, reference: str) -> float:
    """Levenshtein distance over the reference length, on normalized text (one line per block
    for the hypothesis, so line-opening bullets are seen)."""
    hyp, ref = normalize_text(hypothesis), normalize_text(reference)
    if not ref:
        return 0.0 if not hyp else 1.0
    return Levenshtein.distance(hyp, ref) / len(ref)
