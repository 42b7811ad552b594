"""A text layer is trusted only when its text is language (not glyph codes of a shifted font
encoding or private-use glyphs); an OCR layer's lines of specks are junk."""

from __future__ import annotations

import pymupdf
import pytest

from models.reading.layer_trust import is_junk_line, looks_like_language
from models.reading.textlayer import text_layer_reading
from tests.conftest import CORPUS

TEXLIVE = CORPUS / "texlive"

BODY = (
    "Accessible documents let every reader follow the text in its order. This paragraph was "
    "typed, not scanned, so its characters are known exactly."
)


def _shift(text: str, by: int) -> str:
    """Each letter moved `by` places in the alphabet: a shifted font encoding."""
    return "".join(
        chr((ord(c) - base + by) % 26 + base) if c.isascii() and c.isalpha() else c
        for c in text
        for base in [ord("a") if c.islower() else ord("A")]
    )


def test_text_layer_judged_by_its_letters():
    # A shifted font encoding ("Opnbddchmfr ne sgd"), private-use glyphs: not language.
    assert looks_like_language(BODY * 3)
    assert not looks_like_language(_shift(BODY * 3, -1))
    assert not looks_like_language("\ue020\ue021 \ue022" * 20 + BODY)
    # A financial statement is mostly figures, and still a text to read.
    statement = "Revenue 12,400 11,250 Cost of sales (7,310) (6,980) Gross profit 5,090 4,270 " * 3
    assert looks_like_language("Statement of income for the year " + statement)
    # A paper whose figure labels and math italics have no characters ("node \ufffd", 1 %)
    # is still a good layer; a font that maps nothing is not.
    assert looks_like_language(BODY * 8 + " node \ufffd and x\ufffd,\ufffd")
    assert not looks_like_language(BODY + " \ufffd" * 40)
    assert not looks_like_language(BODY + " (cid:12)" * 10)


def test_a_symbol_fonts_signs_leave_the_words_around_them_language():
    # Word's bullets (Symbol's U+F0B7) and equation signs beside the words: language; a text
    # set wholly in a symbol font's codes is not.
    assert looks_like_language("\uf0b7 Bring the signed form to the desk " * 6)
    assert not looks_like_language("".join(chr(0xF000 + ord(c)) for c in BODY * 3))


def test_a_few_private_use_glyphs_leave_a_layer_of_another_script_language():
    """A Greek thesis's contents (unseen TeX Live page: its lambda set as a private-use glyph,
    2.2 % of the characters) is language: English OCR would read none of its Greek."""
    greek = "Εντο\uf166ές Παροχής Πληροφοριών και Σταθερές Εντολές με Ορίσματα " * 4
    assert looks_like_language("ΠΕΡΙΕΧΟΜΕΝΑ ΠΡΟΛΟΓΟΣ ΕΙΣΑΓΩΓΗ " + greek)
    assert not looks_like_language("\uf166\uf14a\uf149 " * 8 + greek)


def test_a_contents_pages_dot_leaders_leave_its_entries_language():
    """Spaced leader dots outnumber a contents page's letters; they are not its text."""
    entries = ["Introduction", "Methods of the survey", "Sampling", "Results", "Discussion"]
    text = "Contents\n" + "\n".join(f"{k} {t} {'. ' * 40}{k * 3}" for k, t in enumerate(entries))
    assert looks_like_language(text)


def test_lines_of_specks_are_junk_and_text_is_not():
    for junk in ("a. t>.", "RO", ";", '."5/0-', "|"):
        assert is_junk_line(junk), junk
    for line in ("12", "The natives very naturally felt indig-", "I am", "fell", "   ", ""):
        assert not is_junk_line(line), line


def test_another_scripts_letters_in_a_font_encoded_over_latin1_are_no_language():
    """elhyphen's test of ancient Greek hyphenation, p. 7: its Greek font maps its letters to
    Latin-1's accented ones ("Þ à ß Þ â ã%ä3å"), 96 % of the page's letters. Read as text it was
    nonsense with no finding; read by OCR, the page says it is print in the Greek script."""
    with pymupdf.open(CORPUS / "texlive" / "anc-test-p7.pdf") as doc:
        assert not looks_like_language(doc[0].get_text())


def test_languages_written_with_latin1s_accented_letters_stay_language():
    """Hungarian, Icelandic and French use them for a few of their letters (14 % at most on
    TeX Live's manuals)."""
    hungarian = (
        "A szakdolgozat célja, hogy bemutassa a képek és ábrák elhelyezését, a táblázatok "
        "szerkesztését és a forráskódok megjelenítését. Az első fejezet áttekintést nyújt, "
        "a második részletesen ismerteti a felhasználói dokumentációt és a fejlesztői munkát. "
    )
    icelandic = (
        "Þetta skjal lýsir því hvernig á að setja upp kerfið og hvaða skref þarf að fylgja. "
        "Í fyrsta kafla er farið yfir uppsetningu, í öðrum kafla er fjallað um stillingar og "
        "í þeim þriðja er útskýrt hvernig gögn eru flutt á milli véla. "
    )
    french = "Ça été déjà évoqué à l'époque où le côté pratique n'était pas très élevé. " * 3
    assert all(looks_like_language(text * 2) for text in (hungarian, icelandic, french))


@pytest.mark.parametrize("name", ["ithw-p2.pdf", "jfigs-p2.pdf"])
def test_a_page_of_formulas_keeps_its_layer(name):
    """Formulas' operators and brackets (a homework page in Chinese, half its marks notation)
    and the pieces of a matrix's tall brackets (Adobe's private-use codes) are no glyph codes:
    the layer is read, not the page by English OCR (which read the Chinese as "Cyrillic")."""
    with pymupdf.open(TEXLIVE / name) as doc:
        page = doc[0]
        assert looks_like_language(page.get_text())
        reading = text_layer_reading(page, page_number=1, dpi=150)
    assert reading is not None and reading.source == "text_layer"
