"""Tesseract's page, through its iterator: the line boxes of a layout, image blocks, and the
paragraphs of lines of words of a read (models.reading.scan_lines' Line, ParaLines)."""

from __future__ import annotations

from models.engine import ReadBlock, Word
from models.reading.scan_lines import Line, ParaLines, has_words, keep_lines


def as_floats(bbox) -> tuple[float, float, float, float]:
    return tuple(float(v) for v in bbox)  # type: ignore[return-value]


def line_boxes(tess, layout) -> list[tuple[int, int, int, int]]:
    """The text lines' boxes of a page layout (AnalyseLayout: nothing recognized yet)."""
    if layout is None:
        return []
    boxes = [
        line.BoundingBox(tess.RIL.TEXTLINE)
        for line in tess.iterate_level(layout, tess.RIL.TEXTLINE)
    ]
    return [b for b in boxes if b]


def figure_blocks(tess, iterator) -> list[ReadBlock]:
    """Image regions of a page's layout or read (Tesseract's iterator over either), with their
    place in the block order."""
    ril = tess.RIL
    figures = []
    image_types = (tess.PT.FLOWING_IMAGE, tess.PT.HEADING_IMAGE, tess.PT.PULLOUT_IMAGE)
    if iterator is None:
        return figures
    iterator.Begin()  # a layout's iterator may have been walked already
    for order, block in enumerate(tess.iterate_level(iterator, ril.BLOCK)):
        if block.BlockType() in image_types:
            bbox = block.BoundingBox(ril.BLOCK)
            if bbox:
                figure = ReadBlock(kind="figure", bbox=as_floats(bbox))
                figure.order = (order, 0)
                figures.append(figure)
    return figures


def read_paragraphs(tess, api, dpi: int = 300) -> list[list[Line]]:
    """One pass over every word: paragraphs of lines of words, in Tesseract's reading order."""
    return keep_lines(page_lines(tess, api.GetIterator(), dpi), has_words)


def page_lines(tess, it, dpi: int, *, read: bool = True) -> list[ParaLines]:
    """The paragraphs and lines of a read page, with their words; or (`read` False) of a page's
    layout, every line without words yet."""
    ril = tess.RIL
    paragraphs: list[ParaLines] = []
    if it is None:
        return []
    it.Begin()  # a layout's iterator may have been walked already
    if it.Empty(ril.BLOCK):
        return []  # a blank page: nothing to read, nothing invented
    block_index = -1
    while True:
        if it.IsAtBeginningOf(ril.BLOCK):
            block_index += 1
        if it.IsAtBeginningOf(ril.PARA) or not paragraphs:
            paragraphs.append(ParaLines())
            paragraphs[-1].order = (block_index, len(paragraphs))
        if it.IsAtBeginningOf(ril.TEXTLINE) or not paragraphs[-1]:
            bbox = it.BoundingBox(ril.TEXTLINE)
            paragraphs[-1].append(Line([], bbox, 0.0))
            if read:
                # Tesseract's size of the line's text (from its x-height, in points at the
                # source resolution): steadier than the line's box, which grows with ascenders.
                attributes = it.WordFontAttributes() or {}
                paragraphs[-1][-1].size = float(attributes.get("pointsize") or 0) * dpi / 72
        text = ""
        if read:
            try:
                text = it.GetUTF8Text(ril.WORD)
            except RuntimeError:  # an empty element
                pass
        if text and text.strip():
            paragraphs[-1][-1].words.append(
                Word(
                    text=text.strip(),
                    confidence=float(it.Confidence(ril.WORD)),
                    bbox=as_floats(it.BoundingBox(ril.WORD)),
                    known=bool(it.WordIsFromDictionary()),
                )
            )
        if not it.Next(ril.WORD):
            break
    return paragraphs


def is_upright_strip(box) -> bool:
    x0, y0, x1, y1 = box
    return y1 - y0 > 1.5 * (x1 - x0)


def runs_sideways(boxes) -> bool:
    """Most text lines of the page's layout are upright strips: the page lies on its side."""
    return sum(1 for b in boxes if is_upright_strip(b)) > len(boxes) / 2
