"""The page that page reading's stages take and return, and what they may ask of its image.

A stage is a plain function of a ReadingPage (and, where it looks at pixels, the page's
PageImageAccess): no stage calls back into the engine that read the words. Each reader (the OCR
engine, the text-layer reader) builds the accessor of its own page; what it cannot tell (a scan
has no glyphs to transcribe, a text layer no stroke widths) it answers with nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from models.engine import BBox, ReadBlock, Word
from models.layout import Region


@dataclass
class ReadingPage:
    """A page between two stages. Boxes are in pixels of the page's image at `dpi` (for a text
    layer: its points scaled to `dpi`), `width` and `height` the page's in the same unit."""

    blocks: list[ReadBlock]  # in reading order once a stage has placed them
    regions: list[Region]  # the layout model's regions, and those found from the words
    width: float
    height: float
    dpi: float
    source: str  # where the words came from: "ocr" or "text_layer"
    findings: list[dict] = field(default_factory=list)  # what a person should check


class PageImageAccess:
    """What the stages may ask of the page's image. A reader subclasses it and answers what it
    can; the answers here are "cannot tell", which every rule accepts."""

    def ink(self, bbox: BBox) -> float:
        """Share of dark pixels in the box (an image holds some, a blank box none)."""
        raise NotImplementedError

    def stroke(self, bbox: BBox) -> float | None:
        """Mean width of the letters' strokes in the box, in pixels (bold is wider)."""
        return None

    def text_size(self, words: list[Word]) -> float | None:
        """The size of these words' text, in pixels."""
        return None

    def transcribe(self, bbox: BBox) -> str | None:
        """The formula printed in the box, as TeX."""
        return None

    def ruled_tables(self, bbox: BBox) -> list[tuple[BBox, list[list[dict]]]]:
        """The tables ruled in the box, each its box and its rows, cells read: one for a table
        region, or each of several ruled tables the region took in whole; [] when the rules
        tell nothing (then the words decide)."""
        return []

    def row_rules(self, bbox: BBox) -> list[float]:
        """The heights of the horizontal rules printed across the box (a table's rows)."""
        return []

    def column_rules(self) -> list[BBox]:
        """The vertical rules printed on the page that are long enough to part columns."""
        return []

    def glyphs_drawn(self) -> bool:
        """The words are glyphs the file draws (a born-digital text layer), not a reading of
        ink: no ruling line was read as a "|" or a "[" in them."""
        return False
