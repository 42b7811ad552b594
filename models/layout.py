"""Page layout from PyMuPDF's own layout engine (`pymupdf.layout`, PyMuPDF 2.0: a graph network
over the page's text boxes plus image features, ONNX models bundled in the wheel, CPU, nothing
downloaded): regions of a page with a class (title, section-header, text, list-item, table,
picture, formula, caption, footnote, page-header, page-footer).

Born-digital pages are analysed as they are. A scan has no text boxes, so the engine's words are
written as an invisible text layer over a small copy of the scan (`ScanPage`), which is
what the model expects from an OCR'd page.

MuPDF is not thread-safe: every call into it from more than one thread holds MUPDF_LOCK.
"""

from __future__ import annotations

import functools
import importlib
import io
import os
import statistics
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

import pymupdf
import pymupdf.features
from PIL import Image

from models.engine import BBox, Word

MUPDF_LOCK = threading.RLock()
# The model sees the page image through a small CNN: a copy this size is plenty, and cheap.
IMAGE_SIDE = 1000

# A scan's regions are found once Tesseract has read the page: nothing else runs then, so the
# graph network takes both cores (its outputs are the same with one thread or two, bit for
# bit: tests/models/test_layout.py).
SCAN_THREADS = 2

# Layout classes, and what a reader makes of them.
HEADING_CLASSES = ("title", "section-header")
FURNITURE_CLASSES = ("page-header", "page-footer")
PICTURE_CLASSES = ("picture",)  # a chart, a photo, a drawing: its labels are its own


@dataclass
class Region:
    kind: str  # the layout class
    bbox: BBox  # in the caller's coordinates (pixels of the page image)
    # What was read there when the text left it (a display formula's lines Tesseract read as
    # scraps): the region's text as read, its alternative when it cannot be transcribed.
    read: str = ""

    def contains(self, box: BBox, *, slack: float = 0.0) -> bool:
        """The centre of `box` lies inside this region (grown by `slack` on every side)."""
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        x0, y0, x1, y1 = self.bbox
        return x0 - slack <= cx <= x1 + slack and y0 - slack <= cy <= y1 + slack

    @property
    def area(self) -> float:
        return max(0.0, self.bbox[2] - self.bbox[0]) * max(0.0, self.bbox[3] - self.bbox[1])


class _Loaded:
    analyzer: Any = None  # pymupdf.layout's analyzer, once loaded in this process
    features_of: pymupdf.Page | None = None  # the page whose image features it holds
    # The graph network's session for scanned pages (ScanPage), with SCAN_THREADS threads:
    # made in the OCR engine's process on its first scan, never in the readers' fork server.
    scan_session: Any = None
    # The layout function pymupdf.layout's import installed, kept referenced for the life of
    # the process: its multi-threaded ONNX sessions must never be destroyed in a forked child,
    # where their threads don't exist and the destructor waits for them forever (issue 29).
    superseded: Any = None


# The process-wide state of the loaded model (public: tests and process checks read it).
LOADED = _Loaded()


def _unset(*args, **kwargs) -> None:  # pragma: no cover - replaced before any page is read
    return None


def load_model() -> None:
    """Load the layout model once per process, single-threaded (importing pymupdf.layout
    installs a model of its own; a process that imported pymupdf without it gets it here).

    The isolated readers' fork server calls this before it forks any reader
    (conversion.pipeline.reader_process): its ONNX sessions run on the calling thread and
    onnxruntime's telemetry thread is off (ORT_DISABLE_TELEMETRY, set there before the
    import), so the server stays one thread and every reader starts with the model loaded
    (about 1 s of CPU saved per born-digital page). `process_threads` checks it."""
    if LOADED.analyzer is not None:
        return
    if "pymupdf.layout" in sys.modules and sys.modules["pymupdf.layout"] is None:
        del sys.modules["pymupdf.layout"]  # a process that kept it out until now
    if callable(pymupdf._get_layout):
        LOADED.superseded = pymupdf._get_layout
    else:
        # pymupdf.layout's import builds its default model (an ONNX thread pool per session)
        # unless a layout function is already installed: ours replaces it below.
        pymupdf._get_layout = _unset
    importlib.import_module("pymupdf.layout")

    LOADED.analyzer = analyzer = single_threaded_model()
    pymupdf._get_layout = lambda *args, **kwargs: analyzer.predict(*args, **kwargs)
    # The one module that calls it looks the name up at each call.
    importlib.import_module("pymupdf.layout.pymupdf_util_ext").extract_rf_features = rf_features


def model_loaded() -> bool:
    return LOADED.analyzer is not None


