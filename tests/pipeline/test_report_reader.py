"""report.json says what read the pages (a document read from its text layer named it nothing:
`engine: {}`), and an unreadable page recommends only an engine this server has (issue 33)."""

from __future__ import annotations

import dataclasses

import pytest

from conversion import engines
from conversion.options import convert_options
from conversion.pipeline import flow
from conversion.pipeline.document import Document, Finding, Page

UNREADABLE = Finding(code="UNREADABLE", level="needs_review", message="Not transcribed.", page=1)


def _document(*sources: str) -> Document:
    pages = [Page(number=n, width=100, height=100, source=s) for n, s in enumerate(sources, 1)]
    return Document(title="t", lang="en", pages=pages, findings=[UNREADABLE])


def test_a_document_read_from_its_text_layer_names_the_text_layer():
    report = flow.make_report(
        document=_document("text_layer", "text_layer"), findings=[], engine={}, source="x.pdf"
    )
    assert report["engine"]["engine"] == "text layer"
    assert report["engine"]["package"].startswith("PyMuPDF ")


def test_an_engine_that_read_a_page_is_named_as_before():
    ocr = {"engine": "ocr", "package": "tesseract 5"}
    mixed = flow.make_report(
        document=_document("text_layer", "ocr"), findings=[], engine=ocr, source="x.pdf"
    )
    assert mixed["engine"] == ocr


def test_an_unreadable_page_recommends_an_engine_only_when_the_server_has_one():
    plain = flow.reading_findings(_document("ocr"))
    assert plain[0].message == UNREADABLE.message
    named = flow.reading_findings(_document("ocr"), handwriting_engine="the GPU engine (G)")
    assert named[0].message.endswith("Or convert it again with the GPU engine (G).")


def test_the_scan_readers_message_names_no_engine():
    from models.reading.scan_blocks import UNREADABLE_FINDING

    assert "GPU" not in UNREADABLE_FINDING["message"]
    assert "review" in UNREADABLE_FINDING["message"]


@pytest.mark.django_db
def test_the_server_offers_the_gpu_engine_only_where_it_can_run(monkeypatch):
    assert engines.unavailable("gemma") is not None  # no model package on this test server
    assert engines.handwriting_engine("ocr") is None
    assert convert_options(engine="ocr").handwriting_engine is None
    gemma = dataclasses.replace(engines.REGISTRY["gemma"], unavailable=lambda: None)
    monkeypatch.setitem(engines.REGISTRY, "gemma", gemma)
    assert engines.handwriting_engine("ocr") == f"the GPU engine ({gemma.label})"
    assert engines.handwriting_engine("gemma") is None  # it read the page already
