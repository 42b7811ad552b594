"""Words into text rows and phrases, the first step of both table readers (tables from word
positions, models.reading.word_tables; key/value tables, models.reading.kv_tables)."""

from __future__ import annotations

import statistics

from models.engine import BBox, Word

RULE_GLYPHS = "|[]!¦"  # a ruling line read as a glyph: no text


def text_rows(words: list[Word]) -> list[list[Word]]:
    """Words grouped into text rows (vertical overlap with the row's median line), top down."""
    rows: list[list[Word]] = []
    for word in sorted(words, key=lambda w: (w.bbox[1] + w.bbox[3]) / 2):  # type: ignore[index]
        cy = (word.bbox[1] + word.bbox[3]) / 2  # type: ignore[index]
        if rows:
            top = statistics.median(w.bbox[1] for w in rows[-1])  # type: ignore[index]
            bottom = statistics.median(w.bbox[3] for w in rows[-1])  # type: ignore[index]
            if top <= cy <= bottom:
                rows[-1].append(word)
                continue
        rows.append([word])
    return [sorted(r, key=lambda w: w.bbox[0]) for r in rows]  # type: ignore[index]


def row_phrases(row: list[Word], gap: float) -> list[list[Word]]:
    """A row's words joined into phrases: words closer than `gap` belong to one cell."""
    out: list[list[Word]] = []
    for word in row:
        if out and word.bbox[0] - out[-1][-1].bbox[2] < gap:  # type: ignore[index]
            out[-1].append(word)
        else:
            out.append([word])
    return out


def words_box(words: list[Word]) -> BBox:
    """The box around the words."""
    return (min(w.bbox[0] for w in words), min(w.bbox[1] for w in words),  # type: ignore[index]
            max(w.bbox[2] for w in words), max(w.bbox[3] for w in words))  # type: ignore[index]  # fmt: skip
