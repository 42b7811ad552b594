"""Document -> HTML. Every piece of text is escaped here; the frame is templates/output/.

Structure rules the renderer guarantees (../shared/docs/accessibility.md): `lang`, a real title,
a skip link, one `<main>`, exactly one `<h1>`, no skipped heading levels, figures with `alt` or a
needs-review flag, one page-break marker per page, a page list and a table of contents, tables
with captions and header associations, footnotes linked both ways, furniture out of the flow.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path
from string import Template

import latex2mathml.converter

from conversion.pipeline.assemble_params import DOUBTS, DoubtParams
from conversion.pipeline.document import Block, Cell, Document, ListItem, Page, Span
from conversion.pipeline.output_format import page_marker
from models.language import BCP47
from models.reading.markers import marker_family
from models.reading.word_rows import is_data_row, is_datum

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "output"
TOC_MIN_HEADINGS = 3
FILES_SUFFIX = "_files"  # <stem>_files/: the document's images
REPORT_SUFFIX = ".report.html"  # <stem>.report.html: its readable report


@dataclass(frozen=True)
class RenderOptions:
    files_dir: str = ""  # the folder name figures are linked from, "<stem>_files"


@dataclass
class _State:
    """Counters and cross references collected while one document renders."""

    figure_no: int = 0
    table_no: int = 0
    note_no: int = 0
    formula_no: int = 0
    uncertain_no: int = 0
    note_refs: dict[str, list[str]] = field(default_factory=dict)  # note id -> reference ids
    note_ids: set[str] = field(default_factory=set)


# Control characters HTML may not hold (a text layer's symbol-font glyphs, a PDF title's
# stray bytes): no reader can say them, and a parser reports each.
_NOT_HTML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def esc(text: str) -> str:
    return html.escape(_NOT_HTML.sub("", text), quote=True)


def valid_lang(lang: str | None) -> str | None:
    return lang if lang and BCP47.match(lang) else None


def repair_heading_levels(levels: list[int]) -> list[int]:
    """Exactly one level 1 (the first heading) and no skipped levels, order kept."""
    out: list[int] = []
    for i, level in enumerate(levels):
        level = max(1, min(int(level or 1), 6))
        if i == 0:
            out.append(1)
            continue
        level = max(level, 2)
        out.append(min(level, out[-1] + 1))
    return out


def render_document(doc: Document, opts: RenderOptions) -> str:
    headings = [b for b in doc.blocks() if b.kind == "heading"]
    levels = [b.level or 1 for b in headings]
    top = min(levels, default=1)
    # Several headings at the top level and none above them (sections of a document whose
    # title was not read as a heading): the document title is the <h1> and they are all <h2>,
    # rather than the first section promoted over its equals.
    titled = bool(levels) and levels[0] == top and levels.count(top) >= 2
    if titled:
        repaired = repair_heading_levels([1] + [level - top + 2 for level in levels])[1:]
    else:
        repaired = repair_heading_levels(levels)
    for block, level in zip(headings, repaired, strict=True):
        block.level = level
    for i, block in enumerate(headings, start=1):
        block.id = block.id or f"h-{i}"

    state = _State(note_ids={b.id for b in doc.blocks() if b.kind == "footnote" and b.id})
    parts: list[str] = []
    if not headings or titled:
        # No heading was read (or none stands above the others): the document title is the
        # one <h1>, outside the reading text.
        parts.append(f'<header><h1 class="doc-title">{esc(doc.title)}</h1></header>')
    navs = _navigation(doc, headings)
    if navs:
        parts.append(navs)
    parts.append('<main id="content">')
    body: list[str] = []
    for page in doc.pages:
        label = page.label or str(page.number)
        body.append(page_marker(page.number, label))
        for block in page.blocks:
            if block.page_scan:
                state.figure_no += 1
                body.append(_page_scan_html(block, page, state.figure_no, opts))
                continue
            body.append(_block_html(block, page.number, state, opts))
    # Footnotes link back only to references that exist; rendered after the text is known.
    parts.extend(_link_backrefs(body, state))
    parts.append("</main>")
    template = Template((TEMPLATES / "document.html").read_text(encoding="utf-8"))
    css = (TEMPLATES / "document.css").read_text(encoding="utf-8")
    from conversion.pipeline.sanitize import sanitize_fragment

    body_html = sanitize_fragment("\n".join(p for p in parts if p))
    lang = valid_lang(doc.lang) or "en"
    return template.substitute(lang=esc(lang), title=esc(doc.title), css=css, body=body_html)


_BACKREF_PREFIX = "\x00backref:"
_BACKREF_SLOT = _BACKREF_PREFIX + "{}\x00"


def _link_backrefs(body: list[str], state: _State) -> list[str]:
    out = []
    for chunk in body:
        if _BACKREF_PREFIX not in chunk:
            out.append(chunk)  # no slot: skip the scan per note id (notes x blocks)
            continue
        for note_id in state.note_ids:
            slot = _BACKREF_SLOT.format(note_id)
            if slot not in chunk:
                continue
            refs = state.note_refs.get(note_id, [])
            links = "".join(
                f' <a class="backlink" href="#{esc(ref)}" role="doc-backlink" '
                f'aria-label="Back to reference {i}">↩</a>'
                for i, ref in enumerate(refs, start=1)
            )
            chunk = chunk.replace(slot, links)
        out.append(chunk)
    return out


def _navigation(doc: Document, headings: list[Block]) -> str:
    return navigation_html(
        headings=[(b.level or 2, b.id or "", b.text) for b in headings],
        pages=[(p.number, p.label or str(p.number)) for p in doc.pages],
    )


def navigation_html(*, headings: list[tuple[int, str, str]], pages: list[tuple[int, str]]) -> str:
    """The table of contents (level, id, text per heading) and the page list (number, label per
    page), as rendered and as rebuilt after a review edit."""
    out = []
    if len(headings) >= TOC_MIN_HEADINGS:
        items = "".join(
            f'<li class="toc-{level}"><a href="#{esc(ident)}">{esc(text)}</a></li>'
            for level, ident, text in headings
        )
        out.append(f'<nav class="toc" aria-label="Table of contents"><ol>{items}</ol></nav>')
    if len(pages) > 1:
        items = "".join(
            f'<li><a href="#page-{number}">{esc(label)}</a></li>' for number, label in pages
        )
        out.append(
            f'<nav class="page-list" role="doc-pagelist" aria-label="Pages"><ul>{items}</ul></nav>'
        )
    return "\n".join(out)


_SCRIPTS = ("sup", "sub")
_FURNITURE = ("page_header", "page_footer")


def _spans(spans: list[Span], state: _State | None = None) -> str:
    out = []
    for span in spans:
        if span.note_ref:
            out.append(_noteref(span, state))
            continue
        if span.script == "math" and span.tex:
            # An inline formula in its sentence; a reader without MathML hears it as printed.
            math = _mathml(span.tex, "inline", span.text.strip())
            if math is not None:
                out.append(math)
                continue
        text = esc(span.text)
        lang = f' lang="{esc(span.lang or "")}"' if valid_lang(span.lang) else ""
        if span.low_confidence:
            # Seen (a highlight and a dotted underline) and heard: the stylesheet's ::before
            # says "uncertain:" to screen readers only, so copied text stays the words alone.
            # Its id is where the report's "show it" link lands.
            ident = ""
            if state is not None:
                state.uncertain_no += 1
                ident = f' id="uncertain-{state.uncertain_no}"'
            text = f'<mark class="uncertain"{ident} data-confidence="low"{lang}>{text}</mark>'
        elif lang:
            text = f"<span{lang}>{text}</span>"
        out.append(f"<{span.script}>{text}</{span.script}>" if span.script in _SCRIPTS else text)
    return "".join(out)


def _noteref(span: Span, state: _State | None) -> str:
    marker = esc(span.text.strip() or "*")
    note = span.note_ref or ""
    if state is None or note not in state.note_ids:
        # A reference to a note that was not read: keep the marker, link nothing.
        return f'<sup data-review="note-missing">{marker}</sup>'
    refs = state.note_refs.setdefault(note, [])
    ref_id = f"ref-{note}" + (f"-{len(refs) + 1}" if refs else "")
    refs.append(ref_id)
    return (
        f'<sup><a class="noteref" href="#{esc(note)}" id="{esc(ref_id)}" role="doc-noteref">'
        f"{marker}</a></sup>"
    )


def _lang_attr(block: Block) -> str:
    lang = valid_lang(block.lang)
    return f' lang="{esc(lang)}"' if lang else ""


def _list_html(items: list[ListItem], ordered: bool, state: _State) -> str:
    """A list as printed: an ordered item's printed number or letter ("4.", "b)", "(iv)")
    opens its text, and the list shows no numbers of its own (class "printed"; role="list",
    which some browsers drop with the list style), so every reader gets step "4" of a list
    that goes on from the page before, or item "b", not "2" or a bullet. Siblings whose
    markers count differently ("a) b)" then "4. 5.") are lists of their own; bullets are the
    list's own, and an ordered list whose reader gave no markers numbers itself."""
    out = []
    for family, run in _marker_runs(items, ordered):
        lis = []
        for item in run:
            inner = _spans(item.spans, state)
            if family not in (None, "#"):
                inner = f'<span class="marker">{esc((item.marker or "").strip())}</span> {inner}'
            if item.children:
                inner += _list_html(item.children, item.ordered_children, state)
            lis.append(f"<li>{inner}</li>")
        if family is None:
            out.append(f"<ul>{''.join(lis)}</ul>")
        elif family == "#":
            out.append(f"<ol>{''.join(lis)}</ol>")
        else:
            out.append(f'<ol class="printed" role="list">{"".join(lis)}</ol>')
    return "".join(out)


