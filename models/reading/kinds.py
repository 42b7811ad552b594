"""What a run of text reads as: real words a heading can be made of, prose, mathematics, a
caption's label. Plain tests over a text and its words, for every reader's blocks and regions."""

from __future__ import annotations

import re
import statistics

from models.engine import Word
from models.reading.params.kinds import KINDS

_WORD = re.compile(r"[^\W\d_]{2,}")
_SECTION_NUMBER = re.compile(r"(?:\d{1,2}|[IVX]{1,4}|[A-Z])(?:\.\d{1,2})*\.?")  # "1", "2.1.", "IV."
MATH_SIGNS = frozenset("=+-−×÷·/^()[]{}<>≤≥∑∏∫√±")
# A code of capitals and digits, both ("U1503A", "368X", "H2O"): a hole, an expedition, a form.
_CODE = re.compile(r"(?=[A-Z\d]*[A-Z])(?=[A-Z\d]*\d)[A-Z\d]{2,10}")
PROSE_WORD = re.compile(r"[^\W\d_]{4,}")
CAPTION_LABEL = re.compile(
    r"^\W*(?:fig(?:ure)?|tab(?:le)?|chart|plate|scheme|graph|map|exhibit|box)s?\b", re.I
)


def real_words(words: list[Word], text: str) -> bool:
    """Text a heading can be made of: mostly letters in words of two or more, read with
    confidence (OCR) and, where the engine knows, mostly dictionary words."""
    letters = sum(c.isalpha() for c in text)
    visible = sum(not c.isspace() for c in text) or 1
    tokens = _WORD.findall(text)
    if (
        letters / visible < KINDS.heading_letter_share
        or not tokens
        or max(len(t) for t in tokens) < KINDS.heading_word_letters
    ):
        return False
    if any(t.isupper() for t in tokens) and not any(
        len(t) >= KINDS.capitals_word_letters for t in tokens
    ):
        return False  # "PERS A" or "ST": scraps of capitals
    if words:
        # A section's number ("1", "2.1" before "Introduction") is no dictionary word and is
        # read with little confidence when it stands alone: it says nothing of the title.
        titled = [w for w in words if not _SECTION_NUMBER.fullmatch(w.text)] or words
        confidence = statistics.mean(w.confidence for w in titled)
        known = [
            _known(w)
            for w in titled
            if w.known is not None and len(w.text) >= KINDS.known_word_letters
        ]
        if confidence < KINDS.heading_confidence:
            return False
        if known and sum(known) < KINDS.heading_known_share * len(known):
            return False
    return True


def reads_as_prose(text: str) -> bool:
    """A sentence or a lead-in, however it is set: words mostly in lower case, and a full stop
    after eight words or more ("You do not need to print and submit these guidelines with
    your application form."), or a colon after six or more ("This application is made up of
    four parts:"). A title's first line may end with a colon ("Employee's Perception of
    Fairness of Advancement:" over its subtitle), a title in capitals with a full stop."""
    words = [w for w in text.split() if not _SECTION_NUMBER.fullmatch(w)]
    if sum(w[0].islower() for w in words) < 0.5 * len(words):
        return False
    text = text.rstrip()
    sentence = text.endswith(".") and len(words) >= KINDS.prose_sentence_words
    return sentence or (text.endswith(":") and len(words) >= KINDS.prose_lead_in_words)


def _known(word: Word) -> bool:
    """In the dictionary, or a word read with full confidence whose parts are words or numbers
    and one a word of four letters or more: a title's terms of art and compounds ("Pubertal
    development in TS", "2-Cube", "base-ionic") are no dictionary words, nor are codes of
    capitals and digits ("Hole U1503A"), and garbage is never read so surely."""
    if word.known:
        return True
    if word.confidence < KINDS.sure_word_confidence:
        return False
    stripped = word.text.strip(".,:;!?()[]\"'’”“")
    if _CODE.fullmatch(stripped):
        return True  # "U1503A", "368X": a code read surely is no misreading
    parts = stripped.split("-")
    return all(_WORD.fullmatch(p) or p.isdigit() for p in parts) and any(
        len(p) >= KINDS.term_part_letters and p.isalpha() for p in parts
    )


def math_signs(text: str) -> bool:
    """Signs enough for mathematics: an equals sign or two signs, and signs a share of the
    characters (a sentence with a dash or a bracket has few)."""
    chars = [c for c in text if not c.isspace()]
    signs = sum(c in MATH_SIGNS for c in chars)
    return ("=" in text or signs >= 2) and signs >= KINDS.math_sign_share * len(chars)
