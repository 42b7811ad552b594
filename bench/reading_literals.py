"""Counts the inline numeric literals of the page-reading package (issue 30): the thresholds
belong in models/reading/params/, named, with their unit.

    .venv/bin/python bench/reading_literals.py [--json] [--package DIR]

Counted: every int or float literal in models/reading outside params/, except 0, 1, 2 and 0.5
(identities, halves) and subscripts (indexes, slices). Module-level constants count too: a
threshold is named in params/, not beside its rule. tests/models/reading/test_params.py holds
the package to LIMIT, each counted literal with its reason in a comment on its line.
"""

from __future__ import annotations

import ast
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "models" / "reading"
NAMED_PLACE = PACKAGE / "params"
FREE_VALUES = {0, 1, 2, 0.5}
LIMIT = 20


@dataclass(frozen=True)
class Literal:
    path: str
    line: int
    value: float
    reason: str | None  # the comment on its line, if any


def _comment(line: str) -> str | None:
    """The comment on a source line (a '#' outside a string literal, roughly: after the code)."""
    code, sep, comment = line.partition("  # ")
    return comment.strip() or None if sep else None


def literals_in(path: Path, package: Path = PACKAGE) -> list[Literal]:
    source = path.read_text()
    lines = source.splitlines()
    tree = ast.parse(source)
    indexes = {id(sub) for node in ast.walk(tree) if isinstance(node, ast.Subscript)
               for sub in ast.walk(node.slice)}  # fmt: skip
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or isinstance(node.value, bool):
            continue
        if not isinstance(node.value, (int, float)) or node.value in FREE_VALUES:
            continue
        if id(node) in indexes:
            continue
        # A statement over several lines carries its reason on the literal's line or its last.
        reason = _comment(lines[node.lineno - 1]) or _comment(lines[node.end_lineno - 1])
        where = path.relative_to(ROOT if path.is_relative_to(ROOT) else package)
        found.append(Literal(str(where), node.lineno, node.value, reason))
    return sorted(found, key=lambda lit: lit.line)


def package_literals(package: Path = PACKAGE) -> list[Literal]:
    named_place = package / NAMED_PLACE.relative_to(PACKAGE)
    return [
        lit
        for path in sorted(package.rglob("*.py"))
        if named_place not in path.parents
        for lit in literals_in(path, package)
    ]


def main() -> None:
    package = (
        Path(sys.argv[sys.argv.index("--package") + 1]) if "--package" in sys.argv else PACKAGE
    )
    found = package_literals(package.resolve())
    if "--json" in sys.argv:
        print(json.dumps([asdict(lit) for lit in found], indent=1))
        return
    per_file: dict[str, int] = {}
    for lit in found:
        per_file[lit.path] = per_file.get(lit.path, 0) + 1
    for path, count in sorted(per_file.items()):
        print(f"{count:5d}  {path}")
    print(f"{len(found):5d}  in all (limit {LIMIT}); without a reason: "
          f"{sum(lit.reason is None for lit in found)}")  # fmt: skip


if __name__ == "__main__":
    main()
