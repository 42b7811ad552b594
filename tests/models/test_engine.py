"""models.engine: a reading as JSON, the form it travels in (reader child -> parent, the site's
Page.reading)."""

from __future__ import annotations

import json

from models.engine import PageReading, ReadBlock, Word, reading_from_json, reading_to_json


def _reading() -> PageReading:
    figure = ReadBlock(kind="figure", bbox=(0.0, 0.0, 50.0, 40.0))
    figure.order = (0, 0)
    figure.illegible_text = True
    text = ReadBlock(
        kind="paragraph",
        text="Cat",
        bbox=(0.0, 50.0, 30.0, 60.0),
        words=[Word(text="Cat", bbox=(0.0, 50.0, 30.0, 60.0), confidence=90.0)],
    )
    text.order = (1, 0)
    return PageReading(page_number=1, blocks=[figure, text], width=100, height=100)


def test_a_readings_json_leaves_out_what_only_the_reading_steps_use() -> None:
    """A block's order before the reading order and a figure's illegible words steer the
    engine's steps; the JSON keeps the blocks' fields as they were before those were declared."""
    data = reading_to_json(_reading())
    assert all("order" not in b and "illegible_text" not in b for b in data["blocks"])
    assert reading_to_json(reading_from_json(json.loads(json.dumps(data)))) == data


def test_the_reading_steps_fields_leave_a_blocks_equality_as_it_was() -> None:
    first, second = _reading().blocks[1], _reading().blocks[1]
    second.order = (7,)
    assert first == second