def _marker_runs(items: list[ListItem], ordered: bool) -> list[tuple[str | None, list[ListItem]]]:
    """Siblings in runs of one marker family (models.reading.markers.marker_family; "#": an
    ordered item whose reader gave no marker; None: bullets)."""
    runs: list[tuple[str | None, list[ListItem]]] = []
    for item in items:
        family = marker_family(item.marker) or ("#" if ordered and not item.marker else None)
        if runs and runs[-1][0] == family:
            runs[-1][1].append(item)
        else:
            runs.append((family, [item]))
    return runs


def _block_html(block: Block, page_no: int, state: _State, opts: RenderOptions) -> str:
    lang = _lang_attr(block)
    if block.kind == "heading":
        level = block.level or 2
        return f'<h{level} id="{esc(block.id or "")}"{lang}>{_spans(block.spans, state)}</h{level}>'
    if block.kind == "list":
        tag_html = _list_html(block.items, block.ordered, state)
        return tag_html.replace(">", f"{lang}>", 1) if lang and tag_html else tag_html
    if block.kind in _FURNITURE:
        # Running headers/footers: shown to everyone alike, set apart in small type. Not
        # hidden from screen readers only (sighted and blind readers would get different
        # text), and not from everyone (a title taken for a running head would be lost).
        return f'<p class="furniture" data-page="{page_no}">{_spans(block.spans)}</p>'
    if block.kind == "footnote":
        state.note_no += 1
        ident = block.id or f"fn-p{page_no}-{state.note_no}"
        slot = _BACKREF_SLOT.format(ident) if block.id else ""
        # A name per note: landmarks must be distinguishable (axe landmark-unique).
        return (
            f'<aside class="footnote" role="doc-footnote" id="{esc(ident)}" '
            f'aria-label="Footnote {state.note_no}"{lang}>'
            f"<p>{_spans(block.spans, state)}{slot}</p></aside>"
        )
    if block.kind == "figure":
        state.figure_no += 1
        return _figure_html(block, page_no, state.figure_no, opts)
    if block.kind == "table":
        state.table_no += 1
        return _table_html(block, state.table_no)
    if block.kind == "formula":
        state.formula_no += 1
        return _formula_html(block, state.formula_no)
    if block.kind == "code":
        # A listing keeps its lines and indentation; the stylesheet wraps a long line rather
        # than widen the page (reflow at 320 px).
        return f'<pre class="code"{lang}><code>{esc(block.text)}</code></pre>'
    if not block.text.strip():
        return ""  # an empty paragraph is noise for a screen reader
    return f"<p{lang}>{_spans(block.spans, state)}</p>"


