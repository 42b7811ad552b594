"""Where a finding is, in words a person can find on the page: "page 3, paragraph 2", "page 2,
the table 'Results by region'", "page 1, heading 'Introduction'" (issue 33).

A finding's `element` is a CSS selector into the output (what `check_html` writes); it stays as
data. `locate` adds beside it `location` (the words, counted from the page markers: the n-th
paragraph of its page) and `anchor` (an id in the document that shows the spot: the element's
own, else its nearest ancestor's, else its page marker's) for a link `document.html#anchor`.
"""

from __future__ import annotations

import re
from dataclasses import fields, replace

from bs4 import BeautifulSoup, Tag
from soupsieve import SelectorSyntaxError

from conversion.pipeline.accessibility.rules import parse_output
from conversion.pipeline.document import Finding
from conversion.pipeline.output_format import PAGEBREAK_ROLE_RE

WHOLE_DOCUMENT = "the whole document"
QUOTE_CHARS = 60  # of a heading's or caption's text in a location; longer ones are cut
_STEP = re.compile(r"^([a-z][a-z0-9]*)(?::nth-of-type\((\d+)\))?$")
_PAGE_ID = re.compile(r"^page-(\d+)$")
_HEADING = re.compile(r"^h[1-6]$")
# The blocks of a page by what people call them; a block of another kind is "block n".
_KINDS = {
    "p": "paragraph",
    "ul": "list",
    "ol": "list",
    "blockquote": "quotation",
    "aside": "footnote",
    "pre": "preformatted block",
}
_FINDING_FIELDS = {f.name for f in fields(Finding)}


def _quoted(el: Tag) -> str:
    text = " ".join(el.get_text(" ").split())
    return text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1].rstrip() + "…"


