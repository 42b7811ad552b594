"""conversion.pipeline.isolate: MuPDF runs in a child; the parent survives crashes, loops and
allocations, a child never inherits another thread's lock, a time-out gets a second, fresh child,
and a failure of the machinery is a server error, not the file's."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from conversion.pipeline.errors import DamagedPdf, PageTimeout, PageTooLarge, ServerFault
from conversion.pipeline.isolate import run_isolated
from tests.conftest import ROOT
from tests.pipeline import isolated_calls


def test_a_crash_in_the_child_is_a_coded_error():
    with pytest.raises(DamagedPdf, match="crashed the reader"):
        run_isolated(isolated_calls.crash, timeout_s=10, memory_mb=512)


def test_a_loop_in_the_child_is_stopped_at_the_time_limit_after_one_fresh_retry():
    started = time.perf_counter()
    with pytest.raises(PageTimeout):
        run_isolated(isolated_calls.spin, timeout_s=1, memory_mb=512)
    assert 2 <= time.perf_counter() - started < 6  # two attempts of 1 s each


def test_the_child_memory_cap():
    with pytest.raises(PageTooLarge):
        run_isolated(isolated_calls.allocate, timeout_s=10, memory_mb=512)


def test_a_time_out_is_tried_again_in_a_fresh_child(tmp_path):
    marker = tmp_path / "first-attempt"
    assert run_isolated(isolated_calls.hang_once, marker, timeout_s=1, memory_mb=512) == "second"
    assert marker.exists()


def test_a_lock_held_by_another_thread_does_not_reach_the_child():
    """Issue 17: a bare fork of a multithreaded parent copied a lock another thread held, and
    the child waited on it until the page timed out."""
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with isolated_calls.LOCK:
            held.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(5)
        assert run_isolated(isolated_calls.take_lock, timeout_s=3, memory_mb=512) == "took"
    finally:
        release.set()
        holder.join()


def test_a_call_the_child_cannot_load_is_a_server_error_not_the_files():
    with pytest.raises(ServerFault) as info:
        run_isolated(isolated_calls.echo, isolated_calls.Unloadable(), timeout_s=10, memory_mb=512)
    assert info.value.code == "SERVER_ERROR"
    assert info.value.http_status == 503


def test_a_module_that_will_not_import_in_the_reader_is_a_server_error_not_the_files():
    # The shared environment lost its packages mid-run: pdfjs files were refused PDF_DAMAGED.
    with pytest.raises(ServerFault) as info:
        run_isolated(isolated_calls.import_missing, timeout_s=10, memory_mb=512)
    assert info.value.code == "SERVER_ERROR"


def test_a_reader_does_not_run_its_parents_main_script_again(tmp_path):
    """Calls are importable functions: a reader never re-runs the parent's main script (a bench
    script's imports cost every reader 0.8 s). The main script notes each run in a file."""
    runs = tmp_path / "runs.txt"
    script = (
        f"open({str(runs)!r}, 'a').write(__name__ + '\\n')\n"
        "from conversion.pipeline.isolate import run_isolated\n"
        "from tests.pipeline import isolated_calls\n"
        "if __name__ == '__main__':\n"
        "    print(run_isolated(isolated_calls.echo, 'read', timeout_s=20, memory_mb=512))\n"
    )
    main = tmp_path / "main.py"
    main.write_text(script)
    result = subprocess.run([sys.executable, str(main)], cwd=ROOT, text=True, capture_output=True,
                            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
                            timeout=120)  # fmt: skip
    assert result.stdout.splitlines() == ["read"], result.stdout + result.stderr
    assert runs.read_text().split() == ["__main__"]  # the parent's run only


def test_results_and_coded_errors_travel_back():
    assert run_isolated(isolated_calls.echo, {"a": [1, 2]}, timeout_s=10, memory_mb=512) == {
        "a": [1, 2]
    }


def test_a_reader_that_cannot_start_is_a_server_error_not_the_files():
    """A child that dies in its start-up (here: it is told to run a main script that does not
    exist) read nothing of the file: SERVER_ERROR, not PDF_DAMAGED."""
    script = (
        "from billiard import spawn\n"
        "from conversion.pipeline.isolate import run_isolated\n"
        "from conversion.pipeline.errors import ConversionError\n"
        "from tests.pipeline import isolated_calls\n"
        "prepare = spawn.get_preparation_data\n"
        "spawn.get_preparation_data = lambda name: {\n"
        "    **prepare(name), 'init_main_from_path': '/nonexistent/main.py'}\n"
        "try:\n"
        "    run_isolated(isolated_calls.echo, 1, timeout_s=20, memory_mb=512)\n"
        "    print('ok')\n"
        "except ConversionError as exc:\n"
        "    print(exc.code)\n"
    )
    result = subprocess.run([sys.executable, "-"], input=script, cwd=ROOT, text=True,
                            capture_output=True, timeout=120)  # fmt: skip
    assert result.stdout.strip().splitlines()[-1] == "SERVER_ERROR", result.stdout + result.stderr
