"""The answer's body -> ReadBlocks: the segments the prompt marks (`$$` formulas, HTML tables,
`<header>`/`<footer>`/`<page-number>`/`<footnote>` tags, `![alt](box:...)` figures) are cut out
line by line; the text between them is read as Markdown.

An unclosed formula, table or tag degrades (to what could be read, or to paragraphs) with one
finding for the page; a figure without a usable box keeps its alt text and caption.
"""

from __future__ import annotations

import re

from models.engine import PAGE_NUMBER, ReadBlock
from models.gemma.page_prompt import BOX_SCALE
from models.gemma.parse.findings import MALFORMED, finding
from models.gemma.parse.markdown import html_table, inline_text, markdown_blocks

_TAGS = {
    "header": "page_header",
    "footer": "page_footer",
    "page-number": "page_number",
    "page_number": "page_number",
    "pagenumber": "page_number",
    "footnote": "footnote",
}
_TAG_OPEN = re.compile(
    r"^<(header|footer|page-number|page_number|pagenumber|footnote)\b[^>]*>", re.IGNORECASE
)
_FIGURE = re.compile(r"^!\[(?P<alt>[^\]]*)\]\((?P<dest>[^)]*)\)\s*(?P<rest>.*)$")
_NUM = r"([-\d.]+)"
_BOX = re.compile(rf"^\s*<?\s*box\s*:?\s*\[?\s*{_NUM}[\s,]+{_NUM}[\s,]+{_NUM}[\s,]+{_NUM}")


def body_blocks(
    body: str, *, width: int, height: int, findings: list[dict[str, str]]
) -> list[ReadBlock]:
    lines = body.split("\n")
    blocks: list[ReadBlock] = []
    md: list[str] = []
    malformed: list[str] = []

    def flush() -> None:
        if md:
            blocks.extend(markdown_blocks("\n".join(md), width=width, height=height))
            md.clear()

    def put(block: ReadBlock, after: str) -> None:
        """A block that ends inside a line: the text after its end reads on as Markdown."""
        flush()
        blocks.append(block)
        if after.strip():
            md.append(after)

    i = 0
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        low = s.lower()
        if s.startswith("$$") or s.startswith("\\["):
            close = "$$" if s.startswith("$$") else "\\]"
            first = s[2:]
            if close in first:
                latex, after = first.split(close, 1)
                flush()
                blocks.append(ReadBlock(kind="formula", latex=latex.strip(), text=latex.strip()))
                if after.strip():
                    md.append(after)
                i += 1
                continue
            j = i + 1
            while j < len(lines) and close not in lines[j]:
                j += 1
            if j == len(lines):  # never closed: keep the text as paragraphs
                malformed.append("a formula was not closed")
                md.append(line.replace("$$", "").replace("\\[", ""))
                i += 1
                continue
            flush()
            last, after = lines[j].split(close, 1)
            latex = "\n".join([first, *lines[i + 1 : j], last]).strip()
            blocks.append(ReadBlock(kind="formula", latex=latex, text=latex))
            if after.strip():
                md.append(after)
            i = j + 1
            continue
        if low.startswith("<table"):
            j = i
            while j < len(lines) and "</table>" not in lines[j].lower():
                j += 1
            closed = j < len(lines)
            chunk = "\n".join(lines[i : j + 1])
            after = ""
            if closed:
                cut = chunk.lower().rindex("</table>") + len("</table>")
                chunk, after = chunk[:cut], chunk[cut:]
            else:
                malformed.append("a table was not closed")
            put(html_table(chunk, findings), after)
            i = j + 1
            continue
        m = _TAG_OPEN.match(s)
        if m:
            tag = m.group(1).lower()
            rest = s[m.end() :]
            end_re = re.compile(rf"</{re.escape(tag)}\s*>", re.I)
            parts = [rest]
            j = i
            while not end_re.search(parts[-1]) and j + 1 < len(lines) and lines[j + 1].strip():
                j += 1
                parts.append(lines[j])
            joined = "\n".join(parts)
            em = end_re.search(joined)
            if em:
                inner, after = joined[: em.start()], joined[em.end() :]
            else:
                inner, after = joined, ""
                malformed.append(f"a <{tag}> tag was not closed")
            put(_tagged(_TAGS[tag], inline_text(inner)), after)
            i = j + 1
            continue
        fm = _FIGURE.match(s)
        if fm:
            flush()
            caption = [fm.group("rest")]
            j = i + 1
            while j < len(lines) and lines[j].strip() and not _special(lines[j].strip()):
                caption.append(lines[j])
                j += 1
            blocks.append(
                _figure(
                    fm.group("alt"),
                    fm.group("dest"),
                    " ".join(caption),
                    width=width,
                    height=height,
                    findings=findings,
                )
            )
            i = j
            continue
        md.append(line)
        i += 1
    flush()
    if malformed:
        findings.append(
            finding(
                MALFORMED,
                "warning",
                "The model's answer was malformed ("
                + "; ".join(dict.fromkeys(malformed))
                + "); what could be read was kept.",
            )
        )
    return blocks


def _special(s: str) -> bool:
    return bool(
        s.startswith(("$$", "\\[", "#", "- ", "* "))
        or s.lower().startswith("<table")
        or _TAG_OPEN.match(s)
        or _FIGURE.match(s)
    )


def _tagged(kind: str, text: str) -> ReadBlock:
    if kind == "page_number" and not PAGE_NUMBER.match(text.strip()):
        kind = "page_footer"  # not a number assemble can use as a page label: keep it as text
    return ReadBlock(kind=kind, text=text)  # type: ignore[arg-type]


def _figure(
    alt: str,
    dest: str,
    caption: str,
    *,
    width: int,
    height: int,
    findings: list[dict[str, str]],
) -> ReadBlock:
    alt_text = inline_text(alt) or None
    bbox = None
    m = _BOX.match(dest)
    if m:
        x0, y0, x1, y1 = (float(v) for v in m.groups())
        x0, x1 = sorted((min(max(x0, 0.0), BOX_SCALE), min(max(x1, 0.0), BOX_SCALE)))
        y0, y1 = sorted((min(max(y0, 0.0), BOX_SCALE), min(max(y1, 0.0), BOX_SCALE)))
        if x1 > x0 and y1 > y0:
            sx, sy = width / BOX_SCALE, height / BOX_SCALE
            bbox = (round(x0 * sx, 1), round(y0 * sy, 1), round(x1 * sx, 1), round(y1 * sy, 1))
    if bbox is None:
        findings.append(
            finding(MALFORMED, "warning", "A figure came without a usable region on the page.")
        )
    return ReadBlock(kind="figure", alt=alt_text, text=inline_text(caption), bbox=bbox)


__all__ = ["body_blocks"]
