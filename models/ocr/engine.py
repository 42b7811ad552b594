"""The CPU engine: Tesseract (through tesserocr, in process) plus layout heuristics.

Why Tesseract rather than rapidocr: on a 2-core machine it read a clean page at 0 % CER in about
1.3 s and returns blocks, paragraphs, lines and words with confidences, which the layout steps
need; rapidocr 3.x reached 0.1 % CER in about 4 s and gives lines only. Both run with nothing
downloaded at run time (Debian ships Tesseract's trained data).

Over 450 lines for now: the engine and the Tesseract-level helpers it alone uses (lines, ink,
figures, tables from word boxes, illegible lines); a split by step is issue 15's to decide.
"""

from __future__ import annotations

import bisect
import logging
import re
import statistics
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

from models.engine import BBox, PageImage, PageReading, ReadBlock, Word
from models.language import TESSERACT_CODES, detect_language, language_and_scores
from models.layout import Region, ScanPage
from models.ocr.prepare import deskew
from models.ocr.tables import find_grids, reversed_bars, row_rules, table_block
from models.ocr.tessdata import find_tessdata
from models.reading.markers import BULLET, ORDERED
from models.structure import MATH_SIGNS, apply_layout, math_signs
from models.word_tables import table_from_words

log = logging.getLogger(__name__)

_ADDRESS = re.compile(r"\S*\w[./@:]\w\S*")  # web and mail addresses, file paths, 12.5 %

# A display formula is at most this share of the text's width (see _formula_regions).
FORMULA_WIDTH = 0.75
DISPLAY_GAP = 2.5  # rows of one display formula stand less than this many lines' height apart
SIZE_JUMP = 1.6  # a line this many times taller (or shorter) than the one before starts a block
# A page on its side: its PROBE_LINES longest lines are read turned both ways; one way must
# score PROBE_MARGIN times the other to decide.
PROBE_LINES = 3
PROBE_MARGIN = 2.0
UNREADABLE_FINDING = {
    "code": "UNREADABLE",
    "level": "needs_review",
    "message": "Handwriting or illegible text: needs a human transcription or the GPU engine.",
}
CAP_HEIGHT = 0.72  # cap height / font size of most text faces: pixels of cap height -> font size
# An image region this share of the page or more is read again as text (see _text_in_images).
TEXT_IMAGE_SHARE = 0.04
# A page of BAND_WORK line heights of text or more (a dense page: linn.pdf has about 2000) is
# recognized as two bands at once, cut between two lines where each band holds BAND_SHARE or
# more of that work (see _band_cut). Less text does not pay for the bands' own layouts.
BAND_WORK = 1000
BAND_SHARE = 0.35


