"""Entry labels set in a column of their own: a bibliography's "[10]" to "[17]" left of its
entries, a numbered list's "1." to "9." set apart from its items. Tesseract reads each label as
a line of one word it does not know, often doubtfully and with its brackets misread ("{12}",
"(14]", "(17)" read at 16), and the page dropped them as illegible: the entries lost their
numbers, which the text cites ("see [12]").

A run of such lines stacked at one left edge, whose numbers go up by one from each to the next,
is read right where it counts, in its digits: chance does not count up. Its labels are set in
the brackets of the run's surest label, as the column prints them all alike, read as surely as
that one (so no longer dropped as illegible), and each opens the line it stands beside
(its entry's first line), so that the entry reads "[12] K. Fuller, ..." as printed: a column of
labels apart, the entries lost their numbers in the text's order, and a layout model took the
two columns for a table.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from models.reading.boxes import union
from models.reading.params.entry_labels import ENTRY_LABELS, EntryLabelParams
from models.reading.scan_lines import Line, ParaLines, keep_lines

# A label as read: an opening bracket or none, a number, a closing bracket or a point. A bare
# number is no label (a column of figures, a margin's line numbers: models.reading.line_numbers).
_LABEL = re.compile(r"(?P<opening>[\[({]?)(?P<number>\d{1,3})(?P<closing>[\])}]|\.)?")
_PAIRS = {"[": "]", "(": ")", "{": "}"}


class _Label(NamedTuple):
    """A line that is one label and nothing else, and the label as read."""

    line: Line
    opening: str
    number: int
    closing: str


def with_entry_labels(
    paragraphs: list[ParaLines], *, params: EntryLabelParams = ENTRY_LABELS
) -> list[ParaLines]:
    """The paragraphs with each column of entry labels set alike, and each label moved into
    the line beside it where there is one."""
    labels = sorted(
        (label for para in paragraphs for line in para if (label := _label(line))),
        key=lambda label: label.line.bbox[1],
    )
    found = [
        run
        for column in _columns(labels, params)
        for run in _counting_runs(column)
        if len(run) >= params.min_labels
    ]
    if not found:
        return paragraphs
    labelled = {id(label.line) for run in found for label in run}
    lines = [line for para in paragraphs for line in para if id(line) not in labelled]
    moved: set[int] = set()
    for run in found:
        _set_alike(run)
        for label in run:
            entry = _beside(label.line, lines)
            if entry is not None:
                entry.words = label.line.words + entry.words
                entry.bbox = union([label.line.bbox, entry.bbox])
                moved.add(id(label.line))
    return keep_lines(paragraphs, lambda line: id(line) not in moved)


def _beside(label: Line, lines: list[Line]) -> Line | None:
    """The nearest line right of the label whose middle lies within the label's height: the
    first line of its entry."""
    x1, middle = label.bbox[2], (label.bbox[1] + label.bbox[3]) / 2
    right = [
        line for line in lines if line.bbox[0] >= x1 and line.bbox[1] <= middle <= line.bbox[3]
    ]
    return min(right, key=lambda line: line.bbox[0], default=None)


def _label(line: Line) -> _Label | None:
    """The line as a label, when it is one label and nothing else."""
    if len(line.words) != 1:
        return None
    match = _LABEL.fullmatch(line.words[0].text)
    if match is None or not (match["opening"] or match["closing"]):
        return None
    return _Label(line, match["opening"], int(match["number"]), match["closing"] or "")


def _columns(labels: list[_Label], params: EntryLabelParams) -> list[list[_Label]]:
    """The labels (top to bottom) grouped by their left edge."""
    columns: list[list[_Label]] = []
    for label in labels:
        slack = params.align_ratio * label.line.height
        for column in columns:
            if abs(column[0].line.bbox[0] - label.line.bbox[0]) <= slack:
                column.append(label)
                break
        else:
            columns.append([label])
    return columns


def _counting_runs(column: list[_Label]) -> list[list[_Label]]:
    """The column cut where a label's number is not one more than the one above."""
    runs: list[list[_Label]] = []
    for label in column:
        if runs and label.number == runs[-1][-1].number + 1:
            runs[-1].append(label)
        else:
            runs.append([label])
    return runs


def _set_alike(run: list[_Label]) -> None:
    """Each label of the run set in the brackets of the run's surest label with a
    matched pair ("[16]" read at 82 over "{12}" at 39), else of its surest label, and read as
    surely as that one: its digits are confirmed by the count, its brackets by that label (a
    reviewer asked to check each "[12]" checks what the column already shows)."""
    paired = [label for label in run if _PAIRS.get(label.opening) == label.closing]
    model = max(paired or run, key=lambda label: label.line.words[0].confidence)
    sure = model.line.words[0].confidence
    for label in run:
        word = label.line.words[0]
        word.text = f"{model.opening}{label.number}{model.closing}"
        word.confidence = max(word.confidence, sure)
