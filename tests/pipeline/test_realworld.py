"""Real-world pages nobody tuned to (tests/resources/corpus/realworld, see PROVENANCE.md):
what cannot be read is flagged at page level, and a text layer that is not language is not
trusted."""

from __future__ import annotations

import pymupdf
import pytest
from bs4 import BeautifulSoup

from conversion.pipeline.convert import ConvertOptions, convert_pdf
from conversion.pipeline.document import open_findings
from models.ocr import TesseractEngine
from tests.conftest import CORPUS
from tests.pages import scanned_copy

REALWORLD = CORPUS / "realworld"


@pytest.fixture(scope="module")
def engine():
    return TesseractEngine()


@pytest.mark.slow
def test_handwriting_is_flagged_per_page_and_invents_no_structure(engine, tmp_path):
    result = convert_pdf(REALWORLD / "handwriting_bad_ocr.pdf", tmp_path, engine,
                         ConvertOptions())  # fmt: skip
    unreadable = [f for f in result.report["findings"] if f["code"] == "UNREADABLE"]
    assert sorted(f["page"] for f in unreadable) == [1, 2]
    assert all(f["level"] == "needs_review" for f in unreadable)
    # Handwriting is no print in a script we do not read (its lines are not print's).
    assert not any(f.get("script") or f.get("printed") for f in unreadable)
    # A finding to review routes the job to review (conversion.pipeline.document.open_findings).
    assert open_findings(result.report["summary"]) >= 2
    main = BeautifulSoup(result.html_path.read_text(), "html.parser").find("main")
    assert main.find(["h1", "h2", "h3", "h4", "h5", "h6"]) is None  # no nonsense headings


def _printed_greek(path):
    """A page of Greek print as a 300-DPI scan (PyMuPDF's own CJK font holds Greek)."""
    text = (
        "Η βιβλιοθήκη του πανεπιστημίου είναι ανοιχτή για όλους τους αναγνώστες από Δευτέρα "
        "έως Παρασκευή. Για να δανειστείτε ένα βιβλίο, συμπληρώστε την αίτηση στο γκισέ. "
    )
    typed = pymupdf.open()
    page = typed.new_page()
    page.insert_font(fontname="F0", fontbuffer=pymupdf.Font("cjk").buffer)
    page.insert_textbox(pymupdf.Rect(60, 60, 540, 780), text * 8, fontname="F0", fontsize=12)
    scan = pymupdf.open()
    scan.new_page(width=page.rect.width, height=page.rect.height).insert_image(
        page.rect, pixmap=page.get_pixmap(dpi=300, colorspace="gray")
    )
    scan.save(path)
    return path


@pytest.mark.slow
def test_print_in_a_script_the_languages_do_not_read_is_not_called_handwriting(engine, tmp_path):
    result = convert_pdf(_printed_greek(tmp_path / "greek.pdf"), tmp_path, engine,
                         ConvertOptions())  # fmt: skip
    unreadable = [f for f in result.report["findings"] if f["code"] == "UNREADABLE"]
    assert [f.get("script") for f in unreadable] == ["Greek"]
    assert "andwrit" not in unreadable[0]["message"]
    note = BeautifulSoup(result.html_path.read_text(), "html.parser").select_one('[role="note"]')
    assert "printed in the Greek script" in note.get_text(" ", strip=True)
    assert "andwrit" not in note.get_text()


@pytest.mark.slow
def test_a_page_drawn_from_fonts_that_no_one_reads_is_print_not_handwriting(engine, tmp_path):
    """pdf.js's issue7426: a glyph table of the Bhaiksuki script, drawn from its fonts, no
    image on the page. Its text layer is no language a reader knows, so OCR reads the page and
    finds it illegible; a page drawn from fonts and paths holds no handwriting, and the page
    says it is print its OCR could not read."""
    result = convert_pdf(CORPUS / "pdfjs" / "issue7426.pdf", tmp_path, engine, ConvertOptions())
    (unreadable,) = [f for f in result.report["findings"] if f["code"] == "UNREADABLE"]
    assert unreadable["printed"] is True and "andwrit" not in unreadable["message"]


@pytest.mark.slow
def test_unread_print_in_a_script_named_latin_is_not_called_handwriting(engine, tmp_path):
    """A manual's table of Greek numerals beside Latin headings, scanned: read with English, it
    is illegible, and orientation detection names its script "Latin" (the Latin print beside
    it), but finds its lines print's regular ones (a score of 19; handwriting's 1.4-3.9): the
    page is print nobody read, never "handwritten"."""
    numerals = scanned_copy(
        CORPUS / "texlive" / "test-greeknumeral-p1.pdf", tmp_path / "greeknumeral.pdf"
    )
    result = convert_pdf(numerals, tmp_path, engine, ConvertOptions())
    unreadable = [f for f in result.report["findings"] if f["code"] == "UNREADABLE"]
    assert [f.get("printed") for f in unreadable] == [True]
    assert "andwrit" not in unreadable[0]["message"]
    note = BeautifulSoup(result.html_path.read_text(), "html.parser").select_one('[role="note"]')
    assert "printed in" in note.get_text(" ", strip=True)
    assert "andwrit" not in note.get_text()


