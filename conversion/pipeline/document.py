"""The typed document tree: Document > Page > Block. The one contract between engines and HTML.

Text in the tree is plain text; it is escaped when rendered and never trusted as markup.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Literal

BlockKind = Literal[
    "heading",
    "paragraph",
    "list",
    "table",
    "figure",
    "footnote",
    "formula",
    "code",  # a listing: its one span keeps its lines and indentation
    "page_header",
    "page_footer",
]

FindingLevel = Literal["error", "warning", "needs_review"]


@dataclass
class Finding:
    code: str
    level: FindingLevel
    message: str
    page: int | None = None
    criterion: str | None = None  # WCAG success criterion, e.g. "1.1.1"
    element: str | None = None  # a CSS selector or element id in the output HTML
    # Where it is, in words ("page 3, paragraph 2") and as an id in the output that shows the
    # spot (accessibility.locate adds both).
    location: str | None = None
    anchor: str | None = None
    # UNREADABLE: the page is print (no handwriting), and the script it is printed in when
    # that is why it was not read (None: handwriting or illegible text).
    printed: bool | None = None
    script: str | None = None

    def as_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}


# Levels that leave something for a person to check: a job with any of them needs review.
OPEN_LEVELS = ("error", "needs_review")


def summarize(findings: Iterable[dict]) -> dict:
    """Counts of findings by level, as report.json's `summary` holds them."""
    levels = [f.get("level") for f in findings]
    return {
        "errors": levels.count("error"),
        "warnings": levels.count("warning"),
        "needs_review": levels.count("needs_review"),
    }


def open_findings(summary: dict | None) -> int:
    """How many findings of a summary a person still has to check (errors, items to review),
    whatever their kind: engine notes, unreadable regions and formulas count the same way."""
    summary = summary or {}
    return int(summary.get("errors") or 0) + int(summary.get("needs_review") or 0)


@dataclass
class Span:
    """A run of text. `flag` marks low-confidence words for review."""

    text: str
    low_confidence: bool = False
    lang: str | None = None
    # A footnote reference: the id of the footnote Block ("fn-3"); `text` is its marker ("3").
    note_ref: str | None = None
    script: str | None = None  # "sup" / "sub": an exponent or index set small, raised / lowered;
    # "math": an inline formula, `text` as printed and `tex` its TeX
    tex: str | None = None


@dataclass
class ListItem:
    spans: list[Span]
    children: list[ListItem] = field(default_factory=list)
    ordered_children: bool = False
    marker: str | None = None  # as printed: "4.", "b)", "iv.", "•" (render._list_html says it)


@dataclass
class Cell:
    text: str
    header: bool = False
    rowspan: int = 1
    colspan: int = 1


@dataclass
class Block:
    kind: BlockKind
    spans: list[Span] = field(default_factory=list)
    level: int | None = None  # headings
    ordered: bool = False  # lists
    items: list[ListItem] = field(default_factory=list)  # lists
    rows: list[list[Cell]] = field(default_factory=list)  # tables
    caption: str | None = None  # tables and figures
    image: str | None = None  # figures: file name relative to the document's _files folder
    alt: str | None = None  # figures
    labels: str | None = None  # figures: the text printed inside (a chart's labels), as read
    latex: str | None = None  # formulas
    lang: str | None = None  # a passage in another language than the document
    bbox: tuple[float, float, float, float] | None = None
    id: str | None = None  # footnotes: "fn-3"; referenced from the text
    page_scan: bool = False  # figures: the whole page's image, for a page not transcribed
    unread_script: str | None = None  # a page scan: the script that was not read (Finding.script)
    unread_print: bool = False  # a page scan: print that was not read (Finding.printed)
    # While assemble sets headings and their levels: a text block's size (headings rank by it),
    # and whether the layout model called the block a title. Not part of the document.
    font_key: float | None = field(default=0.0, compare=False, repr=False)
    is_title: bool = field(default=False, compare=False, repr=False)
    # a scanned block's size as its letters tell it (lowest, highest: open where an "f" may
    # descend), for heading levels
    font_range: tuple[float, float] | None = field(default=None, compare=False, repr=False)
    # set in bold (the reading's judgement), and the depth of the file's outline entry the block
    # is (bookmarks.py): heading levels weigh a heading against the outline's
    bold: bool = field(default=False, compare=False, repr=False)
    outline_level: int | None = field(default=None, compare=False, repr=False)

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.spans)


@dataclass
class Page:
    number: int
    width: int
    height: int
    blocks: list[Block] = field(default_factory=list)
    label: str | None = None  # the printed page number, when the page shows one
    source: str = "ocr"
    rotation: int = 0


@dataclass
class Document:
    title: str
    lang: str
    pages: list[Page]
    findings: list[Finding] = field(default_factory=list)

    def blocks(self):
        for page in self.pages:
            yield from page.blocks