class TesseractEngine:
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
        self._api_turned = self._new_api(languages, tesserocr.PSM.AUTO)  # a sideways page's read
        # A dense page's two bands (top, bottom), while self._api holds the page's layout.
        self._band_apis = tuple(self._new_api(languages, tesserocr.PSM.AUTO) for _ in range(2))
        self._extra: dict = {}
        # A second thread for the page being read (the engine reads one at a time): half of
        # the deskew rotation, then the layout model's image half while Tesseract reads the
        # page (both release the GIL).
        self._beside = ThreadPoolExecutor(max_workers=1, thread_name_prefix="axiya-layout")
        # A dense page's top band is recognized on this thread while the page's own thread
        # reads the bottom one (tesserocr releases the GIL): see _read_in_bands.
        self._band = ThreadPoolExecutor(max_workers=1, thread_name_prefix="axiya-band")
        self._osd = None
        if detect_rotation and Path(self._tessdata, "osd.traineddata").exists():
            # A separate instance: OSD on the recognizing instance aborts the process.
            self._osd = tesserocr.PyTessBaseAPI(
                path=self._tessdata, lang="osd", psm=tesserocr.PSM.OSD_ONLY
            )

    def _new_api(self, languages: str, psm):
        api = self._tesserocr.PyTessBaseAPI(path=self._tessdata, lang=languages, psm=psm)
        # Tesseract 5 re-reads every doubtful line inverted (white on black): about 20 % of the
        # time on a page, for a layout scans rarely have.
        api.SetVariable("tessedit_do_invert", "0")
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
        self._api_turned.End()
        for api in self._band_apis:
            api.End()
        for api in self._extra.values():
            api.End()
        if self._osd is not None:
            self._osd.End()

    def predict_batch(self, pages: list[PageImage]) -> list[PageReading]:
        with self._lock:
            return [self._read(page) for page in pages]

    def _read(self, page: PageImage) -> PageReading:
        scans: list[tuple[Image.Image, Future[ScanPage]]] = []
        try:
            return self._read_page(page, scans)
        finally:  # a page prepared for the layout model and not used (an error): let it go
            for _, scan in scans:
                if not scan.cancel() and scan.exception() is None:
                    scan.result().close()

    # -- languages ----------------------------------------------------------------------------
    @property
    def primary(self) -> str:
        first = self.languages.split("+")[0]
        return next((iso for iso, code in TESSERACT_CODES.items() if code == first), "en")

    def _available(self, lang: str) -> bool:
        code = TESSERACT_CODES.get(lang)
        return bool(code) and Path(self._tessdata, f"{code}.traineddata").exists()

    def _api_for(self, lang: str, *, psm):
        """A recognizer for `lang` (plus the configured languages), built once and kept."""
        key = (lang, int(psm))
        if key not in self._extra:
            langs = "+".join(dict.fromkeys([TESSERACT_CODES[lang], *self.languages.split("+")]))
            self._extra[key] = self._new_api(langs, psm)
        return self._extra[key]

    @staticmethod
    def _recognize(api, image: Image.Image, dpi: int):
        api.SetImage(image)
        api.SetSourceResolution(dpi)
        api.Recognize()
        return api

    def _foreign_lines(self, gray: Image.Image, paragraphs, *, page_lang: str, dpi: int) -> None:
        """Lines in another language than the page are read again with that language too (its
        letters: "über", "cão", which the page's model reads "tiber", "cao"); the re-read is
        kept when it is more confident. Only long prose with clear evidence carries the
        language (rendered as `lang` on the passage: a screen reader switches voice)."""
        tess = self._tesserocr
        # A list bullet read as a letter ("e", "o") is no word of any language, nor is an
        # address ("github.com/...": "com" is Portuguese for "with").
        texts = [BULLET.sub("", line.text, count=1) for para in paragraphs for line in para]
        k = -1
        for para in paragraphs:
            for line in para:
                k += 1
                words_only = _ADDRESS.sub(" ", texts[k])
                lang, scores = language_and_scores(words_only, default=None)
                if not lang or lang == page_lang:
                    continue
                if scores[lang] <= scores.get(page_lang, 0.0):
                    continue  # as much of the page's own language: a name, a borrowed word
                # A voice switch needs clear evidence: several of the language's own short
                # words, far more than of the page's language or of any other.
                runner_up = max(v for key, v in scores.items() if key != lang)
                voice = (
                    _long_prose(texts[k]) and scores[lang] >= 3 and scores[lang] >= 2 * runner_up
                )
                if voice:
                    for word in line.words:
                        word.lang = lang
                if not self._available(lang):
                    continue
                # A printed bullet stays as it was read (a line read alone takes it for "O").
                lead = line.words[:1] if BULLET.match(line.text) and len(line.words) > 1 else []
                x0, y0, x1, y1 = line.bbox
                if lead and line.words[1].bbox:
                    x0 = line.words[1].bbox[0]
                pad = int((y1 - y0) * 0.3)
                box = (max(0, x0 - pad), max(0, y0 - pad), min(gray.width, x1 + pad),
                       min(gray.height, y1 + pad))  # fmt: skip
                api = self._recognize(
                    self._api_for(lang, psm=tess.PSM.SINGLE_LINE), gray.crop(box), dpi
                )
                words = [w for para2 in _paragraphs(tess, api) for ln in para2 for w in ln.words]
                if not words:
                    continue
                before = line.words[len(lead) :]
                old = sum(w.confidence for w in before) / len(before)
                new = sum(w.confidence for w in words) / len(words)
                # Without the evidence for a voice, the other reading must be better, not as good.
                if new > old or (voice and new == old):
                    for w in words:
                        w.lang = lang if voice else None
                        if w.bbox:
                            w.bbox = (w.bbox[0] + box[0], w.bbox[1] + box[1],
                                      w.bbox[2] + box[0], w.bbox[3] + box[1])  # fmt: skip
                    line.words = lead + words

    def _text_in_images(self, gray: Image.Image, figures: list[ReadBlock], paragraphs, dpi: int):
        """Tesseract takes text on a dark or mottled page (an old book's scan) for images and
        does not read it. A large "image" is read again as one block of text; when that reads
        as text (confident dictionary words), it is text and not a figure."""
        kept, read_as_text = [], []
        # Largest first: an image region inside one read as text is text too (read once).
        for figure in sorted(figures, key=lambda f: -_area(f.bbox)):
            x0, y0, x1, y1 = (int(v) for v in figure.bbox)  # type: ignore[union-attr]
            if any(_inside_share(figure.bbox, box) >= 0.8 for box in read_as_text):
                continue
            if (x1 - x0) * (y1 - y0) < TEXT_IMAGE_SHARE * gray.width * gray.height:
                kept.append(figure)
                continue
            api = self._recognize(
                self._api_for(self.primary, psm=self._tesserocr.PSM.SINGLE_BLOCK),
                gray.crop((x0, y0, x1, y1)),
                dpi,
            )
            found = _paragraphs(self._tesserocr, api, dpi)
            words = [w for para in found for line in para for w in line.words]
            known = [w.known for w in words if len(w.text) >= 3]
            if (
                len(words) < 8
                or statistics.mean(w.confidence for w in words) < 65
                or sum(known) < 0.6 * max(len(known), 1)
            ):
                if len(words) >= 20 and sum(known) >= 0.25 * len(known):
                    # Words, some real, but not read well: text Tesseract cannot read.
                    figure.illegible_text = True  # type: ignore[attr-defined]
                kept.append(figure)
                continue
            _move(found, x0, y0)
            for k, para in enumerate(found):
                para.order = (figure.order[0], k)  # type: ignore[attr-defined]
                paragraphs.append(para)
            read_as_text.append(figure.bbox)
        kept = [f for f in kept if not any(_inside_share(f.bbox, b) >= 0.8 for b in read_as_text)]
        kept.sort(key=lambda f: f.order)  # type: ignore[attr-defined]
        paragraphs.sort(key=lambda para: para.order)
        return kept, paragraphs

    def _reversed_rows(self, gray: Image.Image, figures: list[ReadBlock], paragraphs, dpi: int):
        """Rows printed white on dark (a table's header row: models.ocr.tables.reversed_bars),
        which Tesseract takes for pictures or reads as scraps: each bar is read inverted, and
        when that reads as text (confident, mostly dictionary words) its words replace what
        was read there, and the "picture" goes. With the bars read, and their lines."""
        heads: list[tuple[tuple[int, int, int, int], list[_ParaLines]]] = []
        for bar in reversed_bars(gray, dpi):
            x0, y0, x1, y1 = bar
            api = self._recognize(
                self._api_for(self.primary, psm=self._tesserocr.PSM.SINGLE_BLOCK),
                ImageOps.invert(gray.crop(bar)),
                dpi,
            )
            found = _keep_lines(_paragraphs(self._tesserocr, api, dpi), _without_scraps)
            words = [w for para in found for line in para for w in line.words]
            # A head is often a term of art, and two words are few to judge by: a word read
            # surely counts as known (garbage read from a picture is not read surely).
            known = [w.known or w.confidence >= 85 for w in words if len(w.text) >= 3]
            if (
                not words
                or statistics.mean(w.confidence for w in words) < 70
                or sum(known) < 0.6 * max(len(known), 1)
            ):
                continue
            _move(found, x0, y0)
            paragraphs = _outside_figures(paragraphs, [ReadBlock(kind="figure", bbox=bar)])
            # In the reading order just before the first paragraph under it.
            under = [p for p in paragraphs if p[0].bbox[1] >= y0]
            order = min((p.order for p in under), default=(len(paragraphs) + 1, 0))
            for k, para in enumerate(found):
                para.order = (order[0] - 0.5, k)  # type: ignore[attr-defined]
                paragraphs.append(para)
            figures = [f for f in figures if f.bbox is None or _inside_share(f.bbox, bar) < 0.5]
            heads.append((bar, found))
        paragraphs.sort(key=lambda para: para.order)
        return figures, paragraphs, heads

    # -- one page ------------------------------------------------------------------------------
    def _orientation(self, gray: Image.Image) -> int:
        """Degrees (counter-clockwise, as PIL rotates) that make the page upright."""
        if self._osd is None:
            return 0
        small = gray
        if max(gray.size) > 1200:
            scale = 1200 / max(gray.size)
            small = gray.resize((int(gray.width * scale), int(gray.height * scale)))
        self._osd.SetImage(small)
        try:
            result = self._osd.DetectOrientationScript()
        except RuntimeError:
            return 0  # too little text to tell: keep the page as it is
        if not result or result.get("orient_conf", 0) < 2.0:
            return 0
        return int(result["orient_deg"]) % 360

    def _sideways_turn(self, gray: Image.Image, boxes, dpi: int) -> int | None:
        """90 or 270: the turn that makes a page lying on its side upright, from its longest
        lines read both ways (text read upside down scores far lower); None when unclear."""
        api = self._api_for(self.primary, psm=self._tesserocr.PSM.SINGLE_LINE)
        strips = [b for b in boxes if _is_upright_strip(b) and b[2] - b[0] >= 4]
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
                scores[turn] += _read_score(_paragraphs(self._tesserocr, api))
        best, other = sorted(scores, key=lambda turn: -scores[turn])
        return best if scores[best] >= PROBE_MARGIN * scores[other] and scores[best] > 0 else None

    def _read_in_bands(self, gray: Image.Image, layout, cut: int, dpi: int) -> list[_ParaLines]:
        """The page recognized as two bands, above and below `cut` (a row between two text
        lines), at once: each its own crop, on its own thread and Tesseract instance. Their
        words fill the whole page's layout (`layout`, from AnalyseLayout), so paragraphs, lines
        and block order are the page's, as a read of the whole page would give them: a band's
        own layout sees fewer lines and finds other paragraphs and columns."""
        top, bottom = self._band_apis
        upper = self._band.submit(self._read_band, top, gray.crop((0, 0, gray.width, cut)), 0, dpi)
        try:
            lower = self._read_band(bottom, gray.crop((0, cut, gray.width, gray.height)), cut, dpi)
        finally:  # never leave the top band's instance busy for the next page
            above = upper.result()
        band_lines = above + lower
        layout_lines = _page_lines(self._tesserocr, layout, dpi, read=False)
        return _keep_lines(_filled(layout_lines, band_lines), _has_words)

    def _read_band(self, api, band: Image.Image, top: int, dpi: int) -> list[_Line]:
        """The lines a band of the page reads, in page pixels (the band starts at row `top`)."""
        self._recognize(api, band, dpi)
        paragraphs = _paragraphs(self._tesserocr, api, dpi)
        _move(paragraphs, 0, top)
        return [line for para in paragraphs for line in para]

    def _read_page(self, page: PageImage, scans: list) -> PageReading:
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
        # The page's layout (which Recognize then reuses, at no extra cost) shows a page lying on
        # its side: its text lines run up or down. Which way up is decided at once and the page
        # is read once, turned, instead of first being read sideways.
        layout = api.AnalyseLayout()
        boxes = _line_boxes(tess, layout)
        if self.detect_rotation and _runs_sideways(boxes):
            started_osd = time.perf_counter()
            # Which way up: a few lines read both ways tell it (OSD misjudges some pages lying
            # on their side, e.g. small dense print); OSD decides when they do not.
            guess = self._sideways_turn(gray, boxes, page.dpi)
            if guess is None:
                guess = self._orientation(original)
            if guess:
                rotation = guess
                gray, skew = deskew(original.rotate(rotation, expand=True), beside=self._beside)
                api.SetImage(gray)
                api.SetSourceResolution(page.dpi)
                layout = None  # the turned page's layout is Recognize's to find
            prepare_s += time.perf_counter() - started_osd
        cut = _band_cut(boxes) if layout is not None else None
        if cut is None:
            api.Recognize()
            paragraphs = _paragraphs(tess, api, page.dpi)
        else:  # api keeps the page's layout, which the bands' words fill
            paragraphs = self._read_in_bands(gray, layout, cut, page.dpi)
        if self.detect_rotation and not _reads_well(paragraphs):
            # Upright pages read well and skip orientation detection; only a doubtful read pays
            # for OSD (and a second read when the page turns out to be upside down, or the
            # orientation taken above read badly: then the upright page is read too).
            started_osd = time.perf_counter()
            if guess is None:
                guess = self._orientation(original)
            other = guess if guess != rotation else (0 if rotation else None)
            if other is not None:
                alt_gray, alt_skew = (
                    deskew(original.rotate(other, expand=True), beside=self._beside)
                    if other
                    else upright
                )
                prepare_s += time.perf_counter() - started_osd
                alt_api = self._recognize(self._api_turned, alt_gray, page.dpi)
                alt_paragraphs = _paragraphs(tess, alt_api, page.dpi)
                alt_score, score = _read_score(alt_paragraphs), _read_score(paragraphs)
                # The guessed orientation is kept unless the other read is clearly better.
                if (alt_score >= 0.8 * score) if other == guess else (0.8 * alt_score > score):
                    rotation = other
                    gray, skew, api, paragraphs = alt_gray, alt_skew, alt_api, alt_paragraphs
                    cut = None
            else:
                prepare_s += time.perf_counter() - started_osd
        language = self.primary
        page_lang = detect_language(
            " ".join(line.text for para in paragraphs for line in para), default=None
        )
        if page_lang and page_lang != self.primary and self._available(page_lang):
            # The whole page is in another language: read it again with that language first.
            api = self._recognize(self._api_for(page_lang, psm=tess.PSM.AUTO), gray, page.dpi)
            paragraphs = _paragraphs(tess, api, page.dpi)
            language = page_lang
            cut = None
        self._foreign_lines(gray, paragraphs, page_lang=language, dpi=page.dpi)
        ink = _InkMeter(api.GetThresholdedImage())
        figures = _figures(tess, api.GetIterator() if cut is None else layout)
        figures, paragraphs = self._text_in_images(gray, figures, paragraphs, page.dpi)
        figures, paragraphs, heads = self._reversed_rows(gray, figures, paragraphs, page.dpi)
        paragraphs = _outside_figures(paragraphs, figures)
        read_lines = [line for para in paragraphs for line in para]
        paragraphs = _without_noise(paragraphs)
        paragraphs, unreadable = _without_illegible(paragraphs, figures, gray)
        # Display formulas Tesseract cannot read fall out as noise or illegible lines: where
        # they stood, the formula is kept as an image with a finding, not lost without a word.
        kept = {id(line) for para in paragraphs for line in para}
        formulas = [] if unreadable else _formula_regions(read_lines, kept=kept)
        # Our own threshold: Tesseract erases ruling lines from its binarized page.
        tables, paragraphs = _tables(gray, paragraphs, ink)
        blocks = (
            figures
            + tables
            + [block for lines in paragraphs for block in _blocks_from_lines(lines, ink)]
        )
        started_layout = time.perf_counter()
        scanned, scan = scans.pop()
        scan_page = scan.result()
        if scanned is not gray:  # the page was turned after all: its image half is made again
            scan_page.close()
            scan_page = ScanPage(gray, page.dpi)
        regions = scan_page.regions([w for b in blocks for w in b.words]) + formulas
        regions += _header_tables(heads, regions)
        blocks, findings = apply_layout(
            blocks, regions, width=gray.width, height=gray.height, ink=ink, text_size=_words_size,
            row_rules=_table_rules(gray, [bar for bar, _ in heads]), stroke=ink.stroke,
        )  # fmt: skip
        if unreadable:
            findings.append(dict(UNREADABLE_FINDING))
        layout_s = time.perf_counter() - started_layout
        blocks = _join_list_continuations(blocks)
        elapsed = time.perf_counter() - started
        return PageReading(
            page_number=page.page_number,
            blocks=blocks,
            width=gray.width,
            height=gray.height,
            rotation=(360 - rotation) % 360,
            skew=skew,
            language=language,
            source="ocr",
            findings=findings,
            timings={
                "prepare_s": prepare_s,
                "ocr_s": elapsed - prepare_s - layout_s,
                "layout_s": layout_s,
                "layout_beside_s": scan_page.prepare_s,
                "ocr_bands": 1.0 if cut is None else 2.0,  # read whole, or as two bands at once
            },  # fmt: skip
        )


