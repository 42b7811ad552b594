"""Run MuPDF on untrusted files in a child process with a time limit and a memory cap.

A hostile or broken PDF can make MuPDF loop, allocate without bound or crash outright. Each call
forks a child (cheap: copy-on-write), caps its address space with setrlimit, and waits at most
`timeout_s`. The parent (a web worker, a Celery worker) survives whatever happens in the child:
a crash becomes DamagedPdf, running out of memory PageTooLarge, the time limit PageTimeout.
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import resource
import select
import signal
import time
from collections.abc import Callable
from typing import Any, TypeVar

from conversion.pipeline.errors import ConversionError, DamagedPdf, PageTimeout, PageTooLarge

T = TypeVar("T")
_OK, _CODED, _OOM, _OTHER = "ok", "coded", "oom", "other"


def run_isolated(
    fn: Callable[..., T], *args: Any, timeout_s: float, memory_mb: int, **kwargs: Any
) -> T:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns, never runs the parent's cleanup handlers
        os.close(read_fd)
        _child(write_fd, fn, args, kwargs, memory_mb)
    os.close(write_fd)
    try:
        payload = _read_all(read_fd, deadline=time.monotonic() + timeout_s)
    except TimeoutError:
        os.kill(pid, signal.SIGKILL)
        raise PageTimeout(
            f"Reading the PDF took longer than {timeout_s:.0f} s and was stopped."
        ) from None
    finally:
        os.close(read_fd)
        _reap(pid)
    if not payload:
        raise DamagedPdf("The PDF crashed the reader; it is damaged or hostile.")
    try:
        kind, value = pickle.loads(payload)
    except Exception:  # a child that died halfway through its answer
        raise DamagedPdf("The PDF crashed the reader; it is damaged or hostile.") from None
    if kind == _OK:
        return value
    if kind == _CODED:
        cls, message, page = value
        raise cls(message, page=page)
    if kind == _OOM:
        raise PageTooLarge(
            f"Reading the PDF needed more than {memory_mb} MiB of memory; it was refused."
        )
    raise DamagedPdf(f"The PDF could not be read ({value}).")


def _child(write_fd: int, fn, args, kwargs, memory_mb: int) -> None:
    code = 0
    try:
        faulthandler.disable()  # a crash here is reported by the parent, not dumped to stderr
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        try:
            result = (_OK, fn(*args, **kwargs))
        except ConversionError as exc:
            result = (_CODED, (type(exc), exc.message, exc.page))
        except MemoryError:
            result = (_OOM, None)
        except Exception as exc:  # noqa: BLE001  (reported to the parent as DamagedPdf)
            result = (_OTHER, type(exc).__name__)
        data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write_fd, "wb") as fh:
            fh.write(data)
    except BaseException:  # noqa: BLE001
        code = 1
    finally:
        os._exit(code)


def _read_all(fd: int, *, deadline: float) -> bytes:
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            raise TimeoutError
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
