"""The notes a parse leaves on a page (engine-level findings; they reach the job report)."""

from __future__ import annotations

TRUNCATED = "MODEL_OUTPUT_TRUNCATED"
REPETITION = "MODEL_REPETITION"
MALFORMED = "MODEL_OUTPUT_MALFORMED"
BLANK_CONFLICT = "MODEL_BLANK_WITH_TEXT"


def finding(code: str, level: str, message: str) -> dict[str, str]:
    return {"code": code, "level": level, "message": message}


__all__ = ["BLANK_CONFLICT", "MALFORMED", "REPETITION", "TRUNCATED", "finding"]
