"""Findings as a reviewer reads them: a sentence that names the thing on the page ("Figure 3 on
page 2 has no description", "Paragraph 8 on page 1 is uncertain: 'corporate'"), never a CSS
selector; grouped by kind, worst kinds first, each with its count.

The report stores where a finding is as a selector into the output HTML (check_html writes it);
this module resolves it against the document and names the block it falls in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bs4 import BeautifulSoup, Tag
from soupsieve import SelectorSyntaxError

LEVEL_ORDER = {"error": 0, "needs_review": 1, "warning": 2}
LEVEL_LABELS = {"error": "Error", "needs_review": "To review", "warning": "Warning"}
# The heading of each group of findings, by code; other codes are named from their code.
GROUP_TITLES = {
    "FIGURE_ALT_REVIEW": "Figures without a description",
    "FIGURE_ALT_EMPTY": "Figures marked decorative",
    "FIGURE_IMAGE_MISSING": "Figures whose image is missing",
    "LOW_CONFIDENCE": "Uncertain text",
    "TABLE_HEADERS_GUESSED": "Tables with guessed header rows",
    "FORMULA_UNPARSED": "Formulas not turned into MathML",
    "BLANK_PAGE": "Pages where no text was found",
    "HEADING_SKIP": "Skipped heading levels",
    "EMPTY_BLOCK": "Empty blocks",
    "READING_ORDER": "Reading order to check",
    "TEXT_AS_IMAGE": "Text inside images",
    "UNREADABLE": "Handwriting, illegible text or a script not read: pages not transcribed",
    "FORMULA_NOT_TRANSCRIBED": "Formulas not transcribed",
    "LINES_NOT_READ": "Lines not read (a script, signs or handwriting): not in the text",
}
_BLOCK_NAMES = {
    "p": "Paragraph",
    "ul": "List",
    "ol": "List",
    "aside": "Footnote",
    "blockquote": "Quotation",
    "math": "Formula",
}
_QUOTED = re.compile(r"""['"“‘](.+)['"”’]\.?$""")


@dataclass
class Item:
    text: str
    level: str
    criterion: str = ""
    frame_anchor: str = ""  # "#figure-3": the element in the page frame
    alt_form: str = ""  # "alt-figure-3": the alt-text field on the review page
    element: str = ""  # the check's selector: the review page shows that spot in its frame


@dataclass
class Group:
    code: str
    title: str
    level: str
    items: list[Item] = field(default_factory=list)

    @property
    def level_label(self) -> str:
        return LEVEL_LABELS.get(self.level, self.level)


def group_title(code: str) -> str:
    return GROUP_TITLES.get(code) or code.replace("_", " ").capitalize()


class _Document:
    """The output document, to name the block a selector points into."""

    def __init__(self, html: str) -> None:
        self.soup = BeautifulSoup(html, "html.parser")
        self.main = self.soup.find("main")

    def element(self, selector: str | None) -> Tag | None:
        if not selector or self.main is None:
            return None
        try:
            return self.soup.select_one(selector)
        except (SelectorSyntaxError, ValueError, NotImplementedError):
            return None

    def top_block(self, el: Tag) -> Tag | None:
        node = el
        while node is not None and node.parent is not self.main:
            node = node.parent
        return node

    def page_of(self, block: Tag) -> int | None:
        marker = block.find_previous(id=re.compile(r"^page-\d+$"))
        return int(marker["id"][5:]) if marker is not None else None

    def name(self, el: Tag) -> tuple[str, str]:
        """('Figure 3', '#figure-3') or ('Paragraph 8', '') for an element's block; the number of
        a paragraph or list counts from the start of its page."""
        figure = el if el.name == "figure" else el.find_parent("figure")
        if figure is not None and figure.get("id", "").startswith("figure-"):
            return f"Figure {figure['id'][7:]}", f"#{figure['id']}"
        table = el if el.name == "table" else el.find_parent("table")
        if table is None and el.name == "div":
            table = el.find("table")
        if table is not None and table.get("id", "").startswith("table-"):
            return f"Table {table['id'][6:]}", f"#{table['id']}"
        block = self.top_block(el)
        if block is None:
            return "", ""
        if re.fullmatch(r"h[1-6]", block.name or ""):
            text = " ".join(block.get_text(" ").split())[:60]
            return f"Heading “{text}”", f"#{block['id']}" if block.get("id") else ""
        kind = _BLOCK_NAMES.get(block.name or "", "Block")
        rank = 1
        for sibling in block.previous_siblings:
            if not isinstance(sibling, Tag):
                continue
            if re.fullmatch(r"page-\d+", sibling.get("id", "")):
                break
            if _BLOCK_NAMES.get(sibling.name or "", "Block") == kind:
                rank += 1
        return f"{kind} {rank}", f"#{block['id']}" if block.get("id") else ""


def _sentence(code: str, message: str, where: str, el: Tag | None) -> str:
    if code == "FIGURE_ALT_REVIEW":
        return f"{where} has no description"
    if code == "FIGURE_ALT_EMPTY":
        return f"{where} is marked decorative: confirm it carries no information"
    if code == "FIGURE_IMAGE_MISSING":
        return f"{where}: its image could not be cut from the scan"
    if code == "LOW_CONFIDENCE":
        if el is not None:
            words = " ".join(el.get_text(" ").split())[:80]
        else:
            quoted = _QUOTED.search(message)
            words = quoted.group(1) if quoted else ""
        return f"{where} is uncertain: “{words}”" if words else f"{where} is uncertain"
    if code == "TABLE_HEADERS_GUESSED":
        return f"{where}: no header cells were read, the first row was taken as the header"
    if code == "FORMULA_UNPARSED":
        return f"{where} could not be turned into MathML"
    return f"{where}: {message}" if where else message


def present(*, html: str | None, findings: list[dict]) -> list[Group]:
    """Findings in groups by code (worst level first, then the largest group), each item a
    sentence that names what it is about."""
    doc = _Document(html) if html else None
    groups: dict[str, Group] = {}
    for f in findings:
        code = str(f.get("code") or "FINDING")
        level = str(f.get("level") or "warning")
        el = doc.element(f.get("element")) if doc is not None else None
        thing, anchor = doc.name(el) if doc is not None and el is not None else ("", "")
        if el is not None and el.get("id") and not anchor:
            anchor = f"#{el['id']}"  # uncertain words carry their own id (uncertain-3)
        page = f.get("page") or (doc.page_of(el) if doc is not None and el is not None else None)
        where = (
            f"{thing} on page {page}"
            if thing and page
            else thing or (f"Page {page}" if page else "")
        )
        item = Item(
            text=_sentence(code, str(f.get("message") or ""), where, el),
            level=level,
            criterion=str(f.get("criterion") or ""),
            frame_anchor=anchor,
            alt_form=f"alt-{anchor[1:]}" if code.startswith("FIGURE_") and anchor else "",
            element=str(f.get("element") or "") if el is not None else "",
        )
        group = groups.setdefault(code, Group(code=code, title=group_title(code), level=level))
        if LEVEL_ORDER.get(level, 3) < LEVEL_ORDER.get(group.level, 3):
            group.level = level
        group.items.append(item)
    return sorted(
        groups.values(), key=lambda g: (LEVEL_ORDER.get(g.level, 3), -len(g.items), g.title)
    )
