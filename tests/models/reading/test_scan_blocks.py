"""A scan's illegible lines (models.reading.scan_blocks): a page is called unreadable from its
doubtful lines only when its words are not mostly read surely. Typewriting in a language the
dictionaries lack reads surely with words no dictionary knows; handwriting does not."""

from __future__ import annotations

from dataclasses import replace

from PIL import Image

from models.engine import ReadBlock, Word
from models.reading.params.scan import SCAN
from models.reading.scan_blocks import (
    Illegibility,
    blocks_from_lines,
    ground_of_text,
    not_read_finding,
    outside_figures,
    sure_share,
    without_dictionary,
    without_illegible,
)
from models.reading.scan_lines import InkMeter, Line, ParaLines


def line_of(text: str, y: int, *, confidence: float, known: bool) -> Line:
    words, x = [], 100
    for token in text.split():
        words.append(
            Word(
                text=token,
                confidence=confidence,
                bbox=(x, y, x + 18 * len(token), y + 30),
                known=known,
            )
        )
        x += 18 * len(token) + 14
    return Line(words, (100, y, x, y + 30), ink=0.1)


SURE = [
    "Monsieur le Directeur des affaires",
    "nous avons bien reçu votre lettre",
    "du douze mars dernier concernant",
]
DOUBTFUL = [
    "lrexpédition des colis postaux vers",
    "Ltétranger pendant lrhiver prochain",
    "veuillez agréer nos salutations",
]


def page(sure_confidence: float) -> list[ParaLines]:
    lines = [
        line_of(text, 200 + 50 * k, confidence=sure_confidence, known=False)
        for k, text in enumerate(SURE)
    ]
    lines += [
        line_of(text, 400 + 50 * k, confidence=62, known=False) for k, text in enumerate(DOUBTFUL)
    ]
    return [ParaLines(lines)]


def test_a_page_whose_words_read_surely_is_print_not_handwriting():
    typed = page(sure_confidence=93)
    printed = sure_share([ln for para in typed for ln in para]) >= SCAN.printed_sure_share
    kept, judged = without_illegible(typed, [], printed=printed)
    assert printed and not judged.unreadable()


def test_a_page_of_doubtful_words_is_still_unreadable():
    scrawl = page(sure_confidence=70)
    printed = sure_share([ln for para in scrawl for ln in para]) >= SCAN.printed_sure_share
    kept, judged = without_illegible(scrawl, [], printed=printed)
    assert not printed and judged.unreadable()
    assert [ln.text for para in kept for ln in para] == SURE


def test_a_listing_of_tex_read_at_middling_confidence_is_print():
    """ukbill's documentation p. 11, scanned: a page of \\renewcommand lines. Tesseract reads
    each line's control sequences as one long word, right, at 54 to 78: the page read as not
    print, and its lines as illegible ("Printed text this server's OCR could not read")."""
    source = [
        "\\renewcommand{\\partnumfont}{\\normalfont\\bfseries\\centering\\scshape}",
        "\\renewcommand{\\printchapternonum} {}",
        "\\renewcommand{\\printchapternum}{}",
    ]
    listing = [line_of(text, 200 + 40 * k, confidence=70, known=False)
               for k, text in enumerate(source)]  # fmt: skip
    assert sure_share(listing) >= SCAN.printed_sure_share
    scrawl = [line_of(text, 200 + 40 * k, confidence=70, known=False)
              for k, text in enumerate(DOUBTFUL)]  # fmt: skip
    assert sure_share(scrawl) < SCAN.printed_sure_share


def test_words_read_as_text_inside_an_illustration_become_its_words():
    """A newspaper's advertisement Tesseract took for an image (realworld newspaper.pdf:
    "PROFESSIONAL CARDS", "Notary Public" read at 90 and more): its words leave the text and
    stay the figure's; strokes read as letters at low confidence are dropped."""
    sign = line_of("Notary Public", 200, confidence=92, known=True)
    strokes = line_of("SSH ESE", 260, confidence=20, known=False)
    body = line_of("The text beside it", 200, confidence=95, known=True)
    body.words = [replace(w, bbox=(w.bbox[0] + 1000, *w.bbox[1:])) for w in body.words]
    advert = ReadBlock(kind="figure", bbox=(90, 190, 600, 300))
    kept = outside_figures([ParaLines([sign, strokes]), ParaLines([body])], [advert])
    assert [ln.text for para in kept for ln in para] == ["The text beside it"]
    assert [w.text for w in advert.words] == ["Notary", "Public"]


