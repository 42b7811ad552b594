"""The formats beyond HTML on the command line (`manage.py convert --formats html,epub,pdf`):
`<stem>.epub` and `<stem>.pdf` beside `<stem>.html`, EPUBCheck's and the PDF structure check's
verdicts on documents converted from tests/resources, and the report's `formats`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conversion.pipeline.format_writers import describe_formats
from conversion.pipeline.formats import UnknownFormat, parse_formats
from conversion.pipeline.pdf_check import check_pdf
from tests.conftest import CORPUS, run_convert
from tests.pipeline.test_epub import book_figures, book_html, epubcheck, problems

STEMS = ["c02-22", "lots_of_sci_tables-p1"]


def test_formats_are_parsed_in_one_order_with_html_always_in():
    assert parse_formats(None) == ("html",)
    assert parse_formats("pdf, EPUB") == ("html", "epub", "pdf")
    with pytest.raises(UnknownFormat):
        parse_formats("html,docx")


@pytest.fixture(scope="module")
def converted(tmp_path_factory) -> Path:
    """A scan with a figure and a born-digital page of tables, converted once, in every format."""
    out = tmp_path_factory.mktemp("formats")
    pdfs = [CORPUS / "c02-22.pdf", CORPUS / "realworld" / "lots_of_sci_tables-p1.pdf"]
    done = run_convert(*map(str, pdfs), "--out", str(out), "--formats", "html,epub,pdf")
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.slow
@pytest.mark.parametrize("stem", STEMS)
def test_converted_documents_pass_epubcheck(converted, stem, tmp_path):
    assert (converted / f"{stem}.html").exists()
    assert problems(epubcheck(converted / f"{stem}.epub", tmp_path)) == []


@pytest.mark.slow
@pytest.mark.parametrize("stem", STEMS)
def test_converted_documents_give_a_tagged_pdf(converted, stem):
    with open(converted / f"{stem}.pdf", "rb") as fh:
        checked = check_pdf(fh)
    assert checked["struct_tree"] and checked["marked"] and checked["display_doc_title"]
    assert checked["lang"] == "en" and checked["title"] and checked["pdfua_part"] == "1"
    assert checked["figures_with_alt"] == checked["figures"]
    assert checked["headings"] and checked["headings"][0] == "H1"
    assert checked["page_labels"]


@pytest.mark.slow
def test_the_report_says_what_each_format_holds(converted):
    report = json.loads((converted / "c02-22.report.json").read_text())
    epub, pdf = report["formats"]["epub"], report["formats"]["pdf"]
    assert epub["page_list"] == 1 and epub["figures"] == 1 and epub["conforms_to"] is None
    assert "pageBreakMarkers" in epub["accessibility_features"]
    assert pdf["variant"] == "pdf/ua-1" and pdf["print_pages"] == 1 and pdf["figures"] == 1
    assert epub["check"]["problems"] == [] and pdf["check"]["problems"] == []


def test_the_report_describes_the_formats_and_a_failure_costs_nothing_else():
    """What flow.finish and every review write put in the report: the EPUB made and checked,
    the PDF's contents; a writer that fails is recorded, not raised."""
    described = describe_formats(book_html(alt="A chart"), {}, figures=book_figures)
    assert described["epub"]["check"]["problems"] == [] and described["epub"]["page_list"] == 3
    assert described["pdf"]["print_pages"] == 3 and described["pdf"]["check"]["problems"] is None

    def broken(name: str):
        raise OSError("the store is gone")

    failed = describe_formats(book_html(alt="A chart"), {}, figures=broken)
    (problem,) = failed["epub"]["check"]["problems"]
    assert problem.startswith("could not be made (OSError") and failed["pdf"]["figures"] == 1
