"""A page not transcribed (the reading's UNREADABLE finding) is shown as its image after a note
that says so (conversion/pipeline/page_scans.py, render.py); its report calls it unreadable
only: not blank, not a figure to describe, not text in an image."""

from __future__ import annotations

from bs4 import BeautifulSoup
from PIL import Image, ImageDraw

from conversion.pipeline import flow
from models.engine import PageReading, ReadBlock

UNREADABLE = {"code": "UNREADABLE", "level": "needs_review", "message": "Handwriting."}


def _scan(width: int = 850, height: int = 1100) -> Image.Image:
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    for y in range(150, 950, 60):  # strokes standing for handwriting
        draw.line((100, y, 700, y + 20), fill="black", width=4)
    return image


def _finish(readings: list[PageReading], tmp_path, stem: str = "letter"):
    images = {r.page_number: _scan(r.width, r.height) for r in readings}
    document = flow.build_document(
        readings, images.get, title="letter", language="en", files_dir=tmp_path / f"{stem}_files"
    )
    html, findings = flow.render_and_check(document, files_dir_name=f"{stem}_files")
    return BeautifulSoup(html, "html.parser"), [f.code for f in findings], tmp_path


def test_a_handwritten_page_shows_its_image_after_a_note(tmp_path):
    # The reading kept a full-page "figure" (the ink it could not read): the scan replaces it.
    whole = ReadBlock(kind="figure", bbox=(0, 0, 850, 1100))
    reading = PageReading(1, [whole], 850, 1100, findings=[dict(UNREADABLE)])
    soup, codes, out = _finish([reading], tmp_path)
    main = soup.find("main")
    note = main.select_one('[role="note"]')
    assert note.get_text(" ", strip=True).startswith(
        "Page 1 is handwritten and was not transcribed."
    )
    assert note.find("a")["href"] == "letter.report.html"  # where to ask for a review
    figures = main.find_all("figure")
    assert len(figures) == 1 and figures[0].img["alt"] == "Page 1 as scanned, not transcribed"
    src = figures[0].img["src"]
    with Image.open(out / src) as saved:  # the whole page, not a crop
        assert saved.size == (850, 1100)
    assert codes.count("UNREADABLE") == 1
    for code in ("BLANK_DOCUMENT", "BLANK_PAGE", "TEXT_AS_IMAGE", "FIGURE_ALT_REVIEW"):
        assert code not in codes


def test_a_handwritten_page_read_as_nothing_is_not_called_blank(tmp_path):
    reading = PageReading(1, [], 850, 1100, findings=[dict(UNREADABLE)])
    soup, codes, _ = _finish([reading], tmp_path)
    assert soup.find("main").find("img") is not None
    assert "BLANK_DOCUMENT" not in codes and "BLANK_PAGE" not in codes


def test_a_page_partly_read_keeps_its_text_and_says_what_is_missing(tmp_path):
    text = ReadBlock(kind="paragraph", text="Dear Sir, thank you for your letter.",
                     bbox=(100, 100, 700, 140))  # fmt: skip
    reading = PageReading(1, [text], 850, 1100, findings=[dict(UNREADABLE)])
    soup, _, _ = _finish([reading], tmp_path)
    main = soup.find("main")
    assert "Parts of page 1 are handwritten" in main.select_one('[role="note"]').get_text()
    assert "Dear Sir" in main.get_text()


def test_a_legible_page_is_not_shown_as_a_scan(tmp_path):
    text = ReadBlock(kind="paragraph", text="A typed letter.", bbox=(100, 100, 700, 140))
    soup, _, _ = _finish([PageReading(1, [text], 850, 1100)], tmp_path)
    assert soup.find("main").find("img") is None and soup.select_one(".page-scan-note") is None


def test_a_running_head_read_on_a_handwritten_page_is_not_its_text(tmp_path):
    head = ReadBlock(kind="page_header", text="Hotel Fontainebleau", bbox=(100, 20, 700, 50))
    reading = PageReading(1, [head], 850, 1100, findings=[dict(UNREADABLE)])
    soup, _, _ = _finish([reading], tmp_path)
    note = soup.find("main").select_one('[role="note"]').get_text()
    assert note.startswith("Page 1 is handwritten")