# -- helpers over Tesseract's iterator ------------------------------------------------------------
class _Line:
    __slots__ = ("words", "bbox", "ink", "stroke", "size")

    def __init__(self, words: list[Word], bbox, ink: float) -> None:
        self.words = words
        self.bbox = bbox
        self.ink = ink
        self.stroke = 0.0
        self.size = 0.0  # text size in pixels, when Tesseract gives one

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @property
    def height(self) -> float:
        return self.bbox[3] - self.bbox[1]


class _InkMeter:
    """Share of dark pixels in a box of the binarized page: bold text scores higher."""

    def __init__(self, binary: Image.Image | None) -> None:
        self._image = binary.convert("L") if binary is not None else None

    def __call__(self, bbox) -> float:
        if self._image is None or bbox[2] <= bbox[0] or bbox[3] <= bbox[1]:
            return 0.0  # no image, or an empty box (a grid row thinner than its margins)
        crop = self._image.crop(bbox)
        hist = crop.histogram()
        total = sum(hist) or 1
        return sum(hist[:128]) / total

    def stroke(self, bbox) -> float:
        """Mean width in pixels of the dark runs across a line's box, those no longer than a
        quarter of its height: its letters' strokes (bars, rules and filled boxes left out). A
        bold line's strokes are a third or more wider than the body's at one size, where its
        share of dark pixels says as much of how close its letters stand."""
        if self._image is None or bbox[2] <= bbox[0] or bbox[3] <= bbox[1]:
            return 0.0
        dark = np.asarray(self._image.crop(tuple(int(v) for v in bbox))) < 128
        edges = np.diff(dark.astype(np.int8), axis=1, prepend=0, append=0).ravel()
        runs = np.flatnonzero(edges == -1) - np.flatnonzero(edges == 1)
        strokes = runs[runs <= 0.25 * (bbox[3] - bbox[1])]
        return float(strokes.mean()) if strokes.size else 0.0


