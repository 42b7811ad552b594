"""Code listings on born-digital pages (models.reading.code_blocks): on pdflatex pages whose
typewriter type is a Type 1 font or a bitmap Type 3 font without name or flags, and on blocks
laid out as a page holds them."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from models.engine import ReadBlock, Word
from models.reading.code_blocks import code_blocks
from models.reading.textlayer import text_layer_reading

CODE = Path(__file__).resolve().parents[2] / "resources" / "code"
WIDTH, HEIGHT = 25, 40  # a typewriter character's width and a line's height, in pixels
MEAN = (
    "def mean(values):\n    total = 0\n    for v in values:\n        total += v\n\n"
    "    return total / len(values)"
)
LOOP = 'for (int i = 0; i < n; i++) {\n    sum += a[i] * b[i];\n}\necho "$HOME"'


def _read(name: str, page: int):
    with pymupdf.open(CODE / name) as doc:
        return text_layer_reading(doc[page], page_number=page + 1, dpi=150)


@pytest.mark.parametrize("name", ["code-listings.pdf", "code-listings-t1.pdf"])
def test_listings_keep_their_lines_and_indentation(name):
    blocks = _read(name, 0).blocks
    assert [b.text for b in blocks if b.kind == "code"] == [MEAN, LOOP]
    # A tagline and e-mail addresses set in typewriter type are no code.
    texts = {b.text: b.kind for b in blocks}
    assert texts["To appear in the Journal of Examples"] == "paragraph"
    assert texts["ada@example.org, bob@example.org"] == "paragraph"


def test_prose_set_wholly_in_typewriter_type_is_no_code():
    blocks = _read("code-listings.pdf", 1).blocks
    assert [b.kind for b in blocks if b.kind != "page_footer"] == ["paragraph", "paragraph"]


def _line(y: float, text: str, *, indent: int = 0) -> list[Word]:
    """A typewriter line at height y: its words one character space apart."""
    words, x = [], 300 + indent * WIDTH
    for part in text.split():
        words.append(Word(part, 100, (x, y, x + WIDTH * len(part), y + HEIGHT)))
        x += WIDTH * (len(part) + 1)
    return words


def _block(lines: list[list[Word]]) -> ReadBlock:
    words = [w for line in lines for w in line]
    box = (min(w.bbox[0] for w in words), min(w.bbox[1] for w in words),
           max(w.bbox[2] for w in words), max(w.bbox[3] for w in words))  # fmt: skip
    return ReadBlock("paragraph", " ".join(w.text for w in words), box, words=words)


def _prose(y: float, lines: int) -> ReadBlock:
    return _block([_line(y + k * (HEIGHT + 8), "the words of a paragraph set in roman type")
                   for k in range(lines)])  # fmt: skip


def _typewriter(block: ReadBlock):
    """Every word of `block` is set in a monospaced font."""
    ids = {id(w) for w in block.words}
    return lambda word: id(word) in ids


def test_a_line_of_typewriter_type_inside_a_paragraph_stays_in_it():
    # "... unsupported: 10pt, 11pt," / "12pt, a5paper, landscape," / "onecolumn, and twocolumn."
    # parted by the page's blocks, at the paragraph's own line spacing.
    above, below = _prose(100, 2), _prose(100 + 3 * (HEIGHT + 8), 1)
    line = _block([_line(100 + 2 * (HEIGHT + 8), "12pt, a5paper, b5paper, {landscape},")])
    out = code_blocks([above, line, below], _typewriter(line))
    assert [b.kind for b in out] == ["paragraph"] * 3
    # Set apart by a listing's space, the same line is one.
    apart = _block([_line(100 + 2 * (HEIGHT + 8) + HEIGHT, "12pt, a5paper, b5paper, {landscape},")])
    below = _prose(100 + 4 * (HEIGHT + 8) + HEIGHT, 1)
    out = code_blocks([above, apart, below], _typewriter(apart))
    assert [b.kind for b in out] == ["paragraph", "code", "paragraph"]


def test_a_listings_blocks_join_and_its_braces_from_another_font_do_not_count():
    first = _block([_line(100, "int main(void) {"), _line(148, 'printf("hi");', indent=4)])
    second = _block([_line(196, "}")])  # its brace drawn from the math symbol font
    mono = {id(w) for w in first.words}
    out = code_blocks([_prose(0, 1), first, second], lambda w: id(w) in mono)
    assert [b.kind for b in out] == ["paragraph", "code"]
    assert out[1].text == 'int main(void) {\n    printf("hi");\n}'


def test_signs_from_another_font_do_not_make_a_listing_prose():
    # pdfTeX's listings draw "\\" and braces from the math symbol font: a quarter of the
    # characters here, but none of the words with letters or digits.
    block = _block([_line(100, r"Name & Value \\"), _line(148, r"alpha & 1 \\")])
    letters = {id(w) for w in block.words if any(c.isalnum() for c in w.text)}
    out = code_blocks([_prose(0, 1), block], lambda w: id(w) in letters)
    assert [b.kind for b in out] == ["paragraph", "code"]
    assert out[1].text == "Name & Value \\\\\nalpha & 1 \\\\"


def test_addresses_set_in_typewriter_type_are_no_code():
    # A paper's authors' addresses: signs enough ("{", ",", "@", "/"), but no program.
    block = _block([_line(200, "{ada,bob}@example.org https://example.org/papers")])
    out = code_blocks([_prose(0, 1), block, _prose(400, 1)], _typewriter(block))
    assert [b.kind for b in out] == ["paragraph"] * 3


def test_a_listing_drawn_without_widths_keeps_its_lines():
    # A PDF may draw a glyph with no advance: every box zero wide.
    words = [Word(t, 100, (300, y, 300, y + HEIGHT)) for t, y in (("x=1;", 100), ("y=2;", 148))]
    block = ReadBlock("paragraph", "x=1; y=2;", (300, 100, 300, 188), words=words)
    out = code_blocks([_prose(0, 1), block], _typewriter(block))
    assert out[1].kind == "code" and out[1].text == "x=1;\ny=2;"


def test_a_listings_line_numbers_in_the_text_font_stay_in_it():
    """elteikthesis's minted example, page 1: a listing numbered 1 to 12 in 6-point roman
    beside 12-point typewriter lines; lines 2, 7 and 10 are blank, so their numbers stand
    alone. The listing is one code block with its numbers, not a run of code and paragraphs."""
    with pymupdf.open(CODE.parent / "corpus" / "texlive" / "elteikthesis-minted-p1.pdf") as doc:
        blocks = text_layer_reading(doc[0], page_number=1, dpi=150).blocks
    (listing,) = [b for b in blocks if b.kind == "code"]
    lines = listing.text.split("\n")
    assert [line.split()[0] for line in lines] == [str(n) for n in range(1, 13)]
    assert lines[4].split() == ["5", "int", "c;"] and lines[-1].split() == ["12", "}"]
    assert not any(b.text.strip().isdigit() for b in blocks if b.kind == "paragraph")


def test_a_numbered_listings_lines_in_another_font_stay_in_it():
    """articleingud's manual p. 8: docstrip source numbered 85 to 122, its guard lines
    ("92 <\\tmple>") set in italics between angle brackets, no typewriter type. Each such line
    opens with the number after the listing's last one and stays in the listing, which was
    cut at each guard and left as paragraphs, each part beside a guard "prose". (A guard line
    the text opens, 110 under a paragraph, stays a paragraph; the lines after it are one.)"""
    with pymupdf.open(CODE.parent / "corpus" / "texlive" / "articleingud-p8.pdf") as doc:
        blocks = text_layer_reading(doc[0], page_number=1, dpi=150).blocks
    listings = [b.text.split("\n") for b in blocks if b.kind == "code"]
    assert [int(line.split()[0]) for line in listings[0]] == list(range(85, 110))
    assert [int(line.split()[0]) for line in listings[1]] == list(range(111, 121))
    assert not any(b.text.startswith("9") for b in blocks if b.kind == "paragraph")


def test_a_superscript_opening_a_block_is_no_line_number():
    """pdf.js's issue6605: a block opening with "³" (a digit to str.isdigit, no number to
    int) failed the page's reading, which fell back to its plain text."""
    note = _block([[Word("³", 100, (300, 100, 310, 120))], _line(140, "Transfer balances")])
    listing = _block([_line(300, "int main() {"), _line(340, "return 0; }")])
    kinds = [b.kind for b in code_blocks([note, listing], lambda w: w.bbox[1] >= 300)]
    assert kinds == ["paragraph", "code"]
