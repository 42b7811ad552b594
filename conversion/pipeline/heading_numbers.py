"""Section numbers of headings: how deep a number goes, headings run together on one line split
at their numbers, and lines the reader took for text that carry the next section's number."""

from __future__ import annotations

import re
from dataclasses import replace

from conversion.pipeline.assemble_params import ASSEMBLE, AssembleParams
from conversion.pipeline.document import Block, Page, Span
from models.reading.kinds import reads_as_byline

# A section's number and its depth: "2", "2.1.", "A.1", "IV." (a lone letter is no number).
_NUMBERING = re.compile(r"^((?:\d{1,2}|[A-Z])(?:\.\d{1,2})+\.?|\d{1,2}\.?|[IVX]{1,4}\.)\s+[^\W_]")
# A lettered head: "B. Datasets" (a letter, a full stop, a capitalised word).
_LETTERED = re.compile(r"^[A-Z]\.\s+[A-Z][a-z]")
# A Roman section number beyond "I.": "II. Method", "IV. RESULTS".
_ROMAN_SECTION = re.compile(r"^(?:I{2,3}|IV|VI{0,3}|IX|XI{0,3})\.\s+[^\W_]")
# An appendix's letter before its capitalised title: "A Proofs", "B. DATASET DETAILS".
_APPENDIX = re.compile(r"^([A-Z])\.?\s+(?=[A-Z])")
# A Roman section number, its value its place in _ROMAN_VALUES: "III." 3.
_ROMAN_VALUES = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII")
_ROMAN_NUMERAL = re.compile(
    r"^(" + "|".join(sorted(_ROMAN_VALUES, key=len, reverse=True)) + r")\.\s"
)
# A later section number inside a heading's line, opening a capitalised word.
_LATER_NUMBER = re.compile(r"\s((?:\d{1,2}|[A-Z])(?:\.\d{1,2})+\.?|\d{1,2}\.?)\s+[A-Z]")


def _numbers(match: re.Match) -> tuple[str, ...]:
    return tuple(match.group(1).rstrip(".").split("."))


def _follows(first: tuple[str, ...], later: tuple[str, ...]) -> bool:
    """`later` numbers a section after `first`: its next sibling ("A.1" -> "A.2", "2" -> "3")
    or its first subsection ("2" -> "2.1")."""
    if later[:-1] == first[:-1] and later[-1].isdigit() and first[-1].isdigit():
        return int(later[-1]) == int(first[-1]) + 1
    return later == (*first, "1")


def _split_spans(spans: list[Span], at: int) -> tuple[list[Span], list[Span]]:
    head: list[Span] = []
    tail: list[Span] = []
    seen = 0
    for span in spans:
        cut = max(0, min(len(span.text), at - seen))
        if cut:
            head.append(replace(span, text=span.text[:cut]))
        if cut < len(span.text):
            tail.append(replace(span, text=span.text[cut:]))
        seen += len(span.text)
    return head, tail


def split_numbered(blocks: list[Block]) -> list[Block]:
    """Two numbered headings the reader put on one line ("A.1 Proofs A.2 Data", a side by
    side pair of short appendix heads) are two headings: a heading that opens with a section
    number is cut before the next number that follows it ("A.2" after "A.1", "2.1" after "2")
    where that number opens a capitalised word."""
    out: list[Block] = []
    for block in blocks:
        while block.kind == "heading" and (cut := _next_number_at(block.text)):
            head, tail = _split_spans(block.spans, cut)
            out.append(replace(block, spans=head))
            block = replace(block, spans=tail)
        out.append(block)
    for block in out:
        if block.kind == "heading" and block.spans:
            block.spans[-1].text = block.spans[-1].text.rstrip()
            block.spans[0].text = block.spans[0].text.lstrip()
    return out


def numbered_sequels(pages: list[Page], *, params: AssembleParams = ASSEMBLE) -> None:
    """A short line read as text that carries the next number of the document's sections is a
    heading the reader did not see (a scan's subsubsection head in bold at the body's size, an
    AMS section in small capitals, an IEEE subsection in italics at the body's size): one
    line of at most `sequel_max_words` words, opening with a section number that comes next
    after the last numbered heading before it (its next sibling, its first subsection or the
    next section of a level above: "2.2.2" or "2.3" or "3" after "2.2.1"; in a document
    numbered in Roman, "A." after "II." and "B." after "A."), then a capitalised word, not
    ending as a sentence does and no byline. No text numbered at that depth lies between them
    (a numbered list keeps its own count)."""
    roman = roman_sections([b.text for p in pages for b in p.blocks if b.kind == "heading"])
    last: tuple[str, ...] | None = None
    counted: set[int] = set()  # depths a list or a paragraph numbered since the last heading
    for block in (b for p in pages for b in p.blocks):
        found = _number_of(block.text.strip(), last, roman=roman, heading=block.kind == "heading")
        number = found[0] if found else None
        if block.kind == "heading":
            if number:
                last, counted = number, set()
            continue
        if found is None or last is None:
            continue
        if len(found[0]) not in counted and _sequel(block, last, found, params=params):
            block.kind = "heading"
            last, counted = found[0], set()
            continue
        counted.add(len(found[0]))


