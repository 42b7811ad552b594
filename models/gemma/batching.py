"""Batching for a Gemma decoder: the one place that owns threads, queues, batch sizes and the
out-of-memory back-off (the decoders only execute, `models.gemma.decoder`; the page reader only
turns pages into requests and answers into readings, `models.gemma.reader`).

Three ways to run requests, all through `Batcher`:
- `generate(requests)`: every request, in batches of `batch_size`; the next batch's image work
  (preprocessing, vision) runs on the prepare thread while the current batch decodes.
- `stream(items, split)` in batches: a prepare thread pulls item after item (a GPU worker claims
  its pages then), splits it into requests and runs their image work, a decode thread decodes,
  the caller's thread gets (item, generations) in order.
- `stream(items, split)` continuously (a decoder whose `decodes_rows`): `decode_continuous`
  keeps `batch_size` rows decoding and gives each finished row the next prepared page.

Out of memory: a batch is halved and read again (a batch call), a continuous decoding goes on
with half the rows and reads the pages it held again first; the smaller size is kept. No page
loses an attempt to it.

Over 450 lines on purpose: it is the one module the issue asks for (every thread, queue and
back-off of the Gemma engine in one place); the three ways share its pools, lock and halving.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from models.gemma.decoder import Decoder, Generation, PageRequest, Prompt, Rows

log = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R")
M = TypeVar("M")

# onnxruntime (CUDA and CPU arenas) and the CUDA runtime word allocation failures these ways.
_OOM_MARKERS = (
    "out of memory",
    "failed to allocate",
    "cudaerrormemoryallocation",
    "cuda_error_out_of_memory",
    "bad_alloc",
)


def is_out_of_memory(exc: BaseException) -> bool:
    if isinstance(exc, MemoryError):
        return True
    text = str(exc).lower()
    return any(m in text for m in _OOM_MARKERS)


def offer(q: queue.Queue, item: object, stop: threading.Event) -> bool:
    """Put `item` on a bounded queue, waiting for room unless `stop` is set (then False)."""
    while not stop.is_set():
        try:
            q.put(item, timeout=0.2)
            return True
        except queue.Full:
            continue
    return False


def memory_bounded_batch(
    *, max_batch: int, tokens_per_page: int, bytes_per_token: int, budget_bytes: int
) -> int:
    """Pages per batch whose KV cache fits `budget_bytes` (at least 1, at most `max_batch`)."""
    if budget_bytes <= 0:
        return max(1, max_batch)
    per_page = max(1, tokens_per_page * bytes_per_token)
    return max(1, min(max_batch, budget_bytes // per_page))


def run_in_batches(
    items: Sequence[T],
    fn: Callable[[list[T]], list[R]],
    *,
    batch_size: int,
    on_shrink: Callable[[int, BaseException], None] | None = None,
) -> tuple[list[R], int]:
    """Apply `fn` to consecutive chunks of at most `batch_size` items, in order.

    When `fn` runs out of memory the chunk is halved and retried (down to single items; one item
    that still does not fit re-raises). Returns the results and the batch size that last worked,
    so callers can start from it next time.
    """
    size = max(1, batch_size)
    out: list[R] = []
    i = 0
    while i < len(items):
        chunk = list(items[i : i + size])
        try:
            results = fn(chunk)
        except Exception as exc:
            if len(chunk) == 1 or not is_out_of_memory(exc):
                raise
            size = max(1, len(chunk) // 2)
            if on_shrink is not None:
                on_shrink(size, exc)
            continue
        if len(results) != len(chunk):
            raise RuntimeError(f"batch of {len(chunk)} gave {len(results)} results")
        out.extend(results)
        i += len(chunk)
    return out, size


class DecodeInterrupted(Exception):
    """Continuous decoding stopped on an error (its __cause__); `pages` are the (tag, Prompt)
    pairs it had taken and not finished, to be read again."""

    def __init__(self, pages: list[tuple[Any, Prompt]]) -> None:
        super().__init__(f"decoding interrupted with {len(pages)} page(s) unfinished")
        self.pages = pages


class PromptFeed:
    """The `feed` of `decode_continuous` over prepared prompts: a producer `put`s (tag, Prompt)
    pairs a chunk at a time (waiting while `ahead_pages` prepared pages are not taken yet) and
    then `end`s, with the error that ended it if any; free rows take prompts as they come.

    A count of pages, not of chunks, so that a worker can hold a batch's worth whatever its
    claims' size: rows that started together finish together, and a row that frees while no
    prepared page waits decodes nothing until the image work catches up. On an H200 a batch's
    worth (512) read no faster than one claim (docs/gemma-runtime.md, twelfth run), so the
    GPU worker's default (AXIYA_GEMMA_PREPARED_AHEAD) is one claim."""

    def __init__(self, *, ahead_pages: int = 1, stop: threading.Event | None = None) -> None:
        self._ready: deque = deque()  # put chunks (lists of pairs), then the end or its error
        self._ready_pages = 0  # pages in `_ready`
        self._ahead = max(1, ahead_pages)
        self._changed = threading.Condition()
        self._waiting: deque = deque()  # taken from `_ready`, not yet in a row
        self._stop = stop if stop is not None else threading.Event()
        self.ended = False
        self.error: BaseException | None = None  # what ended the producer, if not the end

    def put(self, pairs: list) -> bool:
        """False when the consumer stopped."""
        with self._changed:
            while self._ready_pages >= self._ahead and not self._stop.is_set():
                self._changed.wait(0.2)
            if self._stop.is_set():
                return False
            self._ready.append(pairs)
            self._ready_pages += len(pairs)
            self._changed.notify_all()
            return True

    def end(self, error: BaseException | None = None) -> None:
        with self._changed:
            self._ready.append(error)
            self._changed.notify_all()

    def give_back(self, pairs: list) -> None:
        """Pages a row held and did not finish: they go first."""
        self._waiting.extendleft(reversed(pairs))

    def __call__(self, free: int, wait: bool) -> list | None:
        with self._changed:
            while len(self._waiting) < free and not self.ended:
                if not self._ready:
                    if wait and not self._waiting and not self._stop.is_set():
                        self._changed.wait(0.2)
                        continue
                    break
                item = self._ready.popleft()
                if item is None or isinstance(item, BaseException):
                    self.ended, self.error = True, item
                else:
                    self._ready_pages -= len(item)
                    self._waiting.extend(item)
                self._changed.notify_all()
        if self._stop.is_set() or (self.ended and not self._waiting):
            return None
        return [self._waiting.popleft() for _ in range(min(free, len(self._waiting)))]


