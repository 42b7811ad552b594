"""Hand-made Document trees that exercise every block type the renderer knows.

`every_block()` is the reference document for the accessibility tests: three pages, headings
across pages, nested lists, tables with row/col spans and two header levels, a wide table, a
table without header cells, formulas, a code listing, footnotes referenced from the text (one
of them twice), figures with and without alt text, running headers and footers, low-confidence
words and passages in a second and third language. `french_only()` has no heading at all.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

from conversion.pipeline.document import Block, Cell, Document, ListItem, Page, Span

W, H = 2480, 3508  # an A4 page at 300 DPI


def _p(text: str, **kw) -> Block:
    return Block(kind="paragraph", spans=[Span(text)], **kw)


def _h(text: str, level: int) -> Block:
    return Block(kind="heading", spans=[Span(text)], level=level)


def _c(text: str, header: bool = False, rowspan: int = 1, colspan: int = 1) -> Cell:
    return Cell(text=text, header=header, rowspan=rowspan, colspan=colspan)


def _item(text: str, children: list[ListItem] | None = None, ordered: bool = False) -> ListItem:
    return ListItem(spans=[Span(text)], children=children or [], ordered_children=ordered)


def results_table() -> Block:
    """Two header rows (a spanning group header over two columns) plus row headers with a span."""
    return Block(
        kind="table",
        caption="Members by region and year",
        rows=[
            [
                _c("", True, rowspan=2),
                _c("Region", True, rowspan=2),
                _c("Members", True, colspan=2),
            ],
            [_c("2023", True), _c("2024", True)],
            [_c("North", True, rowspan=2), _c("Coast", True), _c("120"), _c("131")],
            [_c("Hills", True), _c("45"), _c("52")],
            [_c("South", True), _c("Plain", True), _c("310"), _c("298")],
        ],
    )


def wide_table() -> Block:
    months = ["January", "February", "March", "April", "May", "June", "July", "August",
              "September", "October", "November", "December"]  # fmt: skip
    return Block(
        kind="table",
        caption="Monthly attendance",
        rows=[
            [_c("Group", True)] + [_c(m, True) for m in months],
            [_c("Choir", True)] + [_c(f"{1000 + 37 * i:,}") for i in range(12)],
            [_c("Chess club", True)] + [_c(f"{2000 + 11 * i:,}") for i in range(12)],
            [_c("Walkers", True)] + [_c(f"{3000 + 5 * i:,}") for i in range(12)],
        ],
    )


def headerless_table() -> Block:
    """As OCR often reads it: no header cells, and a title typed into a full-width first row."""
    return Block(
        kind="table",
        rows=[
            [_c("Opening hours", colspan=3)],
            [_c("Day"), _c("Opens"), _c("Closes")],
            [_c("Monday"), _c("09:00"), _c("17:00")],
            [_c("Saturday"), _c("10:00"), _c("14:00")],
            [_c("Sunday"), _c("closed"), _c("closed")],
        ],
    )


def every_block() -> Document:
    header = Block(kind="page_header", spans=[Span("Example Society · Annual report")])
    page1 = Page(
        number=1,
        width=W,
        height=H,
        label="1",
        blocks=[
            header,
            _h("Annual report of the Example Society", 1),
            Block(
                kind="paragraph",
                spans=[
                    Span("The society grew again this year"),
                    Span("1", note_ref="fn-1"),
                    Span(" and its accounts are "),
                    Span("balanced", low_confidence=True),
                    Span("; see the tables below."),
                ],
            ),
            _h("Membership", 2),
            Block(
                kind="list",
                ordered=False,
                items=[
                    _item("Full members"),
                    _item(
                        "Associate members",
                        [_item("Students"), _item("Retired members")],
                        ordered=True,
                    ),
                    _item("Honorary members"),
                ],
            ),
            _p("Dues, as printed, going on from the list on the page before:"),
            Block(
                kind="list",
                ordered=True,
                items=[
                    ListItem(spans=[Span("Full members pay in January.")], marker="4."),
                    ListItem(spans=[Span("Associate members pay in March.")], marker="5."),
                ],
            ),
            results_table(),
            _h("Regional detail", 4),  # a skipped level the renderer must repair
            _p("Each region reports its own numbers; the totals were checked twice."),
            Block(kind="page_footer", spans=[Span("Printed in 2025")]),
        ],
    )
    page2 = Page(
        number=2,
        width=W,
        height=H,
        label="2",
        blocks=[
            header,
            _h("Finances", 2),
            _p("The balance follows the usual rule", bbox=(200, 400, 2200, 600)),
            Block(kind="formula", latex=r"\sum_{i=1}^{n} a_i = \frac{n(n+1)}{2}"),
            Block(kind="formula", latex=r"E = mc^2"),
            # A listing with an indented line and one too long for 320 px: it wraps.
            Block(
                kind="code",
                spans=[
                    Span(
                        "def balance(income, costs):\n    return sum(income) - sum(costs)  "
                        "# every line of the accounts, from the first of January to the last "
                        "of December"
                    )
                ],
            ),  # fmt: skip
            Block(
                kind="figure",
                image="figure-1-p2.png",
                alt="Bar chart: income rose from 10 000 to 14 000 euros between 2023 and 2024.",
                caption="Figure 1. Income by year.",
                bbox=(200, 1200, 1400, 2000),
            ),
            Block(
                kind="figure",
                image="figure-2-p2.png",
                caption="Figure 2. The new meeting hall.",
                bbox=(200, 2100, 1400, 2800),
            ),
            Block(kind="paragraph", spans=[Span("Notre section française a écrit :")]),
            _p("« Nous avons accueilli quarante nouveaux membres cette année. »", lang="fr"),
            Block(
                kind="paragraph",
                spans=[
                    Span("The motto of the founders, "),
                    Span("Gemeinsam geht es besser", lang="de"),
                    Span(", still holds"),
                    Span("2", note_ref="fn-2"),
                    Span("."),
                ],
            ),
            Block(kind="footnote", id="fn-1", spans=[Span("1 Compared with the year before.")]),
        ],
    )
    page3 = Page(
        number=3,
        width=W,
        height=H,
        label="3",
        blocks=[
            header,
            _h("Activities", 2),
            wide_table(),
            Block(
                kind="list",
                ordered=True,
                items=[_item("Spring fair"), _item("Summer walk"), _item("Winter concert")],
            ),
            headerless_table(),
            _h("Notes", 3),
            Block(
                kind="paragraph",
                spans=[
                    Span("The motto is quoted again here"),
                    Span("2", note_ref="fn-2"),
                    Span("."),
                ],
            ),
            Block(
                kind="footnote",
                id="fn-2",
                spans=[Span("2 From the founding charter of 1921.")],
            ),
        ],
    )
    return Document(
        title="Annual report of the Example Society",
        lang="en",
        pages=[page1, page2, page3],
    )


def french_only() -> Document:
    """No heading at all, French, with an English passage: the title becomes the <h1>."""
    return Document(
        title="Lettre aux membres",
        lang="fr",
        pages=[
            Page(
                number=1,
                width=W,
                height=H,
                blocks=[
                    _p("Chers membres, voici les nouvelles de la saison."),
                    _p("The English summary follows the French text.", lang="en"),
                    Block(
                        kind="list",
                        items=[_item("Assemblée générale le 3 mars"), _item("Sortie le 12 mai")],
                    ),
                ],
            )
        ],
    )


def write_figures(files_dir: Path) -> None:
    """The figure crops the documents link to: small, drawn, nothing copied from anywhere."""
    files_dir.mkdir(parents=True, exist_ok=True)
    chart = Image.new("RGB", (480, 320), "white")
    draw = ImageDraw.Draw(chart)
    draw.rectangle((80, 160, 180, 300), fill=(11, 87, 164))
    draw.rectangle((260, 90, 360, 300), fill=(11, 87, 164))
    chart.save(files_dir / "figure-1-p2.png")
    hall = Image.new("RGB", (480, 320), (200, 200, 190))
    ImageDraw.Draw(hall).polygon([(40, 300), (240, 60), (440, 300)], fill=(120, 90, 60))
    hall.save(files_dir / "figure-2-p2.png")


DOCUMENTS = {"every-block": every_block, "french-only": french_only}


def render_to(out_dir: Path, name: str) -> Path:
    """Render one hand-made document like convert does: <name>.html beside <name>_files/."""
    from conversion.pipeline.render import RenderOptions, render_document

    out_dir.mkdir(parents=True, exist_ok=True)
    write_figures(out_dir / f"{name}_files")
    html = render_document(DOCUMENTS[name](), RenderOptions(files_dir=f"{name}_files"))
    path = out_dir / f"{name}.html"
    path.write_text(html, encoding="utf-8")
    return path
