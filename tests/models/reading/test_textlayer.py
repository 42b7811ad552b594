"""Born-digital pages are read from their text layer; invisible OCR layers are read again."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pymupdf
import pytest
from bs4 import BeautifulSoup

from bench.quality import iter_main_text
from bench.structure_corpus import print_pdf
from conversion.pipeline.convert import convert_pdf
from conversion.pipeline.flow import ConvertOptions
from conversion.pipeline.rasterize import RasterOptions, rasterize_page
from models.engine import PageReading
from models.ocr import TesseractEngine
from models.reading import textlayer
from models.reading.floor import FALLBACK_CODE, RESTORED_CODE
from models.reading.layer_trust import is_ocr_layer, looks_like_language
from models.reading.layout_regions import apply_layout
from models.reading.textlayer import text_layer_reading
from tests.conftest import ROOT

LINN_OCR = ROOT / "tests" / "resources" / "corpus" / "linn-ocr.pdf"

BODY = (
    "Accessible documents let every reader follow the text in its order. This paragraph was "
    "typed, not scanned, so its characters are known exactly."
)


def _born_digital(path):
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), "Annual Report", fontsize=24, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 120, 540, 300), BODY, fontsize=11, fontname="helv")
    doc.save(path)
    return path


def _ocr_layer(path):
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 120, 540, 300), BODY, fontsize=11, render_mode=3)
    doc.save(path)
    return path


def test_born_digital_page_uses_its_text(tmp_path):
    engine = TesseractEngine(detect_rotation=False)
    result = convert_pdf(_born_digital(tmp_path / "typed.pdf"), tmp_path, engine, ConvertOptions())
    assert result.report["page_sources"] == {"1": "text_layer"}
    text = "\n".join(iter_main_text(result.html_path.read_text()))
    assert " ".join(BODY.split()) in " ".join(text.split())
    assert result.document.title == "Annual Report"


def test_invisible_ocr_layer_is_not_trusted(tmp_path):
    engine = TesseractEngine(detect_rotation=False)
    result = convert_pdf(_ocr_layer(tmp_path / "ocrd.pdf"), tmp_path, engine, ConvertOptions())
    assert result.report["page_sources"] == {"1": "ocr"}


def _shift(text: str, by: int) -> str:
    return "".join(
        chr((ord(c) - base + by) % 26 + base) if c.isascii() and c.isalpha() else c
        for c in text
        for base in [ord("a") if c.islower() else ord("A")]
    )


def _typed(path, text: str):
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 120, 540, 500), text, fontsize=11, fontname="helv")
    doc.save(path)
    return path


def _to_unicode(doc: pymupdf.Document, page: pymupdf.Page, font: str, pairs: str) -> None:
    """Gives the page's font named `font` a ToUnicode map of `pairs` ("<code> <unicode> ...",
    hex): the text layer then says what the map says, whatever the glyphs drawn."""
    cmap = (
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Map def "
        "1 begincodespacerange <00> <FF> endcodespacerange "
        f"{pairs} endcmap CMapName currentdict /CMap defineresource pop end end"
    )
    xref = next(f[0] for f in page.get_fonts() if f[3] == font)
    to_unicode = doc.get_new_xref()
    doc.update_object(to_unicode, "<<>>")
    doc.update_stream(to_unicode, cmap.encode())
    doc.xref_set_key(xref, "ToUnicode", f"{to_unicode} 0 R")


def test_shifted_encoding_is_read_again(tmp_path):
    """The glyphs drawn are the text; the font's map shifts each letter one place back
    ("Opnbddchmfr" in the layer): the page is read again."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 120, 540, 500), BODY * 2, fontsize=11, fontname="helv")
    letters = [c for c in map(chr, range(32, 127)) if c.isalpha()]
    pairs = " ".join(f"<{ord(c):02X}> <{ord(_shift(c, -1)):04X}>" for c in letters)
    _to_unicode(doc, page, "Helvetica", f"{len(letters)} beginbfchar {pairs} endbfchar")
    pdf = tmp_path / "shifted.pdf"
    doc.save(pdf)
    assert _shift(BODY, -1)[:30] in pymupdf.open(pdf)[0].get_text().replace("\n", " ")
    engine = TesseractEngine(detect_rotation=False)
    result = convert_pdf(pdf, tmp_path, engine, ConvertOptions())
    assert result.report["page_sources"] == {"1": "ocr"}
    text = " ".join(iter_main_text(result.html_path.read_text()))
    assert "Accessible documents" in text


# LaTeX3 code as a package's documented source prints it: identifiers of few vowels.
CODE = [
    r"\cs_new:Npn \__gtl_concat_auxi:nnnnnn #1#2#3#4#5#6",
    r"\exp_not:f { \__gtl_concat_auxiii:w \__gtl_brace:nn {#2} #4 ~ \q_stop }",
    r"\cs_new:Npn \__gtl_concat_auxii:nnnnnn #1#2#3#4#5#6",
    r"\tl_if_single:nTF {#3} { \__gtl_concat_auxv:wnwnn }",
    r"\cs_new:Npn \__gtl_concat_auxv:wnwnn #1#2 \q_mark #3#4 \q_mark #5#6",
    r"\s__gtl {#6} {#7} { { #2 { #1 #4 } } #3 } \s__gtl {#5}",
    r"\cs_new:Npn \gtl_to_str:N #1 { \exp_after:wN \__gtl_to_str:w #1 }",
    r"\cs_new:Npn \__gtl_to_str_loopi:nnw #1#2 \q_nil \q_mark #3",
]


