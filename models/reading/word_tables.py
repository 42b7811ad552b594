"""Tables from word positions alone (ruled or not): rows from the words' lines, columns from the
vertical gaps that run through the body rows, spans where a phrase crosses a gap, header cells
from the top rows and a text-only first column.

Used for a table region the layout model found, on scans (OCR words) and on born-digital pages
(text-layer words) alike; ruled scans are read from their printed grid first
(models.reading.ruled_tables). Key/value tables (a label column beside a value column, no
region) are models.reading.kv_tables.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

import numpy as np

from models.engine import BBox, ReadBlock, Word
from models.reading.kinds import joined_lines
from models.reading.params.tables import WORD_TABLES, WordTableParams
from models.reading.word_rows import (
    RULE_GLYPHS,
    TABLE_CAPTION,
    is_data_row,
    is_datum,
    joined_row_lines,
    row_phrases,
    text_rows,
    words_box,
)

# A note set under a table, inside the region the layout model drew round it.
DASHES = "-–—"
TABLE_NOTE = re.compile(r"^\W*(?i:sources?|notes?)\s*:")
_NUMBER = re.compile(r"^[\s\-+−–(]*[$€£¥]?\s*[\d.,]+\s*%?\)?[*†]?$")


def _read_once(row: list[Word]) -> list[Word]:
    """A row's words without those read twice: a word whose box lies half or more inside the
    next one's ("Tot" under "Total", the same ink read by two of Tesseract's blocks) goes,
    the longer reading stays."""
    out: list[Word] = []
    for word in row:
        if out:
            last = out[-1]
            overlap = min(last.bbox[2], word.bbox[2]) - max(last.bbox[0], word.bbox[0])  # type: ignore[index]
            short = min(last.bbox[2] - last.bbox[0], word.bbox[2] - word.bbox[0])  # type: ignore[index]
            if overlap >= 0.5 * short > 0:
                if len(word.text) > len(last.text):
                    out[-1] = word
                continue
        out.append(word)
    return out


def _gaps(
    phrase_rows: list[list[list[Word]]], x0: float, x1: float, height: float,
    params: WordTableParams, *, table_rows: int,
) -> list[float]:  # fmt: skip
    """Column boundaries: x positions no phrase covers in (nearly) every row, a column gap
    wide (or narrower where figures alone stand close across it). A spanning header phrase may
    cover a gap; one row of the table's `table_rows` in five may."""
    min_gap = params.column_gap_share * height
    width = int(x1 - x0) + 1
    cover = [0] * width
    inked = [0] * width  # words (not the spaces between them) over each x
    for phrases in phrase_rows:
        for phrase in phrases:
            a, _, b, _ = words_box(phrase)
            for x in range(max(0, int(a - x0)), min(width, int(b - x0) + 1)):
                cover[x] += 1
            for word in phrase:
                a, _, b, _ = word.bbox  # type: ignore[misc]
                for x in range(max(0, int(a - x0)), min(width, int(b - x0) + 1)):
                    inked[x] += 1
    allowed = table_rows // params.rows_per_crossing_phrase
    figure_gap = params.figure_gap_share * height
    cuts: list[float] = []
    start = None
    for x in range(width + 1):
        free = x < width and cover[x] <= allowed
        if free and start is None:
            start = x
        elif not free and start is not None:
            if x - start >= min_gap and start > 0 and x < width:
                cuts.append(x0 + _least_covered_middle(cover, inked, start, x, min_gap))
            elif (
                x - start >= figure_gap and start > 0 and x < width
                and _figures_set_close(phrase_rows, x0 + start, x0 + x, min_gap)
            ):  # fmt: skip
                cuts.append(x0 + (start + x) / 2)
            elif x - start >= min_gap:
                # A stretch at the table's edge that few rows cover: a sparse column (row
                # labels over several lines each) with its own gap, which no phrase covers.
                empty = _empty_inside(cover, start, min(x, width), min_gap)
                if empty is not None:
                    cuts.append(x0 + empty)
            start = None
    return sorted(cuts)


def _figures_set_close(
    phrase_rows: list[list[list[Word]]], a: float, b: float, min_gap: float
) -> bool:
    """Two phrases of one row stand closer than `min_gap` across the free stretch from a to b:
    two figures `_figures_apart` parted (a monospaced table sets its columns of figures a
    character apart, "1,249,752 1,364,492"; closer words are one phrase). A figure in
    brackets after one is its note or its share, in its cell ("10,000 (1)", "45 (12.3)"), and
    a lone digit beside one a footnote's mark a scan read apart ("1,204 2"): no such evidence,
    nor rows that only line up close, each far from its neighbour."""
    close = False
    for phrases in phrase_rows:
        boxes = [(words_box(p), p) for p in phrases]
        lefts = [(box[2], p) for box, p in boxes if a - min_gap < box[2] <= b]
        rights = [(box[0], p) for box, p in boxes if a <= box[0] < b + min_gap]
        for (end, left), (start, right) in itertools.product(lefts, rights):
            if start - end < min_gap:
                texts = [" ".join(w.text for w in phrase) for phrase in (left, right)]
                if texts[1].startswith(("(", "[")) or min(map(_digits, texts)) < 2:
                    return False
                close = True
    return close


def _digits(text: str) -> int:
    return sum(map(str.isdigit, text))


def _empty_inside(cover: list[int], start: int, end: int, min_gap: float) -> float | None:
    """The middle of the widest stretch of the edge stretch [start, end) that no phrase covers,
    at least min_gap wide, with the sparse column's text between it and the table's edge; None
    if there is none."""
    best: tuple[int, float] | None = None
    run = None
    for x in range(start, end + 1):
        if x < end and cover[x] == 0:
            run = x if run is None else run
        elif run is not None:
            left = start > 0 or any(cover[start:run])
            right = end < len(cover) or any(cover[x:end])
            if x - run >= min_gap and left and right and (best is None or x - run > best[0]):
                best = (x - run, (run + x) / 2)
            run = None
    return best[1] if best else None