def _area(bbox) -> float:
    return max(0.0, bbox[2] - bbox[0]) * max(0.0, bbox[3] - bbox[1])


def _inside_share(inner, outer) -> float:
    """Share of `inner`'s area that lies inside `outer`."""
    w = max(0.0, min(inner[2], outer[2]) - max(inner[0], outer[0]))
    h = max(0.0, min(inner[3], outer[3]) - max(inner[1], outer[1]))
    return w * h / (_area(inner) or 1.0)


def _f(bbox) -> tuple[float, float, float, float]:
    return tuple(float(v) for v in bbox)  # type: ignore[return-value]


_DESCENDERS = set("gjpqy,;()[]{}|/$@")


def _words_size(words: list[Word]) -> float | None:
    """Text size in pixels from the height of the words that reach the cap height and do not
    descend ("Income", not "by"): steady for one style of heading however its letters fall."""
    heights = [
        w.bbox[3] - w.bbox[1]
        for w in words
        if w.bbox
        and not _DESCENDERS & set(w.text)
        and any(c.isupper() or c.isdigit() or c in "bdfhklt" for c in w.text)
    ]
    return statistics.median(heights) / CAP_HEIGHT if heights else None


def _text_size(line: _Line) -> float:
    """The line's text size in pixels (_words_size; else Tesseract's estimate, or the box)."""
    return _words_size(line.words) or line.size or line.height