class _Located:
    """The output parsed once: elements by id, the page marker before each block of <main>."""

    def __init__(self, soup: BeautifulSoup) -> None:
        self.soup = soup
        self.main = self.soup.find("main")
        self.ids: dict[str, Tag] = {}
        for el in self.soup.find_all(id=True):
            self.ids.setdefault(el["id"], el)
        # Each top-level block of <main>: (its page number, its rank among blocks of its kind
        # on that page); tables, figures and formulas are counted inside their wrappers.
        self.page_of_block: dict[int, int | None] = {}
        self.rank: dict[int, int] = {}
        page: int | None = None
        counts: dict[str, int] = {}
        for block in self.main.find_all(True, recursive=False) if self.main else []:
            marker = self._marker(block)
            if marker is not None:
                page, counts = marker, {}
                self.page_of_block[id(block)] = page
                continue
            self.page_of_block[id(block)] = page
            for el in [block, *block.find_all(("table", "figure", "math"))]:
                kind = self._kind(el)
                if kind is not None and (el is block or kind in ("table", "figure", "formula")):
                    counts[kind] = counts.get(kind, 0) + 1
                    self.rank[id(el)] = counts[kind]

    @staticmethod
    def _marker(el: Tag) -> int | None:
        """The page number of a page-break marker (or a block holding one), else None."""
        for candidate in (el, el.find(attrs={"role": PAGEBREAK_ROLE_RE})):
            if isinstance(candidate, Tag) and PAGEBREAK_ROLE_RE.search(
                str(candidate.get("role") or "")
            ):
                match = _PAGE_ID.match(candidate.get("id", ""))
                return int(match.group(1)) if match else None
        return None

    @staticmethod
    def _kind(el: Tag) -> str | None:
        if el.name == "table":
            return "table"
        if el.name == "figure":
            return "figure"
        if el.name == "math" or "formula" in (el.get("class") or []):
            return "formula"
        if _HEADING.match(el.name or "") or "furniture" in (el.get("class") or []):
            return None  # named by their text, not counted
        return _KINDS.get(el.name or "", "block")

    def element(self, selector: str | None) -> Tag | None:
        """The element a finding's selector names: `#id` or the short paths `_Tree.selector`
        writes are walked directly; anything else goes to soupsieve."""
        if not selector:
            return None
        steps = [s.strip() for s in selector.split(">")]
        if steps[0].startswith("#"):
            node = self.ids.get(steps[0][1:])
            steps = steps[1:]
        else:
            node = self.soup
        for step in steps:
            match = _STEP.match(step)
            if node is None or match is None:
                return self._select(selector)
            children = node.find_all(match.group(1), recursive=False)
            nth = int(match.group(2) or 1)
            node = children[nth - 1] if len(children) >= nth else None
        return node if isinstance(node, Tag) else None

    def _select(self, selector: str) -> Tag | None:
        try:
            return self.soup.select_one(selector)
        except (SelectorSyntaxError, ValueError, NotImplementedError):
            return None

    def top_block(self, el: Tag) -> Tag | None:
        node: Tag | None = el
        while node is not None and node.parent is not self.main:
            node = node.parent
        return node

    def words(self, el: Tag, block: Tag) -> str:
        """What el is, on its page: the table, figure, heading or n-th paragraph it is in."""
        table = el if el.name == "table" else el.find_parent("table")
        if table is None and el is block:
            table = block.find("table")
        if table is not None:
            caption = table.find("caption")
            name = f"the table '{_quoted(caption)}'" if caption else None
            name = name or f"table {self.rank.get(id(table), 1)}"
            row = el if el.name == "tr" else el.find_parent("tr")
            if row is not None and el is not table:
                rows = table.find_all("tr")
                return f"{name}, row {rows.index(row) + 1}"
            return name
        figure = el if el.name == "figure" else el.find_parent("figure")
        if figure is None and el is block:
            figure = block.find("figure")
        if figure is not None:
            caption = figure.find("figcaption")
            if caption is not None and caption.get_text(strip=True):
                return f"the figure '{_quoted(caption)}'"
            return f"figure {self.rank.get(id(figure), 1)}"
        if _HEADING.match(block.name or ""):
            return f"heading '{_quoted(block)}'"
        if "furniture" in (block.get("class") or []):
            return f"the running header or footer '{_quoted(block)}'"
        kind = self._kind(block) or "block"
        words = f"{kind} {self.rank.get(id(block), 1)}"
        item = el if el.name == "li" else el.find_parent("li")
        if item is not None and block.name in ("ul", "ol"):
            items = block.find_all("li")
            words += f", item {items.index(item) + 1}"
        return words

    def anchor(self, el: Tag, page: int | None) -> str | None:
        node: Tag | None = el
        while node is not None and node is not self.main and node.name != "[document]":
            if node.get("id"):
                return node["id"]
            node = node.parent
        return f"page-{page}" if page and f"page-{page}" in self.ids else None

    def locate(self, finding: Finding) -> Finding:
        el = self.element(finding.element)
        if el is not None and self.main is not None and el is not self.main:
            block = self.top_block(el)
        else:
            block = None
        page = finding.page
        if block is not None and page is None:
            page = self.page_of_block.get(id(block))
        where = [f"page {page}"] if page else []
        if block is not None and self._marker(block) is None:
            where.append(self.words(el, block))  # type: ignore[arg-type]
        location = ", ".join(where) or WHOLE_DOCUMENT
        anchor = self.anchor(el, page) if el is not None else None
        if anchor is None and page and f"page-{page}" in self.ids:
            anchor = f"page-{page}"
        return replace(finding, location=location, anchor=anchor)


def locate(html: str | BeautifulSoup, findings: list[Finding]) -> list[Finding]:
    """The findings, each with `location` (words) and `anchor` (an id in html), in order. html:
    our output's text, or rules.parse_output's tree of it."""
    if not findings:
        return findings
    located = _Located(parse_output(html) if isinstance(html, str) else html)
    return [located.locate(f) for f in findings]


def locate_dicts(html: str, findings: list[dict]) -> list[dict]:
    """`locate` for findings as report.json holds them (a re-checked report after an edit)."""
    as_findings = [
        Finding(**{k: v for k, v in f.items() if k in _FINDING_FIELDS}) for f in findings
    ]
    return [{**f, **g.as_dict()} for f, g in zip(findings, locate(html, as_findings), strict=True)]