def _span(phrase: list[Word]) -> float:
    a, _, b, _ = words_box(phrase)
    return b - a


def _between_rows(rows: list[list[Word]], height: float, params: WordTableParams) -> set[int]:
    """Rows set between the rows above and below them, in a stretch both leave empty: a cell
    spanning two rows, its text centred on them ("1500 ppm Total" beside two substances). A
    row of its own (a subheading) stands a row's pitch from both."""
    found: set[int] = set()
    for r in range(1, len(rows) - 1):
        a, y0, b, y1 = words_box(rows[r])
        above, below = words_box(rows[r - 1]), words_box(rows[r + 1])
        up, mid, down = (above[1] + above[3]) / 2, (y0 + y1) / 2, (below[1] + below[3]) / 2
        clear = not any(
            w.bbox[0] < b and w.bbox[2] > a  # type: ignore[index]
            for w in rows[r - 1] + rows[r + 1]
        )
        pitch = down - up <= params.between_rows_pitch_share * height
        centred = abs(mid - (up + down) / 2) <= params.between_rows_centre_share * height
        if clear and pitch and centred:
            found.add(r)
    return found


def _without_lonely_columns(
    cuts: list[float], phrase_rows: list[list[list[Word]]], floating: set[int],
    params: WordTableParams,
) -> list[float]:  # fmt: skip
    """A "column" holding text in one row only (a left-aligned header over right-aligned
    figures, its gap too wide to bridge) joins the neighbour it is nearest to; not when that
    text is a cell set between two rows (it spans them, in a column of its own)."""
    if len(phrase_rows) < params.lonely_column_min_rows:
        return cuts
    while cuts:
        bounds = [float("-inf"), *cuts, float("inf")]
        rows_in = [0] * (len(bounds) - 1)
        for phrases in phrase_rows:
            if id(phrases[0]) in floating:
                a, _, b, _ = words_box(phrases[0])
                k = next(i for i in range(len(rows_in)) if (a + b) / 2 < bounds[i + 1])
                rows_in[k] += 2  # a cell set between two rows counts as both
                continue
            for k in {next(i for i in range(len(rows_in)) if (words_box(p)[0] + words_box(p)[2]) / 2
                           < bounds[i + 1]) for p in phrases}:  # fmt: skip
                rows_in[k] += 1
        lonely = next((k for k, n in enumerate(rows_in) if n <= 1), None)
        if lonely is None:
            return cuts
        # Drop the cut on the side of the nearer neighbour (the only one at an edge).
        if lonely == 0:
            del cuts[0]
        elif lonely == len(rows_in) - 1:
            del cuts[-1]
        else:
            left_gap = cuts[lonely - 1]
            right_gap = cuts[lonely]
            mine = [p for phrases in phrase_rows for p in phrases
                    if left_gap <= (words_box(p)[0] + words_box(p)[2]) / 2 < right_gap]  # fmt: skip
            if not mine:
                # No phrase's middle in it (phrases crossing both cuts): a column of nothing.
                del cuts[lonely]
                continue
            a = min(words_box(p)[0] for p in mine)
            b = max(words_box(p)[2] for p in mine)
            del cuts[lonely - 1 if a - left_gap < right_gap - b else lonely]
    return cuts


def _least_covered_middle(
    cover: list[int], inked: list[int], start: int, end: int, min_gap: float
) -> float:
    """The middle of the widest stretch of [start, end) that the fewest phrases cover: a cut
    between two header words, not through one. Where a phrase crosses the whole gap, the
    widest stretch of it no word covers instead (`inked`: the space between two heads read
    as one phrase), when that space is a column gap's width (`min_gap`); a narrower one is a
    word space, and the cut stays mid-gap, clear of the figures (a skewed scan's rows)."""
    low = min(cover[start:end])
    middle, _ = _widest_run([c == low for c in cover[start:end]], start)
    if low:
        spaced = [
            c == low and not k for c, k in zip(cover[start:end], inked[start:end], strict=True)
        ]
        space, space_width = _widest_run(spaced, start)
        if space is not None and space_width >= min_gap:
            return space
    return middle if middle is not None else (start + end) / 2


def _widest_run(flags: list[bool], offset: int) -> tuple[float | None, int]:
    """The middle (offset by `offset`) and width of the widest run of True in `flags`."""
    best, best_width, run = None, 0, None
    for x, flag in enumerate([*flags, False]):
        if flag and run is None:
            run = x
        elif not flag and run is not None:
            if x - run > best_width:
                best, best_width = offset + (run + x) / 2, x - run
            run = None
    return best, best_width


def _without_rules(word: Word) -> Word:
    """A ruling line read as a glyph ("|", "[") is no text: stripped from the word."""
    text = word.text.strip(RULE_GLYPHS)
    if text == word.text:
        return word
    return Word(text=text, confidence=word.confidence, bbox=word.bbox, lang=word.lang,
                known=word.known)  # fmt: skip


def _is_number(text: str) -> bool:
    return bool(_NUMBER.match(text))


