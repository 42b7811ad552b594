"""Every bad input gets its own clear code, before anything is written."""

from __future__ import annotations

import pymupdf
import pytest

from conversion.pipeline.errors import ConversionError
from conversion.pipeline.validate import Limits, sniff_pdf, validate_pdf
from tests.conftest import CORPUS


def _code(path, limits=Limits()) -> str | None:
    try:
        validate_pdf(path, limits)
    except ConversionError as exc:
        return exc.code
    return None


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("invalid.pdf", "PDF_DAMAGED"),
        ("hugemono.pdf", "PAGE_TOO_LARGE"),
        ("enormous.pdf", None),
        ("2400dpi.pdf", None),
        ("blank.pdf", None),
        ("no_contents.pdf", None),
        ("kcs.pdf", None),
        ("negzero.pdf", None),
    ],
)
def test_bad_corpus(name, code):
    assert _code(CORPUS / "bad" / name) == code


def test_empty_file(tmp_path):
    path = tmp_path / "empty.pdf"
    path.write_bytes(b"")
    assert _code(path) == "EMPTY_FILE"


def test_not_a_pdf_names_what_it_is(tmp_path):
    path = tmp_path / "scan.pdf"
    path.write_bytes((CORPUS / "typewriter.png").read_bytes())
    with pytest.raises(ConversionError) as info:
        validate_pdf(path, Limits())
    assert info.value.code == "NOT_A_PDF"
    assert "PNG" in info.value.message


def test_truncated_pdf(tmp_path):
    data = (CORPUS / "linn.pdf").read_bytes()
    path = tmp_path / "cut.pdf"
    path.write_bytes(data[:2000])
    assert _code(path) in ("PDF_DAMAGED", "NO_PAGES")


def test_encrypted_pdf(tmp_path):
    doc = pymupdf.open(CORPUS / "linn.pdf")
    path = tmp_path / "locked.pdf"
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")
    assert _code(path) == "PDF_ENCRYPTED"


def test_owner_password_only_opens(tmp_path):
    doc = pymupdf.open(CORPUS / "linn.pdf")
    path = tmp_path / "restricted.pdf"
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", permissions=0)
    assert _code(path) is None


def test_too_many_pages():
    assert _code(CORPUS / "multipage.pdf", Limits(max_pages=3)) == "TOO_MANY_PAGES"


def test_file_too_large():
    assert _code(CORPUS / "linn.pdf", Limits(max_bytes=1000)) == "FILE_TOO_LARGE"


def test_zero_pages(tmp_path):
    path = tmp_path / "zero.pdf"
    path.write_bytes(
        b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
        b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
        b"trailer<</Root 1 0 R>>\n%%EOF\n"
    )
    assert _code(path) in ("NO_PAGES", "PDF_DAMAGED")


def test_a_pdf_that_lost_its_header_line_is_still_a_pdf(tmp_path):
    # pdf.js's bug1606566.pdf: a binary comment, then "1 0 obj <<", no %PDF- line; PDF viewers
    # and MuPDF open it.
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "A page whose file lost its first line.")
    body = doc.tobytes()
    assert body.startswith(b"%PDF-")
    path = tmp_path / "headless.pdf"
    path.write_bytes(body[body.index(b"\n") + 1 :])  # the %PDF- line cut off
    assert b"%PDF-" not in path.read_bytes()[:1024]
    sniff_pdf(path.read_bytes()[:1024])  # no NotAPdf
    assert validate_pdf(path, Limits()).page_count == 1


def test_text_that_merely_mentions_an_object_is_not_a_pdf():
    with pytest.raises(ConversionError) as info:
        sniff_pdf(b"notes: the 1 0 obj << line starts a PDF's body")
    assert info.value.code == "NOT_A_PDF"