def _figure_html(block: Block, page_no: int, figure_no: int, opts: RenderOptions) -> str:
    review = ""
    alt = (block.alt or "").strip()
    if not alt:
        alt = f"Figure {figure_no} on page {page_no}, not yet described"
        review = ' data-review="alt-missing"'
    caption = f"<figcaption>{esc(block.caption)}</figcaption>" if block.caption else ""
    # The text printed in the figure is read out with it, never lost (docs/structure.md).
    labels = (
        f'<p class="figure-labels">Text in the figure: {esc(block.labels)}</p>'
        if block.labels
        else ""
    )
    if not block.image:
        # The region could not be cropped: keep what was said about it, flagged for review.
        return (
            f'<figure id="figure-{figure_no}" data-review="image-missing">'
            f'<p class="figure-text">{esc(alt)}</p>{labels}{caption}</figure>'
        )
    src = f"{opts.files_dir}/{block.image}" if opts.files_dir else block.image
    img = f'<img src="{esc(src)}" alt="{esc(alt)}">'
    return f'<figure id="figure-{figure_no}"{review}>{img}{labels}{caption}</figure>'


def _page_scan_html(block: Block, page: Page, figure_no: int, opts: RenderOptions) -> str:
    """A page not transcribed (handwriting, illegible text): a note that says so, then the
    page's image, so a sighted reader can read it and nobody takes it for a blank page."""
    number = page.number
    read = [b for b in page.blocks if not b.page_scan and b.kind not in _FURNITURE]
    partly = any(b.text.strip() or b.rows or b.items for b in read)
    script = block.unread_script
    if script or block.unread_print:  # print, never called handwriting
        unread = (
            f"printed in the {script} script, which this server's OCR does not read,"
            if script
            else "printed in a script, a typeface or signs this server's OCR could not read,"
        )
        says = (
            f"Parts of page {number} are {unread} and were not transcribed. The image of the "
            "whole page follows the note."
            if partly
            else f"Page {number} is {unread} and was not transcribed. Its image follows."
        )
    elif partly:
        says = (
            f"Parts of page {number} are handwritten or illegible and were not transcribed."
            " The image of the whole page follows the note."
        )
    else:
        says = f"Page {number} is handwritten and was not transcribed. Its image follows."
    report = _report_href(opts)
    ask = (
        f' To have it transcribed, ask for a review: <a href="{esc(report)}">the accessibility '
        "report</a> lists what a person must check."
        if report
        else " To have it transcribed, ask for a review."
    )
    ident = f"page-scan-{number}"
    note = (
        f'<div class="page-scan-note" role="note" aria-labelledby="{ident}">'
        f'<p><strong id="{ident}">{esc(says)}</strong>{ask}</p></div>'
    )
    alt = f"Page {number} as scanned, not transcribed"
    if not block.image:
        return note
    src = f"{opts.files_dir}/{block.image}" if opts.files_dir else block.image
    img = f'<img src="{esc(src)}" alt="{esc(alt)}">'
    return f'{note}<figure id="figure-{figure_no}" class="page-scan">{img}</figure>'