def test_a_page_of_code_is_read_from_its_layer(tmp_path):
    """Code's identifiers are in no language's letter proportions, but its text layer reads
    as the page is drawn: the layer is the page's text (OCR misreads "\\cs_new" "\\¢es_new")."""
    doc = pymupdf.open()
    page = doc.new_page()
    for i, line in enumerate(CODE * 2):
        page.insert_text((60, 80 + 16 * i), line, fontsize=10, fontname="cour")
    pdf = tmp_path / "code.pdf"
    doc.save(pdf)
    text = _read_from_layer_though_no_language(pdf, tmp_path)
    assert all(line in text for line in CODE)


def _read_from_layer_though_no_language(pdf, tmp_path) -> str:
    """The text of a one-page PDF whose layer fails the language test, read from its layer."""
    assert not looks_like_language(pymupdf.open(pdf)[0].get_text())
    engine = TesseractEngine(detect_rotation=False)
    result = convert_pdf(pdf, tmp_path, engine, ConvertOptions())
    assert result.report["page_sources"] == {"1": "text_layer"}
    return " ".join(iter_main_text(result.html_path.read_text()))


def test_a_slide_of_chinese_beside_code_is_read_from_its_layer(tmp_path):
    """A Chinese slide of LaTeX code (unseen TeX Live page: thubeamer's "\\section{后期工作与
    安排}"): its Latin letters are code, in no language's proportions, so the layer is checked
    against a fresh read of its lines, which an English OCR cannot make of the Chinese ones.
    Only the lines in the script the OCR reads are checked: the layer is the page's text (an
    English read loses every Chinese word)."""
    doc = pymupdf.open()
    page = doc.new_page()
    y = 80
    for k, line in enumerate(CODE):
        if k % 4 == 0:
            page.insert_text((60, y), "后期研究工作与进度安排", fontsize=12, fontname="china-s")
            y += 20
        page.insert_text((60, y), line, fontsize=10, fontname="cour")
        y += 16
    pdf = tmp_path / "slide.pdf"
    doc.save(pdf)
    text = _read_from_layer_though_no_language(pdf, tmp_path)
    assert "后期研究工作与进度安排" in text and all(line in text for line in CODE)


def _word_bullets(path):
    """A list as Word writes it: each bullet a glyph of a symbol font, whose code c the text
    layer gives as U+F000 + c (Symbol's bullet: U+F0B7)."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "What to bring", fontname="hebo", fontsize=16)
    for i, item in enumerate(WORD_ITEMS):
        page.insert_text((72, 120 + 18 * i), "\u00b7", fontname="cour", fontsize=11)
        page.insert_text((90, 120 + 18 * i), item, fontname="helv", fontsize=11)
    cmap = (
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Sym def "
        "1 begincodespacerange <00> <FF> endcodespacerange "
        "1 beginbfrange <20> <FF> <F020> endbfrange endcmap "
        "CMapName currentdict /CMap defineresource pop end end"
    )
    courier = next(f[0] for f in page.get_fonts() if f[3] == "Courier")
    to_unicode = doc.get_new_xref()
    doc.update_object(to_unicode, "<<>>")
    doc.update_stream(to_unicode, cmap.encode())
    doc.xref_set_key(courier, "ToUnicode", f"{to_unicode} 0 R")
    doc.save(path)
    return path


WORD_ITEMS = [
    "Bring the signed form to the front desk",
    "Keep a copy of the receipt for your records",
    "Ask for a large-print version if you need one",
    "Return the library books before June",
]


def test_word_bullets_in_a_symbol_font_make_a_list_of_the_text_layer(tmp_path):
    pdf = _word_bullets(tmp_path / "bullets.pdf")
    assert "\uf0b7" in pymupdf.open(pdf)[0].get_text()  # the layer holds Word's code
    engine = TesseractEngine(detect_rotation=False)
    result = convert_pdf(pdf, tmp_path, engine, ConvertOptions())
    assert result.report["page_sources"] == {"1": "text_layer"}
    items = BeautifulSoup(result.html_path.read_text(), "html.parser").select("main ul > li")
    assert [li.get_text(" ", strip=True) for li in items] == WORD_ITEMS


def test_text_under_a_page_image_is_an_ocr_layer(tmp_path):
    """Visible text hidden under a full-page scan: an earlier OCR run, read again."""
    doc = pymupdf.open()
    page = doc.new_page()
    hidden = "An earlier reading of this page said other things about the report. " * 3
    page.insert_textbox(pymupdf.Rect(72, 120, 540, 300), hidden, fontsize=11)
    scan = pymupdf.open(_born_digital(tmp_path / "source.pdf"))[0].get_pixmap(dpi=200)
    page.insert_image(page.rect, pixmap=scan)  # drawn over the text
    doc.save(tmp_path / "layered.pdf")
    engine = TesseractEngine(detect_rotation=False)
    result = convert_pdf(tmp_path / "layered.pdf", tmp_path / "out", engine, ConvertOptions())
    assert result.report["page_sources"] == {"1": "ocr"}
    text = " ".join(iter_main_text(result.html_path.read_text()))
    assert "earlier reading" not in text and "Accessible documents" in text


def test_an_isolated_reader_reads_the_layout_too(tmp_path):
    """Jobs read pages in a child forked from a server that holds the layout model: the
    blocks carry their layout classes."""
    from conversion.pipeline.isolate import run_isolated
    from conversion.pipeline.rasterize import RasterOptions, render_page_file

    pdf = _born_digital(tmp_path / "typed.pdf")
    rendered = run_isolated(render_page_file, pdf, 0, RasterOptions(), tmp_path / "p.png",
                            timeout_s=120, memory_mb=4096)  # fmt: skip
    blocks = rendered.text_reading["blocks"]
    assert ("heading", "Annual Report") in {(b["kind"], b["text"]) for b in blocks}
    assert all(b["layout"] for b in blocks)


def test_text_over_a_page_image_is_kept(tmp_path):
    """A slide: a picture across the page, typed text drawn over it. The text is visible and
    read from the layer, not OCR'd."""
    doc = pymupdf.open()
    page = doc.new_page()
    background = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 80), False)
    background.clear_with(235)
    page.insert_image(page.rect, pixmap=background)
    page.insert_textbox(pymupdf.Rect(72, 120, 540, 300), BODY, fontsize=11, fontname="helv")
    doc.save(tmp_path / "slide.pdf")
    engine = TesseractEngine(detect_rotation=False)
    result = convert_pdf(tmp_path / "slide.pdf", tmp_path / "out", engine, ConvertOptions())
    assert result.report["page_sources"] == {"1": "text_layer"}


