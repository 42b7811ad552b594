"""Drop caps joined to the paragraph they open (models.reading.drop_caps)."""

from __future__ import annotations

from models.engine import ReadBlock, Word
from models.reading.drop_caps import join_drop_caps


def _block(*words: tuple[str, tuple]) -> ReadBlock:
    ws = [Word(text=t, confidence=90.0, bbox=b) for t, b in words]
    return ReadBlock(kind="paragraph", text=" ".join(t for t, _ in words), words=ws,
                     bbox=(min(b[0] for _, b in words), min(b[1] for _, b in words),
                           max(b[2] for _, b in words), max(b[3] for _, b in words)))  # fmt: skip


def test_an_initial_read_as_a_block_of_its_own_opens_its_paragraph():
    """The text layer's initial: a block of one tall letter beside the paragraph's top."""
    cap = _block(("R", (100, 300, 190, 420)))
    para = _block(("oad", (200, 300, 260, 340)), ("repairs", (270, 300, 380, 340)),
                  ("were", (100, 430, 160, 470)), ("planned", (170, 430, 280, 470)))  # fmt: skip
    out = join_drop_caps([cap, para])
    assert [b.text for b in out] == ["Road repairs were planned"]
    assert out[0].words[0].text == "Road"


def test_an_initial_read_in_the_second_line_and_a_first_line_cut_off():
    """Tesseract's reading: the first line beside the initial a paragraph of its own, the
    initial the first word of the next one."""
    first = _block(("oad", (200, 300, 260, 340)), ("repairs", (270, 300, 380, 340)))
    rest = _block(("R", (100, 300, 190, 420)), ("were", (200, 350, 260, 390)),
                  ("planned", (270, 350, 380, 390)), ("today", (100, 430, 180, 470)))  # fmt: skip
    out = join_drop_caps([first, rest])
    assert [b.text for b in out] == ["Road repairs were planned today"]


def test_lines_cut_off_beside_the_initial_go_on_with_its_paragraph():
    """Tesseract's reading of a magazine scan: the initial and the first line one paragraph,
    the lines beside the initial's foot and under it another, placed first; read so, the
    page said "request within ... The housing office answered nearly every"."""
    rest = _block(("request", (200, 350, 330, 390)), ("within", (340, 350, 430, 390)),
                  ("days.", (100, 430, 180, 470)))  # fmt: skip
    first = _block(("T", (100, 300, 190, 420)), ("he", (200, 300, 240, 340)),
                   ("housing", (250, 300, 380, 340)))  # fmt: skip
    rest.order, first.order = (3,), (9,)
    out = join_drop_caps([rest, first])
    assert [b.text for b in out] == ["The housing request within days."]
    assert out[0].order == (
        3,
    )  # the paragraph's place is the earlier one: read before what follows


def test_the_line_under_the_initials_foot_goes_on_with_its_paragraph_mid_sentence():
    """Under the initial the lines lose their indent and the engine starts a paragraph there:
    the opening, cut short, was taken for the caption of the photo above it."""
    first = _block(("M", (100, 300, 190, 420)), ("ost", (200, 300, 260, 340)),
                   ("of", (270, 300, 300, 340)), ("the", (200, 380, 250, 420)))  # fmt: skip
    under = _block(("library", (100, 430, 200, 470)), ("opened.", (210, 430, 330, 470)))
    after = _block(("Next", (100, 480, 180, 520)), ("year.", (190, 480, 270, 520)))
    out = join_drop_caps([first, under, after])
    assert [b.text for b in out] == ["Most of the library opened.", "Next year."]


def test_a_paragraph_under_a_finished_opening_stays_apart():
    first = _block(("M", (100, 300, 190, 420)), ("ost", (200, 300, 260, 340)),
                   ("of", (270, 300, 300, 340)), ("all.", (200, 380, 250, 420)))  # fmt: skip
    under = _block(("Then", (100, 430, 200, 470)), ("more.", (210, 430, 330, 470)))
    assert [b.text for b in join_drop_caps([first, under])] == ["Most of all.", "Then more."]


def test_an_initial_the_engine_misread_as_a_sign_still_opens_its_paragraph():
    """A drop cap "F" read as "-": the sign is no letter of the text, yet the lines beside it
    are the paragraph's opening and go first."""
    rest = _block(("drainage", (200, 350, 330, 390)), ("along", (340, 350, 430, 390)))
    first = _block(("-", (100, 300, 190, 420)), ("armers", (200, 300, 300, 340)),
                   ("near", (310, 300, 380, 340)))  # fmt: skip
    out = join_drop_caps([rest, first])
    assert [b.text for b in out] == ["armers near drainage along"]


def test_the_initial_a_before_a_known_word_keeps_its_space():
    cap = _block(("A", (100, 300, 190, 420)))
    para = _block(("new", (200, 300, 260, 340)), ("lane", (270, 300, 380, 340)),
                  ("opened", (100, 430, 200, 470)))  # fmt: skip
    para.words[0].known = True
    assert [b.text for b in join_drop_caps([cap, para])] == ["A new lane opened"]


def test_a_large_letter_that_goes_on_a_line_is_no_initial():
    """ "Appendix B" set large: the letter follows a word on its line."""
    title = _block(("Appendix", (100, 300, 400, 420)), ("B", (420, 300, 500, 420)))
    para = _block(("follows", (510, 300, 600, 340)), ("here", (100, 430, 200, 470)),
                  ("and", (210, 430, 260, 470)))  # fmt: skip
    out = join_drop_caps([title, para])
    assert [b.text for b in out] == ["Appendix B", "follows here and"]
