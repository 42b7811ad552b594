"""Paragraphs cut in pieces joined again (conversion/pipeline/paragraphs.py), through assemble."""

from __future__ import annotations

from conversion.pipeline.assemble import AssembleOptions, assemble
from models.engine import PageReading, ReadBlock

REST = ("attendance than in the previous year. Recycling rates rose after collections moved "
        "to the same day each week. The library extended its opening hours.")  # fmt: skip


def _kinds(blocks):
    doc = assemble([PageReading(page_number=1, blocks=blocks, width=2000, height=2800)],
                   AssembleOptions())  # fmt: skip
    return [(b.kind, b.text[:31]) for b in doc.pages[0].blocks]


def _text(text, bbox, size):
    return ReadBlock(kind="paragraph", text=text, bbox=bbox, font_size=size, layout="text")


def test_a_first_line_measured_large_for_its_initial_opens_its_paragraph():
    """A paragraph's first line read apart and measured large (its initial set high: 62 px
    over the body's 40): the next block goes on in lower case, so it is that paragraph's
    opening, no heading found by its size."""
    blocks = [_text("Methods", (175, 1477, 427, 1519), 58.0),
              _text("Several schools reported higher", (172, 1563, 954, 1609), 62.5),
              _text(REST, (169, 1617, 952, 1852), 40.3)]  # fmt: skip
    assert _kinds(blocks) == [("heading", "Methods"),
                              ("paragraph", "Several schools reported higher")]  # fmt: skip


def test_a_heading_over_a_sentence_that_opens_in_capitals_stays():
    blocks = [_text("Several schools reported higher", (172, 1563, 954, 1609), 62.5),
              _text("A" + REST[1:], (169, 1617, 952, 1852), 40.3)]  # fmt: skip
    assert [kind for kind, _ in _kinds(blocks)] == ["heading", "paragraph"]
