"""report.json -> an accessible HTML page: the summary, then the findings grouped by level.

Same frame rules as the output documents: `lang`, a title, a skip link, one `<main>`, one `<h1>`,
real tables with captions and header cells, a strict CSP and no script. Every value is escaped.
"""

from __future__ import annotations

from pathlib import Path

from conversion.pipeline import render

LEVELS = (
    ("error", "Errors", "Must be fixed: the document does not meet WCAG 2.2 AA here."),
    ("warning", "Warnings", "Probably a problem; check it."),
    ("needs_review", "Needs review", "Only a person can judge these."),
)
WCAG_URL = "https://www.w3.org/WAI/WCAG22/quickref/"

_CSS = """
body { margin: 0 auto; padding: 1rem 1.25rem 3rem; max-width: 60rem; line-height: 1.5;
  font-family: system-ui, "DejaVu Sans", sans-serif; color: #1b1b1b; background: #ffffff;
  overflow-wrap: break-word; }
a { color: #0b57a4; }
a:focus-visible, [tabindex]:focus-visible { outline: 3px solid #0b57a4; outline-offset: 2px; }
.skip-link { position: absolute; left: -999px; top: 0; background: #ffffff; padding: .5rem 1rem; }
.skip-link:focus { left: 1rem; }
.table-scroll { overflow-x: auto; max-width: 100%; margin: 1rem 0; }
/* Its caption wraps to the box's width and stays in view while the table scrolls (at 200 %
   zoom a long caption of a wide table ran past the box, clipped). */
.table-scroll { container-type: inline-size; }
.table-scroll caption { position: sticky; left: 0; max-width: 100cqi; box-sizing: border-box; }
table { border-collapse: collapse; }
th, td { border: 1px solid #8a8a8a; padding: .25rem .5rem; text-align: left; vertical-align: top; }
thead th { background: #f2f2f2; }
caption { text-align: left; font-weight: bold; padding: .25rem 0; }
/* minmax(0, 1fr) and anywhere: a long file name wraps instead of widening the page (320 px). */
dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .25rem 1rem; }
dt { font-weight: bold; } dd { margin: 0; overflow-wrap: anywhere; }
h1, td, th, code { overflow-wrap: anywhere; }
@media (max-width: 30rem) {
  dl { grid-template-columns: minmax(0, 1fr); } dd { margin-bottom: .5rem; }
}
"""


def esc(value: object) -> str:
    return render.esc("" if value is None else str(value))


def render_report(report: dict, *, document_href: str | None = None) -> str:
    title = f"Accessibility report: {report.get('title') or report.get('source') or 'document'}"
    summary = report.get("summary", {})
    findings = report.get("findings", [])
    facts = [
        ("Source file", report.get("source")),
        ("Title", report.get("title")),
        ("Language", report.get("language")),
        ("Pages", report.get("pages")),
        ("Engine", _engine(report.get("engine") or {})),
    ]
    parts = [f"<h1>{esc(title)}</h1>"]
    if document_href:
        parts.append(f'<p><a href="{esc(document_href)}">Open the converted document</a></p>')
    parts.append(
        "<dl>" + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts) + "</dl>"
    )
    parts.append('<section aria-labelledby="summary"><h2 id="summary">Summary</h2><ul>')
    for key, label, _ in LEVELS:
        parts.append(f"<li>{esc(label)}: {int(summary.get(key, 0))}</li>")
    parts.append("</ul></section>")
    for key, label, explanation in LEVELS:
        rows = [f for f in findings if f.get("level") == key]
        parts.append(f'<section aria-labelledby="{key}"><h2 id="{key}">{esc(label)}</h2>')
        parts.append(f"<p>{esc(explanation)}</p>")
        if not rows:
            parts.append("<p>None.</p></section>")
            continue
        parts.append(_findings_table(key, label, rows, document_href))
        parts.append("</section>")
    if report.get("formats"):
        parts.append(_formats(report["formats"]))
    body = "\n".join(parts)
    lang = "en"  # the report's own language: its words are English whatever the document's
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\">\n"
        f"<title>{esc(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        '<a class="skip-link" href="#content">Skip to content</a>\n'
        f'<main id="content">\n{body}\n</main>\n</body>\n</html>\n'
    )


