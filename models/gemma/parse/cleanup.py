"""The whole answer before it is read: control characters and a wrapping fence dropped, and the
loops of greedy decoding cut (at the end) or collapsed (a line repeated many times)."""

from __future__ import annotations

import re

import numpy as np

from models.gemma.parse.findings import REPETITION, finding

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]")
_FENCE_OPEN = re.compile(r"^```[ \t]*(?:markdown|md)?[ \t]*\n", re.IGNORECASE)
# A loop must cover this many characters (and repeat at least 3 times) to be cut.
LOOP_MIN_CHARS = 120
LOOP_MAX_PERIOD = 600


def clean(text: str) -> str:
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    stripped = text.strip()
    m = _FENCE_OPEN.match(stripped)
    if m:  # the whole answer wrapped in a ```markdown fence
        stripped = stripped[m.end() :]
        if stripped.rstrip().endswith("```"):
            stripped = stripped.rstrip()[:-3]
    return stripped


def cut_repetition(text: str) -> tuple[str, bool]:
    """Cut a loop at the end of `text` down to one copy of its unit. Returns (text, cut?).

    A loop is a suffix with period p (s[i] == s[i-p]) that repeats at least 3 times and covers
    LOOP_MIN_CHARS; a partial last unit (generation stopped mid-unit) counts. Loops that end before
    the answer does are the model recovering and are left alone.
    """
    s = text.rstrip()
    n = len(s)
    if n < LOOP_MIN_CHARS:
        return text, False
    a = np.frombuffer(s.encode("utf-32-le"), dtype=np.uint32)
    best: tuple[int, int] | None = None  # (span, period)
    for p in range(1, min(LOOP_MAX_PERIOD, n // 3) + 1):
        eq = a[p:] == a[:-p]
        if not eq[-1]:
            continue
        bad = np.flatnonzero(~eq)
        run = len(eq) - (int(bad[-1]) + 1 if len(bad) else 0)  # trailing matches
        span = run + p
        if span >= max(LOOP_MIN_CHARS, 3 * p) and (best is None or span > best[0]):
            best = (span, p)
    if best is None:
        return text, False
    span, p = best
    start = n - span
    unit = s[start : start + p]
    # Keep one copy, ending at a line break when the unit has one (cleaner cut).
    return s[:start] + unit.rstrip() if "\n" in unit else s[: start + p], True


def collapse_repeated_lines(body: str, findings: list[dict[str, str]]) -> str:
    """The same non-trivial line more than 4 times in a row (a loop the model broke out of)."""
    out: list[str] = []
    run = 0
    collapsed = False
    for line in body.split("\n"):
        key = line.strip()
        same = bool(out) and key == out[-1].strip()
        if same and len(key) >= 12 and any(c.isalpha() for c in key):
            run += 1
            if run >= 4:
                collapsed = True
                continue
        else:
            run = 0
        out.append(line)
    if collapsed:
        findings.append(
            finding(
                REPETITION,
                "needs_review",
                "The model repeated a line many times on this page; the repeats were removed.",
            )
        )
    return "\n".join(out)


__all__ = [
    "LOOP_MAX_PERIOD",
    "LOOP_MIN_CHARS",
    "clean",
    "collapse_repeated_lines",
    "cut_repetition",
]
