"""Which language is this text in? A stopword vote: small, offline, good enough for `lang`."""

from __future__ import annotations

import re
from collections import Counter

# The shape of a BCP 47 tag as Axiya writes it into `lang` (primary language, then subtags): what
# render writes and what the checks accept. The site validates what people type against the IANA
# registry (conversion.languages); a model's answer is only cased (bcp47_case) and shape-checked.
BCP47 = re.compile(r"^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{1,8})*$")


def bcp47_case(value: str) -> str:
    """Canonical case: language lower, script title, region upper (pt_br -> pt-BR)."""
    first, *rest = value.replace("_", "-").split("-")
    tags = [first.lower()]
    for part in rest:
        if len(part) == 4 and part.isalpha():
            tags.append(part.title())
        elif len(part) == 2 or (len(part) == 3 and part.isdigit()):
            tags.append(part.upper())
        else:
            tags.append(part.lower())
    return "-".join(tags)


# The most frequent short words of each language. Words shared by several languages ("a",
# "de", "en") count for each: a vote needs more than one of them to lean.
_STOPWORDS = {
    "en": "the and of to in is that for it with as was on are be this by at from or which not "
    "have a i he she his her we you they had were but then there an my me him so if would their "
    "been when what one all no",
    "fr": "le la les et des du un une est que qui dans pour pas sur au avec ce il elle sont par "
    "de à en l d ne se qu plus son sa ses mais comme on nous vous je y",
    "de": "der die das und ist nicht mit den von zu ein eine sich auf für dem des im auch es ich "
    "er sie wir war wie aber als bei nach noch nur oder einer in",
    "es": "el la los las y de que en un una es por con para del se no al lo como su le más pero "
    "sus me ya muy fue ha a",
    "it": "il lo la gli le e di che un una per con non del della sono è al si nel da in ma come "
    "anche più ha dei alla a",
    "nl": "de het een en van is dat in op te niet met voor zijn er aan ook als maar bij door naar "
    "om wordt",
    "pt": "o a os as e de que em um uma para com não do da no na por se é mais dos das ao mas foi "
    "ou seu sua",
}
_SETS = {lang: set(words.split()) for lang, words in _STOPWORDS.items()}
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


# ISO 639-1 (HTML lang) -> Tesseract's trained-data names.
TESSERACT_CODES = {"en": "eng", "fr": "fra", "de": "deu", "es": "spa", "it": "ita", "pt": "por",
                   "nl": "nld"}  # fmt: skip
# Letters that only some of these languages use: a strong hint on short lines.
_LETTERS = {"de": "äöüß", "fr": "çèêëîôœàâù", "es": "ñ¿¡áíóú", "pt": "ãõçáâêô", "it": "àèìòù"}


def language_scores(text: str) -> dict[str, float]:
    """Stopword hits per language (+ half a point per letter only some languages use)."""
    return _scores(_WORD.findall(text), text)


def _scores(words: list[str], text: str) -> dict[str, float]:
    # Each distinct word is looked up once, with its count: a whole document's text (assemble
    # detects its language) is millions of words but only thousands of distinct ones.
    hits = dict.fromkeys(_SETS, 0)
    for word, n in Counter(words).items():
        lowered_word = word.lower()
        for lang, stop in _SETS.items():
            if lowered_word in stop:
                hits[lang] += n
    scores = {lang: float(n) for lang, n in hits.items()}
    lowered = text.lower()
    for lang, letters in _LETTERS.items():
        scores[lang] += 0.5 * sum(lowered.count(c) for c in letters)
    return scores


def detect_language(text: str, *, default: str | None = "en") -> str | None:
    return language_and_scores(text, default=default)[0]


def language_and_scores(
    text: str, *, default: str | None = "en"
) -> tuple[str | None, dict[str, float]]:
    """detect_language's answer and the scores it came from (language_scores), counted once."""
    words = _WORD.findall(text)
    scores = _scores(words, text)
    if len(words) < 3:
        return default, scores
    best = max(scores, key=lambda lang: scores[lang])
    if scores[best] == 0 or scores[best] < 0.05 * len(words):
        return default, scores
    ties = [lang for lang, score in scores.items() if score == scores[best]]
    return (best if len(ties) == 1 else (default if default in ties else best)), scores


_REFERENCE = re.compile(r"\bet al\b|\bpp?\.\s*\d|\(\d{4}\)|\b(19|20)\d\d\b|https?:|doi|www\.", re.I)


def long_prose(text: str) -> bool:
    """Enough running words to tell a language by: eight words or more, mostly letters, not a
    reference, a list of names or a row of figures."""
    words = text.split()
    letters = sum(c.isalpha() for c in text)
    capitalised = sum(w[:1].isupper() for w in words)
    return (
        len(words) >= 8
        and letters >= 40
        and letters >= 0.75 * sum(not c.isspace() for c in text)
        and capitalised <= 0.5 * len(words)
        and not _REFERENCE.search(text)
    )
