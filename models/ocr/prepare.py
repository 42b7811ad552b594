"""Page preparation before OCR: skew estimation by projection profiles."""

from __future__ import annotations

import math

import numpy as np
from PIL import Image

# The estimate works on a copy about this wide (or tall): a 0.25 degree step still moves the far
# end of a text line by several pixels.
_ESTIMATE_SIZE = 1000


def estimate_skew(gray: Image.Image, *, max_angle: float = 8.0, step: float = 0.25) -> float:
    """The angle (degrees, counter-clockwise as PIL rotates) that straightens the text lines.

    Text lines make the row profile of dark pixels peaky when they are horizontal: pick the angle
    with the largest profile variance, on a small, binarized copy (coarse, then fine). The row
    each dark pixel lands on after a rotation is computed directly from its coordinates (one
    `bincount` per angle), no rotated image is drawn.
    """
    factor = max(1, round(max(gray.size) / _ESTIMATE_SIZE))
    small = gray.reduce(factor) if factor > 1 else gray
    dark = np.asarray(small, dtype=np.uint8) < 128
    if dark.mean() < 0.002:  # a blank page
        return 0.0
    ys, xs = np.nonzero(dark)
    height, width = dark.shape
    ys = ys.astype(np.float64) - height / 2
    xs = xs.astype(np.float64) - width / 2
    bins = int(math.hypot(width, height)) + 3
    offset = bins / 2

    def score(angle: float) -> float:
        # Rotating the page counter-clockwise by `angle` moves (x, y) to row y cos - x sin.
        theta = math.radians(angle)
        rows = ys * math.cos(theta) - xs * math.sin(theta)
        profile = np.bincount((rows + offset).astype(np.int64), minlength=bins)
        return float(np.var(profile))

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
