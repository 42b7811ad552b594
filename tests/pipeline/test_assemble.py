"""Layout rules of assemble: captions, paragraphs cut by figures, furniture, languages."""

from __future__ import annotations

from conversion.pipeline.assemble import AssembleOptions, assemble
from models.engine import PageReading, ReadBlock, Word


def _para(text, bbox, size=40.0, ink=0.2, words=None):
    return ReadBlock(kind="paragraph", text=text, bbox=bbox, font_size=size, ink=ink,
                     words=words or [])  # fmt: skip


def _doc(blocks, pages=1):
    readings = [
        PageReading(page_number=n, blocks=[b for b in blocks], width=2000, height=3000)
        for n in range(1, pages + 1)
    ]
    return assemble(readings, AssembleOptions())


def test_caption_under_a_figure_becomes_its_figcaption():
    figure = ReadBlock(kind="figure", bbox=(100, 300, 900, 1500))
    caption = _para("THEY TIP-TOED ALONG.", (300, 1520, 700, 1560), size=20)
    body = _para("Body text that goes on and on. " * 6, (1000, 300, 1900, 900))
    doc = _doc([figure, body, caption])
    kinds = [b.kind for b in doc.pages[0].blocks]
    assert kinds == ["figure", "paragraph"]
    assert doc.pages[0].blocks[0].caption == "THEY TIP-TOED ALONG."


def test_paragraph_cut_by_a_figure_is_joined_and_the_figure_moves_before_it():
    first = _para("When we was passing by the kitchen", (1000, 300, 1900, 600))
    figure = ReadBlock(kind="figure", bbox=(100, 300, 900, 1500))
    second = _para("I fell over a root and made a noise.", (1000, 620, 1900, 900))
    blocks = _doc([first, figure, second]).pages[0].blocks
    assert [b.kind for b in blocks] == ["figure", "paragraph"]
    assert blocks[1].text == "When we was passing by the kitchen I fell over a root and made a noise."


def test_running_headers_and_page_numbers_leave_the_flow():
    header = _para("Annual Report 2024", (800, 50, 1200, 100))
    number = _para("7", (980, 2900, 1020, 2950))
    body = _para("The text of the page.", (200, 400, 1800, 1400))
    doc = _doc([header, body, number], pages=3)
    for page in doc.pages:
        assert [b.kind for b in page.blocks] == ["page_header", "paragraph"]
        assert page.label == "7"


def test_foreign_words_become_a_lang_span():
    words = [Word("Le", 90, lang="fr"), Word("chien", 90, lang="fr"), Word("sleeps", 90)]
    doc = _doc([_para("Le chien sleeps", (100, 100, 900, 150), words=words)])
    spans = doc.pages[0].blocks[0].spans
    assert [(s.text.strip(), s.lang) for s in spans] == [("Le chien", "fr"), ("sleeps", None)]
