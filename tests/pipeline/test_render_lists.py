"""Lists as printed (conversion/pipeline/render.py): an ordered list carries the numbers and
letters its markers print, and siblings that count differently are lists of their own; end to
end on a page built with PyMuPDF, born-digital and scanned."""

from __future__ import annotations

import pymupdf
import pytest
from bs4 import BeautifulSoup

from conversion.pipeline.convert import ConvertOptions, convert_pdf
from conversion.pipeline.document import Block, Document, ListItem, Page, Span
from conversion.pipeline.render import RenderOptions, render_document
from conversion.pipeline.sanitize import sanitize_fragment
from models.ocr import TesseractEngine

BODY = (
    "Before the pump is started for the first time after a repair, the steps below are taken "
    "in the order given, and each of them is checked off on the sheet kept with the pump. "
)
LETTERED = ["Open the valve before starting the pump.", "Check the pressure on the gauge.",
            "Close the valve once the pressure holds."]  # fmt: skip
NUMBERED = ["Start the pump and let it run for a minute.", "Listen for knocking in the housing.",
            "Write the reading on the sheet."]  # fmt: skip


def _lists(html: str) -> list[tuple[str, dict, list[str | None], list[str]]]:
    """Each top-level list: its tag, attributes, its items' values and texts."""
    main = BeautifulSoup(html, "html.parser").find("main") or BeautifulSoup(html, "html.parser")
    return [
        (lst.name, dict(lst.attrs), [li.get("value") for li in lst.find_all("li")],
         [" ".join(li.get_text().split()) for li in lst.find_all("li")])
        for lst in main.find_all(["ol", "ul"])
    ]  # fmt: skip


def _render(items: list[ListItem], ordered: bool = False) -> str:
    block = Block(kind="list", ordered=ordered, items=items)
    doc = Document(title="Steps", lang="en", pages=[Page(1, 10, 10, blocks=[block])])
    return render_document(doc, RenderOptions())


def _items(markers: str) -> list[ListItem]:
    return [ListItem([Span(f"Item {m}")], marker=m) for m in markers.split()]


def test_an_ordered_list_says_the_numbers_and_letters_its_markers_print():
    lists = _lists(_render(_items("a) b) c) 4. 5. 7. 1. 2. i. ii. iii. • •")))
    assert [(tag, attrs) for tag, attrs, _, _ in lists] == [
        ("ol", {"type": "a"}), ("ol", {"start": "4"}), ("ol", {}), ("ol", {"type": "i"}),
        ("ul", {}),
    ]  # fmt: skip
    assert lists[1][2] == [None, None, "7"]  # 4, 5, then 7: the gap is said
    assert [texts for *_, texts in lists][1] == ["Item 4.", "Item 5.", "Item 7."]


def test_lettered_items_after_h_count_as_letters_and_items_with_no_marker_stay_a_plain_list():
    (tag, attrs, _, _), *_ = _lists(_render(_items("h) i) j)")))
    assert (tag, attrs) == ("ol", {"type": "a", "start": "8"})
    plain = [ListItem([Span("one")]), ListItem([Span("two")])]
    assert [(t, a) for t, a, _, _ in _lists(_render(plain, ordered=True))] == [("ol", {})]
    assert [(t, a) for t, a, _, _ in _lists(_render(plain))] == [("ul", {})]


def test_the_sanitizer_keeps_an_items_number():
    html = '<ol start="4" type="a"><li value="9">x</li></ol>'
    assert sanitize_fragment(html) == html


def _steps_page(path) -> None:
    """A paragraph, a lettered list, then a numbered one that goes on from step 4."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Starting the pump", fontsize=16, fontname="tibo")
    left = page.insert_textbox(pymupdf.Rect(72, 95, 540, 160), BODY * 2, fontsize=11,
                               fontname="tiro")  # fmt: skip
    y = 95 + (65 - left) + 24
    for markers, items in ((("a)", "b)", "c)"), LETTERED), (("4.", "5.", "6."), NUMBERED)):
        for marker, text in zip(markers, items, strict=True):
            page.insert_text((84, y), marker, fontsize=11, fontname="tiro")
            page.insert_text((104, y), text, fontsize=11, fontname="tiro")
            y += 18
        y += 12
    doc.save(path)


def _scanned(pdf, out) -> None:
    scan = pymupdf.open()
    with pymupdf.open(pdf) as doc:
        for page in doc:
            pix = page.get_pixmap(dpi=300, colorspace=pymupdf.csGRAY)
            new = scan.new_page(width=page.rect.width, height=page.rect.height)
            new.insert_image(new.rect, pixmap=pix)
    scan.save(out)


def _announced(html: str) -> dict[str, tuple[str, int]]:
    """Each item's first three words -> its list's type and the number a browser gives it."""
    main = BeautifulSoup(html, "html.parser").find("main")
    said = {}
    for lst in main.find_all("ol"):
        number = int(lst.get("start", 1)) - 1
        for li in lst.find_all("li", recursive=False):
            number = int(li.get("value", number + 1))
            said[" ".join(li.get_text().split()[:3])] = (lst.get("type", "1"), number)
    return said


@pytest.mark.parametrize("scanned", [False, True], ids=["born-digital", "scanned"])
def test_a_lettered_list_and_steps_going_on_from_four_keep_their_letters_and_numbers(
    tmp_path, scanned
):
    """On the scan Tesseract may miss the lone "5." beside the page's other lines (plain
    Tesseract does too): its line then reads as the rest of step 4, and step 6 is still 6."""
    _steps_page(tmp_path / "steps.pdf")
    pdf = tmp_path / "steps.pdf"
    if scanned:
        _scanned(pdf, tmp_path / "steps.scan.pdf")
        pdf = tmp_path / "steps.scan.pdf"
    html = convert_pdf(pdf, tmp_path / "out", TesseractEngine(), ConvertOptions()).html_path
    said = _announced(html.read_text())
    assert [said.get(" ".join(text.split()[:3])) for text in LETTERED] == [
        ("a", 1),
        ("a", 2),
        ("a", 3),
    ]
    assert said["Start the pump"] == ("1", 4) and said["Write the reading"] == ("1", 6)
    main = BeautifulSoup(html.read_text(), "html.parser").find("main")
    assert not main.find("ul") and not main.select("li ol")  # step 4 is no sub-item of "c)"
