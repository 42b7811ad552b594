"""GemmaPageEngine: page images -> `PageReading`s with Gemma 4 on onnxruntime.

One engine per process (see `conversion.engines` and `conversion.runner.batch`). `predict_batch`
builds one request per page (page image + the page prompt), generates them together in batches of
at most `batch_size` pages, and parses each answer with `models.gemma.parse`. An out-of-memory error
halves the batch and retries the same pages; the smaller size is kept for later calls.

Over 450 lines because it still owns scheduling (its threads, queues and out-of-memory halvings)
beside the page reading: issue 14 moves those into one batching module, not done yet.
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
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from PIL import Image

from models.engine import PageImage, PageReading
from models.gemma.page_prompt import PAGE_PROMPT, PROMPT_VERSION
from models.gemma.parse import parse_page

if TYPE_CHECKING:
    from models.gemma.runtime import GemmaRuntime, Generation, PageRequest

log = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R")

# onnxruntime (CUDA and CPU arenas) and the CUDA runtime word allocation failures these ways.
_OOM_MARKERS = (
    "out of memory",
    "failed to allocate",
    "cudaerrormemoryallocation",
    "cuda_error_out_of_memory",
    "bad_alloc",
)
# Share of dark pixels under which a page counts as blank and is not sent to the model.
BLANK_INK = 0.0002


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


class PromptFeed:
    """The `feed` of `FastGemma.decode_continuous` over prepared prompts: a producer `put`s
    (tag, Prompt) pairs a chunk at a time (waiting while `ahead` chunks are not taken yet) and
    then `end`s, with the error that ended it if any; free rows take prompts as they come."""

    def __init__(self, *, ahead: int = 1, stop: threading.Event | None = None) -> None:
        self._ready: queue.Queue = queue.Queue(maxsize=ahead)
        self._waiting: deque = deque()  # taken from `_ready`, not yet in a row
        self._stop = stop if stop is not None else threading.Event()
        self.ended = False
        self.error: BaseException | None = None  # what ended the producer, if not the end

    def put(self, pairs: list) -> bool:
        """False when the consumer stopped."""
        return offer(self._ready, pairs, self._stop)

    def end(self, error: BaseException | None = None) -> None:
        offer(self._ready, error, self._stop)

    def give_back(self, pairs: list) -> None:
        """Pages a row held and did not finish: they go first."""
        self._waiting.extendleft(reversed(pairs))

    def __call__(self, free: int, wait: bool) -> list | None:
        while len(self._waiting) < free and not self.ended:
            block = wait and not self._waiting
            try:
                item = self._ready.get(timeout=0.2) if block else self._ready.get_nowait()
            except queue.Empty:
                if block and not self._stop.is_set():
                    continue
                break
            if item is None or isinstance(item, BaseException):
                self.ended, self.error = True, item
            else:
                self._waiting.extend(item)
        if self._stop.is_set() or (self.ended and not self._waiting):
            return None
        return [self._waiting.popleft() for _ in range(min(free, len(self._waiting)))]


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


def memory_bounded_batch(
    *, max_batch: int, tokens_per_page: int, bytes_per_token: int, budget_bytes: int
) -> int:
    """Pages per batch whose KV cache fits `budget_bytes` (at least 1, at most `max_batch`)."""
    if budget_bytes <= 0:
        return max(1, max_batch)
    per_page = max(1, tokens_per_page * bytes_per_token)
    return max(1, min(max_batch, budget_bytes // per_page))


def ink_share(image: Image.Image) -> float:
    """Share of pixels clearly darker than the page background (on a <=1024 px copy)."""
    gray = image.convert("L")
    gray.thumbnail((1024, 1024), Image.Resampling.BOX)
    a = np.asarray(gray, dtype=np.int16)
    if a.size == 0:
        return 0.0
    background = int(np.percentile(a, 90))
    return float(np.mean(a < min(160, background - 80)))


class GemmaPageEngine:
    """The `gemma` PageEngine (see `models.engine.PageEngine`)."""

    name = "gemma"

    def __init__(
        self,
        runtime: GemmaRuntime,
        *,
        max_new_tokens: int = 2048,
        batch_size: int = 16,
        kv_budget_bytes: int = 0,
        prompt: str = PAGE_PROMPT,
        reread_rotated: bool = True,
        continuous: bool = False,
    ) -> None:
        self.runtime = runtime
        self.max_new_tokens = max_new_tokens
        self.prompt = prompt
        self.reread_rotated = reread_rotated
        # Continuous batching in predict_stream (a runtime with decode_continuous: FastGemma).
        self.continuous = continuous and hasattr(runtime, "decode_continuous")
        self._prepare_pool: ThreadPoolExecutor | None = None
        # One generate at a time: the stream's decode thread and a re-read of a turned page.
        self._runtime_lock = threading.Lock()
        pkg = runtime.package
        self._sha256 = pkg.sha256  # hashes the manifest: once, not per page
        text = pkg.config["text"]
        # KV bytes per token: k and v for each cached layer (the rest share them).
        dims = text.get("kv_head_dims") or []
        itemsize = 2 if pkg.dtype in ("fp16", "bf16") else 4
        bytes_per_token = (
            2 * int(text.get("num_key_value_heads", 1)) * sum(d for d in dims if d) * itemsize
        )
        image_tokens = runtime.max_soft_tokens
        prompt_tokens = image_tokens + len(runtime.prompts.encode_text(prompt)) + 16
        self._max_prompt = prompt_tokens
        self.batch_size = memory_bounded_batch(
            max_batch=batch_size,
            tokens_per_page=prompt_tokens + max_new_tokens,
            bytes_per_token=bytes_per_token,
            budget_bytes=kv_budget_bytes,
        )

    @classmethod
    def from_package(
        cls,
        model_dir: Path | str,
        *,
        max_new_tokens: int = 2048,
        max_soft_tokens: int = 1120,
        batch_size: int = 16,
        kv_budget_gb: float = 0.0,
        device_id: int = 0,
        providers: Sequence[str] | None = None,
        verify: bool = True,
        continuous: bool = False,
    ) -> GemmaPageEngine:
        """Load and verify the package (sha256 of every file) and open its sessions."""
        import onnxruntime as ort  # only when an engine is built

        from models.gemma.package import load_package

        package = load_package(model_dir, verify=verify)
        on_cuda = "CUDAExecutionProvider" in (providers or ort.get_available_providers())
        runtime: Any
        if on_cuda and package.manifest.get("fast") and package.ple.get("placement") != "external":
            # The GPU fast path: static KV cache on the device, CUDA-graph decode steps.
            from models.gemma.fast import FastGemma

            runtime = FastGemma(
                package, max_soft_tokens=max_soft_tokens, providers=providers, device_id=device_id
            )
        else:
            from models.gemma.runtime import GemmaRuntime

            runtime = GemmaRuntime(
                package,
                max_soft_tokens=max_soft_tokens,
                providers=providers,
                device_id=device_id,
                verify=verify,
            )
        return cls(
            runtime,
            max_new_tokens=max_new_tokens,
            batch_size=batch_size,
            kv_budget_bytes=int(kv_budget_gb * 2**30),
            continuous=continuous,
        )

    def warm_up(self) -> None:
        """Run one synthetic page through every graph (a few tokens), so that the first real
        batch does not pay for session warm-up."""
        from models.gemma.runtime import PageRequest

        page = Image.new("RGB", (850, 1100), "white")
        page.paste((0, 0, 0), (100, 100, 750, 140))
        request = PageRequest(prompt=self.prompt, image=page)
        if not self.continuous:
            self.runtime.generate([request], max_new_tokens=4)
            return
        # The continuous state the stream decodes in (its KV store for `batch_size` rows, its
        # CUDA graphs) is made here, when the worker starts, not inside the first job.
        runtime: Any = self.runtime
        prompts, _ = runtime.prepare([request])
        feed = PromptFeed(ahead=2)
        feed.put([(0, dataclasses.replace(prompts[0], max_new_tokens=4))])
        feed.end()
        for _ in runtime.decode_continuous(feed, rows=self.batch_size,
                                           max_new_tokens=self.max_new_tokens,
                                           max_prompt=self._max_prompt,
                                           gpu_lock=self._runtime_lock):  # fmt: skip
            pass

    def describe(self) -> dict[str, Any]:
        pkg = self.runtime.package
        return {
            "engine": self.name,
            "package": pkg.manifest.get("model") or pkg.root.name,
            "sha256": self._sha256,
            "dtype": pkg.dtype,
            "provider": self.runtime.provider,
            "prompt": PROMPT_VERSION,
            "max_new_tokens": self.max_new_tokens,
            "max_soft_tokens": self.runtime.max_soft_tokens,
            "decode": "continuous" if self.continuous else "batch",
        }

    # ------------------------------------------------------------------ reading
    def predict_batch(self, pages: list[PageImage]) -> list[PageReading]:
        readings, todo = self._split_blank(pages)
        first = self._read([img for _, img in todo], rotation=[0] * len(todo))
        return self._finish(pages, readings, todo, first)

    def predict_stream(self, batches: Iterable[list[PageImage]]) -> Iterator[list[PageReading]]:
        """Read batch after batch, in order. While one batch decodes, the next one is pulled from
        `batches` (a worker claims its pages then) and its preprocessing and vision run on a
        thread, so the GPU never waits for image work between batches. Runtimes without a
        separate image step (GemmaRuntime) read each batch with `predict_batch`."""
        runtime: Any = self.runtime
        if not hasattr(runtime, "prepare"):
            for pages in batches:
                yield self.predict_batch(pages)
            return
        if self.continuous:
            yield from self._stream_continuous(batches)
            return

        def prepare(pages: list[PageImage]) -> tuple:
            return pages, *self._prepare_pages(pages)

        # Decoding runs on its own thread, so the GPU goes on to the next batch while this
        # thread parses the last one and the caller records it (seconds per batch of 256).
        decoded: queue.Queue = queue.Queue(maxsize=1)
        stop = threading.Event()

        def decode_all() -> None:
            try:
                with contextlib.closing(self._prepared_ahead(batches, prepare)) as prepared:
                    for pages, readings, todo, (prompts, times) in prepared:
                        started = time.perf_counter()
                        try:
                            with self._runtime_lock:  # a batch of blank pages: nothing
                                gens = self._decode(prompts, times) if prompts else []
                        except Exception as exc:
                            if not is_out_of_memory(exc):
                                raise
                            self._halve(len(prompts), exc)
                            del prompts  # their image features hold GPU memory
                            # Halves its batches until they fit.
                            gens = self._generate_all(self._requests([img for _, img in todo]))
                        per_page = (time.perf_counter() - started) / max(1, len(gens))
                        if not offer(decoded, (pages, readings, todo, gens, per_page), stop):
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
                yield self._readings(*item)
        finally:
            # On an error (or a caller that stops early) the batch being decoded and the one
            # pulled ahead are settled first, so whoever claimed their pages knows of them.
            stop.set()
            decoder.join()

    def _stream_continuous(self, batches: Iterable[list[PageImage]]) -> Iterator[list[PageReading]]:
        """predict_stream with continuous batching: a prepare thread pulls batch after batch
        (each pull claims pages) and runs its image work, a decode thread keeps
        `batch_size` rows decoding and gives each finished row the next prepared page, and
        this thread parses; a batch's readings come out, in order, once all its pages are
        read. Batches are pulled only as rows free up, so a worker claims pages as it can read
        them (several workers share a job page chunk by page chunk)."""
        runtime: Any = self.runtime
        results: queue.Queue = queue.Queue()  # batch openings, read pages, errors, the end
        stop = threading.Event()
        feed = PromptFeed(stop=stop)  # prepared prompts waiting for free rows
        done = object()

        def prepare_all() -> None:
            try:
                for k, pages in enumerate(batches):
                    readings, todo, (prompts, times) = self._prepare_pages(pages)
                    results.put(("batch", k, pages, readings, todo, times, len(prompts)))
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
            from models.gemma.fast import DecodeInterrupted

            try:
                while True:
                    pages = runtime.decode_continuous(
                        feed, rows=self.batch_size, max_new_tokens=self.max_new_tokens,
                        max_prompt=self._max_prompt, gpu_lock=self._runtime_lock, cancel=stop,
                    )  # fmt: skip
                    try:
                        with contextlib.closing(pages):
                            for item in pages:
                                results.put(("page", *item))
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
            while (item := results.get()) is not done:
                if isinstance(item, BaseException):
                    raise item
                if item[0] == "batch":
                    _, k, pages, readings, todo, times, n = item
                    opened[k] = {"pages": pages, "readings": readings, "todo": todo,
                                 "times": times, "n": n, "gens": {},
                                 "started": time.perf_counter()}  # fmt: skip
                else:
                    _, (k, j), gen = item
                    gen.timings.update(opened[k]["times"])
                    opened[k]["gens"][j] = gen
                while next_k in opened and len(opened[next_k]["gens"]) == opened[next_k]["n"]:
                    batch = opened.pop(next_k)
                    next_k += 1
                    gens = [batch["gens"][j] for j in range(batch["n"])]
                    per_page = (time.perf_counter() - batch["started"]) / max(1, batch["n"])
                    yield self._readings(batch["pages"], batch["readings"], batch["todo"], gens,
                                         per_page)  # fmt: skip
            if opened:
                raise RuntimeError(f"the decode ended with {len(opened)} batch(es) unread")
        finally:
            # Both threads end before the caller handles an error: whoever claimed the pages
            # they hold then knows of them.
            stop.set()
            for thread in threads:
                thread.join()

    def _readings(
        self,
        pages: list[PageImage],
        readings: list[PageReading | None],
        todo: list[tuple[int, Image.Image]],
        gens: list[Generation],
        per_page: float,
    ) -> list[PageReading]:
        """A streamed batch's readings from its decoded pages (parsed, turned pages read again)."""
        images = [img for _, img in todo]
        first = self._parse(images, [0] * len(images), gens, per_page)
        return self._finish(pages, readings, todo, first)

    def _prepare_pages(self, pages: list[PageImage]) -> tuple:
        """(readings of the blank pages, (position, image) of the others, (their prepared
        prompts, image-work timings)): a stream's image work for one batch."""
        readings, todo = self._split_blank(pages)
        requests = self._requests([img for _, img in todo])
        runtime: Any = self.runtime
        return readings, todo, runtime.prepare(requests) if requests else ([], {})

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

    def _decode(self, prompts: list, times: dict[str, float]) -> list[Generation]:
        """Decode prepared prompts; each generation carries the timings of its image work."""
        runtime: Any = self.runtime  # a runtime with a separate image step (FastGemma)
        gens = runtime.generate_prompts(prompts, max_new_tokens=self.max_new_tokens)
        for gen in gens:
            gen.timings.update(times)
        return gens

    def _halve(self, tried: int, exc: BaseException) -> None:
        """Out of memory on `tried` pages: later batches take at most half as many."""
        self.batch_size = max(1, min(self.batch_size, tried // 2))
        self._shrunk(self.batch_size, exc)

    @functools.cached_property
    def _page_pool(self) -> ThreadPoolExecutor:
        return ThreadPoolExecutor(min(8, os.cpu_count() or 1), thread_name_prefix="gemma-pages")

    def _pool(self) -> ThreadPoolExecutor:
        if self._prepare_pool is None:
            self._prepare_pool = ThreadPoolExecutor(1, thread_name_prefix="gemma-prepare")
        return self._prepare_pool

    def _split_blank(
        self, pages: list[PageImage]
    ) -> tuple[list[PageReading | None], list[tuple[int, Image.Image]]]:
        """Readings of the blank pages (the rest None) and (position, RGB image) of the pages
        the model must read."""
        readings: list[PageReading | None] = [None] * len(pages)
        todo: list[tuple[int, Image.Image]] = []
        rgb = list(self._page_pool.map(lambda p: p.image.convert("RGB"), pages))
        inked = list(self._page_pool.map(ink_share, rgb))  # PIL and numpy release the GIL
        for i, (page, image) in enumerate(zip(pages, rgb, strict=True)):
            if inked[i] < BLANK_INK:
                # Nothing printed: never ask a model to invent text for an empty page.
                readings[i] = PageReading(
                    page_number=page.page_number,
                    blocks=[],
                    width=image.width,
                    height=image.height,
                    source="model",
                    timings={"blank_skipped": 1.0},
                )
            else:
                todo.append((i, image))
        return readings, todo

    def _finish(
        self,
        pages: list[PageImage],
        readings: list[PageReading | None],
        todo: list[tuple[int, Image.Image]],
        first: list[tuple[PageReading, int]],
    ) -> list[PageReading]:
        """Place the first readings, read turned pages once more upright, number them."""
        again: list[tuple[int, int]] = []  # (position in todo, rotation)
        for k, ((i, _), (reading, turn)) in enumerate(zip(todo, first, strict=True)):
            readings[i] = reading
            if turn and self.reread_rotated:
                again.append((k, turn))
            elif turn:
                reading.findings.append(
                    {
                        "code": "MODEL_PAGE_ROTATED",
                        "level": "needs_review",
                        "message": f"The page looks turned by {turn} degrees; it was read as is.",
                    }
                )
        if again:
            # The model read the page sideways: turn it upright and read it once more.
            images = [todo[k][1].rotate(-rot, expand=True) for k, rot in again]
            second = self._read(images, rotation=[rot for _, rot in again])
            for (k, _), (reading, _) in zip(again, second, strict=True):
                readings[todo[k][0]] = reading
        out: list[PageReading] = []
        for page, reading in zip(pages, readings, strict=True):
            assert reading is not None
            reading.page_number = page.page_number
            out.append(reading)
        return out

    def _requests(self, images: list[Image.Image]) -> list[PageRequest]:
        from models.gemma.runtime import PageRequest

        return [PageRequest(prompt=self.prompt, image=img) for img in images]

    def _read(
        self, images: list[Image.Image], *, rotation: list[int]
    ) -> list[tuple[PageReading, int]]:
        """Generate and parse. `rotation`: how each image was already turned (0: as scanned).
        Returns each reading with the turn the model still asks for (0 once turned)."""
        if not images:
            return []
        started = time.perf_counter()
        generations = self._generate_all(self._requests(images))
        per_page = (time.perf_counter() - started) / len(images)
        return self._parse(images, rotation, generations, per_page)

    def _parse(
        self,
        images: list[Image.Image],
        rotation: list[int],
        generations: list[Generation],
        per_page: float,
    ) -> list[tuple[PageReading, int]]:
        readings = []
        for img, rot, gen in zip(images, rotation, generations, strict=True):
            parsed = parse_page(
                gen.text,
                width=img.width,
                height=img.height,
                truncated=gen.finish_reason == "length",
            )
            readings.append(
                (
                    PageReading(
                        page_number=0,
                        blocks=parsed.blocks,
                        width=img.width,
                        height=img.height,
                        language=parsed.language,
                        rotation=rot,
                        source="model",
                        findings=parsed.findings,
                        raw_text=gen.text,
                        timings={
                            "generate_s": per_page,
                            "prompt_tokens": float(gen.prompt_tokens),
                            "new_tokens": float(len(gen.token_ids)),
                        },
                    ),
                    0 if rot else parsed.rotation,
                )
            )
        return readings

    def _generate(self, requests: list[PageRequest]) -> list[Generation]:
        return self.runtime.generate(requests, max_new_tokens=self.max_new_tokens)

    def _generate_all(self, requests: list[PageRequest]) -> list[Generation]:
        """Every request, in batches of `batch_size`. With a runtime that splits image work from
        decoding (FastGemma), the next batch's preprocessing and vision run on a thread while
        the current batch decodes. Out of memory falls back to halving batches."""
        with self._runtime_lock:
            return self._generate_in_batches(requests)

    def _generate_in_batches(self, requests: list[PageRequest]) -> list[Generation]:
        runtime: Any = self.runtime
        size = self.batch_size
        done: list[Generation] = []
        if len(requests) > size and hasattr(runtime, "prepare"):
            chunks = [requests[i : i + size] for i in range(0, len(requests), size)]
            try:
                with contextlib.closing(self._prepared_ahead(chunks, runtime.prepare)) as prepared:
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

    def _shrunk(self, size: int, exc: BaseException) -> None:
        log.warning("gemma: out of memory, batch reduced to %d page(s): %s", size, exc)
