"""Gemma page answers -> ReadBlocks: every block type, malformed and truncated output, loops,
blank pages, and model text that looks like markup staying text all the way to the HTML."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from conversion.pipeline.flow import build_document, render_and_check
from models.engine import PageReading
from models.gemma.page_prompt import PAGE_PROMPT
from models.gemma.parse import (
    BLANK_CONFLICT,
    MALFORMED,
    REPETITION,
    TRUNCATED,
    cut_repetition,
    parse_page,
)

W, H = 1000, 2000
FRONT = "---\nprimary_language: en\nrotation: 0\nis_blank: false\n---\n"


def parse(text: str, **kw):
    return parse_page(text, width=W, height=H, **kw)


def kinds(page) -> list[str]:
    return [b.kind for b in page.blocks]


def codes(page) -> list[str]:
    return [f["code"] for f in page.findings]


# What the prompt teaches the model to write, an answer written so, and what the parser makes of
# it: the prompt and the parser are one contract (change both together).
CONVENTIONS = [
    ("# ", "# A title", "heading"),
    ("rowspan", '<table><tr><th rowspan="2">A</th><th>B</th></tr><tr><td>1</td></tr></table>',
     "table"),
    ("box:", "![A bar chart](box:100,100,500,400)", "figure"),
    ("$$", "$$\nx^2 + 1\n$$", "formula"),
    ("<header>", "<header>Annual report</header>", "page_header"),
    ("<footer>", "<footer>Company confidential</footer>", "page_footer"),
    ("<page-number>", "<page-number>12</page-number>", "page_number"),
    ("<footnote>", "<footnote>1 A note.</footnote>", "footnote"),
    ("- ", "- one\n- two", "list_item"),
    ("```", "```\ndef f():\n    return 1\n```", "code"),
]  # fmt: skip


@pytest.mark.parametrize(("taught", "answer", "kind"), CONVENTIONS)
def test_every_convention_the_prompt_teaches_is_read(taught: str, answer: str, kind: str) -> None:
    assert taught in PAGE_PROMPT
    page = parse(f"---\nprimary_language: de\nrotation: 90\nis_blank: false\n---\n{answer}")
    assert kind in kinds(page) and not codes(page), (kinds(page), codes(page))
    assert (page.language, page.rotation) == ("de", 90)  # the front matter it teaches


def test_a_listing_keeps_its_lines_and_indentation_and_stays_text(tmp_path: Path) -> None:
    text = FRONT + "Run:\n\n```python\n\nif x:\n    print('<script>$a$')\n\n```\nDone."
    page = parse(text)
    assert [(b.kind, b.text) for b in page.blocks] == [
        ("paragraph", "Run:"),
        ("code", "if x:\n    print('<script>$a$')"),
        ("paragraph", "Done."),
    ]
    pre = BeautifulSoup(_html_for(text, tmp_path), "html.parser").find("pre")
    assert pre.code.get_text() == "if x:\n    print('<script>$a$')" and not pre.find("script")


def test_front_matter() -> None:
    page = parse("---\nprimary_language: pt_br\nrotation: 90\nis_blank: false\n---\nOlá.")
    assert page.language == "pt-BR"
    assert page.rotation == 90
    assert not page.blank
    assert [(b.kind, b.text) for b in page.blocks] == [("paragraph", "Olá.")]
    assert page.findings == []


def test_front_matter_missing_or_bad() -> None:
    page = parse("Just text.")
    assert page.language is None and page.rotation == 0
    assert kinds(page) == ["paragraph"] and page.findings == []
    page = parse("---\nprimary_language: English!\nrotation: 45\n---\nText.")
    assert page.language is None and page.rotation == 0
    assert MALFORMED in codes(page)
    page = parse("---\nprimary_language: de\nHallo Welt.")  # never closed
    assert page.language == "de"
    assert [b.text for b in page.blocks] == ["Hallo Welt."]
    assert MALFORMED in codes(page)


def test_headings_and_paragraphs() -> None:
    page = parse(
        FRONT + "# The *Title*\n\nFirst line\nwrapped line.\n\n## Part 2\n\n###### Deep\n\nEnd."
    )
    assert [(b.kind, b.text, b.level) for b in page.blocks] == [
        ("heading", "The Title", 1),
        ("paragraph", "First line wrapped line.", None),
        ("heading", "Part 2", 2),
        ("heading", "Deep", 6),
        ("paragraph", "End.", None),
    ]


def test_lists_nested_ordered_and_unordered() -> None:
    page = parse(FRONT + "- apples\n- pears\n  1. small\n  2. large\n     - green\n- plums\n")
    got = [(b.kind, b.text, b.level, b.ordered, b.marker) for b in page.blocks]
    assert got == [
        ("list_item", "apples", 1, False, "•"),
        ("list_item", "pears", 1, False, "•"),
        ("list_item", "small", 2, True, "1."),
        ("list_item", "large", 2, True, "2."),
        ("list_item", "green", 3, False, "•"),
        ("list_item", "plums", 1, False, "•"),
    ]
    page = parse(FRONT + "3) third\n4) fourth\n")
    assert [(b.marker, b.ordered) for b in page.blocks] == [("3)", True), ("4)", True)]


def test_html_table_with_header_cells_and_spans() -> None:
    page = parse(
        FRONT
        + '<table><caption>Results</caption><thead><tr><th rowspan="2">Name</th>'
        + "<th colspan='2'>Score</th></tr><tr><th>A</th><th>B</th></tr></thead>\n"
        + "<tbody><tr><td><b>Ann</b></td><td>1</td><td>2</td></tr>\n"
        + '<tr><th scope="row">Bob</th><td colspan="999">n/a</td></tr></tbody></table>\n'
        + "After."
    )
    assert kinds(page) == ["table", "paragraph"]
    table = page.blocks[0]
    assert table.text == "Results"
    assert table.rows == [
        [
            {"text": "Name", "header": True, "rowspan": 2, "colspan": 1},
            {"text": "Score", "header": True, "rowspan": 1, "colspan": 2},
        ],
        [
            {"text": "A", "header": True, "rowspan": 1, "colspan": 1},
            {"text": "B", "header": True, "rowspan": 1, "colspan": 1},
        ],
        [
            {"text": "Ann", "header": False, "rowspan": 1, "colspan": 1},
            {"text": "1", "header": False, "rowspan": 1, "colspan": 1},
            {"text": "2", "header": False, "rowspan": 1, "colspan": 1},
        ],
        [
            {"text": "Bob", "header": True, "rowspan": 1, "colspan": 1},
            {"text": "n/a", "header": False, "rowspan": 1, "colspan": 100},  # clamped
        ],
    ]
    assert page.findings == []


def test_markdown_table_is_read_too() -> None:
    page = parse(FRONT + "| a | b |\n|---|---|\n| 1 | 2 |\n")
    assert kinds(page) == ["table"]
    assert [[c["text"] for c in r] for r in page.blocks[0].rows] == [["a", "b"], ["1", "2"]]
    assert [c["header"] for c in page.blocks[0].rows[0]] == [True, True]


def test_figure_with_box_description_and_caption() -> None:
    page = parse(
        FRONT + "![A bar chart: sales rise from 2 to 9](box:100,250,600,500)\nFigure 1. Sales."
    )
    (fig,) = page.blocks
    assert fig.kind == "figure"
    assert fig.alt == "A bar chart: sales rise from 2 to 9"
    assert fig.text == "Figure 1. Sales."
    assert fig.bbox == (100.0, 500.0, 600.0, 1000.0)  # 0-1000 grid -> pixels of 1000x2000
    page = parse(FRONT + "![photo](box:[900, 900, 100, 1200])")  # swapped and out of range
    assert page.blocks[0].bbox == (100.0, 1800.0, 900.0, 2000.0)
    page = parse(FRONT + "![photo](somewhere.png)")
    assert page.blocks[0].bbox is None and MALFORMED in codes(page)


def test_formulas_display_and_inline() -> None:
    page = parse(
        FRONT + "Energy $E_k = m*v^2/2$ holds.\n\n$$\n\\int_0^1 x^2 \\, dx\n$$\n\n$$a+b$$\n"
        "\\[ c^2 \\]"
    )
    assert kinds(page) == ["paragraph", "formula", "formula", "formula"]
    assert page.blocks[0].text == "Energy $E_k = m*v^2/2$ holds."
    assert [b.latex for b in page.blocks[1:]] == ["\\int_0^1 x^2 \\, dx", "a+b", "c^2"]


def test_page_furniture_and_footnotes() -> None:
    page = parse(
        FRONT + "<header>Annual Report 2024</header>\nBody.\n\n<footnote>1 See above.</footnote>\n"
        "<page-number>Page 7 of 9</page-number>\n<PAGE-NUMBER>— 7 —</PAGE-NUMBER>\n"
        "<footer>ACME\nconfidential</footer>"
    )
    assert [(b.kind, b.text) for b in page.blocks] == [
        ("page_header", "Annual Report 2024"),
        ("paragraph", "Body."),
        ("footnote", "1 See above."),
        ("page_number", "Page 7 of 9"),
        ("page_footer", "— 7 —"),  # not a number the document can use: kept as a footer
        ("page_footer", "ACME confidential"),
    ]


def test_truncated_output_keeps_what_was_read_and_says_so() -> None:
    page = parse(FRONT + "# Title\n\n<table><tr><th>A</th></tr><tr><td>1</td><td>2", truncated=True)
    assert kinds(page) == ["heading", "table"]
    assert page.blocks[1].rows[1] == [
        {"text": "1", "header": False, "rowspan": 1, "colspan": 1},
        {"text": "2", "header": False, "rowspan": 1, "colspan": 1},
    ]
    assert TRUNCATED in codes(page) and MALFORMED in codes(page)
    assert {f["level"] for f in page.findings} <= {"warning", "needs_review"}


@pytest.mark.parametrize(
    "body",
    [
        "$$\n\\frac{a}{b} unterminated",
        "<footer>never closed",
        "<table>just words, no rows",
        "</table><td>stray</tr> <th>",
    ],
)
def test_malformed_output_degrades_to_paragraphs(body: str) -> None:
    page = parse(FRONT + body)
    assert page.blocks, body
    assert all(b.kind in ("paragraph", "page_footer") for b in page.blocks)
    assert all(b.text for b in page.blocks)
    if not body.startswith("</table>"):  # stray closing tags are only text, not malformed
        assert MALFORMED in codes(page)


def test_garbage_never_raises() -> None:
    noise = "\x00<|image|>\ufffd<<>>![](box:)$$<table><tr><th rowspan=x>|--|\n# \n- \n1. \n"
    page = parse(noise * 3)
    for b in page.blocks:
        assert "\x00" not in b.text and "\ufffd" not in b.text


def test_repetition_loop_is_cut_and_flagged() -> None:
    loop = "The committee met again. " * 40
    page = parse(FRONT + "# Minutes\n\nOpening.\n\n" + loop + "The committee m", truncated=True)
    assert codes(page) == [REPETITION]  # the loop explains the truncation: one finding
    assert [b.text for b in page.blocks] == ["Minutes", "Opening.", "The committee met again."]
    rows = "<tr><td>x</td></tr>\n" * 50
    page = parse(FRONT + "<table>\n" + rows, truncated=True)
    assert REPETITION in codes(page)
    assert len(page.blocks[0].rows) == 1


def test_repeated_lines_mid_page_are_collapsed() -> None:
    page = parse(FRONT + "Start.\n\n" + "Same line of text here.\n" * 9 + "\nEnd of the page.")
    assert REPETITION in codes(page)
    assert page.blocks[-1].text == "End of the page."
    assert page.blocks[1].text.count("Same line") == 4


def test_no_false_repetition() -> None:
    text = "Contents\n\n" + "".join(f"- Chapter {i} ........ {i * 7}\n" for i in range(1, 30))
    assert cut_repetition(text) == (text, False)
    dots = "Name " + "." * 60 + " 12"
    assert cut_repetition(dots)[1] is False  # a dot leader that ends is not a loop


def test_blank_page_stays_blank() -> None:
    page = parse("---\nprimary_language: en\nrotation: 0\nis_blank: true\n---\n")
    assert page.blank and page.blocks == [] and page.findings == []
    page = parse("---\nis_blank: true\n---\nLorem ipsum dolor sit amet.")
    assert page.blocks == [] and codes(page) == [BLANK_CONFLICT]
    page = parse("")
    assert page.blocks == [] and page.findings == []


def _html_for(text: str, tmp_path: Path) -> str:
    parsed = parse(text)
    reading = PageReading(
        page_number=1,
        blocks=parsed.blocks,
        width=W,
        height=H,
        language=parsed.language,
        source="model",
        findings=parsed.findings,
        raw_text=text,
    )
    document = build_document(
        [reading], lambda n: None, title="t", language=None, files_dir=tmp_path / "files"
    )
    html, findings = render_and_check(document, files_dir_name="t_files")
    assert not [f for f in findings if f.level == "error"], findings
    return html


def test_script_on_the_page_comes_out_as_text(tmp_path: Path) -> None:
    payload = "<script>alert(1)</script>"
    text = (
        FRONT
        + f"# {payload}\n\n{payload}\n\n- {payload}\n\n<table><tr><th>{payload}</th></tr>"
        + "<tr><td>&lt;script&gt;alert(1)&lt;/script&gt;</td></tr></table>\n\n"
        + f"<footnote>{payload}</footnote>\n\n![{payload}](box:0,0,500,500)\n{payload}"
    )
    html = _html_for(text, tmp_path)
    soup = BeautifulSoup(html, "html.parser")
    assert soup.find("script") is None
    assert "<script>alert" not in html
    main = soup.find("main")
    for tag in ("h1", "p", "li", "th", "td", "aside"):
        el = main.find(tag)
        assert el is not None and el.get_text(strip=True) == payload, tag
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 6


def test_all_block_kinds_render_valid(tmp_path: Path) -> None:
    text = (
        FRONT
        + "<header>Running head</header>\n# Report\n\nIntro text.\n\n## Data\n\n- a\n  - b\n\n"
        + "<table><tr><th>k</th><th>v</th></tr><tr><td>x</td><td>1</td></tr></table>\n\n"
        + "$$x^2$$\n\n<footnote>1 Note.</footnote>\n<page-number>3</page-number>"
    )
    html = _html_for(text, tmp_path)
    soup = BeautifulSoup(html, "html.parser")
    main = soup.find("main")
    assert main.find("h1").get_text() == "Report"
    assert main.find("h2").get_text() == "Data"
    assert main.select("ul ul li")[0].get_text() == "b"  # nesting from the list depth
    assert main.find("th").get_text() == "k"
    assert main.find("math") is not None or "x^2" in main.get_text()
