"""conversion.pipeline.reader_process: the fork server holds the layout model and stays one
thread, so every isolated reader starts with the model loaded and inherits no thread's lock."""

from __future__ import annotations

import subprocess
import sys

import pymupdf

from conversion.pipeline.isolate import run_isolated
from tests.conftest import ROOT
from tests.pipeline import isolated_calls


def test_a_reader_starts_with_the_layout_model_loaded_and_one_thread():
    loaded, threads = run_isolated(isolated_calls.layout_model_state, timeout_s=60, memory_mb=2048)
    assert loaded, "the reader had to load the layout model itself (about 1 s per page)"
    assert threads == 1


def test_the_fork_servers_preload_leaves_one_thread_with_the_model_loaded():
    """What the fork server runs, in a fresh interpreter: the model is loaded, no onnxruntime
    thread (telemetry, session pools) and no BLAS pool is left running."""
    script = (
        "import conversion.pipeline.reader_process\n"
        "from models import layout\n"
        "print(layout.model_loaded(), layout.process_threads())\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, text=True,
                            capture_output=True, timeout=120)  # fmt: skip
    assert result.stdout.split() == ["True", "1"], result.stdout + result.stderr


def test_a_reader_reads_a_born_digital_page_with_the_inherited_model(tmp_path):
    """The model inherited through the fork gives regions in the reader."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), "Annual report", fontsize=24)
    body = ("The harbour office publishes the ferry schedule every spring, and the night "
            "boats stop running until the first of June. ") * 6  # fmt: skip
    page.insert_textbox(pymupdf.Rect(72, 120, 540, 500), body, fontsize=11)
    path = tmp_path / "page.pdf"
    doc.save(path)
    kinds = run_isolated(isolated_calls.layout_kinds, path, timeout_s=60, memory_mb=2048)
    assert "text" in kinds