def _layer_reading(path):
    doc = pymupdf.open(path)
    image = rasterize_page(doc, 0, RasterOptions())
    return text_layer_reading(doc[0], page_number=1, dpi=image.dpi, image=image.image)


def test_a_good_ocr_layer_is_kept_when_a_fresh_read_of_its_lines_agrees():
    """Tesseract's own layer under linn's scan: a sample of its lines read afresh agrees, so
    the layer is read (no second OCR of the page); the scan under it is no figure, its lines
    join into paragraphs and its bullets make list items."""
    reading = _layer_reading(LINN_OCR)
    assert reading is not None and reading.source == "text_layer"
    assert not [b for b in reading.blocks if b.kind == "figure"]
    texts = " ".join(b.text for b in reading.blocks if b.text)
    assert "The LinnSequencer is a state-of-the-art composition" in texts
    assert max(len(b.text.split()) for b in reading.blocks if b.text) >= 30  # lines joined
    assert [b for b in reading.blocks if b.kind == "list_item"]


def _relayered(path, out, change):
    """linn's scan with its OCR layer written again, each word passed through `change`."""
    source = pymupdf.open(path)[0]
    doc = pymupdf.open()
    page = doc.new_page(width=source.rect.width, height=source.rect.height)
    xref = source.get_images()[0][0]
    page.insert_image(page.rect, stream=source.parent.extract_image(xref)["image"])
    writer = pymupdf.TextWriter(page.rect)
    font = pymupdf.Font("helv")
    for x0, y0, x1, y1, word, *_ in source.get_text("words"):
        size = min(y1 - y0, (x1 - x0) / (font.text_length(change(word), fontsize=1) or 1))
        writer.append((x0, y1 - 0.2 * (y1 - y0)), change(word), font=font, fontsize=size)
    writer.write_text(page, render_mode=3)
    doc.save(out)
    return out


def test_an_ocr_layer_that_disagrees_with_a_fresh_read_is_read_again(tmp_path):
    """The same scan under a lower-cased copy of the layer (an OCR run that lost case): the
    sampled lines do not agree, the page is OCR'd. The unchanged copy is kept, so the check
    is what decides."""
    kept = _relayered(LINN_OCR, tmp_path / "same.pdf", lambda word: word)
    assert _layer_reading(kept) is not None
    lowered = _relayered(LINN_OCR, tmp_path / "lower.pdf", str.lower)
    assert _layer_reading(lowered) is None


def test_words_belong_to_their_block_when_an_image_comes_first(tmp_path):
    """MuPDF numbers words by text block, image blocks not counted: a page that starts with a
    picture must not give each block the next block's words."""
    doc = pymupdf.open()
    page = doc.new_page()
    picture = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
    picture.clear_with(90)
    page.insert_image(pymupdf.Rect(72, 40, 200, 100), pixmap=picture)
    page.insert_text((72, 140), "Annual Report", fontsize=24, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 160, 540, 300), BODY, fontsize=11, fontname="helv")
    doc.save(tmp_path / "picture-first.pdf")
    page = pymupdf.open(tmp_path / "picture-first.pdf")[0]
    reading = text_layer_reading(page, page_number=1, dpi=150)
    for block in reading.blocks:
        if block.text and block.words:
            assert block.words[0].text == block.text.split()[0], block.text


