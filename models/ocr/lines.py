"""Tesseract on a few crops of a page: the fresh read that an existing OCR layer is checked
against (models.reading.textlayer). Much cheaper than reading the page: a handful of lines,
one recognizer built once per process."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from PIL import Image

from models.language import TESSERACT_CODES
from models.ocr.tessdata import find_tessdata

_readers: dict[str, object] = {}
_lock = threading.Lock()


def _reader(lang: str):
    import tesserocr  # heavy native import, only when a layer is checked

    code = TESSERACT_CODES.get(lang, "eng")
    if code not in tesserocr.get_languages(find_tessdata())[1]:
        code = "eng"
    if code not in _readers:
        psm = tesserocr.PSM.SINGLE_BLOCK
        api = tesserocr.PyTessBaseAPI(path=find_tessdata(), lang=code, psm=psm)
        api.SetVariable("tessedit_do_invert", "0")
        _readers[code] = api
    return _readers[code]


def read_crops(
    image: Image.Image, boxes: Sequence[tuple[float, float, float, float]], *, dpi: int, lang: str
) -> list[str]:
    """The text Tesseract reads in each box of `image` (pixels), grown by a third of its height on
    every side (a box drawn tight to an OCR layer's glyphs may clip the printed line): a box
    then holds bits of its neighbours, so compare a line with the read as a substring."""
    gray = image.convert("L")
    texts = []
    with _lock:
        api = _reader(lang)
        for x0, y0, x1, y1 in boxes:
            pad = 0.35 * (y1 - y0)
            box = (max(0, int(x0 - pad)), max(0, int(y0 - pad)),
                   min(gray.width, int(x1 + pad)), min(gray.height, int(y1 + pad)))  # fmt: skip
            crop = gray.crop(box)
            api.SetImage(crop)
            api.SetSourceResolution(dpi)
            texts.append(" ".join(api.GetUTF8Text().split()))
    return texts
