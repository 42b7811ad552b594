"""A floor under every page (models.reading.floor): the structured page against its plain
reading (Tesseract's own lines, or the text layer's words). Shares are of words; confidences
Tesseract's (0-100; a text layer's words are 100)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FloorParams:
    restore_below_recall_share: float = 0.98  # a page keeping less of the plain words is mended
    lost_line_share: float = 0.5  # a plain line with less of its words in ours was lost
    scrap_letters: int = 2  # a restored line holds a word of at least this many letters
    scrap_confidence_gap: float = 30  # ...read no more than this far below the page's median
    scrap_confidence_floor: float = 40  # ...and at least this confident on its own
    page_figure_share: float = 0.5  # a figure over this share of the page is no figure's text
    twin_overlap_share: float = 0.5  # a layer line drawn again over this share of an equal one
    unreadable_keep_confidence: float = 80  # a handwritten page keeps lines read this surely
    restored_quote_chars: int = 120  # the restored text quoted in the finding, at most (chars)
    restored_route_words: int = 3  # restored words that route the page to review (fewer: warn)


FLOOR = FloorParams()