def test_a_marker_several_lines_tall_is_a_misread_drop_cap_not_a_bullet():
    """Tesseract read a magazine's drop cap "F" as "-": a dash three lines tall opens the
    paragraph, it marks no list item."""
    cap = Word(text="-", confidence=60, bbox=(100, 100, 190, 210))
    first = line_of("armers near the coast", 102, confidence=90, known=True)
    first.words.insert(0, cap)
    first.bbox = (100, 100, first.bbox[2], 210)
    (block,) = blocks_from_lines(ParaLines([first]), InkMeter(None))
    assert block.kind == "paragraph"
    item = line_of("- armers near the coast", 102, confidence=90, known=True)
    assert blocks_from_lines(ParaLines([item]), InkMeter(None))[0].kind == "list_item"


def chart_page() -> list[ParaLines]:
    """A line chart as Tesseract reads it: its axis numbers, and its legend, each entry's line
    swatch read as symbols before a word ("§— Support"), doubtful (multipage.pdf page 3)."""
    numbers = [line_of(str(600 - 100 * k), 30 + 150 * k, confidence=90, known=False)
               for k in range(6)]  # fmt: skip
    legend = [
        line_of(text, 455 + 75 * k, confidence=40, known=True)
        for k, text in enumerate(["§— Support", "B= No vote[note 1]", "r= Oppose", "—=—=Net"])
    ]
    return [ParaLines(numbers), ParaLines(legend)]


def test_a_charts_legend_read_as_symbols_inside_the_layouts_picture_is_no_handwriting():
    chart = chart_page()
    printed = sure_share([ln for para in chart for ln in para]) >= SCAN.printed_sure_share
    _, judged = without_illegible(chart, [], printed=printed)
    assert judged.unreadable()  # the lines alone read as illegible text
    picture = (50, 20, 700, 800)  # the layout model's picture: the chart with its legend
    assert not judged.unreadable([picture])


def test_labels_read_across_a_drawing_are_the_drawings_not_handwriting():
    """Beilstein's reaction scheme, scanned (scheme2.pdf): its labels ("Et3Si", "CO2Et",
    "R2 = Me") read as lines that run across the bonds and arrows, the layout model's two
    pictures covering part of each; their centres fell outside, and the drawing was called
    handwriting."""
    bad = (((533, 80, 801, 207), 8), ((332, 197, 772, 261), 8), ((314, 228, 745, 270), 10),
           ((291, 331, 788, 398), 15))  # fmt: skip
    judged = Illegibility(chars=60, bad=bad, printed=False, picture_text=False)
    pictures = [(611, 56, 742, 323), (178, 188, 381, 393)]
    assert judged.unreadable()
    assert not judged.unreadable(pictures)


def test_illegible_lines_outside_the_layouts_pictures_still_make_a_page_unreadable():
    _, judged = without_illegible(page(sure_confidence=70), [], printed=False)
    assert judged.unreadable([(1500, 100, 2000, 600)])  # a picture elsewhere on the page


def test_marks_read_as_a_character_or_two_are_no_writing():
    """A chart's markers and legend swatches, each read as its own illegible "line" of one or
    two characters ("x", "*", "=-"; ocrmypdf multipage.pdf page 4): beside a few words of
    labels they are most of what the page read, and still no handwriting."""
    labels = [line_of("Support Oppose", 100, confidence=90, known=True)]
    marks = [
        line_of(mark, 300, confidence=20, known=False) for mark in ["x", "*", "=-", "oe", "&", "S|"]
    ]
    for k, mark in enumerate(marks):  # side by side on one row, as a chart's series cross it
        mark.bbox = (100 + 60 * k, 300, 140 + 60 * k, 330)
    _, judged = without_illegible([ParaLines(labels), ParaLines(marks)], [], printed=False)
    assert not judged.unreadable()


