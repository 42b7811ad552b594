"""Markdown and the HTML tables in an answer -> ReadBlocks of plain text.

Model text is untrusted data: Markdown is parsed with markdown-it-py with raw HTML off (any
markup the model writes stays literal text), tables are read with BeautifulSoup into plain-text
cells, and nothing from the answer is ever emitted as markup. Inline `$...$` math is kept
verbatim (emphasis rules would eat its `_` and `*`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from models.engine import ReadBlock
from models.gemma.parse.findings import MALFORMED, finding

_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)([^$\n]+?)(?<!\\)\$")
_FORMATTING = {
    "b", "strong", "i", "em", "u", "sup", "sub", "span", "small", "big", "mark", "code", "a",
    "font", "s", "del", "ins", "abbr", "p", "div",
}  # fmt: skip
_MAX_SPAN = 100


@lru_cache(maxsize=1)
def _md() -> Any:
    from markdown_it import MarkdownIt

    # Raw HTML off: whatever markup the model writes stays literal text. Indented code off: a
    # stray 4-space indent is still a paragraph. GFM tables on: models write them anyway.
    return MarkdownIt("commonmark", {"html": False}).enable("table").disable("code")


def _protect_math(src: str) -> tuple[str, list[str]]:
    """Inline $...$ is kept verbatim (emphasis rules would eat its _ and *)."""
    kept: list[str] = []

    def sub(m: re.Match[str]) -> str:
        kept.append(m.group(0))
        return f"\ue000{len(kept) - 1}\ue001"

    return _INLINE_MATH.sub(sub, src), kept


def _restore_math(text: str, kept: list[str]) -> str:
    if not kept:
        return text
    return re.sub(r"\ue000(\d+)\ue001", lambda m: kept[int(m.group(1))], text)


def inline_text(src: str) -> str:
    """Markdown inline source -> plain text (emphasis dropped, entities decoded, markup literal)."""
    src, kept = _protect_math(src)
    tokens = _md().parseInline(src)
    text = _children_text(tokens[0].children or []) if tokens else ""
    return _restore_math(_squash(text), kept)


def _children_text(children: list[Any]) -> str:
    out: list[str] = []
    for c in children:
        if c.type in ("text", "code_inline", "html_inline"):
            out.append(c.content)
        elif c.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif c.type == "image":
            out.append(_children_text(c.children or []))
    return "".join(out)


def _squash(text: str) -> str:
    return " ".join(text.split())


def markdown_blocks(src: str, *, width: int, height: int) -> list[ReadBlock]:
    src, kept = _protect_math(src)
    tokens = _md().parse(src)
    out: list[ReadBlock] = []
    lists: list[dict[str, Any]] = []  # open lists, outermost first
    items: list[ReadBlock] = []  # open list items

    def text_of(tok: Any) -> str:
        return _restore_math(_squash(_children_text(tok.children or [])), kept)

    def add_text(text: str) -> None:
        if not text:
            return
        if items:
            item = items[-1]
            item.text = f"{item.text} {text}".strip()
        else:
            out.append(ReadBlock(kind="paragraph", text=text))

    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type == "heading_open":
            text = text_of(tokens[i + 1])
            if items:
                add_text(text)
            elif text:
                out.append(ReadBlock(kind="heading", text=text, level=int(t.tag[1])))
            i += 3
            continue
        if t.type in ("bullet_list_open", "ordered_list_open"):
            lists.append({"ordered": t.type == "ordered_list_open"})
        elif t.type in ("bullet_list_close", "ordered_list_close"):
            if lists:
                lists.pop()
        elif t.type == "list_item_open":
            ordered = bool(lists and lists[-1]["ordered"])
            marker = f"{t.info}{t.markup}" if ordered and t.info else ("" if ordered else "•")
            item = ReadBlock(
                kind="list_item", level=max(1, len(lists)), ordered=ordered, marker=marker or None
            )
            items.append(item)
            out.append(item)
        elif t.type == "list_item_close":
            if items:
                items.pop()
        elif t.type == "paragraph_open":
            inline = tokens[i + 1]
            add_text(text_of(inline))
            i += 3
            continue
        elif t.type in ("fence", "code_block"):
            content = _restore_math(t.content.strip(), kept)
            if t.info.strip().lower() in ("math", "latex", "tex") and not items:
                out.append(ReadBlock(kind="formula", latex=content, text=content))
            elif not items and content:
                # A listing keeps its lines and their indentation (only blank lines around it go).
                listing = _restore_math(t.content.strip("\n").rstrip(), kept)
                out.append(ReadBlock(kind="code", text=listing))
            else:
                for para in re.split(r"\n\s*\n", content):
                    add_text(_squash(para))
        elif t.type == "table_open":
            j = i
            rows: list[list[dict[str, Any]]] = []
            while j < len(tokens) and tokens[j].type != "table_close":
                tj = tokens[j]
                if tj.type == "tr_open":
                    rows.append([])
                elif tj.type in ("th_open", "td_open") and rows:
                    rows[-1].append(
                        _cell(text_of(tokens[j + 1]), header=tj.type == "th_open", rs=1, cs=1)
                    )
                j += 1
            out.append(ReadBlock(kind="table", rows=rows))
            i = j + 1
            continue
        i += 1
    return out


def _cell(text: str, *, header: bool, rs: int, cs: int) -> dict[str, Any]:
    return {"text": text, "header": header, "rowspan": rs, "colspan": cs}


def _span_value(v: Any) -> int:
    m = re.match(r"\s*(\d+)", str(v or ""))
    return min(max(int(m.group(1)), 1), _MAX_SPAN) if m else 1


def _cell_text(el: Any) -> str:
    """A cell's text. Formatting tags are dropped; any other markup stays as literal text."""
    from bs4 import NavigableString, Tag
    from bs4.element import Comment

    out: list[str] = []
    for child in el.children:
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString):
            out.append(str(child))
        elif isinstance(child, Tag):
            if child.name == "br":
                out.append(" ")
            elif child.name in _FORMATTING:
                out.append(_cell_text(child) + (" " if child.name in ("p", "div") else ""))
            else:
                out.append(str(child))
    return "".join(out)


def html_table(src: str, findings: list[dict[str, str]]) -> ReadBlock:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(src, "html.parser")
    table = soup.find("table")
    rows: list[list[dict[str, Any]]] = []
    caption = ""
    if table is not None:
        cap = table.find("caption")
        if cap is not None:
            caption = _squash(_cell_text(cap))
        for tr in table.find_all("tr"):
            if tr.find_parent("table") is not table:
                continue  # a nested table's rows: its text stays in the outer cell
            head = tr.find_parent("thead") is not None
            cells = [
                _cell(
                    _squash(_cell_text(c)),
                    header=head or c.name == "th",
                    rs=_span_value(c.get("rowspan")),
                    cs=_span_value(c.get("colspan")),
                )
                for c in tr.find_all(["td", "th"], recursive=False)
            ]
            if cells:
                rows.append(cells)
    if not rows:  # nothing table-like: the text as a paragraph
        findings.append(finding(MALFORMED, "warning", "A table had no readable rows."))
        text = _squash(soup.get_text(" ")) if table is not None else _squash(src)
        return ReadBlock(kind="paragraph", text=text)
    return ReadBlock(kind="table", rows=rows, text=caption)


__all__ = ["html_table", "inline_text", "markdown_blocks"]
