"""models/reading/markers.py: a list item's marker said apart from its text, and given back to a
numbered title."""

from __future__ import annotations

from models.engine import ReadBlock, Word
from models.reading.markers import LIST_MARKER, number_the_title, take_marker


def _block(*texts: str) -> ReadBlock:
    words = [Word(text=t, confidence=90, bbox=(10.0 * i, 0.0, 10.0 * i + 8, 10.0))
             for i, t in enumerate(texts)]  # fmt: skip
    return ReadBlock(kind="paragraph", text=" ".join(texts), words=words)


def test_the_marker_read_as_a_word_is_kept_aside_and_a_title_takes_it_back():
    """ "1. Introduction": the item's number is its own word, kept aside with its box; a title
    given its number back gets that word, box and all."""
    block = _block("1.", "Introduction")
    take_marker(block, LIST_MARKER.match(block.text))
    assert (block.marker, block.text, [w.text for w in block.words]) == (
        "1.", "Introduction", ["Introduction"])  # fmt: skip
    number_the_title(block, full_confidence=100)
    assert [(w.text, w.bbox) for w in block.words] == [
        ("1.", (0.0, 0.0, 8.0, 10.0)), ("Introduction", (10.0, 0.0, 18.0, 10.0))]  # fmt: skip
    assert block.text == "1. Introduction" and block.marker is None


def test_a_bullet_glued_to_its_first_word_leaves_the_word_with_the_text():
    """ "•Text and more": the bullet is no word of its own; the word "•Text" stays with the
    item's words (taking it aside took "Text" out of them)."""
    block = _block("•Text", "and", "more")
    take_marker(block, LIST_MARKER.match(block.text))
    assert block.marker == "•" and block.text == "Text and more"
    assert [w.text for w in block.words] == ["•Text", "and", "more"]
    assert block.marker_word is None