def test_a_picture_of_illegible_text_on_a_printed_page_is_no_handwriting():
    """A newspaper page (realworld newspaper.pdf p1, read surely) whose advertisements'
    ornaments Tesseract reads as rows of letters ("POSSESSES ESE SSH") in a picture: print,
    never called handwriting. A picture of such text on a page read doubtfully still is."""
    printed = Illegibility(chars=20000, bad=(), printed=True, picture_text=True)
    assert not printed.unreadable()
    assert Illegibility(chars=2000, bad=(), printed=False, picture_text=True).unreadable()


def test_a_table_row_of_figures_read_doubtfully_is_no_illegible_line():
    """A scanned table's row ("Germany 45.4 75.2. 41.5." read at 60 % confidence): figures are
    in no dictionary, yet they are no handwriting; the row stays for the table."""
    texts = [("Germany", 80.0, True), ("45.4", 60.0, False), ("75.2.", 55.0, False),
             ("41.5.", 55.0, False), ("56.8", 60.0, False)]  # fmt: skip
    words = [
        Word(text, conf, (100 + 200 * i, 100, 180 + 200 * i, 130), known=known)
        for i, (text, conf, known) in enumerate(texts)
    ]
    line = Line(words, (100, 100, 980, 130), 0.1)
    kept, _ = without_illegible([ParaLines([line])], [], printed=True)
    assert [ln.text for para in kept for ln in para] == ["Germany 45.4 75.2. 41.5. 56.8"]


def test_a_listings_line_read_doubtfully_on_a_printed_page_stays():
    """A scanned manual's code (unseen TeX Live pages: "\\setmainlanguage{asturian}" read at
    58 %, its words in no dictionary) or a web address is print, as plain Tesseract keeps
    it. A chart's marks read as signs ("<g =": no word), a line read with little confidence
    (a stamp printed sideways, a word of it read surely) and the same code on a page read
    doubtfully leave."""
    typed = page(sure_confidence=93)
    code = line_of("\\setmainlanguage{asturian} \\def\\Or#1#2{", 600, confidence=58, known=False)
    address = line_of("www.maxlinear.com", 630, confidence=51, known=False)
    marks = line_of("<g = 2 =", 650, confidence=58, known=False)
    stamp = line_of("UO JASN WepJe }ENSIBAIUN", 700, confidence=25, known=False)
    stamp.words[1].confidence = 80
    lines = [*typed, ParaLines([code, address, marks, stamp])]
    kept, _ = without_illegible(lines, [], printed=True)
    texts = [ln.text for para in kept for ln in para]
    assert code.text in texts and address.text in texts
    assert marks.text not in texts and stamp.text not in texts
    kept, _ = without_illegible(lines, [], printed=False)
    assert code.text not in [ln.text for para in kept for ln in para]


def test_a_listings_line_two_reads_confirmed_stays_with_a_word_read_surely():
    """A manual's display line of macros ("(repeat) {(arg-1)}(repeat){(arg-2)}... (repeat)
    {(arg-n)}", domore p. 4 scanned) read at 42 on average, its first word at 89: as read
    once, a line of computer text that unsure leaves; read alike twice (`Line.confirmed`),
    it stays for its word read surely, as any confirmed line does."""
    typed = page(sure_confidence=93)
    macros = line_of("(repeat) {(arg-1)}(repeat){(arg-2)}... (repeat) {(arg-n)}", 600,
                     confidence=15, known=False)  # fmt: skip
    macros.words[0].confidence, macros.words[1].confidence = 89, 50
    kept, _ = without_illegible([*typed, ParaLines([macros])], [], printed=True)
    assert macros.text not in [ln.text for para in kept for ln in para]
    macros.confirmed = True
    kept, _ = without_illegible([*typed, ParaLines([macros])], [], printed=True)
    assert macros.text in [ln.text for para in kept for ln in para]


def english_page() -> list[ParaLines]:
    return [
        ParaLines([line_of(text, 200 + 50 * k, confidence=93, known=True)])
        for k, text in enumerate(SURE + DOUBTFUL)
    ]


