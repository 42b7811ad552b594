"""Document -> HTML. Every piece of text is escaped here; the frame is templates/output/.

Structure rules the renderer guarantees (../shared/docs/accessibility.md): `lang`, a real title,
a skip link, one `<main>`, exactly one `<h1>`, no skipped heading levels, figures with `alt` or a
needs-review flag, one page-break marker per page, furniture out of the reading flow.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from string import Template

from conversion.pipeline.document import Block, Document, ListItem, Span

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "output"
TOC_MIN_HEADINGS = 3


@dataclass(frozen=True)
class RenderOptions:
    files_dir: str = ""  # the folder name figures are linked from, "<stem>_files"


def esc(text: str) -> str:
    return html.escape(text, quote=True)


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
    for block, level in zip(
        headings, repair_heading_levels([b.level or 1 for b in headings]), strict=True
    ):
        block.level = level
    for i, block in enumerate(headings, start=1):
        block.id = block.id or f"h-{i}"

    parts: list[str] = []
    if not headings:
        # No heading was read: the document title is the one <h1>, outside the reading text.
        parts.append(f'<header><h1 class="doc-title">{esc(doc.title)}</h1></header>')
    navs = _navigation(doc, headings)
    if navs:
        parts.append(navs)
    parts.append('<main id="content">')
    figure_no = 0
    for page in doc.pages:
        label = page.label or str(page.number)
        parts.append(
            f'<span class="pagebreak" role="doc-pagebreak" id="page-{page.number}" '
            f'aria-label="{esc(label)}"></span>'
        )
        for block in page.blocks:
            if block.kind == "figure":
                figure_no += 1
            parts.append(_block_html(block, page.number, figure_no, opts))
    parts.append("</main>")
    template = Template((TEMPLATES / "document.html").read_text(encoding="utf-8"))
    css = (TEMPLATES / "document.css").read_text(encoding="utf-8")
    from conversion.pipeline.sanitize import sanitize_fragment

    body = sanitize_fragment("\n".join(parts))
    return template.substitute(lang=esc(doc.lang), title=esc(doc.title), css=css, body=body)


def _navigation(doc: Document, headings: list[Block]) -> str:
    out = []
    if len(headings) >= TOC_MIN_HEADINGS:
        items = "".join(
            f'<li class="toc-{b.level}"><a href="#{b.id}">{esc(b.text)}</a></li>' for b in headings
        )
        out.append(f'<nav aria-label="Table of contents"><ol>{items}</ol></nav>')
    if len(doc.pages) > 1:
        items = "".join(
            f'<li><a href="#page-{p.number}">{esc(p.label or str(p.number))}</a></li>'
            for p in doc.pages
        )
        out.append(f'<nav aria-label="Pages"><ul class="page-list">{items}</ul></nav>')
    return "\n".join(out)


def _spans(spans: list[Span]) -> str:
    out = []
    for span in spans:
        text = esc(span.text)
        attrs = ""
        if span.low_confidence:
            attrs += ' data-confidence="low"'
        if span.lang:
            attrs += f' lang="{esc(span.lang)}"'
        out.append(f"<span{attrs}>{text}</span>" if attrs else text)
    return "".join(out)


def _lang_attr(block: Block) -> str:
    return f' lang="{esc(block.lang)}"' if block.lang else ""


def _list_html(items: list[ListItem], ordered: bool) -> str:
    tag = "ol" if ordered else "ul"
    lis = []
    for item in items:
        inner = _spans(item.spans)
        if item.children:
            inner += _list_html(item.children, item.ordered_children)
        lis.append(f"<li>{inner}</li>")
    return f"<{tag}>{''.join(lis)}</{tag}>"


def _block_html(block: Block, page_no: int, figure_no: int, opts: RenderOptions) -> str:
    lang = _lang_attr(block)
    if block.kind == "heading":
        level = block.level or 2
        return f'<h{level} id="{esc(block.id or "")}"{lang}>{_spans(block.spans)}</h{level}>'
    if block.kind == "paragraph":
        return f"<p{lang}>{_spans(block.spans)}</p>"
    if block.kind == "list":
        return _list_html(block.items, block.ordered)
    if block.kind in ("page_header", "page_footer"):
        # Running headers/footers: kept for the record, out of the reading flow.
        return f'<p class="furniture" aria-hidden="true" data-page="{page_no}">{_spans(block.spans)}</p>'
    if block.kind == "footnote":
        ident = esc(block.id or f"fn-{page_no}")
        return f'<aside role="doc-footnote" id="{ident}"{lang}><p>{_spans(block.spans)}</p></aside>'
    if block.kind == "figure":
        return _figure_html(block, page_no, figure_no, opts)
    if block.kind == "table":
        return _table_html(block, page_no)
    if block.kind == "formula":
        return _formula_html(block)
    return f"<p{lang}>{_spans(block.spans)}</p>"


def _figure_html(block: Block, page_no: int, figure_no: int, opts: RenderOptions) -> str:
    review = ""
    alt = (block.alt or "").strip()
    if not alt:
        alt = f"Figure {figure_no} on page {page_no}, not yet described"
        review = ' data-review="alt-missing"'
    img = ""
    if block.image:
        src = f"{opts.files_dir}/{block.image}" if opts.files_dir else block.image
        img = f'<img src="{esc(src)}" alt="{esc(alt)}">'
    caption = f"<figcaption>{esc(block.caption)}</figcaption>" if block.caption else ""
    if not img:
        return (
            f'<figure id="figure-{figure_no}"{review} role="group" aria-label="{esc(alt)}">{caption}</figure>'
            if caption
            else ""
        )
    return f'<figure id="figure-{figure_no}"{review}>{img}{caption}</figure>'


def _table_html(block: Block, page_no: int) -> str:
    table_id = f"table-p{page_no}-{id(block) % 100000}"
    caption = block.caption or f"Table on page {page_no}"
    rows_html = []
    for r, row in enumerate(block.rows):
        cells = []
        for c, cell in enumerate(row):
            span = ""
            if cell.rowspan > 1:
                span += f' rowspan="{cell.rowspan}"'
            if cell.colspan > 1:
                span += f' colspan="{cell.colspan}"'
            if cell.header:
                scope = "col" if r == 0 else "row"
                cells.append(f'<th scope="{scope}"{span}>{esc(cell.text)}</th>')
            else:
                cells.append(f"<td{span}>{esc(cell.text)}</td>")
        rows_html.append(f"<tr>{''.join(cells)}</tr>")
    return (
        f'<div class="table-scroll" role="region" aria-labelledby="{table_id}-caption" tabindex="0">'
        f'<table><caption id="{table_id}-caption">{esc(caption)}</caption>'
        f"{''.join(rows_html)}</table></div>"
    )


def _formula_html(block: Block) -> str:
    tex = (block.latex or "").strip()
    if not tex:
        return ""
    try:
        import latex2mathml.converter

        mathml = latex2mathml.converter.convert(tex, display="block")
    except Exception:
        # Unparseable TeX: say so in words rather than show raw markup as math.
        return f'<p data-review="formula-unparsed">Formula: <code>{esc(tex)}</code></p>'
    annotation = f'<annotation encoding="application/x-tex">{esc(tex)}</annotation>'
    # Wrap the converter's content in <semantics> so the TeX travels with the MathML.
    open_end = mathml.index(">") + 1
    inner = mathml[open_end : mathml.rindex("</math>")]
    return f"{mathml[:open_end]}<semantics><mrow>{inner}</mrow>{annotation}</semantics></math>"
