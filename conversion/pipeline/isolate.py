"""Run MuPDF on untrusted files in a child process with a time limit and a memory cap.

A hostile or broken PDF can make MuPDF loop, allocate without bound or crash outright. Each call
runs in a fresh child, caps its address space with setrlimit and waits at most `timeout_s`. The
parent (a web worker, a Celery worker) survives whatever happens in the child: a crash becomes
DamagedPdf, running out of memory PageTooLarge, the time limit PageTimeout.

The children come from a fork server, a single-threaded process started once per parent that has
PyMuPDF loaded (conversion.pipeline.reader_process): forking it costs ~10 ms
(bench/isolation.py), and the child inherits no lock from another thread. A bare os.fork() of the
multithreaded parent (web threads, the inline runner, engine threads) could copy a lock some
other thread held and block forever on it (issue 17: good PDFs failed with PAGE_TIMEOUT after
300 s, the child idle in a futex). A time-out is tried once more in a fresh child before it counts
against the file, and a failure of the machinery itself (no child could start, the function
could not be loaded) is ServerFault, never the file's fault. The fork server is billiard's
(Celery's multiprocessing), not the standard library's: in a Celery prefork pool process the
standard one refuses to start children (billiard marks that process daemonic) and cannot pickle
billiard's authentication key.
"""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import os
import pickle
import resource
import signal
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import billiard
from billiard import spawn
from billiard.connection import Connection, wait
from billiard.context import BaseContext
from billiard.process import BaseProcess

from conversion.pipeline.errors import (
    ConversionError,
    DamagedPdf,
    PageTimeout,
    PageTooLarge,
    ServerFault,
)

log = logging.getLogger(__name__)
T = TypeVar("T")
_OK, _CODED, _OOM, _OTHER, _CRASH, _SERVER = "ok", "coded", "oom", "other", "crash", "server"
_STARTED = b"started"  # the child's first message: from here on, a death is the file's doing
_KILLED = 255  # billiard's exit code for a child that ended without a status of its own
TIMEOUT_ATTEMPTS = 2  # a time-out is retried once, in a fresh child
_PRELOAD = ["conversion.pipeline.reader_process"]
_READER = "axiya-reader"
_context_lock = threading.Lock()
_processes = threading.Lock()  # see _end()
_context: BaseContext | None = None


