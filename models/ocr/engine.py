"""The CPU engine: Tesseract (through tesserocr, in process) plus layout heuristics.

Why Tesseract rather than rapidocr: on a 2-core machine it read a clean page at 0 % CER in about
1.3 s and returns blocks, paragraphs, lines and words with confidences, which the layout steps
need; rapidocr 3.x reached 0.1 % CER in about 4 s and gives lines only. Both run with nothing
downloaded at run time (Debian ships Tesseract's trained data).

Over 450 lines: one class of the calls into Tesseract a page needs (orientation, two bands at
once, languages, text in images, reversed rows). What it reads goes to models.ocr.iterate's
lines, which it hands to models.reading.scan: the stages from lines to the page's blocks,
kinds and order (bands, formula regions, blocks, lists, layout regions) are page reading's.
"""

from __future__ import annotations

import logging
import statistics
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from PIL import Image, ImageOps

from models.engine import PageImage, PageReading
from models.language import TESSERACT_CODES, detect_language
from models.layout import PICTURE_CLASSES, Region, ScanPage
from models.ocr.iterate import (
    figure_blocks,
    is_upright_strip,
    line_boxes,
    page_lines,
    read_paragraphs,
    runs_sideways,
)
from models.ocr.prepare import deskew
from models.ocr.rereads import PartRereads, light_on_dark
from models.ocr.scale import (
    TESSERACT_MAX_SIDE_PX,
    SmallText,
    check_text_size,
    scaled_page,
    scaled_reading,
    small_text_factor,
)
from models.ocr.tessdata import find_tessdata
from models.reading.bands import band_cut, filled_layout
from models.reading.boxes import inside_share
from models.reading.floor import (
    PlainLine,
    fallback_finding,
    plain_blocks,
    scan_plain_lines,
    with_floor,
)
from models.reading.line_numbers import scan_without_line_numbers
from models.reading.page import ReadingPage
from models.reading.params.floor import FLOOR
from models.reading.params.scan import SCAN
from models.reading.scan import ScanImage, scan_structure, scan_text
from models.reading.scan_blocks import (
    not_read_finding,
    unread_print_finding,
    without_dictionary,
)
from models.reading.scan_lines import (
    InkMeter,
    Line,
    ParaLines,
    columns_cut,
    cut_lines,
    has_words,
    keep_lines,
    move_lines,
    read_score,
    reads_well,
)

log = logging.getLogger(__name__)


# A page on its side: its PROBE_LINES longest lines are read turned both ways; one way must
# score PROBE_MARGIN times the other to decide.
PROBE_LINES = 3
PROBE_MARGIN = 2.0
FLIPPED_DEG = 180  # a page turned over
OSD_MAX_DPI = 300  # orientation and script detection reads a copy of at most this resolution
FULL_TURN_DEG = 360
# An unreadable page is print when Tesseract's orientation detection finds its orientation with
# at least this score (its own unit; at OSD_MAX_DPI): print's regular lines score 11-24 (Greek
# pages, a script OSD names "Latin" when Latin print is beside it), and 7.3-7.6 on noisy scans
# read at 240 DPI (a Greek contents page, a column of one-word lines), handwriting 1.4-3.9; print
# in a script the languages do not read when OSD names that script. The script's own score
# tells neither (0.4-5 for print, 0.2-0.6 for handwriting called "Japanese").
PRINT_ORIENTATION_SCORE = 6.0
# The scripts of Tesseract's languages that are not Latin (Tesseract's script names).
_SCRIPTS = {
    "ara": "Arabic", "fas": "Arabic", "urd": "Arabic", "bul": "Cyrillic", "rus": "Cyrillic",
    "srp": "Cyrillic", "ukr": "Cyrillic", "ell": "Greek", "heb": "Hebrew", "hin": "Devanagari",
    "mar": "Devanagari", "ben": "Bengali", "tha": "Thai", "chi_sim": "Han", "chi_tra": "Han",
    "jpn": "Japanese", "kor": "Korean",
}  # fmt: skip


@dataclass
class _Plain:
    """What a page's plain reading needs, kept as the page is read: Tesseract's own lines and
    the image they were read on (its size and turns)."""

    lines: list[PlainLine] = field(default_factory=list)
    width: int = 0
    height: int = 0
    rotation: int = 0
    skew: float = 0.0
    language: str | None = None


