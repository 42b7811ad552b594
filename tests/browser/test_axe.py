"""axe-core (WCAG 2.2 AA + best practice + the experimental rules the target enables) on every
corpus scan converted by the CLI, on the hand-made documents and on the report view; reflow at
320 CSS px and colour contrast in the real browser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conversion.pipeline.report_html import write_report_html
from tests.axe import EXPERIMENTAL_RULES
from tests.browser.corpus import CORPUS, IMAGES, PDFS, image_to_pdf
from tests.resources.documents.handmade import DOCUMENTS, render_to

pytestmark = pytest.mark.browser
CORPUS_NAMES = PDFS + IMAGES


def _pdf_for(name: str, work: Path) -> Path:
    if name in IMAGES:
        work.mkdir(parents=True, exist_ok=True)
        return image_to_pdf(CORPUS / name, work / (Path(name).stem + ".pdf"))
    return CORPUS / name


def _assert_clean(axe, path: Path) -> None:
    result = axe.check(path)
    assert set(EXPERIMENTAL_RULES) <= set(result.rules_run), "experimental rules did not run"
    assert result.violation_count == 0, f"{path.name}: {result.summary()}"
    # What axe could not decide is kept for a person, never dropped.
    assert all(f.level == "needs_review" for f in result.findings())


def _assert_reflows(axe, path: Path) -> None:
    measured = axe.overflow(path, width=320)
    assert measured["scrollWidth"] <= measured["clientWidth"], measured
    assert measured["offenders"] == [], measured


@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_corpus_output_is_axe_clean_and_reflows(name, axe, convert_cli, browser_out):
    html = convert_cli(_pdf_for(name, browser_out / "wrapped"))
    _assert_clean(axe, html)
    _assert_reflows(axe, html)
    report_html = html.with_name(html.stem + ".report.html")
    assert report_html.exists()
    _assert_clean(axe, report_html)


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_handmade_document_is_axe_clean_and_reflows(name, axe, browser_out):
    path = render_to(browser_out / "handmade", name)
    _assert_clean(axe, path)
    _assert_reflows(axe, path)


def test_contrast_rule_runs_and_passes(axe, browser_out):
    path = render_to(browser_out / "handmade", "every-block")
    result = axe.check(path)
    assert "color-contrast" in result.rules_run
    assert not [v for v in result.violations if v["id"] == "color-contrast"]


def test_wide_table_scrolls_inside_its_container_not_the_page(axe, browser_out):
    path = render_to(browser_out / "handmade", "every-block")
    measured = axe.overflow(path, width=320)
    assert measured["scrollWidth"] <= measured["clientWidth"]
    inner = axe.evaluate(
        path,
        "() => { const box = document.querySelector('#table-2').closest('.table-scroll');"
        " return [box.scrollWidth, box.clientWidth, box.tabIndex,"
        " box.getAttribute('role'), box.getAttribute('aria-labelledby')]; }",
        width=320,
    )
    assert inner[0] > inner[1], "the wide table should overflow its own container at 320 px"
    assert inner[2:] == [0, "region", "table-2-caption"]


def test_report_view_with_every_level_is_axe_clean(axe, browser_out):
    report = {
        "source": "x.pdf",
        "title": "A <b>title</b>",
        "language": "en",
        "pages": 2,
        "engine": {"engine": "ocr", "package": "tesseract"},
        "summary": {"errors": 1, "warnings": 1, "needs_review": 1},
        "findings": [
            {"code": "H1_COUNT", "level": "error", "message": "Two h1.", "criterion": "1.3.1"},
            {"code": "EMPTY_BLOCK", "level": "warning", "message": "Empty.", "page": 2,
             "element": "main > p:nth-of-type(3)"},
            {"code": "LOW_CONFIDENCE", "level": "needs_review", "message": "'<script>'",
             "page": 1, "criterion": "1.3.1", "element": "span"},
        ],
    }  # fmt: skip
    path = write_report_html(report, browser_out / "x.report.html")
    assert "<script>" not in path.read_text() and "&lt;b&gt;" in path.read_text()
    _assert_clean(axe, path)
    _assert_reflows(axe, path)
    json.dumps(report)  # the view takes exactly what report.json holds


CAPTION_IN_BOX_JS = """
async () => {
  const box = document.querySelector('#table-2').closest('.table-scroll');
  const caption = box.querySelector('caption');
  const inside = () => {
    const range = document.createRange();
    range.selectNodeContents(caption);
    const text = range.getBoundingClientRect(), frame = box.getBoundingClientRect();
    return text.left >= frame.left - 1 && text.right <= frame.right + 1;
  };
  const before = inside();
  box.scrollLeft = box.scrollWidth;
  await new Promise(requestAnimationFrame);
  return [box.scrollWidth > box.clientWidth, before, inside()];
}
"""


def test_a_wide_tables_long_caption_stays_in_its_scroll_box_at_200_percent(axe, browser_out):
    """640 CSS px: a 1280 px window at 200 % zoom. The caption wraps to the box and stays in
    view while the table scrolls."""
    from conversion.pipeline.render import RenderOptions, render_document
    from tests.resources.documents.handmade import every_block, write_figures

    doc = every_block()
    table = next(b for p in doc.pages for b in p.blocks if b.caption == "Monthly attendance")
    table.caption += " in the northern and southern districts over the three years of the survey"
    out = browser_out / "long-caption"
    write_figures(out / "x_files")
    path = out / "x.html"
    path.write_text(render_document(doc, RenderOptions(files_dir="x_files")), encoding="utf-8")
    assert axe.evaluate(path, CAPTION_IN_BOX_JS, width=640) == [True, True, True]
    _assert_clean(axe, path)


def test_report_view_with_long_names_does_not_overflow_at_320_px(axe, browser_out):
    name = "Quarterly-report-of-the-regional-water-authority-for-the-northern-districts.pdf"
    report = {
        "source": name, "title": name, "language": "en", "pages": 1,
        "engine": {"engine": "text layer", "package": "PyMuPDF 1.26.5"},
        "findings": [
            {"code": "TABLE_HEADERS_GUESSED", "level": "needs_review", "criterion": "1.3.1",
             "message": "No header cells were read; the first row was taken as the header.",
             "page": 1, "anchor": "table-1", "element": "#content > div:nth-of-type(3) > table",
             "location": "page 1, the table 'Membership-by-region-and-year-1990-2024'"},
        ],
    }  # fmt: skip
    path = write_report_html(report, browser_out / "long.report.html", document_href="x.html")
    _assert_clean(axe, path)
    _assert_reflows(axe, path)
    # Nor do its tables scroll sideways inside their boxes: a reader sees every column.
    boxes = axe.evaluate(path, TABLE_BOXES_JS, width=320)
    assert boxes and all(scroll <= client for scroll, client in boxes), boxes


TABLE_BOXES_JS = (
    "() => [...document.querySelectorAll('.table-scroll')].map(b => [b.scrollWidth, b.clientWidth])"
)