def _read_score(paragraphs: list[_ParaLines]) -> float:
    """Confident characters read: how well a page read."""
    return sum(
        len(w.text) * w.confidence / 100 for para in paragraphs for line in para for w in line.words
    )


def _reads_well(paragraphs: list[_ParaLines]) -> bool:
    """Confident words on horizontal lines: an upright page (Tesseract also reads some
    sideways pages, as vertical lines, but their layout is then lost)."""
    words = [w for para in paragraphs for line in para for w in line.words]
    if len(words) < 8:
        return False
    lines = [line for para in paragraphs for line in para if len(line.words) >= 2]
    vertical = sum(1 for ln in lines if ln.height > 1.5 * (ln.bbox[2] - ln.bbox[0]))
    if lines and vertical > len(lines) / 2:
        return False
    chars = sum(len(w.text) for w in words)
    mean = sum(len(w.text) * w.confidence for w in words) / max(chars, 1)
    return mean >= 75


def _line_boxes(tess, layout) -> list[tuple[int, int, int, int]]:
    """The text lines' boxes of a page layout (AnalyseLayout: nothing recognized yet)."""
    if layout is None:
        return []
    boxes = [
        line.BoundingBox(tess.RIL.TEXTLINE)
        for line in tess.iterate_level(layout, tess.RIL.TEXTLINE)
    ]
    return [b for b in boxes if b]


