"""Pages that already carry text (born-digital, or exported from a word processor): read the text
layer instead of OCR when it is trustworthy - exact and much faster. An invisible OCR layer
(an earlier OCR run) is not trusted: those pages are read again.
"""

from __future__ import annotations

import re
import statistics

import pymupdf

from models.engine import PageReading, ReadBlock

MIN_CHARS = 40
_OCR_FONTS = ("GlyphLessFont", "GlyphLess")
_BOLD_FLAG = 16


def _visible_text_fraction(page: pymupdf.Page) -> float:
    """Share of characters drawn visibly (render mode 3, used by OCR layers, is invisible)."""
    total = visible = 0
    for trace in page.get_texttrace():
        n = len(trace.get("chars", ()))
        total += n
        invisible = trace.get("type") == 3 or trace.get("opacity", 1) == 0
        if not invisible and not any(f in trace.get("font", "") for f in _OCR_FONTS):
            visible += n
    return visible / total if total else 0.0


def _looks_like_text(text: str) -> bool:
    """Garbage text layers (broken font encodings) are full of symbols and replacement marks."""
    if "\ufffd" in text or "(cid:" in text:
        return False
    letters = sum(c.isalpha() for c in text)
    printable = sum(not c.isspace() for c in text) or 1
    words = re.findall(r"[^\W\d_]{2,}", text)
    return letters / printable > 0.6 and len(words) >= 5


def text_layer_reading(page: pymupdf.Page, *, page_number: int, dpi: int) -> PageReading | None:
    """A PageReading from the page's own text, or None when OCR must read it."""
    raw = page.get_text("text")
    if len(raw.strip()) < MIN_CHARS or not _looks_like_text(raw):
        return None
    if _visible_text_fraction(page) < 0.9:
        return None
    scale = dpi / 72
    rot = page.rotation_matrix
    data = page.get_text("dict", sort=False)
    blocks: list[ReadBlock] = []
    for block in data["blocks"]:
        bbox = pymupdf.Rect(block["bbox"]) * rot * scale
        box = (bbox.x0, bbox.y0, bbox.x1, bbox.y1)
        if block["type"] == 1:
            blocks.append(ReadBlock(kind="figure", bbox=box))
            continue
        lines, sizes, bold_chars, chars = [], [], 0, 0
        for line in block["lines"]:
            text = "".join(span["text"] for span in line["spans"]).strip()
            if text:
                lines.append(text)
            for span in line["spans"]:
                n = len(span["text"].strip())
                chars += n
                sizes.extend([span["size"] * scale] * max(n, 1))
                if span["flags"] & _BOLD_FLAG or "Bold" in span["font"]:
                    bold_chars += n
        if not lines:
            continue
        text = lines[0]
        for line in lines[1:]:
            if text.endswith("-") and line[:1].islower():
                text = text[:-1] + line
            else:
                text += " " + line
        blocks.append(
            ReadBlock(
                kind="paragraph",
                text=text,
                bbox=box,
                font_size=statistics.median(sizes) if sizes else None,
                bold=chars > 0 and bold_chars / chars > 0.6,
            )
        )
    rect = page.rect * scale
    return PageReading(
        page_number=page_number,
        blocks=blocks,
        width=int(rect.width),
        height=int(rect.height),
        source="text_layer",
    )
