"""A table of contents as a list: one item per entry, not a paragraph of run-together lines.

A text layer gives a contents page's lines as one block ("2 Results 1 2.1 Main bounds 1 2.2
Discussion 2"), a scan's layout as paragraphs; a reader heard titles and page numbers as one
sentence. A block is a contents block when every one of its lines ends an entry (its last word a
page number set apart from the title by a wide gap: a leader dropped, a right-aligned column) or
is an entry's title wrapped onto the next line; consecutive contents blocks with at least
`min_entries` entries whose page numbers never go down (a contents page's do not; a table's
column of figures, an index's, do) become list items, one per entry, nested by indentation when
assembled. A page number a reader gave as a block of its own ends the entry on its row.
"""

from __future__ import annotations

import re
from dataclasses import replace

from models.engine import ReadBlock, Word
from models.reading.boxes import union
from models.reading.layer_words import LEADER_DOTS
from models.reading.params.contents import CONTENTS, ContentsParams
from models.reading.word_rows import text_rows

_PAGE = re.compile(r"(\d+|[ivxlc]+)\.?")  # arabic or roman (front matter); a scan's speck
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}  # the numerals' values
_NUMBER = re.compile(r"\d+(?:\.\d+)*\.?|[IVXLC]+\.?")  # a chapter's or section's number
_LEADER = re.compile(f"[{re.escape(LEADER_DOTS)} ]+")  # what is left of a leader a reader kept
_LEADER_RUN = re.compile(f"[{re.escape(LEADER_DOTS)}](?: ?[{re.escape(LEADER_DOTS)}]){{2,}}")
CONTENTS_LAYOUT = "contents"  # the layout a contents entry made from a table region carries
_SECTION = re.compile(r"\d+(?:\.\d+)+\.?(?:\s|$)")  # "2.1", "3.10.2": a section's number


def contents_lists(
    blocks: list[ReadBlock], *, params: ContentsParams = CONTENTS
) -> list[ReadBlock]:
    """`blocks` with the runs of contents blocks (module docstring) as list items. A page
    number that is a block of its own on its entry's row (a contents set without leaders, its
    numbers ranged right: a reader parts the row at the gap) ends that entry."""
    beside = _numbers_beside(blocks, params)
    title_of = {id(number): title for title, number in beside.items()}  # ids
    out: list[ReadBlock] = []
    # (the block as it stands, the block with its page number, its entries; none: a number)
    run: list[tuple[ReadBlock, ReadBlock, list[list[Word]]]] = []
    used: set[int] = set()  # page numbers now ending an item

    def close() -> None:
        entries = [entry for _, _, found in run for entry in found]
        if len(entries) >= params.min_entries and _ascending(entries, params):
            titles = {id(block) for block, _, found in run if found}
            for block, joined, found in run:
                if found:
                    out.extend(_item(joined, entry) for entry in found)
                elif title_of[id(block)] not in titles:
                    out.append(block)  # a number whose entry is not in the list stays
            used.update(id(beside[title]) for title in titles if title in beside)
        else:
            out.extend(block for block, _, _ in run)
        run.clear()

    for block in blocks:
        if run and id(block) in title_of:
            run.append((block, block, []))  # its entry's title is in the run, or it stays
            continue
        joined = _with_number(block, beside[id(block)]) if id(block) in beside else block
        found = _entries(joined, params) if block.kind in ("paragraph", "heading") else None
        if found:
            run.append((block, joined, found))
            continue
        close()
        out.append(block)
    close()
    return [block for block in out if id(block) not in used]


def contents_table(rows: list[list[str]], *, params: ContentsParams = CONTENTS) -> bool:
    """A grid that is a table of contents: the layout model boxes a contents page as a table,
    its titles and page numbers as columns, and a reader then heard "Installation . . . . 3"
    cell by cell. Most rows (`min_entries` or more) end in a page number in their last filled
    cell, the numbers never go down, every row holds a title's letters (a part's heading or a
    wrapped title has no number), and most entries show what a contents page has and a
    table of figures has not: a leader, or a section's number ("2.1", "3.10") opening the
    title. Its entries are then made from its words (`contents_items`)."""
    entries: list[tuple[bool, int]] = []
    marked = filled = 0
    for row in rows:
        cells = [cell.strip() for cell in row if cell.strip()]
        if not cells:
            continue
        filled += 1
        page = _page(cells[-1], params) if len(cells) > 1 else None
        title = " ".join(cells[:-1] if page is not None else cells)
        if not any(ch.isalpha() for ch in title):
            return False
        if page is not None:
            entries.append(_page_key(cells[-1], params))
            marked += bool(_LEADER_RUN.search(title) or _SECTION.match(title))
    return (
        len(entries) >= params.min_entries
        and 2 * len(entries) > filled
        and 2 * marked > len(entries)
        and _rising(entries)
    )