class TesseractEngine(PartRereads):
    """PageEngine over Tesseract. One instance per process; calls are serialized by a lock."""

    name = "ocr"

    def __init__(self, *, languages: str = "eng", detect_rotation: bool = True) -> None:
        import tesserocr  # heavy native import, only when the engine is built

        self._tesserocr = tesserocr
        self.languages = languages
        self.detect_rotation = detect_rotation
        self._tessdata = find_tessdata()
        self._lock = threading.Lock()
        self._api = self._new_api(languages, tesserocr.PSM.AUTO)
        # Every other recognizer (a turned page's read, a dense page's two bands, rereads, OSD)
        # is built on first use and kept: each costs about 0.13 s of CPU and 17 MB once the
        # first is loaded (1.45 s), which a process reading only upright, sparse pages never pays.
        self._extra: dict = {}
        # A second thread for the page being read (the engine reads one at a time): half of
        # the deskew rotation, then the layout model's image half while Tesseract reads the
        # page (both release the GIL).
        self._beside = ThreadPoolExecutor(max_workers=1, thread_name_prefix="axiya-layout")
        # A dense page's top band is recognized on this thread while the page's own thread
        # reads the bottom one (tesserocr releases the GIL): see _read_in_bands.
        self._band = ThreadPoolExecutor(max_workers=1, thread_name_prefix="axiya-band")
        self._osd = None  # built on first use, where OSD data is installed (self._has_osd)
        self._has_osd = detect_rotation and Path(self._tessdata, "osd.traineddata").exists()

    def _new_api(self, languages: str, psm, *, invert: bool = False):
        api = self._tesserocr.PyTessBaseAPI(path=self._tessdata, lang=languages, psm=psm)
        # Tesseract 5 re-reads every doubtful line inverted (white on black): about 20 % of the
        # time on a page, for a layout scans rarely have; only the reversed panels' reads
        # (rereads._reversed_panels) pay for it.
        api.SetVariable("tessedit_do_invert", "1" if invert else "0")
        return api

    def describe(self) -> dict:
        return {
            "engine": self.name,
            "package": f"tesseract {self._tesserocr.tesseract_version().split()[1]}",
            "languages": self.languages,
            "sha256": None,
        }

    def close(self) -> None:
        self._beside.shutdown()
        self._band.shutdown()
        self._api.End()
        for api in self._extra.values():
            api.End()
        if self._osd is not None:
            self._osd.End()

    def predict_batch(self, pages: list[PageImage]) -> list[PageReading]:
        with self._lock:
            return [self._read(page) for page in pages]

    def _read(self, page: PageImage) -> PageReading:
        factor = min(1.0, TESSERACT_MAX_SIDE_PX / max(page.image.size))
        if factor == 1.0:
            try:
                return self._read_or_fall_back(page, sized=True)
            except SmallText as small:
                factor = small_text_factor(page.image.size, small.factor)
                if factor == 1.0:  # no room to read it larger: read as it is
                    return self._read_or_fall_back(page)
        return scaled_reading(self._read_or_fall_back(scaled_page(page, factor)), 1 / factor)

    def _read_or_fall_back(self, page: PageImage, *, sized: bool = False) -> PageReading:
        """The page read; when one of our steps fails on it, its plain reading with a finding
        (the error logged). An error of Tesseract itself, which the plain read meets again,
        is raised: the engine cannot read the page."""
        scans: list[tuple[Image.Image, Future[ScanPage]]] = []
        plain = _Plain()
        try:
            return self._read_page(page, scans, plain, sized=sized)
        except SmallText:
            raise
        except Exception as exc:
            log.exception("page %d: a reading step failed; its plain reading is kept",
                          page.page_number)  # fmt: skip
            try:
                return self._plain_reading(page, plain)
            except Exception:
                raise exc from None
        finally:  # a page prepared for the layout model and not used (an error): let it go
            for _, scan in scans:
                if not scan.cancel() and scan.exception() is None:
                    scan.result().close()

    def _plain_reading(self, page: PageImage, plain: _Plain) -> PageReading:
        """The page as Tesseract's own lines, in its order (read now when the error came
        before they were), as paragraphs, with the finding that says its structure is lost."""
        if not plain.width:
            gray = page.image.convert("L")
            api = self._recognize(self._api, gray, page.dpi)
            lines = scan_plain_lines(read_paragraphs(self._tesserocr, api, page.dpi))
            plain = _Plain(lines, gray.width, gray.height, language=self.primary)
        return PageReading(
            page_number=page.page_number,
            blocks=plain_blocks(plain.lines),
            width=plain.width,
            height=plain.height,
            rotation=(360 - plain.rotation) % 360,
            skew=plain.skew,
            language=plain.language,
            source="ocr",
            findings=[fallback_finding(page.page_number)],
        )

    # -- languages ----------------------------------------------------------------------------
    @property
    def primary(self) -> str:
        first = self.languages.split("+")[0]
        return next((iso for iso, code in TESSERACT_CODES.items() if code == first), "en")

    def _available(self, lang: str) -> bool:
        code = TESSERACT_CODES.get(lang)
        return bool(code) and Path(self._tessdata, f"{code}.traineddata").exists()

    def _api_for(self, lang: str, *, psm, invert: bool = False):
        """A recognizer for `lang` (plus the configured languages), built once and kept;
        `invert`: one that also tries each doubtful line inverted (see _new_api)."""
        key = (lang, int(psm), invert)
        if key not in self._extra:
            langs = "+".join(dict.fromkeys([TESSERACT_CODES[lang], *self.languages.split("+")]))
            self._extra[key] = self._new_api(langs, psm, invert=invert)
        return self._extra[key]

    def _spare(self, purpose: str, psm=None):
        """A recognizer of the configured languages for one kind of second read (built once
        and kept; `psm`: its page segmentation, the whole page's by default): its results and
        settings stay apart from the read it is weighed against, which the page keeps when
        the second read loses (rereads._column_figures sets the characters its one may read)."""
        psm = self._tesserocr.PSM.AUTO if psm is None else psm
        key = (purpose, int(psm))
        if key not in self._extra:
            self._extra[key] = self._new_api(self.languages, psm)
        return self._extra[key]

    @staticmethod
    def _recognize(api, image: Image.Image, dpi: int):
        # The page's own DPI, never Tesseract's estimate: left unset, Tesseract finds rules at
        # 70 DPI and takes short ones out (a form's margin labels then stand apart), but the
        # tune scans of ICDAR's tables lose words (recall 0.967 -> 0.944, session 44).
        api.SetImage(image)
        api.SetSourceResolution(dpi)
        api.Recognize()
        return api

    # -- one page ------------------------------------------------------------------------------
    def _detect_orientation_script(self, gray: Image.Image, dpi: int) -> dict:
        """Tesseract's orientation and script detection on the page ({} when it cannot
        tell: too little text, or no OSD data), at OSD_MAX_DPI at most: a smaller copy loses
        a form's or a worksheet's small print (a page turned over, read at 100 DPI, scored
        0.02-0.9 either way; at 300 DPI 6-24 for the right turn)."""
        if not self._has_osd:
            return {}
        if self._osd is None:
            # A separate instance: OSD on the recognizing instance aborts the process.
            self._osd = self._tesserocr.PyTessBaseAPI(
                path=self._tessdata, lang="osd", psm=self._tesserocr.PSM.OSD_ONLY
            )
        small = gray
        if dpi > OSD_MAX_DPI:
            scale = OSD_MAX_DPI / dpi
            small = gray.resize((int(gray.width * scale), int(gray.height * scale)))
        self._osd.SetImage(small)
        self._osd.SetSourceResolution(min(dpi, OSD_MAX_DPI))
        try:
            return self._osd.DetectOrientationScript() or {}
        except RuntimeError:
            return {}

    @staticmethod
    def _orientation(osd: dict) -> int:
        """Degrees (counter-clockwise, as PIL rotates) that make the page upright, from the
        page's OSD result."""
        if osd.get("orient_conf", 0) < 2.0:
            return 0  # too little text to tell: keep the page as it is
        return int(osd["orient_deg"]) % 360

    def _unread_print(self, osd: dict) -> tuple[bool, str | None]:
        """Whether an unreadable page is print (Thai print read with English, Greek beside
        Latin, a chart of signs: as illegible as handwriting, but no handwriting), and the
        script it is printed in when that is surely none of the languages', from the page's
        OSD result (the script and the orientation's score are the same whichever way up the
        page was when OSD ran)."""
        script = osd.get("script_name")
        ours = {"Latin"} | {_SCRIPTS.get(code, "Latin") for code in self.languages.split("+")}
        printed = osd.get("orient_conf", 0) >= PRINT_ORIENTATION_SCORE
        return printed, script if script and script not in ours and printed else None

    def _sideways_turn(self, gray: Image.Image, boxes, dpi: int) -> int | None:
        """90 or 270: the turn that makes a page lying on its side upright, from its longest
        lines read both ways (text read upside down scores far lower); None when unclear. Each
        crop is read as a block: a curved or tilted line's strip holds bits of its neighbours,
        and read as one line it reads nothing either way."""
        api = self._api_for(self.primary, psm=self._tesserocr.PSM.SINGLE_BLOCK)
        strips = [b for b in boxes if is_upright_strip(b) and b[2] - b[0] >= 4]
        if not strips:
            return None
        # Lines of body text, not the bars and frames of a chart: about the usual thickness.
        usual = statistics.median(b[2] - b[0] for b in strips)
        strips = sorted(
            (b for b in strips if b[2] - b[0] <= 1.5 * usual), key=lambda b: b[1] - b[3]
        )
        scores = {90: 0.0, 270: 0.0}
        for x0, y0, x1, y1 in strips[:PROBE_LINES]:
            pad = (x1 - x0) // 4
            y1 = min(y1, y0 + 30 * (x1 - x0))  # a long line's start is enough
            crop = gray.crop((max(0, x0 - pad), y0, min(gray.width, x1 + pad), y1))
            for turn in scores:
                self._recognize(api, crop.rotate(turn, expand=True), dpi)
                scores[turn] += read_score(read_paragraphs(self._tesserocr, api))
        best, other = sorted(scores, key=lambda turn: -scores[turn])
        return best if scores[best] >= PROBE_MARGIN * scores[other] and scores[best] > 0 else None

    def _turn_of(self, gray: Image.Image, dpi: int) -> int:
        """The turn that makes a page that reads badly as it stands upright: on its side, its
        longest lines read both ways (else OSD); else OSD's, or turned over when OSD cannot
        tell."""
        api = self._spare("orientation")
        api.SetImage(gray)
        api.SetSourceResolution(dpi)
        boxes = line_boxes(self._tesserocr, api.AnalyseLayout())
        turn = self._sideways_turn(gray, boxes, dpi) if runs_sideways(boxes) else None
        if turn is None:
            turn = self._orientation(self._detect_orientation_script(gray, dpi)) or FLIPPED_DEG
        return turn

    def _read_turned(self, image: Image.Image, turn: int, api, dpi: int):
        """The page turned by `turn` degrees and deskewed, read whole by `api`: its image, its
        skew, the recognizer and what it read."""
        gray, skew = deskew(image.rotate(turn, expand=True), beside=self._beside)
        api = self._recognize(api, gray, dpi)
        return gray, skew, api, read_paragraphs(self._tesserocr, api, dpi)

    def _read_in_bands(self, gray: Image.Image, layout, cut: int, dpi: int) -> list[ParaLines]:
        """The page recognized as two bands, above and below `cut` (a row between two text
        lines), at once: each its own crop, on its own thread and Tesseract instance. Their
        words fill the whole page's layout (`layout`, from AnalyseLayout), so paragraphs, lines
        and block order are the page's, as a read of the whole page would give them: a band's
        own layout sees fewer lines and finds other paragraphs and columns."""
        # The bands' own instances, while self._api holds the page's layout.
        top, bottom = self._spare("top band"), self._spare("bottom band")
        upper = self._band.submit(self._read_band, top, gray.crop((0, 0, gray.width, cut)), 0, dpi)
        try:
            lower = self._read_band(bottom, gray.crop((0, cut, gray.width, gray.height)), cut, dpi)
        finally:  # never leave the top band's instance busy for the next page
            above = upper.result()
        band_lines = above + lower
        layout_lines = page_lines(self._tesserocr, layout, dpi, read=False)
        return keep_lines(filled_layout(layout_lines, band_lines), has_words)

    def _read_band(self, api, band: Image.Image, top: int, dpi: int) -> list[Line]:
        """The lines a band of the page reads, in page pixels (the band starts at row `top`)."""
        self._recognize(api, band, dpi)
        paragraphs = read_paragraphs(self._tesserocr, api, dpi)
        move_lines(paragraphs, 0, top)
        return [line for para in paragraphs for line in para]

    def _straight_read(self, original: Image.Image, rotation: int, dpi: int):
        """The page turned upright but not deskewed, what Tesseract reads on it, and the
        recognizer that read it."""
        straight = original.rotate(rotation, expand=True) if rotation else original
        api = self._recognize(self._spare("straight"), straight, dpi)
        return straight, read_paragraphs(self._tesserocr, api, dpi), api

    def _read_page(
        self, page: PageImage, scans: list, plain: _Plain, *, sized: bool = False
    ) -> PageReading:
        """The page read (`sized`: its text's size checked first, see check_text_size)."""
        tess = self._tesserocr
        started = time.perf_counter()
        original = page.image.convert("L")
        upright = deskew(original, beside=self._beside)
        gray, skew = upright
        prepare_s = time.perf_counter() - started
        # The layout model's image half, on the second thread while Tesseract analyses the
        # page (which is then made again for a page found lying on its side).
        scans.append((gray, self._beside.submit(ScanPage, gray, page.dpi)))
        api = self._api
        api.SetImage(gray)
        api.SetSourceResolution(page.dpi)
        rotation, guess = 0, None  # guess: the turn OSD (or the line probe) gave
        osd = None  # OSD's result on the page as scanned, once a step has needed it
        # The page's layout (which Recognize then reuses, at no extra cost) shows a page lying on
        # its side: its text lines run up or down. Which way up is decided at once and the page
        # is read once, turned, instead of first being read sideways.
        layout = api.AnalyseLayout()
        boxes = line_boxes(tess, layout)
        sideways = self.detect_rotation and runs_sideways(boxes)
        if sized:
            check_text_size(boxes, sideways=sideways)
        if sideways:
            started_osd = time.perf_counter()
            # Which way up: a few lines read both ways tell it (OSD misjudges some pages lying
            # on their side, e.g. small dense print); OSD decides when they do not.
            guess = self._sideways_turn(gray, boxes, page.dpi)
            if guess is None:
                osd = self._detect_orientation_script(original, page.dpi)
                guess = self._orientation(osd)
            if guess:
                rotation = guess
                gray, skew = deskew(original.rotate(rotation, expand=True), beside=self._beside)
                api.SetImage(gray)
                api.SetSourceResolution(page.dpi)
                layout = None  # the turned page's layout is Recognize's to find
            prepare_s += time.perf_counter() - started_osd
        cut = band_cut(boxes) if layout is not None else None
        if cut is None:
            api.Recognize()
            paragraphs = read_paragraphs(tess, api, page.dpi)
        else:  # api keeps the page's layout, which the bands' words fill
            paragraphs = self._read_in_bands(gray, layout, cut, page.dpi)
        if not reads_well(paragraphs) and light_on_dark(original):
            # Light print on a dark ground (a listing in a dark theme) reads as nothing: the
            # page is read inverted, and kept so when that read is far better (a cover's dark
            # print in white boxes on dark stripes reads worse inverted).
            inverted = ImageOps.invert(original)
            # A recognizer of its own: the turned-over read below reuses the "turned" one, and the
            # page keeps this one's results (thresholded image, figures) when it wins.
            inv_turn = rotation
            inv_gray, inv_skew, inv_api, inv_paragraphs = self._read_turned(
                inverted, inv_turn, self._spare("inverted"), page.dpi
            )
            if self.detect_rotation and not reads_well(inv_paragraphs):
                # Turned as well (the orientation steps above saw only a dark page): the
                # inverted page's own lines and OSD tell which way up.
                turn = (rotation + self._turn_of(inv_gray, page.dpi)) % FULL_TURN_DEG
                turned = self._read_turned(inverted, turn, self._spare("inverted turned"), page.dpi)
                if read_score(turned[3]) > read_score(inv_paragraphs):
                    inv_turn = turn
                    inv_gray, inv_skew, inv_api, inv_paragraphs = turned
            if read_score(inv_paragraphs) > SCAN.inverted_read_gain * read_score(paragraphs):
                original, upright = inverted, (inv_gray, inv_skew)
                gray, skew, api, paragraphs, cut = inv_gray, inv_skew, inv_api, inv_paragraphs, None
                rotation, guess = inv_turn, inv_turn
        if self.detect_rotation and not reads_well(paragraphs):
            # Upright pages read well and skip orientation detection; only a doubtful read pays
            # for OSD (and a second read when the page turns out to be upside down, or the
            # orientation taken above read badly: then the upright page is read too).
            started_osd = time.perf_counter()
            if guess is None:
                osd = self._detect_orientation_script(original, page.dpi)
                guess = self._orientation(osd)
            other = guess if guess != rotation else (0 if rotation else None)
            # OSD misjudges some upright print (a book face with code in it: an upside-down
            # page "upright" at 4.8, the page itself "upside down" at 3.9): a page of words
            # that read badly as it stands is read turned over too, and kept so only when
            # that read reads well.
            words = sum(len(line.words) for para in paragraphs for line in para)
            flip = other is None and not rotation and words >= SCAN.upright_min_words
            if flip:
                other = FLIPPED_DEG
            if other is not None:
                alt_gray, alt_skew = (
                    deskew(original.rotate(other, expand=True), beside=self._beside)
                    if other
                    else upright
                )
                prepare_s += time.perf_counter() - started_osd
                alt_api = self._recognize(self._spare("turned"), alt_gray, page.dpi)
                alt_paragraphs = read_paragraphs(tess, alt_api, page.dpi)
                alt_score, score = read_score(alt_paragraphs), read_score(paragraphs)
                # The guessed orientation is kept unless the other read is clearly better.
                if flip:
                    better = 0.8 * alt_score > score and reads_well(alt_paragraphs)
                else:
                    better = (
                        (alt_score >= 0.8 * score) if other == guess else (0.8 * alt_score > score)
                    )
                if better:
                    rotation = other
                    gray, skew, api, paragraphs = alt_gray, alt_skew, alt_api, alt_paragraphs
                    cut = None
            else:
                prepare_s += time.perf_counter() - started_osd
        if skew and not reads_well(paragraphs):
            # Our deskew can turn a curved or unevenly skewed page (a bound book's) by an angle
            # that suits no line, and Tesseract's line finder then runs across lines, where
            # it copes with the page as scanned: the page is read as scanned too.
            straight, as_scanned, straight_api = self._straight_read(original, rotation, page.dpi)
            # Neither read well: the page as scanned is kept when it reads far better (a column
            # of one word a line, deskewed by an angle of no line, read nothing).
            score, straight_score = read_score(paragraphs), read_score(as_scanned)
            if straight_score > score and (
                reads_well(as_scanned) or straight_score > SCAN.straight_read_gain * score
            ):
                gray, skew, api, paragraphs, cut = straight, 0.0, straight_api, as_scanned, None
        language = self.primary
        page_lang = detect_language(
            " ".join(line.text for para in paragraphs for line in para), default=None
        )
        if page_lang and page_lang != self.primary and self._available(page_lang):
            # The whole page is in another language: read it again with that language first.
            api = self._recognize(self._api_for(page_lang, psm=tess.PSM.AUTO), gray, page.dpi)
            paragraphs = read_paragraphs(tess, api, page.dpi)
            language = page_lang
            cut = None
        if columns_cut(paragraphs):  # words cut by columns the text runs across: one column
            api_col = self._api_for(language, psm=tess.PSM.SINGLE_COLUMN)
            column = read_paragraphs(tess, self._recognize(api_col, gray, page.dpi), page.dpi)
            if cut_lines(column) < cut_lines(paragraphs):
                api, paragraphs, cut = api_col, column, None
        # Line numbers in the margin (pleading paper's, a manuscript's) are no text of the page:
        # not in the floor either, which would bring them back as words lost.
        paragraphs = scan_without_line_numbers(paragraphs)
        # The plain reading, before our steps trim and drop lines: the page's floor.
        plain.lines, plain.language = scan_plain_lines(paragraphs), language
        plain.width, plain.height, plain.rotation, plain.skew = *gray.size, rotation, skew
        self._foreign_lines(gray, paragraphs, page_lang=language, dpi=page.dpi)
        binary = api.GetThresholdedImage()
        ink = InkMeter(binary)
        figures = figure_blocks(tess, api.GetIterator() if cut is None else layout)
        figures, paragraphs = self._text_in_images(gray, figures, paragraphs, page.dpi)
        figures, paragraphs, heads = self._reversed_rows(gray, figures, paragraphs, page.dpi)
        figures, paragraphs, text_panels = self._reversed_panels(
            gray, figures, paragraphs, lang=language, dpi=page.dpi
        )
        self._missed_lines(gray, binary, paragraphs, figures, lang=language, dpi=page.dpi)
        self._leader_lines(gray, paragraphs, lang=language, dpi=page.dpi)
        self._doubtful_lines(gray, paragraphs, lang=language, dpi=page.dpi)
        self._column_figures(gray, paragraphs, dpi=page.dpi)
        grids = self._unread_cells(gray, ink, paragraphs, lang=language, dpi=page.dpi)
        without_dictionary(paragraphs)
        text = scan_text(paragraphs, figures, gray, ink, page.dpi, grids=grids)
        started_layout = time.perf_counter()
        scanned, scan = scans.pop()
        scan_page = scan.result()
        if scanned is not gray:  # the page was turned after all: its image half is made again
            scan_page.close()
            scan_page = ScanPage(gray, page.dpi)
        regions = scan_page.regions([w for b in text.blocks for w in b.words]) + text.formulas
        regions = [r for r in regions if not _on_text_panel(r, text_panels)]
        read = ReadingPage(blocks=text.blocks, regions=regions, width=gray.width,
                           height=gray.height, dpi=page.dpi, source="ocr")  # fmt: skip
        image = ScanImage(gray, ink, [bar for bar, _ in heads], page.dpi)
        # Illegible lines inside the layout model's pictures are a chart's labels, not handwriting.
        pictures = [r.bbox for r in regions if r.kind in PICTURE_CLASSES]
        unreadable = text.illegibility.unreadable(pictures)
        if unreadable and osd is None:
            osd = self._detect_orientation_script(gray, page.dpi)
        printed, script = self._unread_print(osd) if unreadable else (False, None)
        # A page drawn from fonts and paths (its text layer unusable) holds no handwriting.
        printed = printed or (unreadable and page.drawn)
        read = scan_structure(read, image, heads=heads, unreadable=unreadable, script=script,
                              printed=printed)  # fmt: skip
        # A page judged handwritten keeps only the lines read surely.
        surely = FLOOR.unreadable_keep_confidence if unreadable else None
        read = with_floor(read, plain.lines, page_number=page.page_number, min_confidence=surely)
        # Print around lines it cannot read (a manual's Greek words) says so.
        not_read = not_read_finding(text.illegibility, read.blocks, pictures,
                                    page_number=page.page_number)  # fmt: skip
        if not not_read and not unreadable:
            not_read = unread_print_finding(binary, read.blocks, pictures, dpi=page.dpi,
                                            page_number=page.page_number)  # fmt: skip
        if not_read:
            read = replace(read, findings=[*read.findings, not_read])
        layout_s = time.perf_counter() - started_layout
        elapsed = time.perf_counter() - started
        return PageReading(
            page_number=page.page_number,
            blocks=read.blocks,
            width=gray.width,
            height=gray.height,
            rotation=(360 - rotation) % 360,
            skew=skew,
            language=language,
            source="ocr",
            findings=read.findings,
            timings={
                "prepare_s": prepare_s,
                "ocr_s": elapsed - prepare_s - layout_s,
                "layout_s": layout_s,
                "layout_beside_s": scan_page.prepare_s,
                "ocr_bands": 1.0 if cut is None else 2.0,  # read whole, or as two bands at once
            },  # fmt: skip
        )


def _on_text_panel(region: Region, text_panels: list) -> bool:
    """A layout model's picture over a panel read as text (a banner the model boxes as a
    picture would take its lines for labels): the panel's read stands."""
    return region.kind in PICTURE_CLASSES and any(
        inside_share(region.bbox, panel) >= 0.5 for panel in text_panels
    )