def _number_of(
    text: str, last: tuple[str, ...] | None, *, roman: bool, heading: bool
) -> tuple[tuple[str, ...], int] | None:
    """A heading's number as a path of counts, and where its label ends: "2.1" ("2", "1"), an
    appendix's "B" ("B",); in a document numbered in Roman "III." ("3",) and a lettered "B."
    under section `last` (last[0], "2"). Arabic numbers there are a subsection's runs-in,
    none."""
    if not roman:
        # an appendix's letter: a heading's, or a line's in the appendices (a sentence
        # opening with "A" is no number elsewhere, nor counts against one)
        lettered = heading or bool(last and last[0].isalpha())
        match = _NUMBERING.match(text) or (_APPENDIX.match(text) if lettered else None)
        return (_numbers(match), match.end(1)) if match else None
    numeral = _ROMAN_NUMERAL.match(text)
    if numeral:
        return (str(_ROMAN_VALUES.index(numeral.group(1)) + 1),), numeral.end(1) + 1
    if _LETTERED.match(text):
        section = last[0] if last else "0"
        return (section, str(ord(text[0]) - ord("A") + 1)), 2
    return None


def _sequel(block: Block, last: tuple[str, ...], found: tuple[tuple[str, ...], int], *,
            params: AssembleParams) -> bool:  # fmt: skip
    text = block.text.strip()
    number, label_end = found
    one_line = block.bbox is None or (block.bbox[3] - block.bbox[1]) < (
        params.one_line_height_ratio * max(block.font_key or 0.0, 1.0)
    )
    return (
        block.kind == "paragraph"
        and one_line
        and len(text.split()) <= params.sequel_max_words
        and not text.endswith((".", ",", ";", ":"))
        and text[label_end:].strip()[:1].isupper()
        and not reads_as_byline(text)
        and number in _next_numbers(last)
    )


def _next_numbers(last: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The numbers that can come after section `last`: its first subsection, its next
    sibling, the next section of each level above it (an appendix's next letter: "B" after
    "A.1")."""
    out = [(*last, "1")]
    for k, part in enumerate(last):
        if part.isdigit():
            out.append((*last[:k], str(int(part) + 1)))
        elif len(part) == 1 and "A" <= part < "Z":
            out.append((*last[:k], chr(ord(part) + 1)))
    return out


def _next_number_at(text: str) -> int | None:
    first = _NUMBERING.match(text)
    if not first:
        return None
    for later in _LATER_NUMBER.finditer(text, first.end()):
        if _follows(_numbers(first), tuple(later.group(1).rstrip(".").split("."))):
            return later.start(1)
    return None


def section_depth(text: str, *, roman: bool = False) -> int:
    """How deep a heading's printed number goes: "2 Method" and "IV. Results" 1, "2.1 Data"
    and "A.1 Proofs" 2; 0 for none (a lone letter, "A Tufte-Style Book", is no number). In a
    document whose sections are numbered in Roman (`roman`: IEEE's and APS's classes), a
    lettered head ("B. Datasets") is a subsection, 2, and one numbered in Arabic under it
    ("1. Sampling") a subsubsection, 3; elsewhere "B. Proofs" is an appendix's section, 1."""
    text = text.strip()
    match = _NUMBERING.match(text)
    if match:
        depth = match.group(1).rstrip(".").count(".") + 1
        arabic = match.group(1)[:1].isdigit()
        return depth + 2 if roman and arabic else depth
    if _LETTERED.match(text):
        return 2 if roman else 1
    return 0


def roman_sections(texts: list[str]) -> bool:
    """Sections numbered in Roman: a heading numbered "II." or beyond ("I." alone may be an
    initial)."""
    return any(_ROMAN_SECTION.match(t.strip()) for t in texts)


# A Roman section number as a scan misreads it, its capital I's read as "l", "1" or "|" and its
# full stop lost ("Ill CONCLUSION" for "III. CONCLUSION"), before a capitalised word.
_MISREAD_ROMAN = re.compile(r"^([Il1|]{1,3}V?|V[Il1|]{0,3})\.?(?=\s+[A-Z])")


def mended_roman_numbers(pages: list[Page]) -> None:
    """On scanned pages of a document numbered in Roman (`roman_sections`), a heading's number
    misread by the OCR is printed as the numeral it is ("III." for "Ill"): the heading then
    reads right, and its number gives its depth. A misreading holds an "l" or a "|": "1."
    alone is an Arabic number (IEEE numbers its subsubsections so)."""
    heads = [b for p in pages if p.source == "ocr" for b in p.blocks if b.kind == "heading"]
    if not roman_sections([b.text for p in pages for b in p.blocks if b.kind == "heading"]):
        return
    for block in heads:
        first = block.spans[0] if block.spans else None
        match = _MISREAD_ROMAN.match(block.text)  # the word after it may be the next span
        if first is None or match is None or not set(match.group(1)) & set("l|"):
            continue
        if match.end() > len(first.text):
            continue
        numeral = re.sub(r"[l1|]", "I", match.group(1)) + "."
        if _ROMAN_SECTION.match(f"{numeral} X") or numeral == "I.":
            first.text = numeral + first.text[match.end() :]