def _spaces_drawn_apart(path):
    """Lines of visible text whose spaces the PDF draws again, as invisible text of their own
    (a form generator does so): MuPDF makes each run of spaces a line, whose box lies over the
    short words between them. Invisible spaces alone make no OCR layer (white space counts
    for nothing in the share of visible text)."""
    doc = pymupdf.open()
    page = doc.new_page()
    lines = [
        "Bed location: is the bed in direct sunlight? Is it close to a fan or a duct?",
        "To quickly shed sleepiness sleep 1 to 5 minutes, in a dark and quiet room.",
        "Did you eat anything before going to bed? If so, what did you eat at night?",
        "Did you take a warm shower or bath? If so, was it in the evening or later?",
    ]
    for y, line in zip((120, 170, 220, 270), lines, strict=True):
        page.insert_text((72, y), line, fontsize=11, fontname="helv")
        page.insert_text((480, y), "no", fontsize=11, fontname="hebo")  # a form's answer
    writer = pymupdf.TextWriter(page.rect)
    for x0, _, _, y1, word, *_ in page.get_text("words"):
        if len(word) <= 2:  # a run of spaces over each short word, drawn after its line
            writer.append((x0 - 2, y1 - 2.5), " " * 12, fontsize=11)
    writer.write_text(page, render_mode=3)
    doc.save(path)
    return path, lines


def test_words_under_a_line_of_invisible_spaces_are_kept(tmp_path):
    """A line of white space alone read from an OCR layer is no line of specks: the words
    under it stay ("is the bed in direct sunlight", "1 to 5 minutes"; "in", "a", "5" were
    lost)."""
    path, lines = _spaces_drawn_apart(tmp_path / "spaces.pdf")
    reading = _layer_reading(path)
    assert reading is not None and reading.source == "text_layer"
    text = " ".join(_texts(reading))
    for line in lines:
        assert line in text, text


def _texts(reading):
    """The reading's texts: its blocks' and its tables' cells'."""
    for block in reading.blocks:
        yield block.text
        yield from (cell["text"] for row in block.rows or () for cell in row)


def test_invisible_spaces_make_no_ocr_layer_and_short_answers_stay(tmp_path):
    """A form that sets its spaces as invisible text (pdfjs issue9972-2: 10 % of its
    characters) was taken for an OCR layer, whose lines of two letters or fewer are specks:
    its answers "yes" / "no" went."""
    path, _ = _spaces_drawn_apart(tmp_path / "spaces.pdf")
    assert not is_ocr_layer(pymupdf.open(path)[0])
    assert list(_texts(_layer_reading(path))).count("no") == 4  # (a table of question | answer)