def table_from_words(
    words: list[Word], bbox: BBox, *, rules: Sequence[float] = (), drawn: bool = False,
    params: WordTableParams = WORD_TABLES,
) -> ReadBlock | None:  # fmt: skip
    """A table block from the words inside a table region, or None when they do not line up
    into at least `params.min_rows` rows of `params.min_cols` columns. `rules`: heights of
    horizontal rules printed across the region (a scan's row rules); the lines between two of
    them are one row where only one column wraps. `drawn`: the words are glyphs a born-digital
    layer draws, where a "[" or a "!" is text ("Requires [amsfonts]"), never a ruling line
    read as one."""
    words = [w if drawn else _without_rules(w) for w in words if w.bbox and w.text.strip()]
    words = [w for w in words if w.text]
    if len(words) < params.min_rows * params.min_cols:
        return None
    height = statistics.median(w.bbox[3] - w.bbox[1] for w in words)  # type: ignore[index]
    words = _levelled(words, height, params)
    rows = [_read_once(row) for row in text_rows(words)]
    caption, rows = _caption_lines(rows, height, params)
    # A row set between two rows is one cell (its words may stand apart: letter-spaced type).
    between = _between_rows(rows, height, params)
    gap = params.phrase_gap_share * height
    phrase_rows = [
        [row] if r in between else _figures_apart(row_phrases(row, gap), params)
        for r, row in enumerate(rows)
    ]
    floating = {id(phrase_rows[r][0]) for r in between}
    # A row that is one phrase across most of the table (a title set inside it) says nothing
    # about the columns.
    width = max(bbox[2] - bbox[0], 1.0)
    title = params.title_row_share * width
    columned = [p for p in phrase_rows if not (len(p) == 1 and _span(p[0]) >= title)]
    # Where most rows hold two phrases or more, a row of one phrase (a group's name or a unit
    # centred over the figures: "Enrollment, in thousands") spans columns; only rows of
    # several phrases say where the columns part.
    columned = columned or phrase_rows
    several = [p for p in columned if len(p) > 1]
    cutting = several if len(several) >= params.columned_rows_share * len(columned) else columned
    cuts = _gaps(cutting, bbox[0], bbox[2], height, params, table_rows=len(columned))
    cuts = _without_lonely_columns(cuts, columned, floating, params)
    space = _word_space(phrase_rows)
    if space is not None:
        phrase_rows = [
            row if r in between else _split_at_cuts(row, cuts, space, params)
            for r, row in enumerate(phrase_rows)
        ]
    bounds = [float("-inf"), *cuts, float("inf")]
    n_cols = len(bounds) - 1
    if n_cols < params.min_cols or len(rows) < params.min_rows:
        return None

    def columns_of(phrase: list[Word]) -> tuple[int, int]:
        a, _, b, _ = words_box(phrase)
        first = next(i for i in range(n_cols) if a < bounds[i + 1])
        last = next(i for i in range(n_cols) if b <= bounds[i + 1] or i == n_cols - 1)
        return first, max(first, last)

    edges = _right_edges(phrase_rows, columns_of, height, params)
    grid: list[list[dict | None]] = []
    for phrases in phrase_rows:
        slots: list[dict | None] = [None] * n_cols
        for phrase, (first, last) in _split_at_edges(
            _split_lined_up(phrases, columns_of), columns_of, edges, height, params
        ):
            text = " ".join(w.text for w in phrase)
            cell = slots[first]
            x0, _, x1, _ = words_box(phrase)
            if cell is not None:
                cell["text"] += " " + text
                cell["colspan"] = max(cell["colspan"], last - first + 1)
                cell["across"] = (min(cell["across"][0], x0), max(cell["across"][1], x1))
            else:
                slots[first] = {"text": text, "header": False, "rowspan": 1,
                                "colspan": last - first + 1, "across": (x0, x1)}  # fmt: skip
        if id(phrases[0]) in floating:
            for cell in slots:
                if cell is not None:
                    cell["between"] = True
        grid.append(slots)
    grid = _join_wrapped_labels(
        _join_wrapped_rows(_lift_middle_rows(_ruled_rows(grid, rows, rules)))
    )
    if len(grid) < params.min_rows:
        return None
    filled = sum(sum(cell is not None for cell in row) >= 2 for row in grid)
    if filled < params.min_several_rows_share * len(grid):
        return None  # rows of one cell each: lines of text, whatever box was drawn round them
    grid = _mark_headers(grid, height, params)
    rows_out = []
    for r, slots in enumerate(grid):
        row = []
        c = 0
        while c < n_cols:
            cell = slots[c]
            if cell is None:
                if not any(_covers(grid, rr, c, r) for rr in range(r)):
                    row.append({"text": "", "header": False, "rowspan": 1, "colspan": 1})
                c += 1
                continue
            # A span never hides a cell read beside it.
            span = 1
            while span < cell["colspan"] and c + span < n_cols and slots[c + span] is None:
                span += 1
            cell["colspan"] = span
            cell.pop("between", None)
            cell.pop("across", None)
            row.append(cell)
            c += span
        rows_out.append(row)
    return ReadBlock(kind="table", bbox=bbox, rows=joined_row_lines(rows_out), text=caption)


def notes_top(words: list[Word], *, params: WordTableParams = WORD_TABLES) -> float | None:
    """The top of the notes at the foot of a table region's words ("Source: Statistics
    Finland", "NOTE: Detail may not sum to totals"): from the first line opening with a note's
    label to the foot, every line below it one phrase (the note's text wrapped) or another
    note, with `params.min_rows` lines of the table above. None when the foot holds no note: a
    row headed "Source" beside its figures has no colon, and stays a row."""
    words = [w for w in words if w.bbox and w.text.strip()]
    if not words:
        return None
    height = statistics.median(w.bbox[3] - w.bbox[1] for w in words)  # type: ignore[index]
    gap = params.phrase_gap_share * height
    rows = text_rows(words)
    top = None
    for r in range(len(rows) - 1, params.min_rows - 1, -1):
        if TABLE_NOTE.match(" ".join(w.text for w in rows[r])):
            top = r
        elif len(row_phrases(rows[r], gap)) > 1:
            break
    return None if top is None else words_box(rows[top])[1]


