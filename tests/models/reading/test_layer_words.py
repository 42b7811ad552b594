"""Each word of a text layer keeps its own text size, read from its glyphs."""

from __future__ import annotations

import pymupdf

from models.reading.layer_words import word_styles


def test_each_word_has_its_own_size_even_in_a_block_with_its_paragraph(tmp_path):
    """A section heading MuPDF puts in one block with the paragraph under it: the heading's
    words keep their own size (the block's median is the body's), so a heading cut out of the
    block by the layout has the size of its section level on every page."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "4.3. Human activity detection", fontsize=10.96, fontname="hebo")
    for k in range(6):
        page.insert_text((72, 114 + 12 * k), "body text of the section goes on here", fontsize=9.96)
    doc.save(tmp_path / "mixed.pdf")
    page = pymupdf.open(tmp_path / "mixed.pdf")[0]
    _, sizes = word_styles(page)
    by_text = {w[4]: sizes.get(tuple(w[5:8])) for w in page.get_text("words")}
    assert round(by_text["Human"], 2) == 10.96
    assert round(by_text["body"], 2) == 9.96