def _exercise(path):
    """A born-digital line with exponents and an index set small and raised / lowered, the
    way a word processor or TeX sets them (each its own run of text)."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Exercises", fontsize=20, fontname="hebo")
    at = {"x": 72.0, "y": 100.0}

    def put(text, size=11, rise=0):
        page.insert_text((at["x"], at["y"] - rise), text, fontsize=size, fontname="helv")
        at["x"] += pymupdf.get_text_length(text, fontname="helv", fontsize=size)

    put("Differentiate f(t) = 2t")
    put("3", 7, 4)
    put(" - 3t")
    put("2", 7, 4)
    put(" + 5 with respect to t, then find")
    at.update(x=72.0, y=116.0)
    put("where the water molecule H")
    put("2", 7, -2)
    put("O forms, and sketch the curve for every value of t.")
    page.insert_textbox(pymupdf.Rect(72, 130, 540, 400), BODY * 3, fontsize=11)
    doc.save(path)
    return path


def test_exponents_and_indices_become_sup_and_sub(tmp_path):
    engine = TesseractEngine(detect_rotation=False)
    result = convert_pdf(_exercise(tmp_path / "ex.pdf"), tmp_path / "out", engine, ConvertOptions())
    html = result.html_path.read_text()
    assert "2t<sup>3</sup> - 3t<sup>2</sup> + 5" in html
    assert "H<sub>2</sub>O forms" in html
    text = " ".join(iter_main_text(html))
    assert "2t3 - 3t2 + 5" in text  # the text itself is unchanged


def test_a_word_hyphenated_at_a_line_end_is_one_word(tmp_path):
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "The natives very naturally felt indig-", fontsize=11)
    page.insert_text((72, 114), "nant at this additional encroachment, and took every", fontsize=11)
    page.insert_text(
        (72, 128), "opportunity to attack the garrison of the island fort.", fontsize=11
    )
    doc.save(tmp_path / "hyphen.pdf")
    reading = text_layer_reading(pymupdf.open(tmp_path / "hyphen.pdf")[0], page_number=1, dpi=150)
    block = next(b for b in reading.blocks if "natives" in b.text)
    assert "felt indignant at this" in block.text
    assert block.text == " ".join(w.text for w in block.words)


def test_a_line_drawn_twice_a_little_apart_is_read_once(tmp_path):
    """A running header a PDF draws twice (a stamp over a copy of itself, 4 pt apart): one
    block, so it reads once and still matches the header of the other pages."""
    doc = pymupdf.open()
    page = doc.new_page()
    stamp = "Electronic Supplementary Material (ESI) for RSC Advances."
    page.insert_text((40, 30), stamp, fontsize=9)
    page.insert_text((44, 34), stamp, fontsize=9)
    page.insert_textbox(pymupdf.Rect(72, 120, 540, 400), BODY * 3, fontsize=11)
    doc.save(tmp_path / "twice.pdf")
    reading = text_layer_reading(pymupdf.open(tmp_path / "twice.pdf")[0], page_number=1, dpi=150)
    assert sum(stamp in b.text for b in reading.blocks) == 1


def test_a_table_framed_by_rules_that_do_not_part_its_rows_is_read_from_its_words(tmp_path):
    """A journal table printed with a rule over and under its header and one at its foot
    (tests/resources/corpus/realworld/repeating_references-p2.pdf): the rules make a grid of
    one body row whose cells stack twenty lines; its printed rows come from the words."""
    pdf = ROOT / "tests" / "resources" / "corpus" / "realworld" / "repeating_references-p2.pdf"
    result = convert_pdf(pdf, tmp_path, TesseractEngine(), ConvertOptions())
    main = BeautifulSoup(result.html_path.read_text(), "html.parser").find("main")
    rows = [[" ".join(c.get_text().split()) for c in tr.find_all(["td", "th"])]
            for tr in main.find("table").find_all("tr")]  # fmt: skip
    assert ["10", "NAF8", "Strawberry", "Aichi, Japan"] in rows
    assert ["12", "ATCC38962", "Rough lemon", "United States"] in rows
    assert len(rows) >= 21


def test_tables_on_a_page_turned_by_rotate_are_found(tmp_path):
    """A landscape statistics page stored upright with /Rotate 90 (tests/resources/corpus/
    icdar2013/eu-015-p1.pdf): the table finder works in the page as shown, its words in the
    page's own frame; read so, the page's three tables were lost. Its rows come whole."""
    pdf = ROOT / "tests" / "resources" / "corpus" / "icdar2013" / "eu-015-p1.pdf"
    result = convert_pdf(pdf, tmp_path, TesseractEngine(), ConvertOptions())
    main = BeautifulSoup(result.html_path.read_text(), "html.parser").find("main")
    rows = [[" ".join(c.get_text().split()) for c in tr.find_all(["td", "th"])]
            for table in main.find_all("table") for tr in table.find_all("tr")]  # fmt: skip
    assert ["EU Institutions", "3.597"] in rows
    assert ["Customs and taxation", "556"] in rows
    assert ["Export Helpdesk", "169"] in rows


def test_a_grid_that_parts_a_phrase_is_no_printed_grid(tmp_path):
    """A table ruled across only (tests/resources/corpus/icdar2013/us-021-p2.pdf): a finder
    that infers a grid from the page's layout put a column edge between "of" and "items" and
    made two columns of three; the words decide, and the heads set bottom-aligned on the stub
    head's line are one cell each."""
    pdf = ROOT / "tests" / "resources" / "corpus" / "icdar2013" / "us-021-p2.pdf"
    result = convert_pdf(pdf, tmp_path, TesseractEngine(), ConvertOptions())
    main = BeautifulSoup(result.html_path.read_text(), "html.parser").find("main")
    rows = [[" ".join(c.get_text().split()) for c in tr.find_all(["td", "th"])]
            for tr in main.find_all("table")[-1].find_all("tr")]  # fmt: skip
    assert rows[0] == ["Item Format", "Number of items", "Percent of items"]
    assert ["Multiple choice", "74", "55"] in rows
    # Its caption's lines after "Table A-4." hang indented, a block of their own: one caption.
    caption = main.find_all("table")[-1].find("caption").get_text(" ", strip=True)
    assert caption.startswith("Table A-4. Number and percentage of reading items")


def test_two_ruled_tables_one_region_took_in_are_two_tables(tmp_path):
    """Two ruled "Topic | Enquiries" tables set one under the other (tests/resources/corpus/
    icdar2013/eu-015-p1.pdf) fall in one table region; read from the words they made one
    table, its wrapped topics a row per line. Each ruled table is read on its own."""
    pdf = ROOT / "tests" / "resources" / "corpus" / "icdar2013" / "eu-015-p1.pdf"
    result = convert_pdf(pdf, tmp_path, TesseractEngine(), ConvertOptions())
    main = BeautifulSoup(result.html_path.read_text(), "html.parser").find("main")
    tables = [[[" ".join(c.get_text().split()) for c in tr.find_all(["td", "th"])]
               for tr in table.find_all("tr")] for table in main.find_all("table")]  # fmt: skip
    topics = [rows for rows in tables if rows[0] == ["Topic", "Enquiries"]]
    assert len(topics) == 2
    assert topics[0][-1] == ["Total", "14.862"]
    assert topics[1][1][0].startswith("Other specific policies including Competition, External")
    assert topics[1][1][0].endswith("and Environment")
    assert topics[1][1][1] == "4.330"


