"""Which language is this text in? A stopword vote: small, offline, good enough for `lang`."""

from __future__ import annotations

import re

_STOPWORDS = {
    "en": "the and of to in is that for it with as was on are be this by at from or which not have",
    "fr": "le la les et des du un une est que qui dans pour pas sur au avec ce il elle sont par",
    "de": "der die das und ist nicht mit den von zu ein eine sich auf für dem des im auch es",
    "es": "el la los las y de que en un una es por con para del se no al lo como su",
    "it": "il lo la gli le e di che un una per con non del della sono è al si nel",
    "nl": "de het een en van is dat in op te niet met voor zijn er aan ook als",
    "pt": "o a os as e de que em um uma para com não do da no na por se é",
}
_SETS = {lang: set(words.split()) for lang, words in _STOPWORDS.items()}
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def detect_language(text: str, *, default: str = "en") -> str:
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) < 3:
        return default
    scores = {lang: sum(1 for w in words if w in stop) for lang, stop in _SETS.items()}
    best = max(scores, key=lambda lang: scores[lang])
    if scores[best] == 0 or scores[best] < 0.05 * len(words):
        return default
    return best
