"""Key/value tables: a label column beside a value column, no ruling and no table region (an
infobox, a spec sheet, a form's filled fields). See docs/structure.md, "Key/value tables".

Rows and phrases are read from the words as for tables in a region (models.reading.word_rows);
the runs of label and value rows are found across the page's text blocks.
"""

from __future__ import annotations

import bisect
import re
import statistics
from itertools import pairwise

from models.engine import BBox, ReadBlock, Word
from models.reading.kinds import runs_on
from models.reading.params.tables import KEY_VALUE, KeyValueParams
from models.reading.word_rows import RULE_GLYPHS, row_phrases, text_rows, words_box

_LETTERS = re.compile(r"[^\W\d_]{2,}")
# A list marker or a section number opening the line ("iv.", "(a)", "2.1"): a list, not a label.
_NOT_A_LABEL = re.compile(
    r"\(?(?:[ivxlcdm]{1,5}|[a-z])[.)]\)?|\((?:[ivxlcdm]{1,5}|[a-z])\)|\d{1,3}(?:\.\d{1,3})*[.):]?",
    re.I,
)
_PAGE_NUMBER = re.compile(r"\d{1,4}|[ivxlc]{1,6}", re.I)


class _Phrase:
    """Words of one block on one text row, closer than a gap: a label, a value or a line."""

    def __init__(self, words: list[Word], block: int | None) -> None:
        self.words = words
        self.block = block  # the block it came from; None: a block that cannot be a cell
        self.x0, self.y0, self.x1, self.y1 = words_box(words) if words else (0, 0, 0, 0)
        self.height = statistics.median(w.bbox[3] - w.bbox[1] for w in words) if words else 0  # type: ignore[index]
        self.text = " ".join(t for w in words if (t := w.text.strip(RULE_GLYPHS)))

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


def _obstacle(box: BBox) -> _Phrase:
    phrase = _Phrase([], None)
    phrase.x0, phrase.y0, phrase.x1, phrase.y1 = box
    phrase.height = box[3] - box[1]
    return phrase


def _label_like(phrase: _Phrase, params: KeyValueParams) -> bool:
    """A short label phrase: a few words with letters (a bullet or a footnote mark is none), no
    list marker or section number first."""
    text = phrase.text.strip()
    words = text.split()
    return (
        phrase.block is not None
        and 0 < len(words) <= params.label_max_words
        and bool(_LETTERS.search(text))
        and not _NOT_A_LABEL.fullmatch(words[0])
    )


def _same_row(a: _Phrase, b: _Phrase) -> bool:
    overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
    return overlap >= 0.5 * min(a.y1 - a.y0, b.y1 - b.y0)


class _Rows:
    """A page's phrases sorted by their middle's height, to find a phrase's row neighbours
    without walking the page for each (a newspaper page has a thousand phrases)."""

    def __init__(self, phrases: list[_Phrase]) -> None:
        self.phrases = sorted(phrases, key=lambda p: (p.cy, p.x0))
        self.cys = [p.cy for p in self.phrases]
        # (Obstacles are not looked for beside a phrase: a figure's height would widen every
        # search to most of the page.)
        self.reach = max((p.y1 - p.y0 for p in self.phrases if p.block is not None), default=0)

    def from_y(self, y: float) -> int:
        """The index of the first phrase whose middle is at or below y."""
        return bisect.bisect_left(self.cys, y)

    def right_of(self, phrase: _Phrase) -> list[_Phrase]:
        """Phrases on the same text row, right of `phrase`."""
        lo = self.from_y(phrase.y0 - self.reach)
        hi = bisect.bisect_right(self.cys, phrase.y1 + self.reach)
        return [p for p in self.phrases[lo:hi] if p.x0 > phrase.x1 and _same_row(p, phrase)]


def _kv_phrases(
    blocks: list[list[Word]], obstacles: list[BBox], params: KeyValueParams
) -> list[_Phrase]:
    phrases = [_obstacle(box) for box in obstacles]
    for k, words in enumerate(blocks):
        words = [w for w in words if w.bbox and w.text.strip()]
        for row in text_rows(words) if words else []:
            height = statistics.median(w.bbox[3] - w.bbox[1] for w in row)  # type: ignore[index]
            parts = row_phrases(row, params.phrase_gap_share * height)
            # A ruling glyph (or a digit read as one: "] October") opens the phrase after it.
            for i in range(len(parts) - 2, -1, -1):
                if not any(w.text.strip(RULE_GLYPHS) for w in parts[i]):
                    parts[i : i + 2] = [parts[i] + parts[i + 1]]
            phrases += [_Phrase(p, k) for p in parts if any(w.text.strip(RULE_GLYPHS) for w in p)]
    return phrases


