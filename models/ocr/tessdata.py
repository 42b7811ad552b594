"""Where Tesseract's trained data is: the engine's, the crop reads' and the site's check."""

from __future__ import annotations

import os
from pathlib import Path

_TESSDATA_CANDIDATES = (
    "/usr/share/tesseract-ocr/5/tessdata",
    "/usr/share/tesseract-ocr/4.00/tessdata",
    "/usr/share/tessdata",
)


def find_tessdata() -> str:
    env = os.environ.get("TESSDATA_PREFIX")
    candidates = ([env] if env else []) + list(_TESSDATA_CANDIDATES)
    for candidate in candidates:
        if candidate and Path(candidate, "eng.traineddata").exists():
            return candidate.rstrip("/") + "/"
    raise RuntimeError(
        "Tesseract's trained data was not found. Install it: apt-get install tesseract-ocr "
        "tesseract-ocr-eng (or set TESSDATA_PREFIX)."
    )