def _report_href(opts: RenderOptions) -> str:
    """The report beside the document: `<stem>.report.html` for figures in `<stem>_files`."""
    stem = opts.files_dir.removesuffix(FILES_SUFFIX)
    return f"{stem}{REPORT_SUFFIX}" if opts.files_dir.endswith(FILES_SUFFIX) else ""


# -- tables ----------------------------------------------------------------------------------------
@dataclass
class _Placed:
    cell: Cell
    row: int
    col: int


def _place(rows: list[list[Cell]]) -> tuple[list[list[_Placed]], int]:
    """Grid positions of every cell, honouring row and column spans (HTML's table model)."""
    taken: set[tuple[int, int]] = set()
    placed: list[list[_Placed]] = []
    width = 0
    for r, row in enumerate(rows):
        out_row = []
        c = 0
        for cell in row:
            while (r, c) in taken:
                c += 1
            out_row.append(_Placed(cell, r, c))
            for dr in range(cell.rowspan):
                for dc in range(cell.colspan):
                    taken.add((r + dr, c + dc))
            c += cell.colspan
        width = max(width, c, *(col + 1 for (rr, col) in taken if rr == r))
        placed.append(out_row)
    return placed, width


def _without_spacer_columns(rows: list[list[Cell]]) -> list[list[Cell]]:
    """Columns where no cell of their own holds text (a spreadsheet's spacer column, a grid
    line read as a column: empty, or only crossed by a cell that spans others too) are
    dropped; a cell spanning one spans a column less."""
    placed, width = _place(rows)
    named = [p for prow in placed for p in prow if p.cell.text.strip()]
    filled = {p.col for p in named if p.cell.colspan == 1}
    for p in named:
        covered = set(range(p.col, p.col + p.cell.colspan))
        if not covered & filled:
            filled |= covered  # a cell alone over its columns keeps them
    empty = set(range(width)) - filled
    if not empty or not filled:
        return rows
    out: list[list[Cell]] = []
    for prow in placed:
        row = []
        for p in prow:
            kept = sum(c not in empty for c in range(p.col, p.col + p.cell.colspan))
            if kept:
                row.append(Cell(p.cell.text, p.cell.header, p.cell.rowspan, kept))
        out.append(row)
    return [row for row in out if row]