def test_a_ruled_table_column_the_rules_do_not_part_is_parted_at_its_gap(tmp_path):
    """A certificate's table ruled between its rows and before its last column, with no rule
    between the category and its description (tests/resources/corpus/realworld/
    lots_of_sci_tables-p1.pdf): the rules give the rows, the gap every body cell leaves free
    gives the missing column, and the header printed over both spans them."""
    pdf = ROOT / "tests" / "resources" / "corpus" / "realworld" / "lots_of_sci_tables-p1.pdf"
    result = convert_pdf(pdf, tmp_path, TesseractEngine(), ConvertOptions())
    main = BeautifulSoup(result.html_path.read_text(), "html.parser").find("main")
    rows = [[" ".join(c.get_text().split()) for c in tr.find_all(["td", "th"])]
            for tr in main.find("table").find_all("tr")]  # fmt: skip
    assert rows[0] == ["Environmental Category & Description", "Details for: XRT83L30IV"]
    assert main.find("th", string="Environmental Category & Description")["colspan"] == "2"
    assert [row[0] for row in rows[1:]] == ["RoHS | Exempt", "RoHS", "Halogen Free", "REACH",
                                            "TSCA"]  # fmt: skip
    assert rows[3][1].startswith("If “Y”, then product is halogen and lead (Pb) free.")
    assert rows[3][2] == "Y"


_NESTED = {
    r"z = \frac{\frac{a}{b}}{c} + 1": "<mi>z</mi><mo>=</mo><mfrac><mfrac><mi>a</mi><mi>b</mi>"
    "</mfrac><mi>c</mi></mfrac><mo>+</mo><mn>1</mn>",
    r"u = \frac{\frac{a + 1}{b}}{\frac{c}{d}}": "<mi>u</mi><mo>=</mo><mfrac><mfrac><mrow><mi>a"
    "</mi><mo>+</mo><mn>1</mn></mrow><mi>b</mi></mfrac><mfrac><mi>c</mi><mi>d</mi></mfrac></mfrac>",
    r"y = \frac{1}{1 + \frac{1}{x}}": "<mi>y</mi><mo>=</mo><mfrac><mn>1</mn><mrow><mn>1</mn><mo>+"
    "</mo><mfrac><mn>1</mn><mi>x</mi></mfrac></mrow></mfrac>",
}


_SCRIPTS = {
    r"f ' ( x ) = 3 x ^{2}": "<msup><mi>f</mi><mo>′</mo></msup><mo>(</mo><mi>x</mi><mo>)</mo>"
    "<mo>=</mo><mn>3</mn><msup><mi>x</mi><mn>2</mn></msup>",
    "N = 100 + 2.5 t": "<mi>N</mi><mo>=</mo><mn>100</mn><mo>+</mo><mn>2.5</mn><mi>t</mi>",
    r"x _{i} ^{2} + y _{i j}": "<msubsup><mi>x</mi><mi>i</mi><mn>2</mn></msubsup><mo>+</mo>"
    "<msub><mi>y</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub>",
    r"I = \int _{0} ^{1} x ^{2} d x": "<mi>I</mi><mo>=</mo><msubsup><mo>∫</mo><mn>0</mn><mn>1</mn>"
    "</msubsup><msup><mi>x</mi><mn>2</mn></msup><mi>d</mi><mi>x</mi>",
    r"\lim _{n \to \infty} \frac{1}{n} = 0": "<munder><mo>lim</mo><mrow><mi>n</mi><mo>→</mo>"
    "<mi>∞</mi></mrow></munder><mfrac><mn>1</mn><mi>n</mi></mfrac><mo>=</mo><mn>0</mn>",
    r"x = \frac{- b \pm \sqrt{b ^{2} - 4 a c}}{2 a}": "<mi>x</mi><mo>=</mo><mfrac><mrow><mo>−</mo>"
    "<mi>b</mi><mo>±</mo><msqrt><msup><mi>b</mi><mn>2</mn></msup><mo>−</mo><mn>4</mn><mi>a</mi>"
    "<mi>c</mi></msqrt></mrow><mrow><mn>2</mn><mi>a</mi></mrow></mfrac>",
}


def _mathml_page(tmp_path, maths) -> PageReading:
    """A page of MathML displays between paragraphs, printed by Chromium, read from its text."""
    para = f"<p>{BODY}</p>"
    body = "".join(f"{para}<math display='block'>{m}</math>" for m in maths) + para
    html = tmp_path / "maths.html"
    html.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><style>body { font: 11pt 'DejaVu "
        "Serif' } math[display=block] { font-size: 14pt; margin: 8pt 0 }</style></head>"
        f"<body>{body}</body></html>",
        encoding="utf-8",
    )
    print_pdf(html, tmp_path / "maths.pdf")
    return text_layer_reading(pymupdf.open(tmp_path / "maths.pdf")[0], page_number=1, dpi=150)


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium")
def test_a_fraction_inside_a_fraction_is_rebuilt_with_it(tmp_path):
    """MathML fractions in a numerator and a denominator, printed by Chromium (its bars are
    drawn a point past the glyphs the layout model boxes): each display is one formula with
    its inner fractions inside the outer one, none kept as an image."""
    reading = _mathml_page(tmp_path, _NESTED.values())
    assert [b.latex for b in reading.blocks if b.kind == "formula"] == list(_NESTED)
    assert not reading.findings


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium")
def test_scripts_primes_numbers_and_limits_keep_their_meaning(tmp_path):
    """Chromium's MathML: a prime, numbers of several digits, a sub- and superscript on one
    letter, an integral's limits, lim's limit under it and a square root in a fraction, each
    in TeX as written."""
    reading = _mathml_page(tmp_path, _SCRIPTS.values())
    assert [b.latex for b in reading.blocks if b.kind == "formula"] == list(_SCRIPTS)
    assert not reading.findings