def _band_cut(boxes) -> int | None:
    """The row where a page of text lines (`boxes`) is cut in two bands to be read at once: in
    a gap between lines that no line crosses, where the work above and below is most even (a
    line's work is its length in line heights: Tesseract's recognizer scales each line to one
    height). None for a page of little text, or one no gap divides fairly."""
    spans = sorted((y0, y1, (x1 - x0) / max(1, y1 - y0)) for x0, y0, x1, y1 in boxes)
    total = sum(work for *_, work in spans)
    if total < BAND_WORK:
        return None
    best: tuple[float, int] | None = None
    above, reach = 0.0, spans[0][1]
    for y0, y1, work in spans:
        if above and y0 > reach + 1:  # rows reach..y0 hold no line
            balance = min(above, total - above) / total
            if best is None or balance > best[0]:
                best = (balance, (reach + y0) // 2)
        above += work
        reach = max(reach, y1)
    return best[1] if best and best[0] >= BAND_SHARE else None


def _filled(layout: list[_ParaLines], band_lines: list[_Line]) -> list[_ParaLines]:
    """The page layout's lines (`layout`, without words) given the words that bands of the page
    read: each word to the line it lies in (half its box or more; the smallest such line where
    lines nest), in the bands' reading order, but specks on a line's edge; each line with the
    text size of the band line its first word came from. A word outside every line is one the
    page's own read would not have made (its layout saw no text there)."""
    lines = sorted(
        (line for para in layout for line in para if line.bbox), key=lambda ln: ln.bbox[1]
    )
    tops = [line.bbox[1] for line in lines]
    for band_line in band_lines:
        # Only lines that start above this band line's bottom can hold its words.
        near = [ln for ln in lines[: bisect.bisect_left(tops, band_line.bbox[3])]
                if ln.bbox[3] > band_line.bbox[1]]  # fmt: skip
        for word in band_line.words:
            # Of lines holding as much of the word, the tightest: lines of a display formula
            # nest (a fraction's numerator inside the row of its bar).
            share, _, home = max(
                ((_inside_share(word.bbox, ln.bbox), -_area(ln.bbox), ln) for ln in near),
                key=lambda t: t[:2], default=(0.0, 0.0, None),
            )  # fmt: skip
            if home is None or share < 0.5 or _on_the_edge(word.bbox, home.bbox):
                continue
            if not home.words:
                home.size = band_line.size
            home.words.append(word)
    return layout


def _on_the_edge(box, line) -> bool:
    """A "word" wholly in the top or bottom quarter of a line: specks (a neighbouring column's
    dots, read as ". : as") that a band's layout joined into a line across a column gap, and
    that a whole-page read does not hold."""
    quarter = (line[3] - line[1]) / 4
    return box[3] <= line[1] + quarter or box[1] >= line[3] - quarter


def _is_upright_strip(box) -> bool:
    x0, y0, x1, y1 = box
    return y1 - y0 > 1.5 * (x1 - x0)


def _runs_sideways(boxes) -> bool:
    """Most text lines of the page's layout are upright strips: the page lies on its side."""
    return sum(1 for b in boxes if _is_upright_strip(b)) > len(boxes) / 2


def _figures(tess, iterator) -> list[ReadBlock]:
    """Image regions of a page's layout or read (Tesseract's iterator over either), with their
    place in the block order."""
    ril = tess.RIL
    figures = []
    image_types = (tess.PT.FLOWING_IMAGE, tess.PT.HEADING_IMAGE, tess.PT.PULLOUT_IMAGE)
    if iterator is None:
        return figures
    iterator.Begin()  # a layout's iterator may have been walked already
    for order, block in enumerate(tess.iterate_level(iterator, ril.BLOCK)):
        if block.BlockType() in image_types:
            bbox = block.BoundingBox(ril.BLOCK)
            if bbox:
                figure = ReadBlock(kind="figure", bbox=_f(bbox))
                figure.order = (order, 0)  # type: ignore[attr-defined]
                figures.append(figure)
    return figures


def _paragraphs(tess, api, dpi: int = 300) -> list[list[_Line]]:
    """One pass over every word: paragraphs of lines of words, in Tesseract's reading order."""
    return _keep_lines(_page_lines(tess, api.GetIterator(), dpi), _has_words)


def _page_lines(tess, it, dpi: int, *, read: bool = True) -> list[_ParaLines]:
    """The paragraphs and lines of a read page, with their words; or (`read` False) of a page's
    layout, every line without words yet."""
    ril = tess.RIL
    paragraphs: list[_ParaLines] = []
    if it is None:
        return []
    it.Begin()  # a layout's iterator may have been walked already
    if it.Empty(ril.BLOCK):
        return []  # a blank page: nothing to read, nothing invented
    block_index = -1
    while True:
        if it.IsAtBeginningOf(ril.BLOCK):
            block_index += 1
        if it.IsAtBeginningOf(ril.PARA) or not paragraphs:
            paragraphs.append(_ParaLines())
            paragraphs[-1].order = (block_index, len(paragraphs))  # type: ignore[attr-defined]
        if it.IsAtBeginningOf(ril.TEXTLINE) or not paragraphs[-1]:
            bbox = it.BoundingBox(ril.TEXTLINE)
            paragraphs[-1].append(_Line([], bbox, 0.0))
            if read:
                # Tesseract's size of the line's text (from its x-height, in points at the
                # source resolution): steadier than the line's box, which grows with ascenders.
                attributes = it.WordFontAttributes() or {}
                paragraphs[-1][-1].size = float(attributes.get("pointsize") or 0) * dpi / 72
        text = ""
        if read:
            try:
                text = it.GetUTF8Text(ril.WORD)
            except RuntimeError:  # an empty element
                pass
        if text and text.strip():
            paragraphs[-1][-1].words.append(
                Word(
                    text=text.strip(),
                    confidence=float(it.Confidence(ril.WORD)),
                    bbox=_f(it.BoundingBox(ril.WORD)),
                    known=bool(it.WordIsFromDictionary()),
                )
            )
        if not it.Next(ril.WORD):
            break
    return paragraphs


def _has_words(line: _Line) -> bool:
    """A line that holds words (and a box): what a read keeps of a page's lines."""
    return bool(line.words and line.bbox)


class _ParaLines(list):
    order: tuple[int, int] = (0, 0)


def _tables(binary, paragraphs: list[_ParaLines], ink) -> tuple[list[ReadBlock], list[_ParaLines]]:
    """Ruled tables become table blocks; their words leave the paragraphs."""
    grids = find_grids(binary) if binary is not None else []
    tables: list[ReadBlock] = []
    for grid in grids:
        x0, y0, x1, y1 = grid.bbox
        taken: list[tuple[_Line, list[Word]]] = []
        orders = []
        for para in paragraphs:
            for line in para:
                inside = [w for w in line.words if w.bbox and x0 <= (w.bbox[0] + w.bbox[2]) / 2
                          <= x1 and y0 <= (w.bbox[1] + w.bbox[3]) / 2 <= y1]  # fmt: skip
                if inside:
                    taken.append((line, inside))
                    orders.append(para.order)
        words = [w for _, inside in taken for w in inside]
        if not words:
            continue
        table = table_block(grid, words, ink)
        cells = [c for row in table.rows or [] for c in row]
        filled = sum(bool(c["text"].strip()) for c in cells)
        by_words = table_from_words(words, grid.bbox)
        if by_words is not None and sum(
            bool(c["text"].strip()) for row in by_words.rows or [] for c in row
        ) > 1.5 * max(filled, 1):
            # Rules that frame a block of figures without separating them: the words decide.
            table = by_words
        elif filled < 0.4 * len(cells):
            continue  # mostly empty cells: the rules of a frame or a form; the words stay text
        for line, inside in taken:
            line.words = [w for w in line.words if w not in inside]
        table.words = words  # the layout step may rebuild the table from them
        table.order = min(orders)  # type: ignore[attr-defined]
        tables.append(table)
    if not tables:
        return [], paragraphs
    return tables, _keep_lines(paragraphs, lambda line: bool(line.words))


_REFERENCE = re.compile(r"\bet al\b|\bpp?\.\s*\d|\(\d{4}\)|\b(19|20)\d\d\b|https?:|doi|www\.", re.I)


def _long_prose(text: str) -> bool:
    """Enough running words to tell a language by: eight words or more, mostly letters, not a
    reference, a list of names or a row of figures."""
    words = text.split()
    letters = sum(c.isalpha() for c in text)
    capitalised = sum(w[:1].isupper() for w in words)
    return (
        len(words) >= 8
        and letters >= 40
        and letters >= 0.75 * sum(not c.isspace() for c in text)
        and capitalised <= 0.5 * len(words)
        and not _REFERENCE.search(text)
    )


def _illegible(line: _Line) -> bool:
    """A line Tesseract could not really read (handwriting, a smudge): doubtful words that
    are mostly not in its dictionary."""
    words = line.words
    confidence = sum(w.confidence for w in words) / max(len(words), 1)
    longer = [w for w in words if len(w.text) >= 3]
    known = sum(bool(w.known) for w in longer) / max(len(longer), 1)
    return confidence < 45 or (confidence < 70 and known < 0.4)


def _without_illegible(paragraphs: list[_ParaLines], figures: list[ReadBlock], gray: Image.Image):
    """Illegible lines leave the text (confident nonsense is worse than nothing); the page is
    unreadable when they are a good share of what it holds, or when its ink is all "images"
    and no text was read (a handwritten letter, a page Tesseract takes for a picture)."""
    lines = [line for para in paragraphs for line in para]
    chars = sum(len(line.text) for line in lines)
    bad = [line for line in lines if _illegible(line)]
    bad_chars = sum(len(line.text) for line in bad)
    unreadable = len(bad) >= 3 and bad_chars >= 0.25 * max(chars, 1)
    pictured = sum(_area(f.bbox) for f in figures if f.bbox) / (gray.width * gray.height or 1)
    if chars - bad_chars < 200 and pictured >= 0.3:
        unreadable = True
    if any(getattr(f, "illegible_text", False) for f in figures):
        unreadable = True
    if not bad:
        return paragraphs, unreadable
    return _keep_lines(paragraphs, lambda line: not _illegible(line)), unreadable


def _without_noise(paragraphs: list[_ParaLines]) -> list[_ParaLines]:
    """Drop lines of doubtful scraps ("SA ar Es te Se"): strokes of a drawing or speckles read as
    letters. Real text has longer words or is read with confidence."""

    def real(line: _Line) -> bool:
        words = line.words
        scraps = len(words) >= 3 and all(len(w.text) <= 3 for w in words)
        mean = sum(w.confidence for w in words) / max(len(words), 1)
        return not (scraps and mean < 60)

    return _keep_lines(paragraphs, real)


def _math_like(line: _Line) -> bool:
    """What Tesseract makes of a formula it cannot read: signs, brackets and scraps
    ("z(n+1)°— 5(nt1)-*", "38n(n +1 ="), few dictionary words; a list of numbers has none."""
    # Words of three letters or more (Tesseract's dictionary takes "(n+" for "n").
    longer = [w for w in line.words if len(re.sub(r"[\W\d_]", "", w.text)) >= 3]
    known = sum(bool(w.known) for w in longer) / max(len(longer), 1)
    return math_signs(line.text) and known < 0.5


def _math_scrap(line: _Line) -> bool:
    """A few signs kept as a line of their own ("k=1": a sum's limit), part of the display
    they stand in."""
    chars = [c for c in line.text if not c.isspace()]
    return len(chars) <= 8 and any(c in MATH_SIGNS for c in chars)


def _formula_regions(lines: list[_Line], *, kept: set[int]) -> list[Region]:
    """Formula regions where dropped lines look like mathematics and stand as a display: one
    or more such lines, stacked (less than DISPLAY_GAP lines' height apart), narrower than the
    text around them (at most FORMULA_WIDTH of it) and about centred on it (handwriting and
    smudged text run from the margin). The region takes the scraps kept among its rows (a
    lone "k=1"). lines: the page's lines as read; kept: the ids of those left in its text."""
    seeds = {id(line) for line in lines if id(line) not in kept and _math_like(line)}
    text = [line for line in lines if id(line) in kept and line.bbox]
    if not seeds or not text:
        return []
    maths = sorted(
        (line for line in lines if id(line) in seeds or id(line) in kept and _math_scrap(line)),
        key=lambda line: line.bbox[1],
    )
    left = min(line.bbox[0] for line in text)
    right = max(line.bbox[2] for line in text)
    height = statistics.median(line.height for line in lines)
    groups: list[tuple[list[float], bool]] = []  # box, and whether a seed is in it
    for line in maths:
        x0, y0, x1, y1 = line.bbox
        # The rows of a display (a fraction's numerator, a sum's limits, a derivation's
        # lines) stand further apart than lines of text.
        if groups and y0 - groups[-1][0][3] < DISPLAY_GAP * height:
            box, has_seed = groups[-1]
            box[:] = [min(box[0], x0), box[1], max(box[2], x1), max(box[3], y1)]
            groups[-1] = (box, has_seed or id(line) in seeds)
        else:
            groups.append(([x0, y0, x1, y1], id(line) in seeds))
    out = []
    for (x0, y0, x1, y1), has_seed in groups:
        centred = abs((x0 + x1) / 2 - (left + right) / 2) <= 0.15 * (right - left)
        if has_seed and x1 - x0 <= FORMULA_WIDTH * (right - left) and centred:
            out.append(Region("formula", (float(x0), float(y0), float(x1), float(y1))))
    return out


def _table_rules(gray: Image.Image, bars: list) -> Callable[[BBox], list[float]]:
    """The rules printed across a table region (models.ocr.tables.row_rules), and the foot of
    a reversed header row across it: its lines are the header, however many they are."""

    def rules(box: BBox) -> list[float]:
        width = box[2] - box[0]
        feet = [bar[3] for bar in bars if min(bar[2], box[2]) - max(bar[0], box[0]) >= width / 2]
        return sorted(row_rules(gray, box) + feet)

    return rules


def _header_tables(heads, regions: list[Region]) -> list[Region]:
    """A table region for each reversed header row of column heads (two phrases or more, set
    two line heights apart) that no table region holds, over the text regions right under it
    and within its width (lots_of_sci_tables p2: the layout model gave Appendix A's rows as
    text). A banner of one phrase (a reversed heading) makes none."""
    out = []
    for bar, lines in heads:
        x0, y0, x1, y1 = bar
        words = [line.words for para in lines for line in para]
        height = statistics.median(w.bbox[3] - w.bbox[1] for line in words for w in line)
        apart = any(
            b.bbox[0] - a.bbox[2] >= 2 * height
            for line in words
            for a, b in zip(line, line[1:], strict=False)
        )
        if not apart or any(r.kind == "table" and _inside_share(bar, r.bbox) > 0 for r in regions):
            continue
        bottom, slack = y1, 0.05 * (x1 - x0)
        for region in sorted(regions, key=lambda r: r.bbox[1]):
            rx0, ry0, rx1, ry1 = region.bbox
            if region.kind == "text" and ry0 >= y0 and rx0 >= x0 - slack and rx1 <= x1 + slack:
                if ry0 - bottom > 1.5 * (y1 - y0):
                    break
                bottom = max(bottom, ry1)
            elif ry0 >= bottom and ry0 - bottom <= 1.5 * (y1 - y0):
                break  # something else right under it ends the table
        if bottom > y1:
            out.append(Region(kind="table", bbox=(x0, y0, x1, bottom)))
    return out


def _move(paragraphs: list[_ParaLines], x0: float, y0: float) -> None:
    """Lines and words read in a crop, moved to the page's coordinates."""
    for para in paragraphs:
        for line in para:
            line.bbox = (line.bbox[0] + x0, line.bbox[1] + y0, line.bbox[2] + x0,
                         line.bbox[3] + y0)  # fmt: skip
            for w in line.words:
                w.bbox = (w.bbox[0] + x0, w.bbox[1] + y0, w.bbox[2] + x0, w.bbox[3] + y0)


def _without_scraps(line: _Line) -> bool:
    """A line without its scraps: words read with little confidence or without a letter or a
    digit (the edges of a reversed bar read as "'", ":" or "|"); False when none is left."""
    line.words = [w for w in line.words if w.confidence >= 50 and any(c.isalnum() for c in w.text)]
    return bool(line.words)


def _keep_lines(paragraphs: list[_ParaLines], keep) -> list[_ParaLines]:
    """The paragraphs with only the lines `keep` accepts (it may trim a line's words first);
    emptied paragraphs go, the others keep their place in the reading order."""
    kept = []
    for para in paragraphs:
        lines = [line for line in para if keep(line)]
        if lines:
            new = _ParaLines(lines)
            new.order = para.order
            kept.append(new)
    return kept


def _outside_figures(paragraphs: list[_ParaLines], figures: list[ReadBlock]) -> list[_ParaLines]:
    """Drop "words" read inside an illustration: strokes of a drawing, not text."""
    if not figures:
        return paragraphs

    def inside(word: Word) -> bool:
        if word.bbox is None:
            return False
        cx, cy = (word.bbox[0] + word.bbox[2]) / 2, (word.bbox[1] + word.bbox[3]) / 2
        return any(
            f.bbox and f.bbox[0] <= cx <= f.bbox[2] and f.bbox[1] <= cy <= f.bbox[3]
            for f in figures
        )

    def trim(line: _Line) -> bool:
        words = [w for w in line.words if not inside(w)]
        boxes = [w.bbox for w in words if w.bbox]
        if boxes:
            line.bbox = (min(b[0] for b in boxes), min(b[1] for b in boxes),
                         max(b[2] for b in boxes), max(b[3] for b in boxes))  # fmt: skip
        line.words = words
        return bool(words)

    return _keep_lines(paragraphs, trim)


def _join_lines(lines: list[_Line]) -> tuple[str, list[Word]]:
    """Join lines into one text, mending words hyphenated at a line end."""
    text = ""
    words: list[Word] = []
    for line in lines:
        line_text = line.text
        if text.endswith("-") and len(text) > 1 and text[-2].isalpha() and line_text[:1].islower():
            text = text[:-1] + line_text
        elif text:
            text += " " + line_text
        else:
            text = line_text
        words.extend(line.words)
    return text, words


def _blocks_from_lines(lines: list[_Line], ink: _InkMeter) -> list[ReadBlock]:
    """Split one Tesseract paragraph into blocks: list items start where a bullet starts a line."""
    for line in lines:
        line.ink = ink(line.bbox)
        line.stroke = ink.stroke(line.bbox)
    groups: list[list[_Line]] = []
    for i, line in enumerate(lines):
        starts_item = bool(BULLET.match(line.text) or ORDERED.match(line.text))
        # A jump in text size (a title run into the first lines of text) starts a new block.
        ratio = max(line.height, 1) / max(lines[i - 1].height, 1) if i else 1.0
        size_jump = not 1 / SIZE_JUMP <= ratio <= SIZE_JUMP
        if not groups or starts_item or size_jump:
            groups.append([line])
        else:
            groups[-1].append(line)
    blocks = []
    for group in groups:
        text, words = _join_lines(group)
        x0 = min(line.bbox[0] for line in group)
        y0 = min(line.bbox[1] for line in group)
        x1 = max(line.bbox[2] for line in group)
        y1 = max(line.bbox[3] for line in group)
        block = ReadBlock(
            kind="paragraph",
            text=text,
            bbox=(float(x0), float(y0), float(x1), float(y1)),
            words=words,
            font_size=statistics.median(_text_size(line) for line in group),
        )
        block.ink = statistics.median(line.ink for line in group)
        block.stroke = statistics.median(line.stroke for line in group)
        bullet = BULLET.match(text)
        ordered = ORDERED.match(text)
        if bullet:
            block.kind = "list_item"
            block.marker = bullet.group(0).strip()
            block.text = text[bullet.end() :]
            block.words = words[1:] if len(words) > 1 else words
        elif ordered and len(group) >= 1 and len(text) > ordered.end() + 2:
            block.kind = "list_item"
            block.ordered = True
            block.marker = ordered.group(0).strip()
            block.text = text[ordered.end() :]
            block.words = words[1:] if len(words) > 1 else words
        block.order = lines.order  # type: ignore[attr-defined]
        blocks.append(block)
    return blocks


def _join_list_continuations(blocks: list[ReadBlock]) -> list[ReadBlock]:
    """A short indented paragraph right after a list item is the rest of that item."""
    out: list[ReadBlock] = []
    for block in blocks:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.kind == "list_item"
            and block.kind == "paragraph"
            and block.bbox is not None
            and prev.bbox is not None
            and block.bbox[0] > prev.bbox[0] + 0.4 * (block.font_size or 10)
            and block.bbox[1] - prev.bbox[3] < 1.5 * (block.font_size or 10)
            and block.bbox[0] < prev.bbox[2]
        ):
            prev.text = prev.text + " " + block.text
            prev.words.extend(block.words)
            prev.bbox = (
                min(prev.bbox[0], block.bbox[0]),
                prev.bbox[1],
                max(prev.bbox[2], block.bbox[2]),
                block.bbox[3],
            )
            continue
        out.append(block)
    return out
