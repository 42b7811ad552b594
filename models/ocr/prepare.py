"""Page preparation before OCR: skew estimation by projection profiles."""

from __future__ import annotations

import numpy as np
from PIL import Image


def estimate_skew(gray: Image.Image, *, max_angle: float = 8.0, step: float = 0.25) -> float:
    """The angle (degrees, counter-clockwise as PIL rotates) that straightens the text lines.

    Text lines make the row profile of dark pixels peaky when they are horizontal: pick the angle
    with the largest profile variance, on a small, binarized copy (coarse, then fine).
    """
    small = gray.copy()
    small.thumbnail((1000, 1000))
    dark = np.asarray(small, dtype=np.uint8) < 128
    if dark.mean() < 0.002:  # a blank page
        return 0.0
    ink = Image.fromarray((dark * 255).astype(np.uint8))

    def score(angle: float) -> float:
        rotated = np.asarray(ink.rotate(angle, resample=Image.NEAREST, expand=False))
        return float(np.var(rotated.sum(axis=1, dtype=np.int64)))

    coarse = np.arange(-max_angle, max_angle + 1e-9, 1.0)
    best = max(coarse, key=score)
    fine = np.arange(best - 1.0, best + 1.0 + 1e-9, step)
    best = max(fine, key=score)
    return float(best) if abs(best) >= 0.3 else 0.0


def deskew(gray: Image.Image) -> tuple[Image.Image, float]:
    angle = estimate_skew(gray)
    if not angle:
        return gray, 0.0
    return gray.rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=255), angle