def greek_page() -> tuple[list[ParaLines], list[Line]]:
    """English print with two rows of Greek read by English as nonsense (a manual's "Greek
    letters via LICR macros:" and its alphabets), a chart's lone label and a stamp sideways
    in the margin."""
    typed = english_page()
    greek = [
        line_of("ABTAEZHOIKAMNEOIPSTYEXvVgQ", 560, confidence=21, known=False),
        line_of("aBydetndixr AuvEonpotvgydba", 600, confidence=30, known=False),
    ]
    label = line_of("Fethelflaed", 700, confidence=18, known=False)
    # A download stamp up the margin, read as mirrored nonsense.
    stamp = line_of("papeojumoq WO JEsN jOHISIOAIUN", 150, confidence=33, known=False)
    stamp.bbox = (1150, 100, 1180, 900)
    return [*typed, ParaLines([*greek, label]), ParaLines([stamp])], greek


def read_blocks(paragraphs: list[ParaLines]) -> list[ReadBlock]:
    ink = InkMeter(Image.new("1", (1200, 1000), 1))
    return [block for para in paragraphs for block in blocks_from_lines(para, ink)]


def test_lines_of_a_script_nobody_read_on_a_printed_page_are_said_and_where():
    """A printed page whose illegible lines of letters stay out of its text ends with a
    finding that routes it to review, quoting the text above them; one such line alone, a
    chart's lone label, or lines inside a picture are no page's loss."""
    lines, greek = greek_page()
    kept, judged = without_illegible(lines, [], printed=True)
    assert not judged.unreadable()
    finding = not_read_finding(judged, read_blocks(kept), page_number=3)
    assert finding["code"] == "LINES_NOT_READ" and finding["level"] == "needs_review"
    assert finding["message"].startswith("Page 3: 2 lines could not be read")
    assert "“…du douze mars dernier concernant”" not in finding["message"]  # not the first
    assert "veuillez agréer nos salutations" in finding["message"]
    picture = (50, 540, 1200, 660)  # the layout model's picture over the two rows
    assert not_read_finding(judged, read_blocks(kept), [picture], page_number=3) is None
    one = [*english_page(), ParaLines([greek[0]])]
    kept, judged = without_illegible(one, [], printed=True)
    assert not_read_finding(judged, read_blocks(kept), page_number=3) is None


def test_lines_the_floor_brought_back_are_no_lines_not_read():
    lines, greek = greek_page()
    kept, judged = without_illegible(lines, [], printed=True)
    restored = read_blocks([*kept, ParaLines(greek)])
    assert not_read_finding(judged, restored, page_number=3) is None


def test_a_word_of_a_line_brought_back_is_no_line_read():
    """The floor brings a lost line back with its words read surely: a word or two of a line
    of Greek read as nonsense ("ABTAEZ...") is not the line read, and the page still says
    its lines were not read."""
    greek = [line_of("ABTAE ZHOIKAM NEOIPS TYEXvVgQ", 560, confidence=21, known=False),
             line_of("aBydet ndixr AuvEon potvgydba", 600, confidence=30, known=False)]  # fmt: skip
    kept, judged = without_illegible([*english_page(), ParaLines(greek)], [], printed=True)
    scraps = [Line(line.words[:1], line.words[0].bbox, 0.1) for line in greek]
    finding = not_read_finding(judged, read_blocks([*kept, ParaLines(scraps)]), page_number=3)
    assert finding is not None and finding["code"] == "LINES_NOT_READ"
    whole = read_blocks([*kept, ParaLines(greek)])  # the lines brought back whole
    assert not_read_finding(judged, whole, page_number=3) is None


def test_a_handwritten_page_has_its_own_finding_not_lines_not_read():
    kept, judged = without_illegible(page(sure_confidence=70), [], printed=False)
    assert judged.unreadable()
    assert not_read_finding(judged, read_blocks(kept), page_number=1) is None


ENGLISH = "the committee has received your letter about the shipment of parcels abroad"
DUTCH = "het onderzoek beschrijft welke gegevens verzameld worden tijdens deze studie"


def _page_of(text: str, *, known, lines: int = 4, confidence: float = 92) -> list[ParaLines]:
    return [ParaLines([line_of(text, 200 + 50 * k, confidence=confidence, known=known)
                       for k in range(lines)])]  # fmt: skip