@pytest.mark.slow
def test_lines_of_greek_on_an_english_page_are_said_not_silently_dropped(engine, tmp_path):
    """A manual's page in English with rows of Greek letters and accents, scanned: read with
    English, the Greek rows are illegible and leave the text, as plain Tesseract's nonsense
    would be no reading of them; the page is print, not unreadable, and says where lines
    were not read instead of ending with no finding."""
    licr = scanned_copy(CORPUS / "texlive" / "test-inputenc-p2.pdf", tmp_path / "inputenc.pdf")
    result = convert_pdf(licr, tmp_path, engine, ConvertOptions())
    codes = [f["code"] for f in result.report["findings"]]
    assert "UNREADABLE" not in codes
    (finding,) = [f for f in result.report["findings"] if f["code"] == "LINES_NOT_READ"]
    assert finding["level"] == "needs_review"
    assert "the first after “…Greek letters via LICR macros:”" in finding["message"]
    assert "Greek letters via LICR macros" in result.html_path.read_text()


@pytest.mark.slow
def test_a_heading_in_a_language_the_dictionary_lacks_is_a_heading(engine, tmp_path):
    """A Dutch thesis's chapter page (Latin sample text under Dutch headings), scanned and read
    with English: "Onderzoeksvraag", read at 89 in the layout model's heading box, was no
    heading for being no English word. The page's words read surely are mostly no English
    words, so the dictionary says nothing of them and the heading stands."""
    thesis = scanned_copy(CORPUS / "texlive" / "kdgmasterthesis-example-p7.pdf",
                          tmp_path / "thesis.pdf", dpi=240)  # fmt: skip
    result = convert_pdf(thesis, tmp_path, engine, ConvertOptions())
    soup = BeautifulSoup(result.html_path.read_text(), "lxml")
    headings = [h.get_text(" ", strip=True) for h in soup.find_all(["h1", "h2", "h3"])]
    assert "Onderzoeksvraag" in headings and "1.1 Een beetje Cicero" in headings


@pytest.mark.slow
def test_shifted_font_encoding_is_read_again_and_the_title_is_no_section_name(engine, tmp_path):
    result = convert_pdf(REALWORLD / "olmo-page-1.pdf", tmp_path, engine, ConvertOptions())
    assert result.report["page_sources"] == {"1": "ocr"}
    assert "Accelerating the Science of Language Models" in result.document.title
    text = result.html_path.read_text()
    assert "Opnbddchmfr" not in text


@pytest.mark.slow
def test_an_old_books_ocr_layer_that_agrees_is_kept(engine, tmp_path):
    """A mottled book page whose earlier OCR layer agrees with a fresh read of ten of its
    lines: the layer is read (a fresh OCR of the page takes the mottle for pictures), its lines
    of specks ("a. t>.") leave, and words split by a soft hyphen at a line end are mended."""
    result = convert_pdf(REALWORLD / "horribleocr.pdf", tmp_path, engine, ConvertOptions())
    assert result.report["page_sources"] == {"1": "text_layer"}
    main = BeautifulSoup(result.html_path.read_text(), "html.parser").find("main")
    text = " ".join(main.get_text(" ").split())
    assert "For about this time the Dominican friars, under pretence of building" in text
    assert "a fortress on the island" in text and "undertook the command" in text
    assert "a. t>." not in text
    assert main.find("figure") is None  # the scan under the layer is no figure


@pytest.mark.slow
def test_a_tables_numbered_rows_keep_their_numbers(engine, tmp_path):
    """KOMA-Script's scrjura example, page 1, scanned: a contents page the layout model boxes
    as a table, its entries "§ 1. Name, Legal Form, Headquarters .... 2". Each entry read as
    a list item, its "1." a marker apart from its words; the table took the words and left
    the numbers behind ("Name, Legal Form, Headquarters | 2")."""
    bylaws = scanned_copy(CORPUS / "texlive" / "scrjura-example-en-p1.pdf",
                          tmp_path / "bylaws.pdf", dpi=240)  # fmt: skip
    result = convert_pdf(bylaws, tmp_path, engine, ConvertOptions())
    main = BeautifulSoup(result.html_path.read_text(), "lxml").find("main")
    text = " ".join(main.get_text(" ").split())
    for entry in ("1. Name, Legal Form", "2. Purpose of the Club", "9. Effective Date"):
        assert entry in text