def decode_continuous(
    decoder: Decoder,
    feed: Callable[[int, bool], list[tuple[Any, Prompt]] | None],
    *,
    rows: int,
    max_new_tokens: int,
    max_prompt: int,
    check_every: int = 16,
    ignore_stop: bool = False,
    gpu_lock: Any = None,
    cancel: threading.Event | None = None,
) -> Iterator[tuple[Any, Generation]]:
    """Continuous batching: `rows` decode rows, and a row whose page has finished takes the
    next prompt at once, so decoding runs at full width from a worker's first pages to its
    last instead of paying a whole batch's steps for every batch (and finished rows do not
    ride along to the end of a batch).

    `feed(free_rows, wait)` returns up to `free_rows` (tag, Prompt) pairs, [] when none is
    ready yet, None when none will come again; with `wait` (every row is free) it may block
    until one is ready. Every `check_every` steps the rows are read back: each finished page
    is yielded as (tag, Generation), in finishing order, and its row refilled. The rows are
    opened before `feed` is first called. An error drops them (their memory, so that a retry
    with fewer rows can fit) and raises DecodeInterrupted with the (tag, Prompt) of every
    page handed out and not finished, its cause the error. `gpu_lock` is held around device
    work only (not while `feed` waits or a result is handed out); `cancel` ends the decoding
    at the next read-back, pages in the rows unfinished."""
    lock = gpu_lock if gpu_lock is not None else contextlib.nullcontext()
    opened: Rows | None = None
    ended = False
    joining: list[tuple[Any, Prompt]] = []  # handed out, being prefilled into rows
    try:
        with lock:
            opened = decoder.open_rows(rows=rows, max_prompt=max_prompt,
                                       max_new_tokens=max_new_tokens, check_every=check_every,
                                       ignore_stop=ignore_stop)  # fmt: skip
        while cancel is None or not cancel.is_set():
            free = opened.free()
            if free and not ended:
                got = feed(len(free), not opened.held())
                if got is None:
                    ended = True
                elif got:
                    joining = got
                    with lock:
                        opened.join(got)
                    joining = []
            if not opened.held():
                if ended:
                    return
                continue
            with lock:
                history = opened.step()
            yield from opened.finished(history)
            with lock:
                opened.park_idle()
    except Exception as exc:
        # Every page handed out and not finished goes back to the caller with the error.
        held = opened.held() if opened is not None else []
        seated = {id(prompt) for _, prompt in held}
        held += [(tag, prompt) for tag, prompt in joining if id(prompt) not in seated]
        if opened is not None:
            opened.close()
        raise DecodeInterrupted(held) from exc