def test_a_display_formula_the_layout_model_calls_a_caption_is_a_formula():
    """bws_book_ch2.pdf p. 5 (tests/resources/corpus/realworld/bws_book_ch2-p5.pdf): the display
    "2^3 = 1 + 3 + 3 + 1" under a drawing of cubes the layout model does not box is a
    "caption" region; it becomes a formula rebuilt from its glyphs."""
    pdf = ROOT / "tests" / "resources" / "corpus" / "realworld" / "bws_book_ch2-p5.pdf"
    reading = text_layer_reading(pymupdf.open(pdf)[0], page_number=1, dpi=150)
    assert [b.latex for b in reading.blocks if b.kind == "formula"] == ["2 ^{3} = 1 + 3 + 3 + 1"]
    assert not [b for b in reading.blocks if b.kind == "caption"]


EDGAR_TURNED = ROOT / "tests" / "resources" / "corpus" / "realworld" / "edgar-rotated90.pdf"


def test_a_page_turned_by_rotate_is_read_upright_with_its_layout(tmp_path):
    """A Wikipedia print whose page carries /Rotate 90 over upright lines (tests/resources/
    corpus/realworld/edgar-rotated90.pdf): it is read in its own coordinates, where its lines
    run left to right, so the layout model finds its title, its running head and its "1/34"
    page number, and the reading order is the upright page's."""
    result = convert_pdf(EDGAR_TURNED, tmp_path, TesseractEngine(), ConvertOptions())
    main = BeautifulSoup(result.html_path.read_text(), "html.parser").find("main")
    assert main.find("h1").get_text(" ", strip=True) == "Edgar, King of England"
    text = " ".join(iter_main_text(result.html_path.read_text()))
    assert "1/34" not in text and "3:42 PM" not in text
    assert text.index("Edgar (or Eadgar") < text.index("England had suffered from Viking")


def test_a_turned_page_says_how_its_image_turns_to_match_its_boxes():
    doc = pymupdf.open(EDGAR_TURNED)
    page = doc[0]
    image = rasterize_page(doc, 0, RasterOptions())
    reading = text_layer_reading(page, page_number=1, dpi=image.dpi, image=image.image)
    assert reading.rotation == 270  # the shown page turned back: its own, upright frame
    assert (reading.width, reading.height) == (image.image.height, image.image.width)
    assert all(b.bbox[2] <= reading.width + 1 for b in reading.blocks if b.bbox)


def _drawn(path):
    """A text-book page: a paragraph, a cube drawn in lines (no text in it), a chart (axes,
    a slanted curve, tick labels, an axis title) with its caption, and a form's box of level
    and upright rules around two labels."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_textbox(pymupdf.Rect(72, 60, 540, 120), BODY, fontsize=11)
    cube = [
        ((200, 160), (300, 160)),
        ((300, 160), (300, 260)),
        ((300, 260), (200, 260)),
        ((200, 260), (200, 160)),
        ((200, 160), (240, 130)),
        ((300, 160), (340, 130)),
        ((240, 130), (340, 130)),
        ((340, 130), (340, 230)),
        ((300, 260), (340, 230)),
        ((240, 130), (240, 230)),
        ((240, 230), (340, 230)),
        ((200, 260), (240, 230)),
    ]
    for a, b in cube:  # fmt: skip
        page.draw_line(a, b, width=1)
    page.draw_line((100, 560), (400, 560))  # the chart's axes
    page.draw_line((100, 560), (100, 330))
    points = [(100 + 15 * k, 560 - 220 * (1 - 0.85**k)) for k in range(20)]
    page.draw_polyline(points, width=1)
    for k, label in enumerate(("0", "20", "40", "60", "80")):
        page.insert_text((84, 563 - 55 * k), label, fontsize=8)
    page.insert_text((60, 470), "Yield (%)", fontsize=9, rotate=90)
    page.insert_text((200, 580), "Reaction time (hours)", fontsize=9)
    page.insert_text((100, 610), "Fig. 2 Yield against reaction time.", fontsize=10)
    page.draw_rect(pymupdf.Rect(72, 650, 540, 740))  # a form's box
    page.draw_line((306, 650), (306, 740))
    page.insert_text((80, 670), "Applicant name", fontsize=10)
    page.insert_text((314, 670), "Date of birth", fontsize=10)
    doc.save(path)
    return path


def test_a_drawing_is_a_figure_and_a_charts_labels_are_its_own(tmp_path):
    """The layout model reads text boxes and a small image of the page: a diagram drawn
    without text came out as nothing, a chart's tick labels as paragraphs. Drawings with
    slanted strokes are figures (labels inside, not prose, go with them); boxes of level and
    upright rules (a form, a table) are not."""
    pdf = _drawn(tmp_path / "drawn.pdf")
    result = convert_pdf(pdf, tmp_path / "out", TesseractEngine(), ConvertOptions())
    soup = BeautifulSoup(result.html_path.read_text(), "html.parser")
    figures = soup.find("main").find_all("figure")
    assert len(figures) == 2
    assert "Fig. 2 Yield against reaction time." in figures[1].get_text(" ", strip=True)
    text = " ".join(iter_main_text(result.html_path.read_text()))
    assert "Reaction time (hours)" not in text and "Yield (%)" not in text
    assert "Applicant name" in text and "Date of birth" in text
    assert [f["code"] for f in result.report["findings"]].count("FIGURE_ALT_REVIEW") == 2


def _three_paragraphs(path):
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), "Annual Report", fontsize=24, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 120, 540, 200), BODY, fontsize=11, fontname="helv")
    page.insert_text((72, 240), "Payments are due within thirty days.", fontsize=11)
    page.insert_text((72, 280), "Questions go to the treasurer.", fontsize=11)
    doc.save(path)
    return pymupdf.open(path)[0]


def test_a_line_a_stage_drops_from_a_text_layer_comes_back_with_a_finding(tmp_path):
    """The floor under a born-digital page: its layer's own lines. A stage that loses one (here
    made to drop the page's third text block) gives it back in place, and says so."""
    page = _three_paragraphs(tmp_path / "three.pdf")

    def losing(reading_page, answers):
        laid = apply_layout(reading_page, answers)
        lost = [b for b in laid.blocks if b.text.startswith("Payments")]
        return replace(laid, blocks=[b for b in laid.blocks if b not in lost])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(textlayer, "apply_layout", losing)
        reading = text_layer_reading(page, page_number=5, dpi=150)
    texts = [b.text for b in reading.blocks]
    assert texts.index("Payments are due within thirty days.") == len(texts) - 2
    assert [f["code"] for f in reading.findings] == [RESTORED_CODE]
    assert "Page 5" in reading.findings[0]["message"]