def process_threads() -> int:
    """Threads of this process, native ones included (Linux; 1 where it cannot be told)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def single_threaded_model():
    """The layout model with one thread per ONNX session. Deterministic: the same page gives
    the same regions in every process (a multi-threaded reduction may not), so the command
    line, the inline runner and a Celery worker write the same bytes; and on two cores, where
    Tesseract and the page rasterizer run beside it, one thread was faster too (1.4 s against
    1.9 s a page under load). With one thread a session starts no thread at all, which lets
    the fork server hold the model. pymupdf.layout builds its sessions with `make_session`
    (imported by name into each of its modules): every copy is replaced, for good."""
    import pymupdf.layout.onnx.common_util as common_util
    from pymupdf.layout import DocumentLayoutAnalyzer

    def make_session(model_path, providers=None):
        return _session(model_path, threads=1, providers=providers)

    # Kept for good: sessions built later (lazily, by pymupdf.layout) are single-threaded too.
    # Modules loaded from here on copy common_util's, patched first.
    common_util.make_session = make_session
    for name, module in list(sys.modules.items()):
        if name.startswith("pymupdf.layout") and hasattr(module, "make_session"):
            module.make_session = make_session
    return DocumentLayoutAnalyzer.get_model()


_NOT_FEATURES = ("this", "thisown", "last_char_rect")


def rf_features(data_dict: dict, stext_page) -> None:
    """pymupdf.layout's `extract_rf_features` (pymupdf_util_rf), the same dict: each text box's
    MuPDF features (`fz_features_for_region`), then, when some text is visible, the invisible
    boxes dropped. The library asks every box's features object for its attribute names
    (`dir` on a SWIG object): half the function's time on a dense scan (0.06 of 0.13 s on
    linn's 485 boxes). Here they are asked once (tests/models/test_layout.py compares both)."""
    names: list[str] | None = None
    visible = False
    region = pymupdf.mupdf.FzRect
    features_for = pymupdf.features.fz_features_for_region
    custom = data_dict["custom_features"]
    for row, bbox in enumerate(data_dict["bboxes"]):
        features = features_for(stext_page, region(bbox[0], bbox[1], bbox[2], bbox[3]), 0)
        if names is None:
            names = [n for n in dir(features) if not n.startswith("_") and n not in _NOT_FEATURES]
        box = custom[row]
        for name in names:
            box[name] = getattr(features, name)
        if box["num_numerals"] + box["num_non_numerals"] > 0 and box["invisible"] == 0:
            visible = True
    if visible:
        for row in range(len(data_dict["bboxes"]) - 1, -1, -1):
            if custom[row]["invisible"] == 1:
                del custom[row]
                del data_dict["bboxes"][row]
                del data_dict["text"][row]


def _session(model_path: str, *, threads: int, providers=None):
    """An ONNX session of the layout model's on `threads` threads (1: it starts no thread)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.enable_cpu_mem_arena = False  # as pymupdf.layout does: RSS stays flat
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Threads that wait sleep instead of spinning: Tesseract has the cores between two runs.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(model_path, sess_options=options, providers=providers)


def _scan_session():
    """The graph network's session for scanned pages (SCAN_THREADS threads), made once."""
    if LOADED.scan_session is None:
        model = LOADED.analyzer._model
        LOADED.scan_session = _session(
            model.model_path, threads=SCAN_THREADS, providers=model._providers
        )
    return LOADED.scan_session


def page_regions(page: pymupdf.Page, *, scale: float) -> list[Region]:
    """The layout model's regions of `page` in the page's own coordinates (as get_text gives
    its words: a /Rotate not applied), boxes multiplied by `scale` (points -> pixels)."""
    if page.rotation:
        # Read on a turned page, the model sees its text one way and its image another (it took
        # a Wikipedia print's body for one table): an unturned copy is read instead.
        with MUPDF_LOCK:
            unturned = pymupdf.open()
            unturned.insert_pdf(page.parent, from_page=page.number, to_page=page.number)
            unturned[0].set_rotation(0)
        try:
            return page_regions(unturned[0], scale=scale)
        finally:
            with MUPDF_LOCK:
                unturned.close()
    with MUPDF_LOCK:
        load_model()
        if LOADED.features_of is not page:
            # Image features cached for another page (one prepared, never used) must not be
            # taken for this one's.
            image_features().consume_cache()
        LOADED.features_of = None
        # The model sees glyph boxes as pymupdf4llm's process gives them (MuPDF's ascender and
        # descender corrections off, as importing pymupdf, which imports pymupdf4llm, sets them
        # for the whole process), also in the readers' fork server, which keeps pymupdf4llm
        # out: there its regions were others (a slide's sentence and the formulas beside it one
        # picture). Our own words keep their process's boxes.
        corrected = pymupdf.TOOLS.unset_quad_corrections()
        pymupdf.TOOLS.unset_quad_corrections(True)
        try:
            groups = pymupdf._get_layout(page, return_raw=True) or []
        finally:
            pymupdf.TOOLS.unset_quad_corrections(corrected)
    regions = []
    for group in groups:
        x0, y0, x1, y1 = group["group_bbox"][:4]
        if x1 - x0 <= 1 or y1 - y0 <= 1:
            continue
        regions.append(Region(group["class_name"], (x0 * scale, y0 * scale, x1 * scale,
                                                    y1 * scale)))  # fmt: skip
    return regions