def _header_row(row: list[Cell]) -> bool:
    """A row of column headers: its cells with text are all headers (an empty corner cell
    over the row headers is none)."""
    named = [c for c in row if c.text.strip()]
    return bool(named) and all(c.header for c in named)


def _label_over_figures(rows: list[list[Cell]], *, params: DoubtParams = DOUBTS) -> bool:
    """A column whose first cell is a label over figures only: the first row is the header a
    reader expects, a guess no person need check."""
    placed, _ = _place(rows)
    below: dict[int, list[str]] = {}
    for prow in placed[1:]:
        for p in prow:
            if p.cell.colspan == 1 and p.cell.text.strip():
                below.setdefault(p.col, []).append(p.cell.text)
    for p in placed[0]:
        label = p.cell.text.strip()
        column = below.get(p.col, [])
        if p.cell.colspan != 1 or not label or is_datum(label):
            continue
        if len(column) >= params.guess_figures_min and all(map(is_datum, column)):
            return True
    return False


def _table_html(block: Block, table_no: int) -> str:
    tid = f"table-{table_no}"
    rows = _without_spacer_columns([list(r) for r in block.rows if r])
    caption = block.caption
    _, width = _place(rows)
    # A first row that is one cell across the whole table is a caption typed as a cell.
    if len(rows) > 1 and len(rows[0]) == 1 and rows[0][0].colspan >= width > 1:
        caption = caption or rows[0][0].text
        rows = rows[1:]
    review = ""
    guess = len(rows) > 1 and not is_data_row([c.text for c in rows[0]])
    if guess and not any(c.header for r in rows for c in r):
        # No header cells were read: the first row is the likeliest header (not a row of
        # figures: that is data); a person checks, unless it labels a column of figures.
        rows[0] = [Cell(c.text, True, c.rowspan, c.colspan) for c in rows[0]]
        review = "" if _label_over_figures(rows) else ' data-review="headers-guessed"'
    placed, width = _place(rows)
    head_rows = 0
    while head_rows < len(rows) and _header_row(rows[head_rows]):
        head_rows += 1
    if head_rows == len(rows):
        head_rows = 1 if len(rows) > 1 else 0  # a header row needs data cells below it
    complex_table = head_rows > 1 or any(
        c.header and (c.rowspan > 1 or c.colspan > 1) for r in rows for c in r
    )

    col_headers: list[tuple[int, int, str]] = []  # (first col, last col, id)
    row_headers: list[tuple[int, int, int, str]] = []  # (first row, last row, col, id)
    for r, prow in enumerate(placed):
        for p in prow:
            if p.cell.header and p.cell.text.strip():
                hid = f"{tid}-r{r}c{p.col}"
                if r < head_rows:
                    col_headers.append((p.col, p.col + p.cell.colspan - 1, hid))
                else:
                    row_headers.append((r, r + p.cell.rowspan - 1, p.col, hid))

    def headers_for(p: _Placed) -> str:
        last_col = p.col + p.cell.colspan - 1
        last_row = p.row + p.cell.rowspan - 1
        ids = [h for (c0, c1, h) in col_headers if c0 <= last_col and c1 >= p.col]
        ids += [h for (r0, r1, c, h) in row_headers if r0 <= last_row and r1 >= p.row and c < p.col]
        return f' headers="{" ".join(ids)}"' if ids else ""

    html_rows = []
    for r, prow in enumerate(placed):
        cells = []
        for p in prow:
            cell = p.cell
            span = (f' rowspan="{cell.rowspan}"' if cell.rowspan > 1 else "") + (
                f' colspan="{cell.colspan}"' if cell.colspan > 1 else ""
            )
            text = esc(cell.text)
            if cell.header and cell.text.strip():
                scope = "col" if r < head_rows else "row"
                ident = f' id="{tid}-r{r}c{p.col}"'
                extra = headers_for(p) if complex_table and r >= head_rows else ""
                cells.append(f'<th scope="{scope}"{ident}{span}{extra}>{text}</th>')
            else:
                # An empty header cell (a table's corner) is a data cell to assistive tech.
                extra = headers_for(p) if complex_table and r >= head_rows else ""
                cells.append(f"<td{span}{extra}>{text}</td>")
        html_rows.append(f"<tr>{''.join(cells)}</tr>")
    thead = f"<thead>{''.join(html_rows[:head_rows])}</thead>" if head_rows else ""
    tbody = f"<tbody>{''.join(html_rows[head_rows:])}</tbody>"
    # The printed caption, or none: a made-up one ("Table 2, page 1") would be read as the
    # document's own and clash with its numbering; the scroll box is named by its number alone.
    if caption:
        label = f'aria-labelledby="{tid}-caption"'
        caption_html = f'<caption id="{tid}-caption">{esc(caption)}</caption>'
    else:
        label, caption_html = f'aria-label="Table {table_no}"', ""
    return (
        f'<div class="table-scroll" role="region" {label} tabindex="0">'
        f'<table id="{tid}"{review}{_lang_attr(block)}>{caption_html}{thead}{tbody}</table></div>'
    )


