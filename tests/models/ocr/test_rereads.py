"""A picture's words read again as text (models.ocr.rereads.illegible_text): handwriting that
Tesseract cannot read is told from faded typescript by how many of its words read surely."""

from __future__ import annotations

from models.engine import Word
from models.ocr.rereads import illegible_text


def _words(n: int, sure_share: float, known_share: float = 0.5) -> list[Word]:
    """n words of letters, the first sure_share of them read surely (confidence 90, else 40),
    the first known_share of them dictionary words."""
    sure = round(n * sure_share)
    known = round(n * known_share)
    return [
        Word(text=f"word{k}x", confidence=90.0 if k < sure else 40.0, known=k < known)
        for k in range(n)
    ]


def test_many_words_few_read_surely_are_illegible_text():
    # The handwritten pages' pictures: 268 and 302 such words, 0.09 and 0.00 of them sure.
    assert illegible_text(_words(60, sure_share=0.1))


def test_a_faded_typescript_whose_words_mostly_read_surely_is_no_illegible_text():
    # typewritten-fr's faded picture: 0.59 of its words read surely.
    assert not illegible_text(_words(60, sure_share=0.59))


def test_a_few_words_are_too_few_to_call_illegible():
    # A title page's binder edges and show-through: 15 words.
    assert not illegible_text(_words(15, sure_share=0.0))


def test_words_that_are_no_words_at_all_are_no_text():
    assert not illegible_text(_words(60, sure_share=0.0, known_share=0.1))