def _figures_apart(phrases: list[list[Word]], params: WordTableParams) -> list[list[Word]]:
    """Two figures side by side in a phrase ("1,087,948 1,022,490") are two cells: a
    monospaced table sets its columns of figures a character apart. A group of three digits
    goes on with the figure before it ("1 087 948" is one number set with spaces)."""
    out: list[list[Word]] = []
    for phrase in phrases:
        out.append([phrase[0]])
        for a, b in itertools.pairwise(phrase):
            group = len(b.text) == params.number_group_digits and b.text.isdigit()
            if is_datum(a.text) and is_datum(b.text) and not group:
                out.append([b])
            else:
                out[-1].append(b)
    return out


def _levelled(words: list[Word], height: float, params: WordTableParams) -> list[Word]:
    """The words turned level where their rows slope (a scan read as scanned): each word's
    box moved so that its middle stands where turning the table by the slope's angle puts it
    (`params.level_*`); as they are where the rows run level."""
    xs = np.array([(w.bbox[0] + w.bbox[2]) / 2 for w in words])  # type: ignore[index]
    ys = np.array([(w.bbox[1] + w.bbox[3]) / 2 for w in words])  # type: ignore[index]
    x0, y0 = xs.mean(), ys.mean()
    size = params.level_bin_heights * height

    def peaks(angle: float) -> float:
        theta = math.radians(angle)
        level = (ys - y0) * math.cos(theta) + (xs - x0) * math.sin(theta)
        counts = np.bincount(((level - level.min()) / size).astype(np.int64))
        return float((counts.astype(np.float64) ** 2).sum())

    steps = round(params.level_max_deg / params.level_step_deg)
    angles = [k * params.level_step_deg for k in range(-steps, steps + 1)]
    scores = {angle: peaks(angle) for angle in angles}
    best = max(angles, key=lambda a: (scores[a], -abs(a)))
    if abs(best) < params.level_min_deg or scores[best] < params.level_gain * scores[0.0]:
        return words
    theta = math.radians(best)
    out = []
    for word, x, y in zip(words, xs, ys, strict=True):
        dy = (y - y0) * math.cos(theta) + (x - x0) * math.sin(theta) - (y - y0)
        bx0, by0, bx1, by1 = word.bbox  # type: ignore[misc]
        out.append(replace(word, bbox=(bx0, by0 + dy, bx1, by1 + dy)))
    return out


def table_of_figures(
    words: list[Word], bbox: BBox, *, drawn: bool = False, params: WordTableParams = WORD_TABLES
) -> ReadBlock | None:
    """The table a block of text holds when no region showed one: its lines part into columns
    (table_from_words) and most of its rows are figures, several to a row
    (`params.figure_table_*`). Prose never parts into columns; a list of labelled values
    (two columns) is a key/value table's, not this."""
    table = table_from_words(words, bbox, drawn=drawn, params=params)
    if table is None or not table.rows:
        return None
    rows = [[cell["text"] for cell in row] for row in table.rows]
    if max(len(row) for row in rows) < params.figure_table_min_cols:
        return None
    data = [
        row for row in rows
        if is_data_row(row, params=params)
        and sum(is_datum(t) for t in row if t.strip()) >= params.figure_table_min_cols - 1
    ]  # fmt: skip
    if len(data) < params.figure_table_min_rows:
        return None
    if len(data) < params.figure_table_data_share * len(rows):
        return None
    return table


def _caption_lines(
    rows: list[list[Word]], height: float, params: WordTableParams
) -> tuple[str, list[list[Word]]]:
    """A caption the region took in as its first rows ("Table 2. Baseline characteristics"
    and the lines it wraps onto, each one phrase from its left edge or its text's) and the
    rows left."""
    gap = params.phrase_gap_share * height
    first = " ".join(w.text for w in rows[0]) if rows else ""
    label = TABLE_CAPTION.match(first)
    if label is None:
        return "", rows
    gaps = [b.bbox[0] - a.bbox[2] for a, b in itertools.pairwise(rows[0])]  # type: ignore[index]
    wide = [k for k, g in enumerate(gaps) if g > params.caption_word_gap_share * height]
    hanging = _label_words(rows[0], label.end())
    after = rows[0][hanging:]
    # A label may hang in a column of its own, the caption's text set beside it ("Table 8:",
    # a tab, then "Number of persons ..."): its lines wrap under the text, not the label.
    if wide and (
        wide != [hanging - 1]
        or sum(any(map(str.isalpha, w.text)) for w in after) < params.caption_min_words
    ):
        return "", rows  # "Table 2" heading a column, set apart from the next cell
    lefts = [w.bbox[0] for w in rows[0][:1] + after[:1]]  # type: ignore[index]
    right = max(w.bbox[2] for row in rows for w in row)  # type: ignore[index]
    end = 1
    # A line that fills the table's width wraps onto the next, set from the same left edge.
    while (
        end < len(rows) - params.min_rows
        and right - rows[end - 1][-1].bbox[2] <= params.caption_word_gap_share * height  # type: ignore[index]
        and len(row_phrases(rows[end], gap)) == 1
        and min(abs(rows[end][0].bbox[0] - left) for left in lefts) <= height  # type: ignore[index]
    ):
        end += 1
    text = " ".join(w.text for row in rows[:end] for w in row)
    return text, rows[end:]


def _label_words(row: list[Word], label_end: int) -> int:
    """How many of the row's first words the caption label's match (`label_end` characters
    of the row's text joined by spaces) takes: "Table 8:" two."""
    length = -1
    for k, word in enumerate(row):
        length += len(word.text) + 1
        if length >= label_end:
            return k + 1
    return len(row)


