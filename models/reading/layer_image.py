"""What a text-layer page's image tells the stages (models.reading.page.PageImageAccess): ink
from the page rendered, and what the text layer itself holds: formulas rebuilt from their
glyphs, ruled tables, the sizes of its words. The reader finds these lazily on its page (a
formula's glyphs, the page's rules are walked only when a region asks) and hands them here.
A text layer tells no stroke widths and prints no row rules: those stay unanswered."""

from __future__ import annotations

from collections.abc import Callable

from models.engine import BBox, Word
from models.reading.page import PageImageAccess


class LayerImage(PageImageAccess):
    def __init__(
        self,
        *,
        ink: Callable[[BBox], float],
        transcribe: Callable[[BBox], str | None],
        ruled_tables: Callable[[BBox], list[tuple[BBox, list[list[dict]]]]],
        text_size: Callable[[list[Word]], float | None],
        drawn: bool = True,
    ) -> None:
        self._ink = ink
        self._drawn = drawn
        self._transcribe = transcribe
        self._ruled_tables = ruled_tables
        self._text_size = text_size

    def ink(self, bbox: BBox) -> float:
        return self._ink(bbox)

    def transcribe(self, bbox: BBox) -> str | None:
        return self._transcribe(bbox)

    def ruled_tables(self, bbox: BBox) -> list[tuple[BBox, list[list[dict]]]]:
        return self._ruled_tables(bbox)

    def text_size(self, words: list[Word]) -> float | None:
        return self._text_size(words)

    def glyphs_drawn(self) -> bool:
        return self._drawn