def test_a_page_in_a_language_the_dictionary_lacks_has_its_words_unjudged_by_it():
    """Words read surely that the dictionary mostly does not know: the page's language is not
    the dictionary's, and `known` says nothing (None)."""
    dutch = _page_of(DUTCH, known=False)
    without_dictionary(dutch)
    assert {w.known for line in dutch[0] for w in line.words} == {None}
    english = _page_of(ENGLISH, known=True)
    without_dictionary(english)
    assert {w.known for line in english[0] for w in line.words} == {True}
    few = _page_of(DUTCH, known=False, lines=1)  # too few words to tell
    without_dictionary(few)
    assert {w.known for line in few[0] for w in line.words} == {False}
    doubtful = _page_of(DUTCH, known=False, confidence=60)
    without_dictionary(doubtful)  # read doubtfully: handwriting's words, the dictionary judges
    assert {w.known for line in doubtful[0] for w in line.words} == {False}


def test_a_listings_lines_read_unsurely_stay_beside_its_lines_read_surely():
    """A scanned manual's listing (expkv-opt p. 8): "\\edef\\CurrentOption" read at 84 and
    "#1\\@unusedoptionlist" at 92 beside "\\let\\CurrentOption\\ekvo@unpreparedCurrentOption"
    at 32 and "#1\\ekv@mark\\ekvo@prepare@unusedoption@c" at 21, read right: no dictionary
    holds such words. In a paragraph with two lines of computer text read surely, the others
    stay down to SCAN.listing_line_confidence; alone, lines of computer text that are no TeX
    (a key "short=sup1", kinds.tex_line) leave as before."""
    typed = page(sure_confidence=93)
    sure = [line_of("\\edef\\CurrentOption", 600, confidence=84, known=False),
            line_of("#1\\@unusedoptionlist", 640, confidence=92, known=False)]  # fmt: skip
    unsure = [line_of("\\let\\CurrentOption\\ekvo@unpreparedCurrentOption", 680,
                      confidence=32, known=False),
              line_of("#1\\ekv@mark\\ekvo@prepare@unusedoption@c", 720, confidence=21,
                      known=False),
              line_of("\\ekvo@ifx@F\\@empty", 760, confidence=10, known=False)]  # fmt: skip
    kept, _ = without_illegible([*typed, ParaLines([*sure, *unsure])], [], printed=True)
    texts = [ln.text for para in kept for ln in para]
    assert unsure[0].text in texts and unsure[1].text in texts
    assert unsure[2].text not in texts  # under SCAN.listing_line_confidence
    keys = [line_of("short=sup1, long={superscript}", 680, confidence=32, known=False),
            line_of("value=#1, default=none", 720, confidence=21, known=False)]  # fmt: skip
    kept, _ = without_illegible([*typed, ParaLines([*sure, *keys])], [], printed=True)
    assert [line.text in [ln.text for para in kept for ln in para] for line in keys] == [True] * 2
    kept, _ = without_illegible([*typed, ParaLines(sure), ParaLines(keys)], [], printed=True)
    texts = [ln.text for para in kept for ln in para]
    assert not any(line.text in texts for line in keys)


def test_a_line_of_tex_read_unsurely_on_a_printed_page_stays():
    """Scanned TeX Live manuals (unseen tune pages): "\\documentclass [EJP] {ejpecp}" read
    right at 33, "103. ~=\\fp@cleanreg{#1}}" at 33, "\\sfcode~\\.\\@m" at 43, each alone in its
    paragraph, were dropped as illegible where plain Tesseract keeps them. A line most of whose
    characters are words holding a TeX control word stays down to
    SCAN.listing_line_confidence. A Chinese slide's line read with English,
    "\\section{ ik At 36 me *] AE TE}", holds a command among scraps: it leaves; so does TeX
    read at 10, and TeX on a page not read as print."""
    typed = page(sure_confidence=93)
    texts = ["\\documentclass [EJP] {ejpecp}", "103. ~=\\fp@cleanreg{#1}}", "\\sfcode~\\.\\@m",
             "\\section{ ik At 36 me *] AE TE}"]  # fmt: skip
    lines = [
        line_of(text, 600 + 40 * k, confidence=33, known=False) for k, text in enumerate(texts)
    ]
    faint = line_of("\\begin{frame}[allowframebreaks]{## it}", 800, confidence=10, known=False)
    paragraphs = [*typed, *(ParaLines([line]) for line in [*lines, faint])]
    kept, _ = without_illegible(paragraphs, [], printed=True)
    held = [ln.text for para in kept for ln in para]
    assert [line.text in held for line in [*lines, faint]] == [True, True, True, False, False]
    kept, _ = without_illegible(paragraphs, [], printed=False)
    assert not any(line.text in [ln.text for para in kept for ln in para] for line in lines)


