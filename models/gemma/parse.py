"""Gemma's answer for one page -> typed blocks (`ReadBlock`s), page language and rotation.

The answer format is set by `models.gemma.page_prompt`: front matter, then Markdown with HTML
tables, `![alt](box:x0,y0,x1,y1)` figures, `$$` formulas and `<header>`/`<footer>`/
`<page-number>`/`<footnote>` tags. Model text is untrusted data: Markdown is parsed with
markdown-it-py with raw HTML off (any markup the model writes stays literal text), tables are read
with BeautifulSoup into plain-text cells, and nothing from the answer is ever emitted as markup.

Robustness rules: a repetition loop at the end (greedy decoding's failure mode) is cut and
flagged; unclosed tables/formulas/tags degrade (to what could be read, or to paragraphs) with a
finding; a page the model calls blank stays blank.

Over 450 lines on purpose: one parser of one answer format, whose rules (front matter, Markdown,
tables, figures, formulas, furniture tags, loops) must stay consistent with each other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from models.engine import PAGE_NUMBER, ReadBlock
from models.gemma.page_prompt import BOX_SCALE
from models.language import BCP47, bcp47_case

# Finding codes (engine-level notes; they reach the job report).
TRUNCATED = "MODEL_OUTPUT_TRUNCATED"
REPETITION = "MODEL_REPETITION"
MALFORMED = "MODEL_OUTPUT_MALFORMED"
BLANK_CONFLICT = "MODEL_BLANK_WITH_TEXT"

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]")
_FENCE_OPEN = re.compile(r"^```[ \t]*(?:markdown|md)?[ \t]*\n", re.IGNORECASE)
_FM_KEY = re.compile(
    r"^\s*(primary_language|language|rotation|rotation_correction|is_rotation_valid|is_blank|"
    r"is_table|is_diagram)\s*:\s*(.*?)\s*$",
    re.IGNORECASE,
)
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
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)([^$\n]+?)(?<!\\)\$")
_FORMATTING = {
    "b", "strong", "i", "em", "u", "sup", "sub", "span", "small", "big", "mark", "code", "a",
    "font", "s", "del", "ins", "abbr", "p", "div",
}  # fmt: skip
_MAX_SPAN = 100
# A loop must cover this many characters (and repeat at least 3 times) to be cut.
LOOP_MIN_CHARS = 120
LOOP_MAX_PERIOD = 600


@dataclass
class ParsedPage:
    blocks: list[ReadBlock]
    language: str | None = None
    rotation: int = 0  # degrees clockwise the page must be turned to read upright
    blank: bool = False
    findings: list[dict[str, str]] = field(default_factory=list)


def parse_page(text: str, *, width: int, height: int, truncated: bool = False) -> ParsedPage:
    """Parse one answer. `width`/`height`: the page image's pixels (figure boxes are scaled to
    them); `truncated`: generation stopped at the token limit, not at a stop token."""
    findings: list[dict[str, str]] = []
    text = _clean(text)
    text, looped = cut_repetition(text)
    if looped:
        findings.append(
            _finding(
                REPETITION,
                "needs_review",
                "The model repeated itself at the end of this page; the repetition was cut and "
                "text after it may be missing.",
            )
        )
    elif truncated:
        findings.append(
            _finding(
                TRUNCATED,
                "needs_review",
                "The model's answer for this page hit the length limit; the end of the page may "
                "be missing.",
            )
        )
    meta, body = _front_matter(text, findings)
    page = ParsedPage(blocks=[], findings=findings)
    page.language = meta.get("language")
    page.rotation = meta.get("rotation", 0)
    body = _collapse_repeated_lines(body, findings)
    blocks = _body_blocks(body, width=width, height=height, findings=findings)
    blocks = [b for b in blocks if b.kind == "figure" or b.text.strip() or b.rows or b.latex]
    if meta.get("blank"):
        page.blank = True
        if blocks:
            findings.append(
                _finding(
                    BLANK_CONFLICT,
                    "needs_review",
                    "The model called this page blank but also wrote text; the text was dropped. "
                    "Check the page image.",
                )
            )
        return page
    page.blocks = blocks
    return page


def _finding(code: str, level: str, message: str) -> dict[str, str]:
    return {"code": code, "level": level, "message": message}


# -- cleanup ---------------------------------------------------------------------------------
def _clean(text: str) -> str:
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    stripped = text.strip()
    m = _FENCE_OPEN.match(stripped)
    if m:  # the whole answer wrapped in a ```markdown fence
        stripped = stripped[m.end() :]
        if stripped.rstrip().endswith("```"):
            stripped = stripped.rstrip()[:-3]
    return stripped


def cut_repetition(text: str) -> tuple[str, bool]:
    """Cut a loop at the end of `text` down to one copy of its unit. Returns (text, cut?).

    A loop is a suffix with period p (s[i] == s[i-p]) that repeats at least 3 times and covers
    LOOP_MIN_CHARS; a partial last unit (generation stopped mid-unit) counts. Loops that end before
    the answer does are the model recovering and are left alone.
    """
    s = text.rstrip()
    n = len(s)
    if n < LOOP_MIN_CHARS:
        return text, False
    a = np.frombuffer(s.encode("utf-32-le"), dtype=np.uint32)
    best: tuple[int, int] | None = None  # (span, period)
    for p in range(1, min(LOOP_MAX_PERIOD, n // 3) + 1):
        eq = a[p:] == a[:-p]
        if not eq[-1]:
            continue
        bad = np.flatnonzero(~eq)
        run = len(eq) - (int(bad[-1]) + 1 if len(bad) else 0)  # trailing matches
        span = run + p
        if span >= max(LOOP_MIN_CHARS, 3 * p) and (best is None or span > best[0]):
            best = (span, p)
    if best is None:
        return text, False
    span, p = best
    start = n - span
    unit = s[start : start + p]
    # Keep one copy, ending at a line break when the unit has one (cleaner cut).
    return s[:start] + unit.rstrip() if "\n" in unit else s[: start + p], True


def _collapse_repeated_lines(body: str, findings: list[dict[str, str]]) -> str:
    """The same non-trivial line more than 4 times in a row (a loop the model broke out of)."""
    out: list[str] = []
    run = 0
    collapsed = False
    for line in body.split("\n"):
        key = line.strip()
        same = bool(out) and key == out[-1].strip()
        if same and len(key) >= 12 and any(c.isalpha() for c in key):
            run += 1
            if run >= 4:
                collapsed = True
                continue
        else:
            run = 0
        out.append(line)
    if collapsed:
        findings.append(
            _finding(
                REPETITION,
                "needs_review",
                "The model repeated a line many times on this page; the repeats were removed.",
            )
        )
    return "\n".join(out)


# -- front matter ----------------------------------------------------------------------------
def _front_matter(text: str, findings: list[dict[str, str]]) -> tuple[dict[str, Any], str]:
    lines = text.split("\n")
    i = 0
    fenced = bool(lines) and lines[0].strip() == "---"
    if fenced:
        i = 1
    pairs: list[tuple[str, str]] = []
    while i < len(lines):
        m = _FM_KEY.match(lines[i])
        if m:
            pairs.append((m.group(1).lower(), m.group(2).strip().strip("'\"").strip()))
            i += 1
            continue
        if not lines[i].strip() and not pairs:
            i += 1
            continue
        break
    if fenced:
        if i < len(lines) and lines[i].strip() == "---":
            i += 1
        elif pairs:
            findings.append(
                _finding(MALFORMED, "warning", "The model's front matter was not closed.")
            )
        else:  # a leading "---" that is not front matter: a rule; keep the text
            i = 0
    meta: dict[str, Any] = {}
    for key, value in pairs:
        low = value.lower()
        if key in ("primary_language", "language"):
            tag = bcp47_case(value)
            if BCP47.match(tag) and low not in ("none", "null", "und"):
                meta["language"] = tag
        elif key in ("rotation", "rotation_correction"):
            try:
                rot = int(float(value))
            except ValueError:
                rot = 0
            if rot % 360 in (0, 90, 180, 270):
                meta["rotation"] = rot % 360
            else:
                findings.append(
                    _finding(MALFORMED, "warning", f"The model gave an odd rotation ({value!r}).")
                )
        elif key == "is_blank":
            meta["blank"] = low in ("true", "yes", "1")
    return meta, "\n".join(lines[i:])


# -- body: tagged segments first, Markdown for the rest ----------------------------------------
def _body_blocks(
    body: str, *, width: int, height: int, findings: list[dict[str, str]]
) -> list[ReadBlock]:
    lines = body.split("\n")
    blocks: list[ReadBlock] = []
    md: list[str] = []
    malformed: list[str] = []

    def flush() -> None:
        if md:
            blocks.extend(_markdown_blocks("\n".join(md), width=width, height=height))
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
            put(_html_table(chunk, findings), after)
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
            put(_tagged(_TAGS[tag], _inline_text(inner)), after)
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
            _finding(
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
    alt_text = _inline_text(alt) or None
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
            _finding(MALFORMED, "warning", "A figure came without a usable region on the page.")
        )
    return ReadBlock(kind="figure", alt=alt_text, text=_inline_text(caption), bbox=bbox)


# -- Markdown --------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _md() -> Any:
    from markdown_it import MarkdownIt

    # Raw HTML off: whatever markup the model writes stays literal text. Indented code off: a
    # stray 4-space indent is still a paragraph. GFM tables on: models write them anyway.
    return MarkdownIt("commonmark", {"html": False}).enable("table").disable("code")


def _protect_math(src: str) -> tuple[str, list[str]]:
    """Inline $...$ is kept verbatim (emphasis rules would eat its _ and *)."""
    kept: list[str] = []

    def sub(m: re.Match[str]) -> str:
        kept.append(m.group(0))
        return f"\ue000{len(kept) - 1}\ue001"

    return _INLINE_MATH.sub(sub, src), kept


def _restore_math(text: str, kept: list[str]) -> str:
    if not kept:
        return text
    return re.sub(r"\ue000(\d+)\ue001", lambda m: kept[int(m.group(1))], text)


def _inline_text(src: str) -> str:
    """Markdown inline source -> plain text (emphasis dropped, entities decoded, markup literal)."""
    src, kept = _protect_math(src)
    tokens = _md().parseInline(src)
    text = _children_text(tokens[0].children or []) if tokens else ""
    return _restore_math(_squash(text), kept)


def _children_text(children: list[Any]) -> str:
    out: list[str] = []
    for c in children:
        if c.type in ("text", "code_inline", "html_inline"):
            out.append(c.content)
        elif c.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif c.type == "image":
            out.append(_children_text(c.children or []))
    return "".join(out)


def _squash(text: str) -> str:
    return " ".join(text.split())


def _markdown_blocks(src: str, *, width: int, height: int) -> list[ReadBlock]:
    src, kept = _protect_math(src)
    tokens = _md().parse(src)
    out: list[ReadBlock] = []
    lists: list[dict[str, Any]] = []  # open lists, outermost first
    items: list[ReadBlock] = []  # open list items

    def text_of(tok: Any) -> str:
        return _restore_math(_squash(_children_text(tok.children or [])), kept)

    def add_text(text: str) -> None:
        if not text:
            return
        if items:
            item = items[-1]
            item.text = f"{item.text} {text}".strip()
        else:
            out.append(ReadBlock(kind="paragraph", text=text))

    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type == "heading_open":
            text = text_of(tokens[i + 1])
            if items:
                add_text(text)
            elif text:
                out.append(ReadBlock(kind="heading", text=text, level=int(t.tag[1])))
            i += 3
            continue
        if t.type in ("bullet_list_open", "ordered_list_open"):
            lists.append({"ordered": t.type == "ordered_list_open"})
        elif t.type in ("bullet_list_close", "ordered_list_close"):
            if lists:
                lists.pop()
        elif t.type == "list_item_open":
            ordered = bool(lists and lists[-1]["ordered"])
            marker = f"{t.info}{t.markup}" if ordered and t.info else ("" if ordered else "•")
            item = ReadBlock(
                kind="list_item", level=max(1, len(lists)), ordered=ordered, marker=marker or None
            )
            items.append(item)
            out.append(item)
        elif t.type == "list_item_close":
            if items:
                items.pop()
        elif t.type == "paragraph_open":
            inline = tokens[i + 1]
            add_text(text_of(inline))
            i += 3
            continue
        elif t.type in ("fence", "code_block"):
            content = _restore_math(t.content.strip(), kept)
            if t.info.strip().lower() in ("math", "latex", "tex") and not items:
                out.append(ReadBlock(kind="formula", latex=content, text=content))
            else:
                for para in re.split(r"\n\s*\n", content):
                    add_text(_squash(para))
        elif t.type == "table_open":
            j = i
            rows: list[list[dict[str, Any]]] = []
            while j < len(tokens) and tokens[j].type != "table_close":
                tj = tokens[j]
                if tj.type == "tr_open":
                    rows.append([])
                elif tj.type in ("th_open", "td_open") and rows:
                    rows[-1].append(
                        _cell(text_of(tokens[j + 1]), header=tj.type == "th_open", rs=1, cs=1)
                    )
                j += 1
            out.append(ReadBlock(kind="table", rows=rows))
            i = j + 1
            continue
        i += 1
    return out


# -- HTML tables -----------------------------------------------------------------------------
def _cell(text: str, *, header: bool, rs: int, cs: int) -> dict[str, Any]:
    return {"text": text, "header": header, "rowspan": rs, "colspan": cs}


def _span_value(v: Any) -> int:
    m = re.match(r"\s*(\d+)", str(v or ""))
    return min(max(int(m.group(1)), 1), _MAX_SPAN) if m else 1


def _cell_text(el: Any) -> str:
    """A cell's text. Formatting tags are dropped; any other markup stays as literal text."""
    from bs4 import NavigableString, Tag
    from bs4.element import Comment

    out: list[str] = []
    for child in el.children:
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString):
            out.append(str(child))
        elif isinstance(child, Tag):
            if child.name == "br":
                out.append(" ")
            elif child.name in _FORMATTING:
                out.append(_cell_text(child) + (" " if child.name in ("p", "div") else ""))
            else:
                out.append(str(child))
    return "".join(out)


def _html_table(src: str, findings: list[dict[str, str]]) -> ReadBlock:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(src, "html.parser")
    table = soup.find("table")
    rows: list[list[dict[str, Any]]] = []
    caption = ""
    if table is not None:
        cap = table.find("caption")
        if cap is not None:
            caption = _squash(_cell_text(cap))
        for tr in table.find_all("tr"):
            if tr.find_parent("table") is not table:
                continue  # a nested table's rows: its text stays in the outer cell
            head = tr.find_parent("thead") is not None
            cells = [
                _cell(
                    _squash(_cell_text(c)),
                    header=head or c.name == "th",
                    rs=_span_value(c.get("rowspan")),
                    cs=_span_value(c.get("colspan")),
                )
                for c in tr.find_all(["td", "th"], recursive=False)
            ]
            if cells:
                rows.append(cells)
    if not rows:  # nothing table-like: the text as a paragraph
        findings.append(_finding(MALFORMED, "warning", "A table had no readable rows."))
        text = _squash(soup.get_text(" ")) if table is not None else _squash(src)
        return ReadBlock(kind="paragraph", text=text)
    return ReadBlock(kind="table", rows=rows, text=caption)
