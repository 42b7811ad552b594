"""Words into text rows and phrases, the first step of both table readers (tables from word
positions, models.reading.word_tables; key/value tables, models.reading.kv_tables), and the
last step of the word and ruled tables: the lines of one printed row joined."""

from __future__ import annotations

import re
import statistics

from models.engine import BBox, Word
from models.reading.params.tables import WORD_TABLES, WordTableParams

RULE_GLYPHS = "|[]!¦"  # a ruling line read as a glyph: no text
# A year or a date heads a statement's column ("2019", "Q1 2019", "Dec. 31, 2018"): no datum.
_YEAR = re.compile(r"\b(1[89]|20)\d\d\b")
# A caption printed as a table's first line: "Table 2", "Table IV", "Table S1" (not "Table of").
TABLE_CAPTION = re.compile(r"^(?i:table|tab\.|exhibit|schedule)\s*(?:\d|[IVX]+\b|[A-Z]-?\d)")


def is_datum(text: str) -> bool:
    """A cell that reads as a figure: a digit, and more digits than letters ("12.3", "45 (12%)",
    "p<0.001", "1,204"); a year or a date is a column's head."""
    digits = sum(c.isdigit() for c in text)
    letters = sum(c.isalpha() for c in text)
    return digits > letters and not _YEAR.search(text)


def _numbering(texts: list[str]) -> bool:
    """Columns numbered in order ("1 2 3 4", "(1) (2) (3)"): a header of lead times, models."""
    numbers = [t.strip().strip("()[]") for t in texts if t.strip() and is_datum(t)]
    if not numbers or not all(n.isdigit() for n in numbers):
        return False
    values = [int(n) for n in numbers]
    return len(values) > 2 and values == list(range(values[0], values[0] + len(values)))


def is_data_row(texts: list[str], *, params: WordTableParams = WORD_TABLES) -> bool:
    """A row whose filled cells are mostly figures: a body row, never a header (columns
    numbered in order are a header's)."""
    filled = [t for t in texts if t.strip()]
    data = sum(map(is_datum, filled))
    enough = bool(filled) and data >= params.data_row_number_share * len(filled)
    return enough and not _numbering(filled)


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


def _goes_on(text: str) -> bool:
    """A line that continues the one above: it opens with a lowercase letter or a bracket."""
    first = text.lstrip()[:1]
    return first.islower() or first in "([{"


def _starts(rows: list[list[dict]]) -> list[dict[int, dict]]:
    """Each row's cells by the grid column they start in (cells spanning down from the rows
    above hold their columns)."""
    taken: dict[tuple[int, int], bool] = {}
    out: list[dict[int, dict]] = []
    for r, row in enumerate(rows):
        c, starts = 0, {}
        for cell in row:
            while (r, c) in taken:
                c += 1
            starts[c] = cell
            for dr in range(cell["rowspan"]):
                for dc in range(cell["colspan"]):
                    taken[(r + dr, c + dc)] = True
            c += cell["colspan"]
        out.append(starts)
    return out


def joined_row_lines(rows: list[list[dict]]) -> list[list[dict]]:
    """A table row (cells with spans) whose every other column a cell of the row above spans
    down into, those columns more than its own, its text going on from the line above (a
    lowercase letter or an opening bracket first): the lines of one printed row, a label
    wrapping onto a second line beside figures set once across both (centred on them, or
    ruled as one cell; ICDAR us-023: "Between-state income inequality (Gini / index)"). Its
    cells join the cells above them."""
    r, starts = 0, _starts(rows)
    while r + 1 < len(rows):
        above, below = starts[r], starts[r + 1]
        spanning = {c: cell for c, cell in above.items() if cell["rowspan"] >= 2}
        width = sum(cell["colspan"] for cell in spanning.values())
        own = sum(cell["colspan"] for cell in below.values())
        fits = all(
            c in above and above[c]["rowspan"] == 1 and above[c]["colspan"] == cell["colspan"]
            for c, cell in below.items()
        )
        goes_on = all(_goes_on(cell["text"]) for cell in below.values())
        if below and spanning and fits and goes_on and width > own:
            for c, cell in below.items():
                above[c]["text"] = f"{above[c]['text']} {cell['text']}".strip()
                above[c]["rowspan"] = cell["rowspan"]
            for cell in spanning.values():
                cell["rowspan"] -= 1
            del rows[r + 1]
            starts = _starts(rows)  # a join moves the spans: only then is the grid read again
            continue
        r += 1
    return rows
