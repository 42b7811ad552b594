"""The one contract between page engines and the rest of Axiya.

An engine turns page images into `PageReading`s: typed blocks in reading order. Engines implement
`predict_batch` (and describe themselves); loading is lazy and happens once per process (see
`conversion.engines`). An engine that overlaps batches is also a `StreamingEngine`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Literal, Protocol, runtime_checkable

from PIL import Image

BlockKind = Literal[
    "heading",
    "paragraph",
    "list_item",
    "table",
    "figure",
    "caption",
    "footnote",
    "formula",
    "code",  # a listing set in a monospaced font: `text` keeps its lines and indentation
    "page_header",
    "page_footer",
    "page_number",
]

# A printed page number as a `page_number` block holds it ("12", "iv", "Page 3 of 9"): what an
# engine may call a page number and what the assembler takes as the page's label.
PAGE_NUMBER = re.compile(
    r"^(?:page\s+)?(\d{1,4}|[ivxlcdm]{1,6})(?:\s*(?:/|of)\s*\d{1,4})?$", re.IGNORECASE
)

# (x0, y0, x1, y1) in pixels of the page image the engine was given.
BBox = tuple[float, float, float, float]


@dataclass(frozen=True)
class PageImage:
    """One rasterized page, as handed to an engine."""

    image: Image.Image
    page_number: int  # 1-based
    dpi: int
    # Drawn from fonts and vector paths, no raster image in it (a born-digital page whose text
    # layer could not be used): what cannot be read on it is print, never handwriting.
    drawn: bool = False


@dataclass
class Word:
    text: str
    confidence: float  # 0..100; 100 when the engine gives none
    bbox: BBox | None = None
    lang: str | None = None  # BCP 47, when the word's line is in another language than the page
    known: bool | None = None  # a dictionary word, when the engine can tell (Tesseract)
    # Characters set as exponents or indices ("t3" with a raised, smaller "3"), born-digital
    # text: [start, end, "sup" | "sub"] runs within `text`; an inline formula's words are one
    # word with a run [start, end, "math", TeX] over the formula.
    script: list | None = None


@dataclass
class ReadBlock:
    """One block an engine read. `text` is plain text: never markup anyone trusts."""

    kind: BlockKind
    text: str = ""
    bbox: BBox | None = None
    level: int | None = None  # headings: 1..6 as the engine saw it; lists: nesting depth 1..
    ordered: bool = False  # list items
    marker: str | None = None  # list items: "1.", "a)", "•"
    # Tables: rows of cells; each cell {"text", "header": bool, "rowspan", "colspan"}.
    rows: list[list[dict]] | None = None
    alt: str | None = None  # figures: a description fit for a blind reader, if the engine gave one
    latex: str | None = None  # formulas
    lang: str | None = None  # BCP 47, when this block differs from the page language
    words: list[Word] = field(default_factory=list)
    font_size: float | None = None  # median text height in px, for heading levels across pages
    bold: bool = False
    ink: float | None = None  # share of dark pixels in the text's box: bold text scores higher
    stroke: float | None = None  # OCR: mean width in px of its letters' strokes (bold is wider)
    layout: str | None = None  # the layout model's class of the block's region ("title", ...)
    # For the reading steps only, never in a reading's JSON (reading_to_json): the block's place
    # in the engine's order until the reading order is decided; a figure whose words Tesseract
    # found but could not read (the page is then unreadable); a list item's marker as a word
    # (markers.take_marker), which a region taking the block's words takes with them.
    order: tuple = field(default=(), compare=False, repr=False)
    illegible_text: bool = field(default=False, compare=False, repr=False)
    marker_word: Word | None = field(default=None, compare=False, repr=False)


# ReadBlock's fields of the reading steps, left out of a reading's JSON.
_STEP_FIELDS = ("order", "illegible_text", "marker_word")


@dataclass
class PageReading:
    """What an engine read on one page, in reading order."""

    page_number: int
    blocks: list[ReadBlock]
    width: int
    height: int
    language: str | None = None  # BCP 47 primary language, if detected
    rotation: int = 0  # degrees clockwise the page image was rotated before reading (0/90/180/270)
    skew: float = 0.0  # then straightened by this many degrees counter-clockwise (deskew)
    source: Literal["ocr", "text_layer", "model"] = "ocr"
    findings: list[dict] = field(default_factory=list)  # engine-level notes ({"code", "message"})
    raw_text: str | None = None  # the model's raw answer, kept for review; untrusted
    timings: dict[str, float] = field(default_factory=dict)
    # The PDF's own outline (bookmarks) entries that point at this page: (depth from 1, title),
    # as the file says; untrusted (a heading's evidence, matched against the page's text).
    outline: list[tuple[int, str]] = field(default_factory=list)


def reading_to_json(reading: PageReading) -> dict:
    data = asdict(reading)
    for block in data["blocks"]:
        for name in _STEP_FIELDS:
            del block[name]
    return data


def reading_from_json(data: dict) -> PageReading:
    blocks = []
    for raw in data.get("blocks", []):
        raw = dict(raw)
        raw["words"] = [Word(**w) for w in raw.get("words", [])]
        for key in ("bbox",):
            if raw.get(key) is not None:
                raw[key] = tuple(raw[key])
        for w in raw["words"]:
            if w.bbox is not None:
                w.bbox = tuple(w.bbox)
        blocks.append(ReadBlock(**raw))
    fields = {k: v for k, v in data.items() if k != "blocks"}
    fields["outline"] = [(int(level), str(title)) for level, title in fields.get("outline", [])]
    return PageReading(blocks=blocks, **fields)


@runtime_checkable
class PageEngine(Protocol):
    """A page engine. `name` is recorded on each job; `package` names the model package, if any."""

    name: str

    def predict_batch(self, pages: list[PageImage]) -> list[PageReading]: ...

    def describe(self) -> dict:
        """{"engine": name, "package": ..., "sha256": ..., ...} recorded on the job."""
        ...


@runtime_checkable
class StreamingEngine(PageEngine, Protocol):
    """A PageEngine that reads a stream of batches, working on the next batch while it finishes
    this one (the gemma engine); any other engine is read batch by batch (flow.read_stream)."""

    continuous: bool  # takes pages as its rows free up: a worker keeps its first claim size

    def predict_stream(self, batches: Iterable[list[PageImage]]) -> Iterator[list[PageReading]]:
        """One reading list per batch, in order."""
        ...

    def warm_up(self) -> None:
        """Run once when a worker starts, so that its first real page does not pay for the
        device's kernel selection and graph capture."""
        ...