def _formats(formats: dict) -> str:
    """The EPUB and the tagged PDF: what each holds and how its check went."""
    items = []
    epub, pdf = formats.get("epub"), formats.get("pdf")
    if epub:
        claim = epub.get("conforms_to") or "none (findings are open)"
        holds = (
            f"{epub.get('content_documents')} content documents, a page list of "
            f"{epub.get('page_list')} print pages, {epub.get('toc_entries')} contents entries, "
            f"{epub.get('figures_described')} of {epub.get('figures')} figures described; "
            f"features: {', '.join(epub.get('accessibility_features') or []) or 'none'}; "
            f"conformance claimed: {claim}"
        )
        if "page_list" not in epub:
            holds = "not made"
        items.append(("EPUB 3", holds, epub.get("check") or {}))
    if pdf:
        holds = (
            f"{pdf.get('variant')}, {pdf.get('print_pages')} print pages"
            + (f" on {pdf['pdf_pages']} PDF pages" if "pdf_pages" in pdf else "")
            + f", {pdf.get('figures')} figures, {pdf.get('bookmarks')} bookmarks"
            + (f"; made {pdf['made']}" if pdf.get("made") else "")
        )
        if "variant" not in pdf:
            holds = "not made"
        items.append(("Tagged PDF", holds, pdf.get("check") or {}))
    parts = ['<section aria-labelledby="formats"><h2 id="formats">Other formats</h2><dl>']
    for name, holds, check in items:
        problems = check.get("problems")
        if problems is None:
            verdict = "checked when it is made"
        elif problems:
            verdict = f"{len(problems)} problems: {'; '.join(problems)}"
        else:
            verdict = "passed"
        parts.append(
            f"<dt>{esc(name)}</dt><dd>{esc(holds)}</dd>"
            f"<dd>Check ({esc(check.get('by'))}): {esc(verdict)}</dd>"
        )
    parts.append("</dl></section>")
    return "".join(parts)


def _engine(engine: dict) -> str:
    return " ".join(str(engine[k]) for k in ("engine", "package") if engine.get(k)) or "–"


def _where(f: dict, document_href: str | None) -> str:
    """The finding's location in words; a link that shows the spot when there is a document."""
    words = f.get("location") or (f"page {f['page']}" if f.get("page") else "the whole document")
    words = words[:1].upper() + words[1:]
    anchor = f.get("anchor")
    if document_href and anchor:
        return f'<a href="{esc(document_href)}#{esc(anchor)}">{esc(words)}</a>'
    return esc(words)


def _findings_table(key: str, label: str, rows: list[dict], document_href: str | None) -> str:
    head = "".join(f'<th scope="col">{h}</th>' for h in ("Where", "Problem", "Rule", "WCAG"))
    body = []
    for f in sorted(rows, key=lambda f: (f.get("page") or 0, f.get("code", ""))):
        criterion = f.get("criterion")
        sc = esc(criterion) if criterion else "–"
        body.append(
            "<tr>"
            f'<th scope="row">{_where(f, document_href)}</th>'
            f"<td>{esc(f.get('message'))}</td>"
            f"<td><code>{esc(f.get('code'))}</code></td>"
            f"<td>{sc}</td>"
            "</tr>"
        )
    return (
        f'<div class="table-scroll" role="region" aria-labelledby="{key}-caption" tabindex="0">'
        f'<table><caption id="{key}-caption">{esc(label)} ({len(rows)})</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def write_report_html(report: dict, path: Path, *, document_href: str | None = None) -> Path:
    path.write_text(render_report(report, document_href=document_href), encoding="utf-8")
    return path
