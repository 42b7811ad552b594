"""Where a bench's figures go: bench/results/<name>.json, indented, read back by people and by
the docs. One place for the folder, the date in the name and the format."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def dated(name: str) -> str:
    """`name-YYYY-MM-DD`: a bench run once a day keeps one file a day."""
    return f"{name}-{dt.date.today().isoformat()}"


def write_result(name: str, data: object, out: Path | None = None) -> Path:
    """Write `data` as bench/results/<name>.json (or `out`), say where, and return the path."""
    path = out or RESULTS / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}")
    return path