def _mathml(tex: str, display: str, alttext: str) -> str | None:
    """The TeX as MathML with the TeX as its annotation; None when it does not convert."""
    try:
        mathml = latex2mathml.converter.convert(tex, display=display)
    except Exception:  # the converter raises many types on bad TeX
        return None
    annotation = f'<annotation encoding="application/x-tex">{esc(tex)}</annotation>'
    # Wrap the converter's content in <semantics> so the TeX travels with the MathML; alttext
    # gives readers without MathML support the formula as text.
    open_end = mathml.index(">") + 1
    head = mathml[: open_end - 1] + f' alttext="{esc(alttext)}">'
    inner = mathml[open_end : mathml.rindex("</math>")]
    return f"{head}<semantics><mrow>{inner}</mrow>{annotation}</semantics></math>"


def _formula_html(block: Block, formula_no: int) -> str:
    tex = (block.latex or "").strip()
    if not tex:
        return ""
    math = _mathml(tex, "block", tex)
    if math is None:
        # Unparseable TeX: say so in words rather than show raw markup as math.
        return f'<p data-review="formula-unparsed">Formula: <code>{esc(tex)}</code></p>'
    # A long formula scrolls in its own focusable box at 320 px instead of widening the page.
    return (
        f'<div class="formula" role="group" aria-label="Formula {formula_no}" tabindex="0">'
        f"{math}</div>"
    )
