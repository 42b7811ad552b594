"""A table of contents as a list: one item per entry, not a paragraph of run-together lines.

A text layer gives a contents page's lines as one block ("2 Results 1 2.1 Main bounds 1 2.2
Discussion 2"), a scan's layout as paragraphs; a reader heard titles and page numbers as one
sentence. A block is a contents block when every one of its lines ends an entry (its last word a
page number set apart from the title by a wide gap: a leader dropped, a right-aligned column) or
is an entry's title wrapped onto the next line; consecutive contents blocks with at least
`min_entries` entries whose page numbers never go down (a contents page's do not; a table's
column of figures, an index's, do) become list items, one per entry, nested by indentation when
assembled.
"""

from __future__ import annotations

import re
from dataclasses import replace

from models.engine import ReadBlock, Word
from models.reading.boxes import union
from models.reading.layer_words import LEADER_DOTS
from models.reading.params.contents import CONTENTS, ContentsParams

_PAGE = re.compile(r"(\d+|[ivxlc]+)\.?")  # arabic or roman (front matter); a scan's speck
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}  # the numerals' values
_NUMBER = re.compile(r"\d+(?:\.\d+)*\.?|[IVXLC]+\.?")  # a chapter's or section's number
_LEADER = re.compile(f"[{re.escape(LEADER_DOTS)} ]+")  # what is left of a leader a reader kept


def contents_lists(
    blocks: list[ReadBlock], *, params: ContentsParams = CONTENTS
) -> list[ReadBlock]:
    """`blocks` with the runs of contents blocks (module docstring) as list items."""
    out: list[ReadBlock] = []
    run: list[tuple[ReadBlock, list[list[Word]]]] = []

    def close() -> None:
        entries = [entry for _, found in run for entry in found]
        if len(entries) >= params.min_entries and _ascending(entries, params):
            out.extend(_item(block, entry) for block, found in run for entry in found)
        else:
            out.extend(block for block, _ in run)
        run.clear()

    for block in blocks:
        found = _entries(block, params) if block.kind in ("paragraph", "heading") else None
        if found:
            run.append((block, found))
            continue
        close()
        out.append(block)
    close()
    return out


def _entries(block: ReadBlock, params: ContentsParams) -> list[list[Word]] | None:
    """The block's entries (each its words, the page number last), or None when a line of it
    is neither an entry's end nor part of a title wrapped onto the next."""
    lines = _lines(block.words, params)
    if not lines:
        return None
    entries: list[list[Word]] = []
    pending: list[Word] = []
    wrapped = 0
    for line in lines:
        pending += line
        if _ends_entry(line, params):
            entries.append(pending)
            pending, wrapped = [], 0
            continue
        wrapped += 1
        if wrapped >= params.max_entry_lines:
            return None
    return entries if entries and not pending else None


def _lines(words: list[Word], params: ContentsParams) -> list[list[Word]] | None:
    """The words as lines, in order: a word starts a line when its middle is not within
    `same_line_ratio` of its height of the line's; None if a word has no box."""
    lines: list[list[Word]] = []
    for word in words:
        if word.bbox is None:
            return None
        middle, height = (word.bbox[1] + word.bbox[3]) / 2, word.bbox[3] - word.bbox[1]
        if lines:
            last = lines[-1][-1].bbox
            assert last is not None
            if abs((last[1] + last[3]) / 2 - middle) <= params.same_line_ratio * height:
                lines[-1].append(word)
                continue
        lines.append([word])
    return lines


def _ends_entry(line: list[Word], params: ContentsParams) -> bool:
    """A line whose last word is a page number set at least `page_gap_ratio` of its height
    right of the title (over what is left of a leader)."""
    title = [w for w in line[:-1] if not _LEADER.fullmatch(w.text)]
    last = line[-1]
    if not title or _page(last.text, params) is None:
        return False
    gap = last.bbox[0] - title[-1].bbox[2]  # type: ignore[index]
    height = max(last.bbox[3] - last.bbox[1], title[-1].bbox[3] - title[-1].bbox[1])  # type: ignore[index]
    return gap >= params.page_gap_ratio * height


def _page(text: str, params: ContentsParams) -> int | None:
    """A page number's value, or None: arabic up to `max_page_digits` digits, or roman."""
    found = _PAGE.fullmatch(text)
    if found is None:
        return None
    text = found.group(1)
    if text.isdigit():
        return int(text) if len(text) <= params.max_page_digits else None
    values = [_ROMAN[c] for c in text]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def _ascending(entries: list[list[Word]], params: ContentsParams) -> bool:
    """Page numbers that never go down, roman front matter before arabic."""
    keys = [(entry[-1].text[:1].isdigit(), _page(entry[-1].text, params) or 0) for entry in entries]
    return all(a <= b for a, b in zip(keys, keys[1:], strict=False))


def _item(block: ReadBlock, words: list[Word]) -> ReadBlock:
    """One entry of a contents block as a list item of its own, without a marker (what is
    left of a leader goes)."""
    words = [w for w in words if not _LEADER.fullmatch(w.text)]
    box = union(w.bbox for w in words)
    # Its indentation is its title's: a book sets chapter numbers in a gutter left of the
    # titles, and an entry without one ("Epilogue") is their sibling, not a child.
    if box is not None and len(words) > 2 and _NUMBER.fullmatch(words[0].text):
        box = (words[1].bbox[0], *box[1:])  # type: ignore[index]
    return replace(
        block,
        kind="list_item",
        text=" ".join(w.text for w in words),
        words=list(words),
        bbox=box,
        level=None,
        ordered=False,
        marker=None,
    )
