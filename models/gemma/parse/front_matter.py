"""The answer's front matter (language, rotation, blank page) -> a dict, and the body after it.

Keys the model may write under other names (`primary_language`/`language`,
`rotation`/`rotation_correction`) read the same; values that make no sense are dropped with a
finding; a leading `---` that opens no front matter is a rule and stays in the body.
"""

from __future__ import annotations

import re
from typing import Any

from models.gemma.parse.findings import MALFORMED, finding
from models.language import BCP47, bcp47_case

_FM_KEY = re.compile(
    r"^\s*(primary_language|language|rotation|rotation_correction|is_rotation_valid|is_blank|"
    r"is_table|is_diagram)\s*:\s*(.*?)\s*$",
    re.IGNORECASE,
)


def front_matter(text: str, findings: list[dict[str, str]]) -> tuple[dict[str, Any], str]:
    lines = text.split("\n")
    i = 0
    fenced = bool(lines) and lines[0].strip() == "---"
    if fenced:
        i = 1
    pairs: list[tuple[str, str]] = []
    while i < len(lines):
        m = _FM_KEY.match(lines[i])
        if m:
            pairs.append((m.group(1).lower(), m.group(2).strip().strip("'\"").strip()))
            i += 1
            continue
        if not lines[i].strip() and not pairs:
            i += 1
            continue
        break
    if fenced:
        if i < len(lines) and lines[i].strip() == "---":
            i += 1
        elif pairs:
            findings.append(
                finding(MALFORMED, "warning", "The model's front matter was not closed.")
            )
        else:  # a leading "---" that is not front matter: a rule; keep the text
            i = 0
    meta: dict[str, Any] = {}
    for key, value in pairs:
        low = value.lower()
        if key in ("primary_language", "language"):
            tag = bcp47_case(value)
            if BCP47.match(tag) and low not in ("none", "null", "und"):
                meta["language"] = tag
        elif key in ("rotation", "rotation_correction"):
            try:
                rot = int(float(value))
            except ValueError:
                rot = 0
            if rot % 360 in (0, 90, 180, 270):
                meta["rotation"] = rot % 360
            else:
                findings.append(
                    finding(MALFORMED, "warning", f"The model gave an odd rotation ({value!r}).")
                )
        elif key == "is_blank":
            meta["blank"] = low in ("true", "yes", "1")
    return meta, "\n".join(lines[i:])


__all__ = ["front_matter"]
