"""Lists as printed (conversion/pipeline/render.py): an ordered item keeps the number or letter
printed before it, and siblings that count differently are lists of their own; end to end on a
page built with PyMuPDF, born-digital and scanned."""

from __future__ import annotations

import pymupdf
import pytest
from bs4 import BeautifulSoup

from conversion.pipeline.convert import ConvertOptions, convert_pdf
from conversion.pipeline.document import Block, Document, ListItem, Page, Span
from conversion.pipeline.render import RenderOptions, render_document
from models.ocr import TesseractEngine
from tests.pages import scanned_copy, titled_page

BODY = (
    "Before the pump is started for the first time after a repair, the steps below are taken "
    "in the order given, and each of them is checked off on the sheet kept with the pump. "
)
LETTERED = ["Open the valve before starting the pump.", "Check the pressure on the gauge.",
            "Close the valve once the pressure holds."]  # fmt: skip
NUMBERED = ["Start the pump and let it run for a minute.", "Listen for knocking in the housing.",
            "Write the reading on the sheet."]  # fmt: skip


def _lists(html: str) -> list[tuple[str, dict, list[str]]]:
    """Each top-level list: its tag, its attributes and its items' texts."""
    soup = BeautifulSoup(html, "html.parser")
    main = soup.find("main") or soup
    return [
        (lst.name, dict(lst.attrs), [" ".join(li.get_text().split()) for li in lst.find_all("li")])
        for lst in main.find_all(["ol", "ul"])
    ]


def _render(items: list[ListItem], ordered: bool = False) -> str:
    block = Block(kind="list", ordered=ordered, items=items)
    doc = Document(title="Steps", lang="en", pages=[Page(1, 10, 10, blocks=[block])])
    return render_document(doc, RenderOptions())


def _items(markers: str) -> list[ListItem]:
    return [ListItem([Span("Item")], marker=m) for m in markers.split()]


PRINTED = {"class": ["printed"], "role": "list"}


def test_an_ordered_item_keeps_its_printed_number_or_letter_and_lists_part_where_they_change():
    lists = _lists(_render(_items("a) b) 4. 5. 7. (iv) (v) B. • •")))
    assert lists == [
        ("ol", PRINTED, ["a) Item", "b) Item"]),
        ("ol", PRINTED, ["4. Item", "5. Item", "7. Item"]),
        ("ol", PRINTED, ["(iv) Item", "(v) Item"]),
        ("ol", PRINTED, ["B. Item"]),
        ("ul", {}, ["Item", "Item"]),
    ]


def test_items_with_no_marker_stay_a_list_that_numbers_itself_or_a_bullet_list():
    plain = [ListItem([Span("one")]), ListItem([Span("two")])]
    assert _lists(_render(plain, ordered=True)) == [("ol", {}, ["one", "two"])]
    assert _lists(_render(plain)) == [("ul", {}, ["one", "two"])]


def test_a_marker_is_text_escaped_like_any_other():
    html = _render([ListItem([Span("Item")], marker="<b>1.</b>")])
    assert "<b>" not in html[html.index("<main") :]


def _steps_page(path) -> None:
    """A paragraph, a lettered list, then a numbered one that goes on from step 4."""
    doc = pymupdf.open()
    page, y = titled_page(doc, "Starting the pump", BODY * 2, size=11)
    for markers, items in ((("a)", "b)", "c)"), LETTERED), (("4.", "5.", "6."), NUMBERED)):
        for marker, text in zip(markers, items, strict=True):
            page.insert_text((84, y), marker, fontsize=11, fontname="tiro")
            page.insert_text((104, y), text, fontsize=11, fontname="tiro")
            y += 18
        y += 12
    doc.save(path)


@pytest.mark.parametrize("scanned", [False, True], ids=["born-digital", "scanned"])
def test_a_lettered_list_and_steps_going_on_from_four_keep_their_letters_and_numbers(
    tmp_path, scanned
):
    """On the scan Tesseract may miss the lone "5." beside the page's other lines (plain
    Tesseract does too): its line then reads as the rest of step 4, and step 6 still says 6."""
    _steps_page(tmp_path / "steps.pdf")
    pdf = tmp_path / "steps.pdf"
    if scanned:
        pdf = scanned_copy(pdf, tmp_path / "steps.scan.pdf")
    html = convert_pdf(pdf, tmp_path / "out", TesseractEngine(), ConvertOptions()).html_path
    lists = _lists(html.read_text())
    assert lists[0] == ("ol", PRINTED, [f"{m}) {t}" for m, t in zip("abc", LETTERED, strict=True)])
    texts = [text for _, _, items in lists[1:] for text in items]
    assert (
        texts[0].startswith("4. Start the pump")
        and texts[-1] == "6. Write the reading on the sheet."
    )
    main = BeautifulSoup(html.read_text(), "html.parser").find("main")
    assert not main.find("ul") and not main.select("li ol")  # step 4 is no sub-item of "c)"