class Batcher:
    """Runs a decoder's requests in batches (see the module): its threads, its batch size, one
    generate at a time on the device."""

    def __init__(
        self,
        decoder: Decoder,
        *,
        batch_size: int,
        max_new_tokens: int,
        max_prompt: int,
        continuous: bool = False,
        prepared_ahead: int = 1,
    ) -> None:
        self.decoder = decoder
        self.batch_size = max(1, batch_size)
        self.max_new_tokens = max_new_tokens
        self.max_prompt = max_prompt  # the longest prompt a request makes (continuous rows)
        self.continuous = continuous and decoder.decodes_rows
        # Pages a continuous stream prepares beyond its rows (PromptFeed; the prepare thread
        # holds the next item it pulled besides these).
        self.ahead_pages = prepared_ahead
        # One generate at a time: the stream's decode thread and a batch call (a re-read).
        self._lock = threading.Lock()
        self._prepare_pool: ThreadPoolExecutor | None = None

    # ------------------------------------------------------------------ pools
    @functools.cached_property
    def _page_pool(self) -> ThreadPoolExecutor:
        return ThreadPoolExecutor(min(8, os.cpu_count() or 1), thread_name_prefix="gemma-pages")

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """`fn` over `items` on the page pool (image work: PIL and numpy release the GIL)."""
        return list(self._page_pool.map(fn, items))

    def _pool(self) -> ThreadPoolExecutor:
        if self._prepare_pool is None:
            self._prepare_pool = ThreadPoolExecutor(1, thread_name_prefix="gemma-prepare")
        return self._prepare_pool

    def _prepared_ahead(self, items: Iterable[T], prepare: Callable[[T], R]) -> Iterator[R]:
        """`prepare(item)` for each item in order, one item ahead on the prepare thread: while
        the caller decodes one batch, the next item is pulled (a worker claims its pages then)
        and its preprocessing and vision run. Close it when stopping early."""
        source = iter(items)

        def pull() -> R | None:
            item = next(source, None)
            return None if item is None else prepare(item)

        upcoming = self._pool().submit(pull)
        try:
            while (ready := upcoming.result()) is not None:
                upcoming = self._pool().submit(pull)
                yield ready
        finally:
            # On an error (or a caller that stops early) the item pulled ahead is settled
            # first, so whoever claimed its pages knows of them before handling the error.
            upcoming.exception()

    def warm_up(self, request: PageRequest) -> None:
        """Run one request through every graph (a few tokens), in the state the stream decodes
        in: a continuous batcher's rows (their KV store, their CUDA graphs) are made here, when
        the worker starts, not inside the first job."""
        if not self.continuous:
            self.decoder.generate([request], max_new_tokens=4)
            return
        prompts, _ = self.decoder.prepare([request])
        feed = PromptFeed()
        feed.put([(0, dataclasses.replace(prompts[0], max_new_tokens=4))])
        feed.end()
        for _ in decode_continuous(self.decoder, feed, rows=self.batch_size,
                                   max_new_tokens=self.max_new_tokens,
                                   max_prompt=self.max_prompt, gpu_lock=self._lock):  # fmt: skip
            pass

    # ------------------------------------------------------------------ out of memory
    def _halve(self, tried: int, exc: BaseException) -> None:
        """Out of memory on `tried` pages: later batches take at most half as many."""
        self.batch_size = max(1, min(self.batch_size, tried // 2))
        self._shrunk(self.batch_size, exc)

    def _shrunk(self, size: int, exc: BaseException) -> None:
        log.warning("gemma: out of memory, batch reduced to %d page(s): %s", size, exc)

    # ------------------------------------------------------------------ batch calls
    def generate(self, requests: list[PageRequest]) -> list[Generation]:
        """Every request, in batches of `batch_size`, in order."""
        with self._lock:
            return self._generate_in_batches(requests)

    def _decode(self, prompts: list[Prompt], times: dict[str, float]) -> list[Generation]:
        """Decode prepared prompts; each generation carries the timings of its image work."""
        gens = self.decoder.generate_prompts(prompts, max_new_tokens=self.max_new_tokens)
        for gen in gens:
            gen.timings.update(times)
        return gens

    def _generate(self, requests: list[PageRequest]) -> list[Generation]:
        return self.decoder.generate(requests, max_new_tokens=self.max_new_tokens)

    def _generate_in_batches(self, requests: list[PageRequest]) -> list[Generation]:
        size = self.batch_size
        done: list[Generation] = []
        if len(requests) > size:
            # The next batch's image work on the prepare thread while this one decodes.
            chunks = [requests[i : i + size] for i in range(0, len(requests), size)]
            prepare = self.decoder.prepare
            try:
                with contextlib.closing(self._prepared_ahead(chunks, prepare)) as prepared:
                    for prompts, times in prepared:
                        done.extend(self._decode(prompts, times))
            except Exception as exc:
                if not is_out_of_memory(exc):
                    raise
                self._halve(size, exc)
        rest, fits = run_in_batches(
            requests[len(done) :], self._generate, batch_size=self.batch_size,
            on_shrink=self._shrunk,
        )  # fmt: skip
        # Only ever smaller: the decode thread may have halved it meanwhile.
        self.batch_size = min(self.batch_size, fits)
        return done + rest

    # ------------------------------------------------------------------ streams
    def stream(
        self, items: Iterable[T], split: Callable[[T], tuple[M, list[PageRequest]]]
    ) -> Iterator[tuple[M, list[Generation], float]]:
        """For each item, in order: (what `split` made of it, the generations of its requests,
        seconds per request). `split(item)` runs on the prepare thread, as the item is pulled;
        an error of `items` is raised once the items before it are read."""
        if self.continuous:
            return self._stream_rows(items, split)
        return self._stream_batches(items, split)

    def _stream_batches(
        self, items: Iterable[T], split: Callable[[T], tuple[M, list[PageRequest]]]
    ) -> Iterator[tuple[M, list[Generation], float]]:
        def prepare(item: T) -> tuple:
            meta, requests = split(item)
            return meta, requests, *(self.decoder.prepare(requests) if requests else ([], {}))

        # Decoding runs on its own thread, so the GPU goes on to the next batch while the
        # caller's thread parses the last one and records it (seconds per batch of 256).
        decoded: queue.Queue = queue.Queue(maxsize=1)
        stop = threading.Event()

        def decode_all() -> None:
            try:
                with contextlib.closing(self._prepared_ahead(items, prepare)) as prepared:
                    for meta, requests, prompts, times in prepared:
                        started = time.perf_counter()
                        try:
                            with self._lock:  # an item without requests: nothing
                                gens = self._decode(prompts, times) if prompts else []
                        except Exception as exc:
                            if not is_out_of_memory(exc):
                                raise
                            self._halve(len(prompts), exc)
                            del prompts  # their image features hold GPU memory
                            gens = self.generate(requests)  # halves until they fit
                        per_page = (time.perf_counter() - started) / max(1, len(gens))
                        if not offer(decoded, (meta, gens, per_page), stop):
                            return  # the caller stopped
            except BaseException as exc:  # raised again on the caller's thread
                offer(decoded, exc, stop)
            else:
                offer(decoded, None, stop)

        decoder = threading.Thread(target=decode_all, name="gemma-decode", daemon=True)
        decoder.start()
        try:
            while (item := decoded.get()) is not None:
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            # On an error (or a caller that stops early) the batch being decoded and the one
            # pulled ahead are settled first, so whoever claimed their pages knows of them.
            stop.set()
            decoder.join()

    def _stream_rows(
        self, items: Iterable[T], split: Callable[[T], tuple[M, list[PageRequest]]]
    ) -> Iterator[tuple[M, list[Generation], float]]:
        """The stream with continuous batching: a prepare thread pulls item after item (each
        pull claims pages) and runs its image work, a decode thread keeps `batch_size` rows
        decoding and gives each finished row the next prepared page, and the caller's thread
        gets an item's generations, in order, once all its pages are read. Items are pulled
        only as rows free up, so a worker claims pages as it can read them (several workers
        share a job page chunk by page chunk)."""
        results: queue.Queue = queue.Queue()  # item openings, read pages, errors, the end
        stop = threading.Event()
        # Prepared prompts waiting for free rows (see PromptFeed).
        feed = PromptFeed(ahead_pages=self.ahead_pages, stop=stop)
        done = object()

        def prepare_all() -> None:
            try:
                for k, item in enumerate(items):
                    meta, requests = split(item)
                    prompts, times = self.decoder.prepare(requests) if requests else ([], {})
                    results.put(("item", k, meta, times, len(prompts)))
                    pairs = [((k, j), p) for j, p in enumerate(prompts)]
                    if (pairs and not feed.put(pairs)) or stop.is_set():
                        return
            except BaseException as exc:
                # The end of the source, raised on the caller's thread once the pages already
                # in the rows are read (they are recorded, not read again).
                feed.end(exc)
                return
            feed.end()

        def decode_all() -> None:
            try:
                while True:
                    pages = decode_continuous(
                        self.decoder, feed, rows=self.batch_size,
                        max_new_tokens=self.max_new_tokens, max_prompt=self.max_prompt,
                        gpu_lock=self._lock, cancel=stop,
                    )  # fmt: skip
                    try:
                        with contextlib.closing(pages):
                            for page in pages:
                                results.put(("page", *page))
                                if stop.is_set():
                                    break
                        break
                    except DecodeInterrupted as lost:
                        cause = lost.__cause__ or lost
                        if self.batch_size == 1 or not is_out_of_memory(cause):
                            raise cause from None
                        # Out of memory: the pages it held are read again first, in half the
                        # rows; no page loses an attempt.
                        self._halve(self.batch_size, cause)
                        feed.give_back(lost.pages)
            except BaseException as exc:
                results.put(exc)
            else:
                results.put(feed.error or done)

        threads = [
            threading.Thread(target=prepare_all, name="gemma-prepare-stream", daemon=True),
            threading.Thread(target=decode_all, name="gemma-decode", daemon=True),
        ]
        for thread in threads:
            thread.start()
        opened: dict[int, dict[str, Any]] = {}
        next_k = 0
        try:
            while (got := results.get()) is not done:
                if isinstance(got, BaseException):
                    raise got
                if got[0] == "item":
                    _, k, meta, times, n = got
                    opened[k] = {"meta": meta, "times": times, "n": n, "gens": {},
                                 "started": time.perf_counter()}  # fmt: skip
                else:
                    _, (k, j), gen = got
                    gen.timings.update(opened[k]["times"])
                    opened[k]["gens"][j] = gen
                while next_k in opened and len(opened[next_k]["gens"]) == opened[next_k]["n"]:
                    one = opened.pop(next_k)
                    next_k += 1
                    gens = [one["gens"][j] for j in range(one["n"])]
                    per_page = (time.perf_counter() - one["started"]) / max(1, one["n"])
                    yield one["meta"], gens, per_page
            if opened:
                raise RuntimeError(f"the decode ended with {len(opened)} batch(es) unread")
        finally:
            # Both threads end before the caller handles an error: whoever claimed the pages
            # they hold then knows of them.
            stop.set()
            for thread in threads:
                thread.join()


__all__ = [
    "Batcher",
    "DecodeInterrupted",
    "PromptFeed",
    "decode_continuous",
    "is_out_of_memory",
    "memory_bounded_batch",
    "run_in_batches",
]