def image_features():
    """The layout model's image-feature extractor (its cache protocol: `is_image_page` runs it
    on a page and keeps the result for that page's `predict`)."""
    return LOADED.analyzer._model.feature_extractor


_FONT: pymupdf.Font | None = None


@functools.lru_cache(maxsize=4096)
def _text_length(text: str) -> float:
    """Width of `text` in the layer's font at size 1 (words repeat on a page: "the", "of")."""
    return _FONT.text_length(text, fontsize=1)  # type: ignore[union-attr]


def _lines(words: list[Word]) -> list[list[Word]]:
    """Words (in reading order) cut into lines: a line ends where the next word starts left of
    the previous one or off its row."""
    lines: list[list[Word]] = []
    for word in words:
        if lines:
            last = lines[-1][-1].bbox
            middle = (word.bbox[1] + word.bbox[3]) / 2  # type: ignore[index]
            if word.bbox[0] > last[0] and last[1] <= middle <= last[3]:  # type: ignore[index]
                lines[-1].append(word)
                continue
        lines.append([word])
    return lines


def _append(writer: pymupdf.TextWriter, pos: tuple[float, float], text: str, size: float) -> None:
    """`writer.append(pos, text, font=_FONT, fontsize=size)` without what we do not use: append
    also bounds all the writer's text so far after each string (its `text_rect`), a cost that
    grows with the page (a fifth of the text layer's time on a dense page). The same MuPDF call
    puts the same text in the same place."""
    point = pymupdf.Point(pos) * writer.ictm
    mupdf = pymupdf.mupdf
    matrix = mupdf.fz_make_matrix(size, 0, 0, size, point.x, point.y)
    font = _FONT.this  # type: ignore[union-attr]
    mupdf.fz_show_string(writer.this, font, matrix, text, 0, 0, 0, mupdf.FZ_LANG_UNSET)


class ScanPage:
    """A scanned page as the layout model expects an OCR'd PDF page: a small copy of the scan,
    then (`regions`) the engine's words as an invisible text layer over it.

    Made in two steps because the image half does not need the words: built on another thread
    while Tesseract reads the page, the model's image features (about 0.2 s of CPU on a dense
    page) are ready when the words are, through pymupdf.layout's own protocol for OCR'd pages
    (`is_image_page`, then OCR, then `predict`, which reuses the features). The regions are the
    same either way (tests/models/test_layout.py)."""

    def __init__(self, image: Image.Image, dpi: int) -> None:
        started = time.perf_counter()
        self._scale = 72 / dpi
        small = image.convert("L")
        small.thumbnail((IMAGE_SIDE, IMAGE_SIDE))
        buf = io.BytesIO()
        small.save(buf, "JPEG", quality=75)
        with MUPDF_LOCK:
            load_model()
            self._doc = pymupdf.open()
            self._page = self._doc.new_page(
                width=image.width * self._scale, height=image.height * self._scale
            )
            self._page.insert_image(self._page.rect, stream=buf.getvalue())
            LOADED.analyzer.is_image_page(self._page)
            LOADED.features_of = self._page
        self.prepare_s = time.perf_counter() - started

    def regions(self, words: list[Word]) -> list[Region]:
        """Regions of the page with `words` (pixel boxes) as its text layer, in pixels. Once."""
        global _FONT
        boxed = [w for w in words if w.bbox and w.text.strip()]
        scale = self._scale
        with MUPDF_LOCK:
            try:
                if not boxed:
                    return []
                if _FONT is None:
                    _FONT = pymupdf.Font("helv")
                page = self._page
                writer = pymupdf.TextWriter(page.rect)
                for line in _lines(boxed):
                    boxes = [[v * scale for v in w.bbox] for w in line]  # type: ignore[union-attr]
                    height = statistics.median(b[3] - b[1] for b in boxes)
                    # One size and one baseline per line, so MuPDF sees one line (as in an
                    # OCR'd PDF) and not a box per word: as tall as the line's words, but no
                    # word wider than its own box (words must not overlap).
                    size = min([height] + [
                        (b[2] - b[0]) / (_text_length(w.text) or 1.0)
                        for w, b in zip(line, boxes, strict=True)
                    ])  # fmt: skip
                    baseline = statistics.median(b[3] for b in boxes) - 0.15 * height
                    for word, box in zip(line, boxes, strict=True):
                        _append(writer, (box[0], baseline), word.text, max(size, 1))
                writer.write_text(page, render_mode=3)  # invisible, like any OCR layer
                model = LOADED.analyzer._model
                single, model.session = model.session, _scan_session()
                try:
                    return page_regions(page, scale=1 / scale)
                finally:
                    model.session = single
            finally:
                self.close()

    def close(self) -> None:
        with MUPDF_LOCK:
            if LOADED.features_of is self._page:
                LOADED.features_of = None
                image_features().consume_cache()
            self._doc.close()