def test_a_web_address_read_unsurely_on_a_printed_page_stays():
    """A biosketch's "http://www.ncbi.nlm.nih.gov/myncbi/browse/collection/45972964/" under a
    "Sample" watermark, read right at 34 (and again alike at 0): no dictionary holds an
    address, and Tesseract's confidence in one says little. On a printed page it stays; on a
    page not read as print, or as a line mostly of other words, it is judged as any line."""
    typed = page(sure_confidence=93)
    address = line_of("http://www.ncbi.nlm.nih.gov/myncbi/browse/collection/45972964/", 600,
                      confidence=34, known=False)  # fmt: skip
    stamp = line_of("Downloaded from www.x.org by Gueslt on Jannuary", 650, confidence=30,
                    known=False)  # fmt: skip
    kept, _ = without_illegible([*typed, ParaLines([address, stamp])], [], printed=True)
    texts = [ln.text for para in kept for ln in para]
    assert address.text in texts and stamp.text not in texts
    kept, _ = without_illegible([*typed, ParaLines([address])], [], printed=False)
    assert address.text not in [ln.text for para in kept for ln in para]
    # A footnote's address with a space read after its scheme (a thesis template's manual,
    # "https: //ctan.org/pkg/algorithms", its superscript "10" read into the scheme at 7).
    # A footnote's address with a space read into it, or with no scheme, its footnote number
    # read into it (a thesis template's manual, "https: //ctan.org/pkg/algorithms" at 7 and
    # 61; bitelist's "6tug.org/TUGboat/tb11-2/tb28jeffrey.pdf" at 43, "en.wiktionary
    # .org/wiki/bite#Etymology" at 39). A line of words and a figure's "3.5/10" are no address.
    texts = ["https: //ctan.org/pkg/algorithms", "Stug.org/TUGboat/tb11-2/tb28jeffrey.pdf",
             "Sen.wiktionary .org/wiki/bite#Etymology", "Sen wiktionary org wiki bite Etymology",
             "3.5/10 7.2/10"]  # fmt: skip
    notes = [
        line_of(text, 700 + 40 * k, confidence=30, known=False) for k, text in enumerate(texts)
    ]
    kept, _ = without_illegible([*typed, ParaLines(notes)], [], printed=True)
    texts = [ln.text for para in kept for ln in para]
    assert [note.text in texts for note in notes] == [True, True, True, False, False]


def test_a_picture_as_large_as_the_page_over_a_page_of_text_is_its_ground():
    """A dark listing read inverted (hlist-fr p. 12, listofitems p. 11 scanned): Tesseract
    gives one image block from edge to edge, and all 54 lines read inside it went to the
    figure as its labels. A "picture" over most of the page holding ten lines read as text or
    more is the page's ground; one over part of it, or holding a few labels, is a picture."""
    lines = [line_of(f"\\loi_count_occur#1\\in#3:\\loi_temp{k} relax", 200 + 50 * k,
                     confidence=85, known=False) for k in range(12)]  # fmt: skip
    ground = ReadBlock(kind="figure", bbox=(0, 0, 2000, 2800))
    assert ground_of_text(ground, [ParaLines(lines)], (2000, 2800))
    assert not ground_of_text(ground, [ParaLines(lines[:4])], (2000, 2800))
    half = ReadBlock(kind="figure", bbox=(0, 0, 2000, 1400))
    assert not ground_of_text(half, [ParaLines(lines)], (2000, 2800))
