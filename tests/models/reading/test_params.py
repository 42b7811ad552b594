"""Page reading's thresholds are named in models/reading/params, not inline (issue 30)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from models.reading.params import REFERENCE_DPI, at_dpi

ROOT = Path(__file__).resolve().parents[3]
LIMIT = 20  # bench/reading_literals.py's LIMIT: the bound


def _literals(package: Path | None = None) -> list[dict]:
    args = [sys.executable, str(ROOT / "bench" / "reading_literals.py"), "--json"]
    if package is not None:
        args += ["--package", str(package)]
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def test_the_reading_package_names_its_thresholds():
    found = _literals()
    assert len(found) <= LIMIT, found
    assert [lit for lit in found if not lit["reason"]] == []


def test_the_count_sees_an_inline_threshold(tmp_path):
    """The counter itself: a literal beside a rule counts, one in params/ or an index does not."""
    (tmp_path / "params").mkdir()
    (tmp_path / "params" / "stage.py").write_text("GAP_PX = 15\n")
    (tmp_path / "rule.py").write_text(
        "def near(a, b, rows):\n"
        "    return abs(a - b) < 15 and rows[3] and a > 0 and b < 0.5 * a\n"
        "LIMIT = 40  # a constant beside its rule counts too\n"
    )
    found = _literals(tmp_path)
    assert [(lit["line"], lit["value"]) for lit in found] == [(2, 15), (3, 40)]
    assert [lit["reason"] for lit in found] == [None, "a constant beside its rule counts too"]


def test_pixel_thresholds_scale_with_the_page():
    assert at_dpi(15, REFERENCE_DPI) == 15
    assert at_dpi(15, 150) == 7.5
