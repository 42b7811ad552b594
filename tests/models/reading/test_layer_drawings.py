"""A born-digital page's vector drawings with slanted strokes are pictures; a page of too many
paths is not looked through."""

from __future__ import annotations

import dataclasses

import pymupdf

from models.reading.layer_drawings import with_drawings
from models.reading.params.text_layer import TEXT_LAYER


def _text_blocks(page):
    return [b for b in page.get_text("dict")["blocks"] if b["type"] == 0]


def test_a_page_of_too_many_paths_is_not_looked_through_for_drawings():
    """A map or a plot of many thousand markers keeps what the layout model saw: clustering its
    paths would cost seconds for a figure the model may have found already."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for a, b in [((200, 160), (300, 260)), ((300, 160), (200, 260))] * 6:
        page.draw_line(a, b)
    found = with_drawings(page, [], _text_blocks(page), scale=1.0)
    assert [r.kind for r in found] == ["drawing"]
    few = dataclasses.replace(TEXT_LAYER, max_drawings=5)
    assert with_drawings(page, [], _text_blocks(page), scale=1.0, params=few) == []
