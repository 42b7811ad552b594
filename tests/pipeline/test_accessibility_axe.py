"""axe results -> findings, without a browser: violations are errors, incomplete needs review."""

from __future__ import annotations

from tests.axe import AXE_OPTIONS, EXPERIMENTAL_RULES, AxeResult


def test_options_run_the_target_tags_and_the_experimental_rules():
    assert AXE_OPTIONS["runOnly"]["values"] == [
        "wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice",
    ]  # fmt: skip
    assert all(AXE_OPTIONS["rules"][r]["enabled"] for r in EXPERIMENTAL_RULES)
    assert "incomplete" in AXE_OPTIONS["resultTypes"]


def test_violations_are_errors_and_incomplete_needs_review():
    result = AxeResult(
        url="file:///x.html",
        violations=[
            {"id": "image-alt", "help": "Images must have alt", "tags": ["wcag2a", "wcag111"],
             "nodes": [{"target": ["#figure-1 > img"]}]},
        ],
        incomplete=[
            {"id": "color-contrast", "help": "Contrast", "tags": ["wcag2aa", "wcag143"],
             "nodes": [{"target": ["td"]}, {"target": ["th"]}]},
        ],
    )  # fmt: skip
    findings = result.findings()
    assert [(f.code, f.level, f.criterion, f.element) for f in findings] == [
        ("AXE_IMAGE_ALT", "error", "1.1.1", "#figure-1 > img"),
        ("AXE_COLOR_CONTRAST", "needs_review", "1.4.3", "td"),
        ("AXE_COLOR_CONTRAST", "needs_review", "1.4.3", "th"),
    ]
    assert result.violation_count == 1