def run_isolated(
    fn: Callable[..., T], *args: Any, timeout_s: float, memory_mb: int, **kwargs: Any
) -> T:
    """fn(*args, **kwargs) in a fresh child process. fn, its arguments and its result travel
    pickled: fn must be importable by name in a process without Django."""
    call = pickle.dumps((fn, args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
    for attempt in range(1, TIMEOUT_ATTEMPTS + 1):
        try:
            kind, value = _run_once(call, timeout_s=timeout_s, memory_mb=memory_mb)
        except TimeoutError:
            log.warning("isolated %s timed out after %.0f s (attempt %d)", fn, timeout_s, attempt)
            continue
        return _outcome(kind, value, memory_mb=memory_mb)
    raise PageTimeout(f"Reading the PDF took longer than {timeout_s:.0f} s and was stopped.")


def _outcome(kind: str, value: Any, *, memory_mb: int) -> Any:
    if kind == _OK:
        return value
    if kind == _CODED:
        cls, message, page = value
        raise cls(message, page=page)
    if kind == _OOM:
        raise PageTooLarge(
            f"Reading the PDF needed more than {memory_mb} MiB of memory; it was refused."
        )
    if kind == _CRASH:
        raise DamagedPdf("The PDF crashed the reader; it is damaged or hostile.")
    if kind == _SERVER:
        raise ServerFault(f"The PDF reader could not run ({value}); the file is not at fault.")
    raise DamagedPdf(f"The PDF could not be read ({value}).")


def _reader_preparation(name: str | None = None) -> dict[str, Any]:
    """billiard's start-up data for a child, without running the parent's main script again in
    a reader: every call is an importable function (run_isolated), so the re-run bought nothing
    and cost each reader its parent's imports (0.8 s a page under a bench script that imports
    the pipeline, load ~8; ~25 ms under celery's)."""
    data = _preparation_data(name)
    if name == _READER:
        data.pop("init_main_from_path", None)
        data.pop("init_main_from_name", None)
    return data


_preparation_data = spawn.get_preparation_data
spawn.get_preparation_data = _reader_preparation  # billiard's popens look it up at each start


def _forkserver() -> BaseContext:
    global _context
    with _context_lock:
        if _context is None:
            context = billiard.get_context("forkserver")
            context.set_forkserver_preload(_PRELOAD)
            _context = context
        return _context


def _run_once(call: bytes, *, timeout_s: float, memory_mb: int) -> tuple[str, Any]:
    """One child: (kind, value) as the child reported it. TimeoutError when it overran."""
    context = _forkserver()
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(send, call, memory_mb), name=_READER, daemon=True)
    try:
        try:
            with _processes:
                child.start()
        except Exception as exc:  # no child: the machine's fault, not the file's
            log.exception("could not start an isolated reader")
            return _SERVER, f"could not start a reader process: {type(exc).__name__}"
        send.close()  # the child holds its own copy: EOF here once it exits
        deadline = time.monotonic() + timeout_s
        started, payload = False, b""
        try:
            if not receive.poll(timeout_s):
                raise TimeoutError
            started = receive.recv_bytes() == _STARTED
            if not receive.poll(max(0.0, deadline - time.monotonic())):
                raise TimeoutError
            payload = receive.recv_bytes()
        except EOFError:
            pass
        finally:
            exitcode = _end(child)
        if not started:
            # It died before running our code (its start-up, e.g. re-importing the main
            # module, failed): nothing of the file was read.
            log.error("an isolated reader did not start (exit status %s)", exitcode)
            return _SERVER, f"the reader process did not start (exit status {exitcode})"
        if not payload:
            # Killed by a signal (a crash in MuPDF, the OOM killer): the file did it. billiard's
            # fork server reports that as 255, having no status to read. An exit with another
            # status is our own wrapper failing (it exits 1), which the file did not cause.
            if exitcode is not None and 0 < exitcode != _KILLED:
                return _SERVER, f"the reader exited with status {exitcode}"
            return _CRASH, None
        try:
            return pickle.loads(payload)
        except Exception:  # an answer the parent cannot load
            return _SERVER, "the reader's answer could not be loaded"
    finally:
        send.close()
        receive.close()


def _end(child: BaseProcess) -> int | None:
    """Kill the child if it still runs, wait for its end, free it. Returns its exit code.

    billiard keeps one registry of a process's children, and Process.start() polls every one
    of them: a thread starting a child while another frees its own read a closed descriptor
    (bench/load.py --inline saw it once in 200 jobs). So every step that polls or frees a
    child holds _processes; the wait itself (a select on the sentinel) does not.
    """
    with _processes:
        alive = child.is_alive()
    if alive:
        with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
            os.kill(child.pid, signal.SIGKILL)
    wait([child.sentinel], timeout=60)
    with _processes:
        child.join(timeout=5)
        exitcode = child.exitcode
        if exitcode is not None:
            child.close()
    return exitcode


def _address_space() -> int:
    """This process's mapped address space in bytes (0 where it cannot be read)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


def _child(send: Connection, call: bytes, memory_mb: int) -> None:
    """The child's whole life: say it started, load the call, cap memory, run it, send one
    answer."""
    send.send_bytes(_STARTED)
    faulthandler.disable()  # a crash here is reported by the parent, not dumped to stderr
    try:
        fn, args, kwargs = pickle.loads(call)
    except Exception as exc:  # a module that will not load is our fault
        send.send_bytes(pickle.dumps((_SERVER, f"cannot load the call: {exc!r}")))
        return
    # The cap is what reading the file may add: the reader starts with PyMuPDF and the layout
    # model mapped (about 290 MB of address space), inherited from the fork server.
    limit = _address_space() + memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    try:
        result = (_OK, fn(*args, **kwargs))
    except ConversionError as exc:
        result = (_CODED, (type(exc), exc.message, exc.page))
    except MemoryError:
        result = (_OOM, None)
    except ImportError as exc:  # our installation, not the file
        result = (_SERVER, f"a module would not load: {exc}")
    except Exception as exc:  # reported to the parent as DamagedPdf
        result = (_OTHER, type(exc).__name__)
    try:
        data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    except MemoryError:
        data = pickle.dumps((_OOM, None))
    send.send_bytes(data)