def _word_space(phrase_rows: list[list[list[Word]]]) -> float | None:
    """The table's common space between two words of one cell (the median), or None when no
    cell holds two words."""
    gaps = [b.bbox[0] - a.bbox[2]  # type: ignore[index]
            for phrases in phrase_rows for phrase in phrases
            for a, b in itertools.pairwise(phrase)]  # fmt: skip
    gaps = [g for g in gaps if g > 0]
    return statistics.median(gaps) if gaps else None


def _split_at_cuts(
    phrases: list[list[Word]], cuts: list[float], space: float, params: WordTableParams
) -> list[list[Word]]:
    """Phrases parted where a column's cut falls in a space far wider than a word space
    (`params.cut_space_ratio`): two header cells of narrow columns set close ("Total Costs"
    beside "Exclusions &", ICDAR us-009), not one cell spanning both. A heading centred over
    its columns keeps its word spaces, wherever the cuts fall."""
    out: list[list[Word]] = []
    for phrase in phrases:
        part = [phrase[0]]
        for a, b in itertools.pairwise(phrase):
            left, right = a.bbox[2], b.bbox[0]  # type: ignore[index]
            if right - left >= params.cut_space_ratio * space and any(
                left <= cut <= right for cut in cuts
            ):
                out.append(part)
                part = []
            part.append(b)
        out.append(part)
    return out


def _split_lined_up(
    phrases: list[list[Word]], columns_of: Callable[[list[Word]], tuple[int, int]]
) -> list[list[Word]]:
    """A phrase across columns whose words each sit inside one column, figures among them
    (a body row set tight: "Staff 812 798" closer than a cell's gap), is a cell per column, not
    one cell spanning them."""
    out: list[list[Word]] = []
    for phrase in phrases:
        first, last = columns_of(phrase)
        spots = [columns_of([w]) for w in phrase]
        if first == last or any(a != b for a, b in spots):
            out.append(phrase)
            continue
        parts: dict[int, list[Word]] = {}
        for word, (col, _) in zip(phrase, spots, strict=True):
            parts.setdefault(col, []).append(word)
        figures = any(is_datum(" ".join(w.text for w in part)) for part in parts.values())
        out.extend(parts.values() if figures else [phrase])
    return out


def _right_edges(
    phrase_rows: list[list[list[Word]]], columns_of: Callable[[list[Word]], tuple[int, int]],
    height: float, params: WordTableParams,
) -> dict[int, float]:  # fmt: skip
    """The right edge of each column whose figures are set flush right: most of the figures
    inside it (`aligned_edge_share`) end within `aligned_edge_heights` word heights of their
    median end."""
    ends: dict[int, list[float]] = {}
    for phrases in phrase_rows:
        for phrase in phrases:
            first, last = columns_of(phrase)
            if first == last and is_datum(" ".join(w.text for w in phrase)):
                ends.setdefault(first, []).append(phrase[-1].bbox[2])  # type: ignore[index]
    tol = params.aligned_edge_heights * height
    out = {}
    for col, xs in ends.items():
        edge = statistics.median(xs)
        if len(xs) >= 2 and sum(
            abs(x - edge) <= tol for x in xs
        ) >= params.aligned_edge_share * len(xs):
            out[col] = edge
    return out


def _split_at_edges(
    phrases: list[list[Word]], columns_of: Callable[[list[Word]], tuple[int, int]],
    edges: dict[int, float], height: float, params: WordTableParams,
) -> list[tuple[list[Word], tuple[int, int]]]:  # fmt: skip
    """Each phrase with its columns; a phrase across columns set flush right whose words end,
    part by part, at the right edges of its columns, is a cell per column: two heads set one
    word space apart over their figures ("Less than" over "$10,000", "$10,000–" over
    "14,999", ICDAR us-002), not one head spanning both. A group's head centred over its
    columns seldom ends a word at two columns' edges."""
    tol = params.aligned_edge_heights * height
    out: list[tuple[list[Word], tuple[int, int]]] = []
    for phrase in phrases:
        first, last = columns_of(phrase)
        parts: list[tuple[list[Word], tuple[int, int]]] = []
        start, col = 0, first
        for k, word in enumerate(phrase):
            end = word.bbox[2]  # type: ignore[index]
            at = next(
                (c for c in range(col, last + 1) if c in edges and abs(end - edges[c]) <= tol), None
            )
            if at is not None:
                parts.append((phrase[start : k + 1], (at, at)))
                start, col = k + 1, at + 1
        if first < last and len(parts) >= 2 and start == len(phrase):
            out.extend(parts)
        else:
            out.append((phrase, (first, last)))
    return out


def _covers(grid: list[list[dict | None]], r: int, c: int, below: int) -> bool:
    """A cell of row r spans down over column c of row `below`."""
    for cc in range(c + 1):
        cell = grid[r][cc]
        if cell is not None and cc + cell["colspan"] > c and r + cell.get("rowspan", 1) > below:
            return True
    return False


def _ruled_rows(
    grid: list[list[dict | None]], rows: list[list[Word]], rules: Sequence[float]
) -> list[list[dict | None]]:
    """The text rows between two rules printed across the table are one row when at most one
    column holds several of them (a description wrapping beside its label, the label centred
    on its lines): their cells join top down. Where two columns or more stack lines, the
    rules part groups of rows (a rule only under the header), and the lines stay rows."""
    if not rules:
        return grid
    bands: list[list[int]] = []
    last = None
    for r, row in enumerate(rows):
        cy = statistics.median((w.bbox[1] + w.bbox[3]) / 2 for w in row)  # type: ignore[index]
        band = bisect.bisect(sorted(rules), cy)
        if band == last:
            bands[-1].append(r)
        else:
            bands.append([r])
        last = band
    out: list[list[dict | None]] = []
    for band_rows in bands:
        cells = [grid[r] for r in band_rows]
        stacked = sum(sum(row[c] is not None for row in cells) > 1 for c in range(len(cells[0])))
        if len(cells) == 1 or stacked > 1:
            out += cells
            continue
        merged: list[dict | None] = [None] * len(cells[0])
        for row in cells:
            for c, cell in enumerate(row):
                if cell is None:
                    continue
                cell.pop("between", None)
                if merged[c] is None:
                    merged[c] = cell
                else:
                    merged[c]["text"] += " " + cell["text"]  # type: ignore[index]
                    merged[c]["colspan"] = max(merged[c]["colspan"], cell["colspan"])  # type: ignore[index]
        out.append(merged)
    return out


