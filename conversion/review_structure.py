"""The structured editor's operations on one page of the output document, without markup: a
heading's level, a table's header row, row headers and caption, joining and splitting
paragraphs, moving a block up or down; and blocks named for people ("page 2, table “Opening
hours”"). What an edit would break: conversion.review_checks.

Pure: BeautifulSoup trees in, trees changed in place; conversion.review saves the page through
the same sanitizer, re-check and audit trail as a page-HTML edit.
"""

from __future__ import annotations

import copy
import hashlib
import re
from dataclasses import dataclass

from bs4 import BeautifulSoup, NavigableString, Tag

_HEADING = re.compile(r"^h[1-6]$")
PREVIEW_CHARS = 90  # of a block's text shown beside its forms
NAME_CHARS = 50  # of a heading's or paragraph's text in a message
# Inline elements that may be left empty by a split and are then dropped (a <mark> around
# the words on the other side); images, formulas and breaks are kept.
_KEEP_EMPTY = ("img", "math", "br")
LEVELS = range(0, 7)  # 0: a paragraph, 1-6: a heading of that level


class StructureError(ValueError):
    """An edit that cannot be made as asked: the message says why, for people."""


def _text(el: Tag) -> str:
    return " ".join(el.get_text(" ").split())


def _short(text: str, limit: int = NAME_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def table_of(block: Tag) -> Tag | None:
    """The table a block is or holds (the renderer wraps each in a scroll box)."""
    if block.name == "table":
        return block
    if block.name == "div" and "table-scroll" in (block.get("class") or []):
        return block.find("table")
    return None


def kind_of(block: Tag) -> str:
    if _HEADING.match(block.name or ""):
        return "heading"
    if block.name == "p":
        return "furniture" if "furniture" in (block.get("class") or []) else "paragraph"
    if table_of(block) is not None:
        return "table"
    if block.name == "figure":
        return "figure"
    if block.name in ("ul", "ol"):
        return "list"
    if block.name == "aside":
        return "footnote"
    if block.name == "pre":
        return "code"
    return "other"


_KIND_NAMES = {
    "heading": "heading",
    "paragraph": "paragraph",
    "furniture": "running head or foot",
    "table": "table",
    "figure": "figure",
    "list": "list",
    "footnote": "footnote",
    "code": "code listing",
    "other": "block",
}


def name_of(el: Tag) -> str:
    """A block (or an element in one) named for people: heading “Introduction”, table
    “Opening hours”, figure 2, paragraph “went tip-toeing along…”."""
    table = el if el.name == "table" else el.find_parent("table") or table_of(el)
    if table is not None:
        caption = table.find("caption")
        if caption is not None and _text(caption):
            return f"table “{_short(_text(caption))}”"
        return f"table {table.get('id', '').removeprefix('table-')}".strip()
    figure = el if el.name == "figure" else el.find_parent("figure")
    if figure is not None:
        return f"figure {figure.get('id', '').removeprefix('figure-')}".strip()
    kind = kind_of(el)
    text = _text(el)
    return f"{_KIND_NAMES[kind]} “{_short(text)}”" if text else _KIND_NAMES[kind]


def page_of(el: Tag) -> int | None:
    marker = el if re.fullmatch(r"page-\d+", el.get("id") or "") else None
    marker = marker or el.find_previous(id=re.compile(r"^page-\d+$"))
    return int(marker["id"][5:]) if marker is not None else None


def where(el: Tag) -> str:
    """'page 2, table “Opening hours”'."""
    page = page_of(el)
    return f"page {page}, {name_of(el)}" if page else name_of(el)


def fingerprint(block: Tag) -> str:
    """A short hash of a block's markup: an edit names the block it was shown, and is refused
    when the block changed since (another edit, another person)."""
    return hashlib.sha256(str(block).encode("utf-8")).hexdigest()[:16]


def blocks_of(nodes: list) -> list[Tag]:
    """The blocks of a page: its top-level elements, in order (text between them is spacing)."""
    return [n for n in nodes if isinstance(n, Tag)]


@dataclass
class BlockView:
    """One block as the editor shows it."""

    index: int
    kind: str
    name: str
    preview: str
    fingerprint: str
    level: int = 0  # a heading's level; 0 for a paragraph
    header_row: bool = False
    row_headers: bool = False
    caption: str = ""
    figure_id: str = ""
    joinable: bool = False  # a paragraph followed by another one
    label: str = ""  # "Heading level 2", "Paragraph", "Table 1"


def describe(blocks: list[Tag]) -> list[BlockView]:
    out = []
    for i, block in enumerate(blocks):
        kind = kind_of(block)
        view = BlockView(
            index=i,
            kind=kind,
            name=name_of(block),
            preview=_short(_text(block), PREVIEW_CHARS),
            fingerprint=fingerprint(block),
        )
        if kind == "heading":
            view.level = int(block.name[1])
        table = table_of(block)
        if table is not None:
            view.header_row = _first_row_is_header(table)
            view.row_headers = _body_rows_have_row_headers(table)
            caption = table.find("caption")
            view.caption = _text(caption) if caption is not None else ""
        if kind == "figure":
            view.figure_id = block.get("id", "")
        view.label = _label(block, kind, view.level)
        view.joinable = (
            kind == "paragraph" and i + 1 < len(blocks) and kind_of(blocks[i + 1]) == "paragraph"
        )
        out.append(view)
    return out


def _label(block: Tag, kind: str, level: int) -> str:
    """'Heading level 2', 'Table 1', 'Figure 3', 'Paragraph'."""
    if kind == "heading":
        return f"Heading level {level}"
    table = table_of(block)
    if table is not None:
        return f"Table {(table.get('id') or '').removeprefix('table-')}".strip()
    if kind == "figure":
        return f"Figure {(block.get('id') or '').removeprefix('figure-')}".strip()
    return _KIND_NAMES[kind].capitalize()


# --- the operations -------------------------------------------------------------------------


def set_level(block: Tag, level: int | None) -> str:
    """A paragraph becomes a heading of `level`, a heading another level, or a paragraph (0)."""
    if level is None:
        raise StructureError("Choose what the block is: a paragraph or a heading's level.")
    kind = kind_of(block)
    if kind not in ("heading", "paragraph") or level not in LEVELS:
        raise StructureError("Only a heading or a paragraph can change its level.")
    before = name_of(block)
    old = int(block.name[1]) if kind == "heading" else 0
    if old == level:
        return ""
    block.name = f"h{level}" if level else "p"
    if not level and (block.get("id") or "").startswith("h-"):
        del block["id"]  # a heading's id; the table of contents is rebuilt without it
    return f"{before}: {_level_name(old)} → {_level_name(level)}"


def _level_name(level: int) -> str:
    return f"heading level {level}" if level else "paragraph"


def _rows(table: Tag) -> list[Tag]:
    return [tr for tr in table.find_all("tr") if tr.find_parent("table") is table]


def _cells(tr: Tag) -> list[Tag]:
    return tr.find_all(["td", "th"], recursive=False)


def _first_row_is_header(table: Tag) -> bool:
    rows = _rows(table)
    return bool(rows) and all(c.name == "th" for c in _cells(rows[0]) if _text(c))


def _body_rows_have_row_headers(table: Tag) -> bool:
    body = [tr for tr in _rows(table) if tr.find_parent("thead") is None]
    firsts = [_cells(tr)[0] for tr in body if _cells(tr)]
    return bool(firsts) and all(c.name == "th" for c in firsts)


def _as(cell: Tag, name: str, scope: str | None, ident: str | None) -> None:
    cell.name = name
    for attr in ("scope", "id", "abbr"):
        cell.attrs.pop(attr, None)
    if scope:
        cell["scope"] = scope
    if ident:
        cell["id"] = ident


def set_table_headers(block: Tag, *, header_row: bool, row_headers: bool) -> str:
    """The first row as the header row (`<thead>`, column headers) or data; the first cell of
    every other row as its row header or data. A person decided: the guessed-header flag goes."""
    table = table_of(block)
    if table is None:
        raise StructureError("Only a table has header cells.")
    before = (_first_row_is_header(table), _body_rows_have_row_headers(table))
    flagged = table.get("data-review") == "headers-guessed"
    if before == (header_row, row_headers) and not flagged:
        return ""
    tid = table.get("id") or "table"
    soup = _root(block)
    rows = _rows(table)
    if not rows:
        raise StructureError("The table has no rows.")
    thead = table.find("thead")
    if header_row:
        first = rows[0]
        for col, cell in enumerate(_cells(first)):
            keep = cell.name == "th" and cell.get("scope") == "col" and cell.get("id")
            if not keep and _text(cell):
                _as(cell, "th", "col", f"{tid}-r0c{col}")
        if first.find_parent("thead") is None:
            if thead is None:
                thead = soup.new_tag("thead")
                caption = table.find("caption")
                if caption is not None:
                    caption.insert_after(thead)
                else:
                    table.insert(0, thead)
            thead.append(first.extract())
    elif thead is not None:
        body = table.find("tbody") or table
        for tr in reversed(thead.find_all("tr", recursive=False)):
            for cell in _cells(tr):
                _as(cell, "td", None, None)
            body.insert(0, tr.extract())
        thead.decompose()
    for r, tr in enumerate(tr for tr in _rows(table) if tr.find_parent("thead") is None):
        cells = _cells(tr)
        if not cells:
            continue
        cell = cells[0]
        if row_headers and _text(cell):
            if cell.name != "th" or cell.get("scope") != "row":
                _as(cell, "th", "row", f"{tid}-b{r}c0")
        elif not row_headers and cell.name == "th":
            _as(cell, "td", None, None)
    _drop_dangling_headers(table)
    if flagged:
        del table["data-review"]
    parts = [f"first row {'is the header row' if header_row else 'is data'}",
             f"first column {'holds row headers' if row_headers else 'is data'}"]  # fmt: skip
    return f"{name_of(block)}: " + "; ".join(parts)


def _drop_dangling_headers(table: Tag) -> None:
    """`headers` naming cells that are no header any more would point nowhere."""
    ids = {th["id"] for th in table.find_all("th") if th.get("id")}
    for cell in table.find_all(["td", "th"]):
        if "headers" not in cell.attrs:
            continue
        value = cell["headers"]  # a list: html.parser splits this attribute as it does class
        names = value if isinstance(value, list) else str(value).split()
        kept = [h for h in names if h in ids]
        if kept:
            cell["headers"] = " ".join(kept)
        else:
            del cell["headers"]


def set_caption(block: Tag, caption: str) -> str:
    """The table's caption (its name for everyone; the scroll box is named by it); empty
    removes it, and the box is named by the table's number."""
    table = table_of(block)
    if table is None:
        raise StructureError("Only a table has a caption.")
    caption = " ".join(caption.split())
    old = table.find("caption")
    before = _text(old) if old is not None else ""
    if before == caption:
        return ""
    tid = table.get("id") or ""
    if caption:
        if old is None:
            old = _root(block).new_tag("caption")
            table.insert(0, old)
        old.clear()
        old.append(caption)
        if tid:
            old["id"] = f"{tid}-caption"
    elif old is not None:
        old.decompose()
    if block is not table:  # the scroll box's name
        block.attrs.pop("aria-labelledby", None)
        block.attrs.pop("aria-label", None)
        if caption and tid:
            block["aria-labelledby"] = f"{tid}-caption"
        else:
            block["aria-label"] = f"Table {tid.removeprefix('table-')}".strip()
    was = f"“{_short(before)}”" if before else "none"
    now = f"“{_short(caption)}”" if caption else "none"
    return f"table {tid.removeprefix('table-')}: caption {was} → {now}"


def join_next(blocks: list[Tag], index: int) -> str:
    """A paragraph and the next one (cut by a column or a line the reader took for a break)
    become one, joined by a space; inline markup is kept."""
    if index + 1 >= len(blocks) or not all(
        kind_of(b) == "paragraph" for b in blocks[index : index + 2]
    ):
        raise StructureError("Only a paragraph followed by another paragraph can be joined.")
    first, second = blocks[index], blocks[index + 1]
    name = name_of(first)
    _strip_end(first)
    first.append(" ")
    into = first
    lang = _lang_of(second)
    if lang and lang != _lang_of(first):
        # The second paragraph's language stays on its words.
        into = _root(first).new_tag("span", attrs={"lang": lang})
        first.append(into)
    for child in list(second.contents):
        into.append(child.extract())
    second.decompose()
    return f"{name} joined with the next paragraph"


def _lang_of(el: Tag) -> str:
    """The language an element is in: its own lang, or its nearest ancestor's."""
    node: Tag | None = el
    while node is not None:
        if node.get("lang"):
            return str(node["lang"])
        node = node.parent
    return ""


def _strip_end(tag: Tag) -> None:
    strings = [s for s in tag.find_all(string=True)]
    if strings and isinstance(strings[-1], NavigableString):
        strings[-1].replace_with(strings[-1].rstrip())


def split_before(block: Tag, words: str) -> str:
    """Split a paragraph before the first place its text reads `words` (spacing ignored); both
    halves keep their inline markup."""
    if kind_of(block) != "paragraph":
        raise StructureError("Only a paragraph can be split.")
    wanted = " ".join(words.split())
    if not wanted:
        raise StructureError("Write the words the new paragraph starts with.")
    raw = "".join(str(s) for s in block.find_all(string=True))
    flat, where_in_raw = [], []
    for i, ch in enumerate(raw):
        if ch.isspace():
            if flat and flat[-1] == " ":
                continue
            ch = " "
        flat.append(ch)
        where_in_raw.append(i)
    text = "".join(flat)
    at = text.find(wanted)
    if at < 0:
        raise StructureError(f"The paragraph does not contain “{_short(wanted)}”.")
    if not text[:at].strip():
        raise StructureError("These words start the paragraph: choose words further on.")
    offset = where_in_raw[at]
    name = name_of(block)
    second = copy.copy(block)
    _keep_text(block, 0, offset)
    _keep_text(second, offset, len(raw))
    taken = {el["id"] for el in block.find_all(id=True)} | {block.get("id")}
    for el in [second, *second.find_all(id=True)]:
        if el.get("id") in taken:
            del el["id"]
    block.insert_after(second)
    block.insert_after("\n")
    return f"{name} split before “{_short(wanted)}”"


def _keep_text(tag: Tag, start: int, end: int) -> None:
    """Keep only the characters start..end of tag's text (in its strings' order), then drop
    inline elements left empty."""
    at = 0
    for s in list(tag.find_all(string=True)):
        text = str(s)
        lo, hi = max(start - at, 0), min(end - at, len(text))
        at += len(text)
        s.replace_with(text[lo:hi] if lo < hi else "")
    for el in reversed(tag.find_all(True)):
        if el.name not in _KEEP_EMPTY and not el.find(_KEEP_EMPTY) and not el.get_text():
            el.decompose()
    strings = tag.find_all(string=True)
    if strings:
        strings[0].replace_with(str(strings[0]).lstrip())
        strings = tag.find_all(string=True)
        strings[-1].replace_with(str(strings[-1]).rstrip())


def move(blocks: list[Tag], index: int, step: int) -> str:
    """Swap a block with the one before (-1) or after (+1) it on its page."""
    other = index + step
    if step not in (-1, 1) or not 0 <= other < len(blocks):
        raise StructureError(
            "This block is already the first on its page."
            if step < 0
            else "This block is already the last on its page."
        )
    a, b = (blocks[index], blocks[other]) if step > 0 else (blocks[other], blocks[index])
    b.extract()
    a.insert_before(b)
    a.insert_before("\n")
    return f"{name_of(blocks[index])} moved {'up' if step < 0 else 'down'}"


OPS = {
    "level": lambda blocks, i, data: set_level(blocks[i], data.get("level")),
    "headers": lambda blocks, i, data: set_table_headers(
        blocks[i],
        header_row=bool(data.get("header_row")),
        row_headers=bool(data.get("row_headers")),
    ),  # fmt: skip
    "caption": lambda blocks, i, data: set_caption(blocks[i], data.get("caption") or ""),
    "join": lambda blocks, i, data: join_next(blocks, i),
    "split": lambda blocks, i, data: split_before(blocks[i], data.get("words") or ""),
    "up": lambda blocks, i, data: move(blocks, i, -1),
    "down": lambda blocks, i, data: move(blocks, i, 1),
}


def apply(op: str, blocks: list[Tag], index: int, data: dict) -> str:
    """Run edit `op` on block `index`; returns what it did, for the audit trail ("" when the
    block already was so)."""
    if op not in OPS:
        raise StructureError(f"Unknown edit {op!r}.")
    return OPS[op](blocks, index, data)


def _root(tag: Tag) -> BeautifulSoup:
    node = tag
    while node.parent is not None:
        node = node.parent
    if not isinstance(node, BeautifulSoup):
        raise StructureError("The block is not part of a document.")
    return node
