"""conversion.pipeline.flow: what every path does to a reading's untrusted text."""

from __future__ import annotations

from conversion.pipeline import flow
from conversion.pipeline.rasterize import RenderedPage
from models.engine import PageReading, ReadBlock, Word, reading_to_json


def test_a_text_layer_loses_nul_characters_and_keeps_the_rest() -> None:
    """U+0000 (in a PDF's text layer, in a model's answer) reaches no output and no database:
    PostgreSQL refuses it in text and jsonb (issue 20's three-host test hit it)."""
    reading = PageReading(
        page_number=1,
        blocks=[
            ReadBlock(
                kind="paragraph",
                text="Ca\x00t",
                words=[Word(text="Ca\x00t", bbox=(1, 2, 3, 4), confidence=0.9)],
            ),
            ReadBlock(kind="table", rows=[[{"text": "\x00x", "header": True}]]),
        ],
        width=100,
        height=100,
        source="text_layer",
        raw_text="\x00",
    )
    clean = flow.text_layer(RenderedPage(dpi=300, text_reading=reading_to_json(reading)))
    assert clean is not None and "\x00" not in repr(reading_to_json(clean))
    assert clean.blocks[0].text == clean.blocks[0].words[0].text == "Cat"
    assert clean.blocks[0].words[0].bbox == (1, 2, 3, 4)
    assert clean.blocks[1].rows == [[{"text": "x", "header": True}]]
    assert clean.raw_text == ""