def _lift_middle_rows(grid: list[list[dict | None]]) -> list[list[dict | None]]:
    """A row holding only cells whose columns are empty just above and below is a cell centred
    on two rows (a header spanning its row and the next; in the body, a cell set between two
    rows): it joins the row above, spanning two rows."""
    out = list(grid)
    r = 1
    while r < len(out) - 1:
        filled = [c for c, cell in enumerate(out[r]) if cell is not None]
        # Between the two top rows any such row (a header spanning both); below them only a
        # row set between its neighbours (`between`), not a row of its own.
        lift = r < 2 or all(out[r][c].get("between") for c in filled)  # type: ignore[union-attr]
        if filled and lift and all(out[r - 1][c] is None and out[r + 1][c] is None for c in filled):
            for c in filled:
                cell = out[r][c]
                cell["rowspan"] = 2  # type: ignore[index]
                out[r - 1][c] = cell
            del out[r]
            continue
        r += 1
    return out


def _join_wrapped_rows(grid: list[list[dict | None]]) -> list[list[dict | None]]:
    """A row with an empty first column and fewer cells than its neighbour above continues
    that row's cells (text wrapped inside the cells), unless a cell of it spans columns. A
    row filling every column but the first (two or more) does so once: text wraps in every
    column for a line or two, and rows that keep coming so have lost their first cells (a
    scan's short codes, "fx", "g0", read as noise), which joined made one row of the table."""
    out: list[list[dict | None]] = []
    full_joined: set[int] = set()  # rows of out a row filling all but the first column joined
    for slots in grid:
        filled = sum(s is not None for s in slots)
        full = filled >= 2 and filled == len(slots) - 1
        if (
            out
            and slots[0] is None
            and filled < sum(s is not None for s in out[-1])
            and not any(s and _is_number(s["text"]) for s in slots)
            # A phrase across columns (a group's name, a unit) is a row of its own: a
            # wrapped line stays inside its column.
            and not any(s and s["colspan"] > 1 for s in slots)
            and len(out) > 1  # the header rows below a spanning header are rows of their own
            and not (full and len(out) - 1 in full_joined)
        ):
            if full:
                full_joined.add(len(out) - 1)
            for cell in out[-1]:
                if cell is not None and cell["rowspan"] > 1:
                    cell["rowspan"] -= 1  # it spanned the row that now joins it
            for c, cell in enumerate(slots):
                if cell is None:
                    continue
                above = out[-1][c]
                if above is None:
                    out[-1][c] = cell
                else:
                    above["text"] += " " + cell["text"]
            continue
        out.append(slots)
    return out


def _join_wrapped_labels(grid: list[list[dict | None]]) -> list[list[dict | None]]:
    """A first-column label wrapped over several lines beside its row's figures, which sit on
    any one of its lines (top, middle or bottom): a line that goes on from the one above (that
    one ends with a comma or a hyphen, or this one starts in lower case) joins it, as long as
    only one of the two holds cells beyond the label. ("Other specific policies including
    Competition, External / trade, Enlargement, ... | 4.330 / ... and Environment": ICDAR
    eu-015.) A group's name over its rows ("Purposes of reading" over "Literary experience |
    72") goes on from nothing and stays a row."""
    out: list[list[dict | None]] = []
    for slots in grid:
        above = out[-1] if out else None
        if above is not None and above[0] is not None and slots[0] is not None:
            rest_above = any(cell is not None for cell in above[1:])
            rest_here = any(cell is not None for cell in slots[1:])
            label, line = above[0]["text"].rstrip(), slots[0]["text"].lstrip()
            goes_on = label[-1:] in (",", "-") or line[:1].islower()
            if goes_on and not (rest_above and rest_here):
                for cell in above:
                    if cell is not None and cell["rowspan"] > 1:
                        cell["rowspan"] -= 1  # it spanned the line that now joins it
                above[0]["text"] = label + " " + line
                # A long line reaches past the column gap; the label's column is its narrowest.
                above[0]["colspan"] = min(above[0]["colspan"], slots[0]["colspan"])
                for c, cell in enumerate(slots[1:], start=1):
                    if cell is not None:
                        above[c] = cell
                continue
        out.append(slots)
    return out


def _texts(row: list[dict | None]) -> list[str]:
    return [cell["text"] for cell in row if cell is not None]


def _first_data_row(grid: list[list[dict | None]], params: WordTableParams) -> int | None:
    """The first row of figures, but for lines of heads whose ranges break after a dash
    ("$10,000–" over "14,999"): the line opening them and the line ending them."""
    return next(
        (
            r for r, row in enumerate(grid)
            if is_data_row(_texts(row), params=params)
            and not _opens_ranges(row)
            and not (r and _ends_ranges(grid[r - 1], row))
        ),
        None,
    )  # fmt: skip


def _figure_cells(row: list[dict | None]) -> list[int]:
    return [c for c, cell in enumerate(row) if cell is not None and _holds_figure(cell["text"])]


def _opens_ranges(row: list[dict | None]) -> bool:
    """Half the figures of `row` or more end with a dash: ranges going on below, no data."""
    figures = [row[c]["text"].rstrip() for c in _figure_cells(row)]  # type: ignore[index]
    return bool(figures) and 2 * sum(t[-1:] in DASHES for t in figures) >= len(figures)