def test_a_text_layer_step_that_fails_leaves_the_layers_plain_text(tmp_path):
    """A defect of ours in a reading step: the page is its layer's lines, with a finding."""
    page = _three_paragraphs(tmp_path / "three.pdf")

    def broken(*args, **kwargs):
        raise ValueError("a defect of ours")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(textlayer, "apply_layout", broken)
        reading = text_layer_reading(page, page_number=2, dpi=150)
    assert [f["code"] for f in reading.findings] == [FALLBACK_CODE]
    text = " ".join(b.text for b in reading.blocks)
    for line in ("Annual Report", BODY, "Payments are due", "Questions go to the treasurer."):
        assert line in text


def test_a_numbered_notes_wrapped_lines_stay_with_it():
    """A form's numbered notes with hanging indents (pdfjs 160F-2019): MuPDF's blocks run
    each note's last line into the next note; the layout model's list-item regions hold a
    note each, its marker opens only its first line. Each note is one list item, whole."""
    doc = pymupdf.open(ROOT / "tests" / "resources" / "corpus" / "pdfjs" / "160F-2019.pdf")
    image = rasterize_page(doc, 0, RasterOptions())
    reading = text_layer_reading(doc[0], page_number=1, dpi=image.dpi, image=image.image)
    items = [b.text for b in reading.blocks if b.kind == "list_item"]
    notes = [t for t in items if t.startswith(("le certificat", "Indiquer", "Part de", "Cocher"))]
    assert len(notes) == 5, items  # notes 1-4 and 6 (5 opens "Déduction")
    assert notes[0].endswith("cette transmission ne peut se faire que par voie électronique")
    assert "P = pension." in notes[2]
    assert not any(b.text.startswith("P = pension") for b in reading.blocks)


def test_a_forms_check_boxes_leave_no_control_characters():
    """A filled form's radio buttons drawn in a symbol font read as U+0015 in MuPDF's spans
    (pdfjs issue17492): HTML may not hold it, so the paragraph of two such boxes goes and
    the form's filled values stay."""
    doc = pymupdf.open(ROOT / "tests" / "resources" / "corpus" / "pdfjs" / "issue17492.pdf")
    image = rasterize_page(doc, 0, RasterOptions())
    reading = text_layer_reading(doc[0], page_number=1, dpi=image.dpi, image=image.image)
    texts = [b.text for b in reading.blocks] + [
        c["text"] for b in reading.blocks for row in b.rows or [] for c in row
    ]
    assert not any(ch < " " for t in texts for ch in t), texts
    assert "Lucía" in texts and "Garzas" in texts


def test_a_block_of_spaces_over_the_text_takes_none_of_its_words():
    """A form's text layer (pdfjs issue9972-2, a sleep questionnaire) holds blocks of spaces
    (its fill-in lines) lying over its text, and one empty block that shifts the words' block
    numbers: a word went to the smallest block around it, a block of spaces, and was lost
    with it ("D. STRATEGIC NAPPING" read "D.", "To", "To minutes To minutes"; the floor then
    put the lines back as one paragraph, with a finding)."""
    doc = pymupdf.open(ROOT / "tests" / "resources" / "corpus" / "pdfjs" / "issue9972-2.pdf")
    image = rasterize_page(doc, 0, RasterOptions())
    reading = text_layer_reading(doc[0], page_number=1, dpi=image.dpi, image=image.image)
    texts = [b.text for b in reading.blocks]
    assert "D. STRATEGIC NAPPING" in texts, texts
    assert "To quickly shed sleepiness - 1 to 5 minutes" in texts, texts
    assert not any(f["code"] == RESTORED_CODE for f in reading.findings), reading.findings