def _kv_run(start: _Phrase, value: _Phrase, page: _Rows, used: set[int], params: KeyValueParams):
    """The rows (label or None, value lines) of a key/value run whose first row is (start,
    value): label rows at start's left edge, with a value at value's or none; a line with only
    a value continues the row above when that row's value ends just above it (one cell of
    several lines), else it is a row without a label (the OCR may drop a label or a value, and
    a value is never given to the wrong label). Stops at anything else crossing the two
    columns, or a gap of more than `params.max_gap_lines` lines (the OCR of a poor scan drops
    whole lines)."""
    left, at = start.x0, value.x0
    height = statistics.median([start.height, value.height])
    tol = params.edge_tolerance_share * height
    value_gap = params.value_gap_share * height  # between a label and its value
    right = value.x1 + height
    rows: list[tuple[_Phrase | None, list[_Phrase]]] = []
    gaps: list[float] = []  # between the rows taken
    below = page.phrases
    bottom = start.y0
    k = page.from_y(start.y0)
    while k < len(below):
        # The next row: phrases overlapping the two columns, on one text row.
        first = below[k]
        k += 1
        if id(first) in used or not (first.x1 > left + tol and first.x0 < right):
            continue
        row = [first]
        while k < len(below) and below[k].cy <= first.y1:
            p = below[k]
            if id(p) not in used and p.x1 > left + tol and p.x0 < right:
                row.append(p)
            k += 1
        row.sort(key=lambda p: p.x0)
        gap = first.y0 - bottom
        head = row[0]
        if (rows and gap > params.max_gap_lines * height) or any(p.block is None for p in row):
            break
        if abs(head.x0 - left) <= tol and _label_like(head, params):
            if len(row) == 2 and abs(row[1].x0 - at) <= tol and row[1].x0 - head.x1 >= value_gap:
                rows.append((head, [row[1]]))
            elif len(row) == 1 and head.x1 <= at - value_gap:
                rows.append((head, []))  # a label whose value is missing
            else:
                break
        elif len(row) == 1 and abs(head.x0 - at) <= tol and rows:
            if rows[-1][1] and gap <= params.continued_value_gap_share * height:
                rows[-1][1].append(head)  # the value above goes on
            else:
                rows.append((None, [head]))
        else:
            break
        gaps.append(gap)
        right = max(right, max(p.x1 for p in row) + height)
        bottom = max(p.y1 for p in row)
    # A label-like line under the table, with nothing beside it, farther than its rows are apart.
    while rows and not rows[-1][1] and len(gaps) > 1 and gaps[-1] > max(gaps[1:-1], default=0):
        rows.pop()
        gaps.pop()
    return rows


def _kv_table_ok(rows, page: _Rows, params: KeyValueParams) -> bool:
    """Enough labelled rows, labels that are not a justified column of prose, values that are
    not page numbers (a table of contents), no third column beside the values."""
    labels = [label for label, _ in rows if label is not None]
    paired = [values for label, values in rows if label is not None and values]
    unlabelled = sum(len(values) for label, values in rows if label is None)
    continued = sum(len(values) - 1 for values in paired) + unlabelled
    if len(paired) < params.min_rows or continued > len(labels):
        return False  # a side heading beside its paragraphs: more lines than labels
    capitals = sum(label.text[0].isupper() or label.text[0].isdigit() for label in labels)
    if capitals < params.min_capitals_share * len(labels):
        return False  # lines of prose start in lower case
    tol = params.edge_tolerance_share * statistics.median(label.height for label in labels)
    widest = max(label.x1 for label in labels)
    justified = params.justified_labels_share * len(labels)
    if sum(widest - label.x1 <= tol for label in labels) >= justified:
        return False  # labels ending together: a justified column of text, not labels
    firsts = [values[0] for values in paired]
    valued = [(label, values) for label, values in rows if values]
    running = sum(
        label is not None and runs_on(above[-1].text, values[0].text)
        for (_, above), (label, values) in pairwise(valued)
    )  # fmt: skip
    if running >= max(params.running_rows, params.running_share * (len(valued) - 1)):
        return False  # a column of text running on beside lines that start entries: no values
    if sum(bool(_PAGE_NUMBER.fullmatch(v.text.strip())) for v in firsts) > len(firsts) / 2:
        return False  # entries and their page numbers: a table of contents
    beside = 0
    for value in firsts:
        nxt = page.right_of(value)
        if nxt and len(min(nxt, key=lambda p: p.x0).text.split()) <= params.label_max_words:
            beside += 1
    return beside < len(firsts) / 2  # a third column of short cells: not two columns


def key_value_tables(
    blocks: list[list[Word]], obstacles: list[BBox] = (), *, params: KeyValueParams = KEY_VALUE
) -> list[tuple[ReadBlock, set[int]]]:
    """Key/value tables among the words of text blocks (each list: one block's words): runs of
    at least `params.min_rows` rows of a short label at one left edge, a clear gap, then a value at
    one left edge; a line with only a value continues the row above. `obstacles`: boxes of
    other blocks (headings, figures), which end a run they cross. Each table comes with the
    ids of the words it took; labels are row headers."""
    page = _Rows(_kv_phrases(blocks, list(obstacles), params))
    used: set[int] = set()
    found = []
    for label in page.phrases:
        if id(label) in used or not _label_like(label, params):
            continue
        beside = page.right_of(label)
        if not beside:
            continue
        value = min(beside, key=lambda p: p.x0)
        if value.block is None or value.x0 - label.x1 < params.value_gap_share * label.height:
            continue
        rows = _kv_run(label, value, page, used, params)
        if not rows or not _kv_table_ok(rows, page, params):
            continue
        cells = []
        taken = []
        for head, values in rows:
            taken += [p for p in (head, *values) if p is not None]
            cells.append([
                {"text": head.text if head else "", "header": head is not None, "rowspan": 1,
                 "colspan": 1},
                {"text": " ".join(v.text for v in values), "header": False, "rowspan": 1,
                 "colspan": 1},
            ])  # fmt: skip
        used |= {id(p) for p in taken}
        box = words_box([w for p in taken for w in p.words])
        found.append((ReadBlock(kind="table", bbox=box, rows=cells, text=""),
                      {id(w) for p in taken for w in p.words}))  # fmt: skip
    return found
