"""The command line: a sample converts; every bad file exits non-zero with one coded line."""

from __future__ import annotations

import json

import pytest

from tests.conftest import CORPUS, run_convert


def test_converts_a_scan(tmp_path):
    proc = run_convert(str(CORPUS / "linn.pdf"), "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "linn.html").exists()
    report = json.loads((tmp_path / "linn.report.json").read_text())
    assert report["engine"]["engine"] == "ocr"
    # The report describes the document, not the run: the same PDF gives the same report.
    assert "timings" not in report and report["summary"]["errors"] == 0
    assert (tmp_path / "linn.report.html").exists()


@pytest.mark.parametrize(
    ("name", "code"),
    [("invalid.pdf", "PDF_DAMAGED"), ("hugemono.pdf", "PAGE_TOO_LARGE")],
)
def test_bad_file_gives_a_code_and_writes_nothing(tmp_path, name, code):
    proc = run_convert(str(CORPUS / "bad" / name), "--out", str(tmp_path))
    assert proc.returncode != 0
    assert f"error {code}:" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_not_a_pdf(tmp_path):
    proc = run_convert(str(CORPUS / "typewriter.png"), "--out", str(tmp_path))
    assert proc.returncode == 2
    assert "error NOT_A_PDF:" in proc.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_every_other_bad_file_converts_with_a_code(tmp_path):
    names = ["blank.pdf", "no_contents.pdf", "kcs.pdf", "negzero.pdf", "2400dpi.pdf",
             "enormous.pdf"]  # fmt: skip
    proc = run_convert(*[str(CORPUS / "bad" / n) for n in names], "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "warning BLANK_DOCUMENT" in proc.stdout
    for name in names:
        assert (tmp_path / name.replace(".pdf", ".html")).exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
