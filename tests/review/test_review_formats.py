"""A review edit (alt text written, a heading added by a page edit) reaches the EPUB and the
tagged PDF on every download path: web, API, the zip with `formats`."""

from __future__ import annotations

import io
import json
import zipfile

import pikepdf
import pytest
from lxml import etree

from conversion import review
from conversion.pipeline.pdf_check import check_pdf
from conversion.runner import jobs as runner
from tests.api.test_api import api_for, error_of
from tests.conftest import CORPUS

ALT = "Bar chart of yearly rainfall, highest in 1998"
HEADING = "Rainfall by year"
X = {"x": "http://www.w3.org/1999/xhtml"}


def _edit(job, reviewer) -> None:
    figure = review.page_figures(job=job, number=1)[0]["id"]
    review.review_edit_alt(job=job, figure_id=figure, alt=ALT, actor=reviewer)
    page = review.page_fragment(job=job, number=1)
    review.review_edit_page_html(
        job=job, number=1, html=f"<h2>{HEADING}</h2>{page}", actor=reviewer, confirm=True
    )


def _body(response) -> bytes:
    assert response.status_code == 200, response.content if hasattr(response, "content") else ""
    return b"".join(response.streaming_content)


def _epub_alts_and_toc(data: bytes) -> tuple[list[str], list[str]]:
    zf = zipfile.ZipFile(io.BytesIO(data))
    alts = []
    for name in zf.namelist():
        if name.startswith("EPUB/part-"):
            alts += [i.get("alt") for i in etree.fromstring(zf.read(name)).iterfind(".//x:img", X)]
    nav = etree.fromstring(zf.read("EPUB/nav.xhtml"))
    toc = [a.text for a in nav.iterfind(".//x:nav[@id='toc']//x:a", X)]
    return alts, toc


def _pdf_alts_and_outline(data: bytes) -> tuple[dict, list[str]]:
    checked = check_pdf(io.BytesIO(data))
    with pikepdf.open(io.BytesIO(data)) as pdf, pdf.open_outline() as outline:
        titles = [item.title for item in outline.root]
        titles += [kid.title for item in outline.root for kid in item.children]
    return checked, titles


@pytest.mark.slow
def test_review_edits_reach_the_epub_and_the_pdf(job, reviewer):
    _edit(job, reviewer)
    owner = api_for(job.owner)

    html = _body(owner.get(f"/api/v1/jobs/{job.id}/html")).decode()
    assert f'alt="{ALT}"' in html and HEADING in html

    alts, toc = _epub_alts_and_toc(_body(owner.get(f"/api/v1/jobs/{job.id}/epub")))
    assert ALT in alts and HEADING in toc

    checked, titles = _pdf_alts_and_outline(_body(owner.get(f"/api/v1/jobs/{job.id}/pdf")))
    assert checked["figures"] >= 1 and checked["figures_with_alt"] == checked["figures"]
    assert HEADING in titles and "H2" in checked["headings"]
    assert checked["marked"] and checked["display_doc_title"] and checked["lang"]

    archive = zipfile.ZipFile(
        io.BytesIO(_body(owner.get(f"/api/v1/jobs/{job.id}/zip?formats=html,epub,pdf")))
    )
    assert {"c02-22/c02-22.epub", "c02-22/c02-22.pdf"} <= set(archive.namelist())
    assert ALT in _epub_alts_and_toc(archive.read("c02-22/c02-22.epub"))[0]


@pytest.mark.slow
def test_the_report_says_what_each_format_holds_on_every_path(job, reviewer):
    """The stored report (the API's, the job page's report.html, a plain zip's) carries the
    EPUB's contents and self-check, made again after each edit, and what the PDF will hold;
    the zip with formats carries the check of the very PDF in it."""
    owner = api_for(job.owner)
    before = json.loads(_body(owner.get(f"/api/v1/jobs/{job.id}/report")))["formats"]
    assert before["epub"]["figures_described"] == 0
    _edit(job, reviewer)
    formats = json.loads(_body(owner.get(f"/api/v1/jobs/{job.id}/report")))["formats"]
    epub, pdf = formats["epub"], formats["pdf"]
    assert epub["figures_described"] == epub["figures"] == 1 and epub["page_list"] == 1
    assert epub["check"]["problems"] == [] and "pageBreakMarkers" in epub["accessibility_features"]
    assert pdf["variant"] == "pdf/ua-1" and pdf["check"]["problems"] is None  # made on download
    readable = _body(owner.get(f"/api/v1/jobs/{job.id}/report.html")).decode()
    assert "Other formats" in readable and "checked when it is made" in readable

    archive = zipfile.ZipFile(
        io.BytesIO(_body(owner.get(f"/api/v1/jobs/{job.id}/zip?formats=html,pdf")))
    )
    zipped = json.loads(archive.read("c02-22/c02-22.report.json"))["formats"]
    assert zipped["pdf"]["check"]["problems"] == [] and zipped["pdf"]["pdf_pages"] >= 1
    assert zipped["epub"] == epub  # not made into this zip: the stored one
    assert "passed" in archive.read("c02-22/c02-22.report.html").decode()


def test_web_downloads_of_the_formats(client, job):
    client.force_login(job.owner)
    page = client.get(f"/jobs/{job.id}/").content.decode()
    assert f"/jobs/{job.id}/download.epub" in page and f"/jobs/{job.id}/download.pdf" in page
    assert "a page list of 1 print page," in page and "self-check passed" in page
    response = client.get(f"/jobs/{job.id}/download.epub")
    assert response["Content-Type"] == "application/epub+zip"
    assert 'filename="c02-22.epub"' in response["Content-Disposition"]
    assert _body(response)[:2] == b"PK"
    assert client.get(f"/jobs/{job.id}/download.docx").status_code == 404
    plain = zipfile.ZipFile(io.BytesIO(_body(client.get(f"/jobs/{job.id}/download.zip"))))
    assert not [n for n in plain.namelist() if n.endswith((".epub", ".pdf"))]
    assert client.get(f"/jobs/{job.id}/download.zip?formats=html,docx").status_code == 400


def test_no_format_before_the_result(client, alice):
    job = runner.job_create(owner=alice, upload=CORPUS / "linn.pdf")
    client.force_login(alice)
    for fmt in ("epub", "pdf"):
        assert client.get(f"/jobs/{job.id}/download.{fmt}").status_code == 404
        assert api_for(alice).get(f"/api/v1/jobs/{job.id}/{fmt}").status_code == 409


def test_api_links_and_a_bad_format(job):
    owner = api_for(job.owner)
    links = owner.get(f"/api/v1/jobs/{job.id}").json()["links"]
    assert links["epub"].endswith(f"/api/v1/jobs/{job.id}/epub")
    assert links["pdf"].endswith(f"/api/v1/jobs/{job.id}/pdf")
    response = owner.get(f"/api/v1/jobs/{job.id}/zip?formats=epub,docx")
    assert response.status_code == 400 and error_of(response)["code"] == "UNKNOWN_FORMAT"
