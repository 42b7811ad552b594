"""Text quality measures shared by tests and bench/: character error rate on normalized text."""

from __future__ import annotations

import re
import unicodedata

from rapidfuzz.distance import Levenshtein

_QUOTES = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "—": "-", "–": "-", "ﬁ": "fi",
                         "ﬂ": "fl"})  # fmt: skip


def normalize_text(text: str) -> str:
    """NFKC, typographic quotes and dashes folded, whitespace collapsed: layout-free text."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    return re.sub(r"\s+", " ", text).strip()


def cer(hypothesis: str, reference: str) -> float:
    """Levenshtein distance over the reference length, on normalized text."""
    hyp, ref = normalize_text(hypothesis), normalize_text(reference)
    if not ref:
        return 0.0 if not hyp else 1.0
    return Levenshtein.distance(hyp, ref) / len(ref)