def contents_items(
    words: list[Word], *, font_size: float | None = None, params: ContentsParams = CONTENTS
) -> list[ReadBlock] | None:
    """A contents page's entries from its words, however a reader grouped them (a scan's
    column of page numbers read as a block of its own, a text layer's lines as one block):
    the words in rows, an entry ending on a row that ends in its page number (a title wrapped
    over rows before), one list item each, as `contents_lists` makes them; rows after the
    last entry (a footnote the region took in) as one paragraph. None where the rows are no
    contents (under `min_entries` entries, a title running over `max_entry_lines` rows, page
    numbers going down)."""
    entries, _, _ = _gathered(text_rows([w for w in words if w.bbox]), params)
    taken = {id(w) for entry in entries for w in entry}
    rest = [w for w in words if w.bbox and id(w) not in taken]
    if len(entries) < params.min_entries or not _ascending(entries, params):
        return None
    base = ReadBlock(kind="paragraph", text="", font_size=font_size)
    items = [_item(base, entry) for entry in entries]
    if rest:
        items.append(replace(base, text=" ".join(w.text for w in rest), words=rest,
                             bbox=union(w.bbox for w in rest)))  # fmt: skip
    return items


def _numbers_beside(blocks: list[ReadBlock], params: ContentsParams) -> dict[int, ReadBlock]:
    """Blocks that are a page number alone, by the id of the block whose last line they end:
    the nearest on their row to their left, `page_gap_ratio` of the line's height or more
    away."""
    found: dict[int, ReadBlock] = {}
    for number in blocks:
        words = number.words
        if len(words) != 1 or words[0].bbox is None or _page(words[0].text, params) is None:
            continue
        box = words[0].bbox
        middle, height = (box[1] + box[3]) / 2, box[3] - box[1]
        left = []
        for block in blocks:
            last = block.words[-1].bbox if block is not number and block.words else None
            if last is None or id(block) in found or block.kind not in ("paragraph", "heading"):
                continue
            on_row = abs((last[1] + last[3]) / 2 - middle) <= params.same_line_ratio * height
            if on_row and box[0] - last[2] >= params.page_gap_ratio * height:
                left.append((last[2], block))
        if left:
            found[id(max(left, key=lambda pair: pair[0])[1])] = number
    return found


def _with_number(block: ReadBlock, number: ReadBlock) -> ReadBlock:
    return replace(block, text=f"{block.text} {number.text}", words=[*block.words, *number.words])


def _entries(block: ReadBlock, params: ContentsParams) -> list[list[Word]] | None:
    """The block's entries (each its words, the page number last), or None when a line of it
    is neither an entry's end nor part of a title wrapped onto the next."""
    lines = _lines(block.words, params)
    if not lines:
        return None
    entries, pending, overrun = _gathered(lines, params)
    return entries if entries and not pending and not overrun else None


def _gathered(
    lines: list[list[Word]], params: ContentsParams
) -> tuple[list[list[Word]], list[Word], bool]:
    """The entries the lines make, in order (each its words, the page number last), the words
    after the last one, and whether a title ran over `max_entry_lines` lines (where the
    gathering stops)."""
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
            return entries, pending, True
    return entries, pending, False


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


def _page_key(text: str, params: ContentsParams) -> tuple[bool, int]:
    """A page number's place in a contents page's order: roman front matter before arabic."""
    return text[:1].isdigit(), _page(text, params) or 0


def _ascending(entries: list[list[Word]], params: ContentsParams) -> bool:
    """Page numbers that never go down, roman front matter before arabic."""
    return _rising([_page_key(entry[-1].text, params) for entry in entries])


def _rising(keys: list[tuple[bool, int]]) -> bool:
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