def _ends_ranges(above: list[dict | None], row: list[dict | None]) -> bool:
    """Each figure of `row` ends the head over it (`_leads_on`), half of them or more a range
    the head above breaks after a dash."""
    overs = [above[c] for c in _figure_cells(row)]
    if any(over is None or not _leads_on(over["text"]) for over in overs):
        return False
    return _opens_ranges(overs)


def _repeated_below(grid: list[list[dict | None]], params: WordTableParams) -> bool:
    """A top cell's text recurs down its column (a questionnaire's "yes" on every row): the
    top row is a row like the others, not the header."""
    body = grid[1:]
    for c, top in enumerate(grid[0]):
        text = top["text"].strip() if top else ""
        same = sum(1 for row in body if row[c] is not None and row[c]["text"].strip() == text)  # type: ignore[index]
        if text and len(body) >= 2 and same >= params.header_repeat_share * len(body):
            return True
    return False


def _joined_header_lines(
    grid: list[list[dict | None]], height: float, params: WordTableParams
) -> tuple[list[list[dict | None]], bool]:
    """The lines over a table of figures, before its first row of figures, are one header row
    whose cells stack several lines ("Weight / Relative / to / Controls (%)"): each column's
    lines join into one cell. Not where a header cell spans columns (a group over its
    columns: two header rows), nor a label alone in the first column just above the figures
    (a group of body rows)."""
    first = _first_data_row(grid, params)
    if first is None or first < 2:
        return grid, False
    body = grid[first:]
    if 2 * sum(is_data_row(_texts(row), params=params) for row in body) < len(body):
        return grid, False  # not a table of figures: its text rows may be body rows
    lines = grid[:first]
    last = [c for c, cell in enumerate(lines[-1]) if cell is not None]
    if last == [0]:
        lines = lines[:-1]
    # Group heads across columns on the top lines (a group's head may wrap, and groups may
    # stand on different lines), stacked column heads under them.
    grouped = next(
        (k for k, row in enumerate(lines) if not any(c and c["colspan"] > 1 for c in row)),
        len(lines),
    )
    spanning = any(cell and cell["colspan"] > 1 for row in lines[grouped:] for cell in row)
    if not 2 <= len(lines) <= params.header_max_lines or spanning or len(lines) == grouped:
        return grid, False
    # Lines of stacked header cells leave some of the header's columns empty; a line that
    # fills every one is a row of its own ("Lowest | $9,594 or less | ..." under the years),
    # unless each of its cells goes on from the line above ("retail outlets | per outlet") or
    # it is the bottom line of cells set bottom-aligned.
    used = {c for row in lines for c, cell in enumerate(row) if cell is not None}
    for r, row in enumerate(lines[1:], start=1):
        filled = {c for c, cell in enumerate(row) if cell is not None}
        own_row = filled >= used and not all(
            _continues(cell["text"]) for cell in row if cell is not None
        )
        if own_row and not _bottom_of_stacks(lines[:r], row, params):
            return grid, False
    if grouped:
        heads = _groups_over_stacks(lines, grouped, height, params)
        return [*heads, *grid[len(lines) :]], True
    return [_stacked(lines, range(len(grid[0]))), *grid[len(lines) :]], False


def _stacked(lines: list[list[dict | None]], columns: Iterable[int]) -> list[dict | None]:
    """One row of cells, each column's (of `columns`) lines joined into one cell."""
    merged: list[dict | None] = [None] * len(lines[0])
    for c in columns:
        cells = [row[c] for row in lines if row[c] is not None]
        if cells:
            text = joined_lines([cell["text"] for cell in cells])  # type: ignore[index]
            merged[c] = {"text": text, "header": False, "rowspan": 1, "colspan": 1}
    return merged


def _groups_over_stacks(
    lines: list[list[dict | None]], n_group: int, height: float, params: WordTableParams
) -> list[list[dict | None]]:
    """Header lines whose `n_group` top lines hold group heads across columns ("Amount
    borrowed") over stacked column heads: two header rows. A group head goes on in the heads
    under it across the same columns ("Average amount borrowed" / "(by borrowers)"). The
    groups' row holds each group head, spanning the widest run of columns around it that
    have no head on its lines and whose heads below it centre on it
    (`group_centre_heights`), and every other column's head, its lines joined; the row under
    it each grouped column's head below the groups, its lines joined."""
    n_cols = len(lines[0])
    groups: dict[tuple[int, int], list[tuple[int, dict]]] = {}  # columns: (line, head's line)
    for r, row in enumerate(lines[:n_group]):
        for c, cell in enumerate(row):
            if cell is not None and cell["colspan"] > 1:
                span = (c, c + cell["colspan"] - 1)
                above = next((g for g in groups if g[0] <= c and span[1] <= g[1]), None)
                groups.setdefault(above or span, []).append((r, cell))
    # A line of a group's head across fewer columns goes on with it, never left out.
    for r, row in enumerate(lines[:n_group]):
        for c, cell in enumerate(row):
            inside = next((g for g in groups if g[0] <= c <= g[1]), None)
            if cell is not None and cell["colspan"] == 1 and inside is not None:
                groups[inside].append((r, cell))
    own = {k for a, b in groups for k in range(a, b + 1)}
    heads = {c for row in lines[:n_group] for c, cell in enumerate(row) if cell is not None}
    stacks = lines[n_group:]
    placed: dict[int, dict] = {}  # first column: the group's cell
    for (a0, b0), lined in groups.items():
        cells = [cell for _, cell in sorted(lined, key=lambda pair: pair[0])]
        centre = (min(c["across"][0] for c in cells) + max(c["across"][1] for c in cells)) / 2
        free = lambda k: 0 <= k < n_cols and k not in heads and k not in own  # noqa: E731
        runs = [(a, b) for a in range(a0, -1, -1) for b in range(b0, n_cols)
                if all(free(k) for k in [*range(a, a0), *range(b0 + 1, b + 1)])]  # fmt: skip
        centred = [
            (a, b) for a, b in runs
            if (box := _extent(stacks, a, b)) is not None
            and abs((box[0] + box[1]) / 2 - centre) <= params.group_centre_heights * height
        ]  # fmt: skip
        if centred:
            a, b = max(centred, key=lambda run: run[1] - run[0])
        else:  # set flush left over its columns: it spans the heads after it
            a, b = a0, b0
            while free(b + 1) and any(row[b + 1] is not None for row in stacks):
                b += 1
        text = joined_lines([cell["text"] for cell in cells])
        placed[a] = {"text": text, "header": False, "rowspan": 1, "colspan": b - a + 1}
        own.update(range(a, b + 1))
    first = _stacked(lines, [c for c in range(n_cols) if c not in own])
    for a, cell in placed.items():
        first[a] = cell
    return [first, _stacked(stacks, sorted(own))]


