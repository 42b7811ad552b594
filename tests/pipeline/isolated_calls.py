"""Functions the isolation tests run in a reader child (tests/pipeline/test_isolate.py). They
travel by name, so they live here, in a module a process without Django can import."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pymupdf

from models import layout

# Held by a thread of the parent while a child runs: a child forked from that parent inherits
# it locked, a child from the fork server does not.
LOCK = threading.Lock()


def take_lock() -> str:
    with LOCK:
        return "took"


def crash() -> None:
    os.abort()


def spin() -> None:
    while True:
        pass


def allocate() -> bytes:
    return b"x" * (2 << 30)


def hang_once(marker: Path) -> str:
    """Hangs the first time it runs (it leaves `marker`), answers the second time."""
    if not marker.exists():
        marker.touch()
        time.sleep(3600)
    return "second"


def _refuse_to_load() -> None:
    raise RuntimeError("this argument cannot be loaded in the child")


class Unloadable:
    """An argument that pickles in the parent and fails to load in the child, like a module
    the child cannot import."""

    def __reduce__(self):
        return (_refuse_to_load, ())


def echo(value: object) -> object:
    return value


def layout_model_state() -> tuple[bool, int]:
    """In a reader: whether the layout model came loaded from the fork server, and how many
    threads the reader runs (a fork copies one)."""
    return layout.model_loaded(), layout.process_threads()


def layout_kinds(path: Path) -> list[str]:
    """The layout model's region classes of a PDF's first page, read in a reader."""
    with pymupdf.open(path) as doc:
        return [region.kind for region in layout.page_regions(doc[0], scale=1.0)]


def import_missing() -> None:
    """A reader step whose module will not import (an installation lost a package): ours."""
    raise ImportError("No module named 'lost_package'")
