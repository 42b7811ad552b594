"""Architecture rules import-linter can't state: tests reach product code through its public
names only (issue 30), so a module's private helpers can change without touching its tests."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("models", "conversion", "axiya")


def private_imports(path: Path) -> list[str]:
    """`module:name` for each private name (one leading underscore) `path` imports from
    product code, by `from X import _y`, or uses as `X._y` after `import X` / `from P import X`."""
    tree = ast.parse(path.read_text())
    found = []
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in PRODUCT:
            found += [f"{node.module}:{a.name}" for a in node.names if _private(a.name)]
            package = ROOT.joinpath(*node.module.split("."))
            modules |= {a.asname or a.name for a in node.names if _is_module(package / a.name)}
        elif isinstance(node, ast.Import):
            modules |= {a.asname or a.name for a in node.names if a.name.split(".")[0] in PRODUCT}
    for node in ast.walk(tree):
        owner = ast.unparse(node.value) if isinstance(node, ast.Attribute) else None
        if owner in modules and _private(node.attr):
            found.append(f"{ast.unparse(node.value)}:{node.attr}")
    return found


def _is_module(path: Path) -> bool:
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def test_private_imports_are_found(tmp_path):
    sample = tmp_path / "test_sample.py"
    sample.write_text(
        "import models.layout\nfrom models.engine import Word, _STEP_FIELDS\n"
        "from models.reading import kinds\nfrom tests.conftest import _helper\n"
        "x = models.layout._cache, kinds._split, Word._private\n"
    )
    assert private_imports(sample) == [
        "models.engine:_STEP_FIELDS",
        "models.layout:_cache",
        "kinds:_split",
    ]


def test_tests_use_public_names_only():
    offenders = {
        str(path.relative_to(ROOT)): names
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if (names := private_imports(path))
    }
    assert offenders == {}