def _extent(lines: list[list[dict | None]], a: int, b: int) -> tuple[float, float] | None:
    """The left and right ends of the cells of columns a to b on these lines; None where a
    column holds none or a cell tells no position."""
    cells = [[row[c] for row in lines if row[c] is not None] for c in range(a, b + 1)]
    if not all(cells) or any("across" not in cell for col in cells for cell in col):
        return None
    return (
        min(cell["across"][0] for col in cells for cell in col),  # type: ignore[index]
        max(cell["across"][1] for col in cells for cell in col),  # type: ignore[index]
    )


def _bottom_of_stacks(
    above: list[list[dict | None]], line: list[dict | None], params: WordTableParams
) -> bool:
    """A header line filling every column is the last line of header cells set bottom-aligned
    ("Number / of items" beside "Item Format"), not a row of its own ("Lowest | $9,594 or less"
    under the years, or "Female | Male | Total" under a country's name over three of them):
    it holds no figure but under a head it ends ("Less than" over "$10,000", "$10,000–" over
    "14,999": words or a dash lead into it, where a year over "$9,594 or less" does not), and
    the lines above fill or span most of its columns beside the first."""
    for c, cell in enumerate(line):
        if cell is None or not _holds_figure(cell["text"]):
            continue
        over = next((row[c] for row in reversed(above) if row[c] is not None), None)
        if over is None or not _leads_on(over["text"]):
            return False
    columns = [c for c, cell in enumerate(line) if cell is not None and c > 0]
    stacked = [c for c in columns if any(_covers_column(row, c) for row in above)]
    return bool(columns) and len(stacked) >= params.stacked_header_share * len(columns)


def _covers_column(row: list[dict | None], c: int) -> bool:
    """A cell of `row` stands in column c or spans over it (a group's head)."""
    return any(cell is not None and k + cell["colspan"] > c for k, cell in enumerate(row[: c + 1]))


def _leads_on(text: str) -> bool:
    """A head's line that the line under it ends: it ends in a word of letters or a dash."""
    last = text.rstrip()[-1:]
    return last.isalpha() or last in DASHES


def _holds_figure(text: str) -> bool:
    """A digit outside brackets: a figure or a year, not a note's mark ("Programs (3)")."""
    return any(ch.isdigit() for ch in re.sub(r"[(\[][^)\]]*[)\]]", "", text))


def _continues(text: str) -> bool:
    """A header cell's line that goes on from the line above: it starts in lower case
    ("per outlet") or with a unit in brackets ("(000)", "(%)")."""
    return text[:1].islower() or text[:1] in "(["


def _mark_headers(
    grid: list[list[dict | None]], height: float, params: WordTableParams
) -> list[list[dict | None]]:
    """The header rows: those at the top before the first row of figures (a row of figures is
    never a header), their lines joined where a header's cells stack several; the first row,
    two under a spanning header cell (a header cell above an empty slot of it spans both
    rows). A first column of text beside numbers holds row headers."""
    grid, grouped = _joined_header_lines(grid, height, params)
    first_data = 2 if grouped else _first_data_row(grid, params)
    n_cols = len(grid[0])
    head = 0 if first_data == 0 or _repeated_below(grid, params) else 1
    if head and len(grid) > 2 and first_data != 1 and not grouped:
        # A group label over several columns of the row below (printed left-aligned): it spans
        # the empty slots after it that the row below fills.
        top, below = grid[0], grid[1]
        for c in range(1, n_cols):
            left = next((k for k in range(c - 1, -1, -1) if top[k] is not None), None)
            if (
                top[c] is None
                and below[c] is not None
                and left is not None
                and left > 0
                and left + top[left]["colspan"] == c  # type: ignore[index]
            ):
                top[left]["colspan"] += 1  # type: ignore[index]
    spans = any(c and c["colspan"] > 1 for c in grid[0])
    if head and len(grid) > 2 and (spans or grouped) and first_data != 1:
        head = 2
        for c, cell in enumerate(grid[0]):
            if cell is not None and cell["colspan"] == 1 and grid[1][c] is None:
                cell["rowspan"] = 2
    for r in range(min(head, len(grid) - 1)):
        for cell in grid[r]:
            if cell is not None:
                cell["header"] = True
    body = grid[head:]
    first = [row[0] for row in body if row[0] is not None]
    numbers = [c for row in body for c in row[1:] if c is not None and _is_number(c["text"])]
    if (
        n_cols > 1
        and first
        and not any(_is_number(c["text"]) for c in first)
        and len(numbers) >= len(body)
    ):
        for c in first:
            c["header"] = True
    return grid
