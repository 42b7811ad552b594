"""A table folded into column groups side by side is read as one table, group after group
(conversion/pipeline/table_folds.py)."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from conversion.pipeline.convert import ConvertOptions, convert_pdf
from conversion.pipeline.table_folds import unfolded_rows
from models.ocr import TesseractEngine
from tests.conftest import CORPUS


def grid(*rows: str) -> list[list[dict]]:
    """Rows of cells from "a | b | c" lines; the first row's cells are heads."""
    return [
        [{"text": t.strip(), "header": r == 0, "rowspan": 1, "colspan": 1} for t in row.split("|")]
        for r, row in enumerate(rows)
    ]


def texts(rows: list[list[dict]] | None) -> list[list[str]] | None:
    return None if rows is None else [[c["text"] for c in row] for row in rows]


@pytest.mark.slow
def test_a_grading_scale_set_in_four_groups_is_one_table_in_its_order(tmp_path):
    """schule's exam example p. 3: sixteen grades as four "Note | ≥P." tables side by side,
    read as one grid of eight columns ("sehr gut plus, 14, gut, 11, befriedigend minus, 8").
    Unfolded: one head, the grades from "sehr gut plus" down to "ungenügend"."""
    page = CORPUS / "texlive" / "minimal-kl-p3.pdf"
    result = convert_pdf(page, tmp_path, TesseractEngine(), ConvertOptions())
    scale = BeautifulSoup(result.html_path.read_text(), "html.parser").find_all("table")[-1]
    assert [th.get_text(strip=True) for th in scale.find_all("th")] == ["Note", "≥P."]
    grades = [tr.find("td").get_text(strip=True) for tr in scale.find("tbody").find_all("tr")]
    assert len(grades) == 16
    assert grades[:5] == ["sehr gut plus", "sehr gut", "sehr gut minus", "gut plus", "gut"]
    assert grades[-1] == "ungenügend"


def test_groups_under_one_head_are_read_one_after_the_other():
    """A model's settings set as "Parameter | Value" twice, a spacer column between the
    groups; the second group one row shorter."""
    folded = grid(
        "Parameter | Value |  | Parameter | Value",
        "learning rate | 0.001 |  | dropout | 0.1",
        "batch size | 32 |  | epochs | 40",
        "optimizer | Adam |  |  | ",
    )
    assert texts(unfolded_rows(folded)) == [
        ["Parameter", "Value"],
        ["learning rate", "0.001"],
        ["batch size", "32"],
        ["optimizer", "Adam"],
        ["dropout", "0.1"],
        ["epochs", "40"],
    ]


def test_tables_that_are_not_folded_stay_as_they_are():
    # Two measures of one row under two samples' heads: the groups open with figures.
    measures = grid("Mean | SD | Mean | SD", "4.2 | 0.3 | 5.1 | 0.4", "3.9 | 0.2 | 4.8 | 0.5")
    # Heads that differ: two tables' worth of columns, one row each.
    apart = grid("Home | Goals | Away | Goals", "Leeds | 2 | York | 1")
    # A group of one column is a list of values.
    single = grid("Name | Name | Name", "Ann | Bob | Cy")
    # A merged cell: the grid is no plain one.
    merged = grid("Note | P. | Note | P.", "gut | 11 | befriedigend | 9")
    merged[1][0]["colspan"] = 2
    for rows in (measures, apart, single, merged):
        assert unfolded_rows(rows) is None
