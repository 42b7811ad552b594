"""pdflatex for the benches that render LaTeX documents (bench/latex_math.py, latex_papers.py,
code_listings.py): the source is the truth, the PDF what a reader gets. The test suite never
needs it (its LaTeX resources are committed PDFs)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path


def require_pdflatex() -> None:
    if shutil.which("pdflatex") is None:
        raise SystemExit(
            "pdflatex is missing: apt-get install texlive-latex-base texlive-latex-recommended "
            "texlive-fonts-recommended"
        )


def compile_tex(tex: Path, pdf: Path, *, runs: int = 1) -> None:
    """Render `tex` into `pdf` (`runs` times: a contents page reads the first run's .toc),
    its auxiliary files left in a temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                            f"-output-directory={tmp}", str(tex)],
                           check=True, capture_output=True, timeout=120)  # fmt: skip
        shutil.copy(Path(tmp) / f"{tex.stem}.pdf", pdf)


def write_document(folder: Path, name: str, source: str, truth: dict) -> Path:
    """NAME.tex and NAME.truth.json under `folder`, and NAME.pdf rendered from them; the PDF."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.tex").write_text(source, encoding="utf-8")
    (folder / f"{name}.truth.json").write_text(json.dumps(truth, indent=1), "utf-8")
    compile_tex(folder / f"{name}.tex", folder / f"{name}.pdf")
    return folder / f"{name}.pdf"
