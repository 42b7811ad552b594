"""GemmaPageEngine on a tiny real package (random weights): requests, batching, parsing into
PageReadings, provenance, blank pages, and out-of-memory batch halving."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from PIL import Image

from models.engine import PageEngine, PageImage, StreamingEngine
from models.gemma.batching import (
    PromptFeed,
    is_out_of_memory,
    memory_bounded_batch,
    run_in_batches,
)
from models.gemma.engine import GemmaPageEngine
from models.gemma.package import sha256_file
from models.gemma.reader import BLANK_INK, ink_share
from tests.conftest import page_with_text

ORT_OOM = (
    "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while running "
    "MatMul node. Name:'/model/layers.0/attn/q_proj/MatMul' Status Message: "
    "/onnxruntime/core/framework/bfc_arena.cc:359 void* onnxruntime::BFCArena::AllocateRawInternal"
    "(size_t, bool, onnxruntime::Stream*) Failed to allocate memory for requested buffer of size "
    "1073741824"
)
CUDA_OOM = "CUDA failure 2: out of memory ; GPU=0 ; hostname=gpu1 ; expr=cudaMalloc(&p, size);"


@pytest.fixture(scope="module")
def engine(gemma_tiny_package: Path) -> GemmaPageEngine:
    return GemmaPageEngine.from_package(
        gemma_tiny_package, max_new_tokens=12, max_soft_tokens=70, batch_size=4
    )


def pages(n: int, *, blank: tuple[int, ...] = ()) -> list[PageImage]:
    out = []
    for i in range(n):
        image = (
            Image.new("RGB", (612, 792), "white")
            if i in blank
            else page_with_text([f"Page {i + 1}", "Some printed words", "and a second line"])
        )
        out.append(PageImage(image=image, page_number=10 + i, dpi=72))
    return out


def test_is_a_page_engine_and_describes_its_package(
    engine: GemmaPageEngine, gemma_tiny_package: Path
) -> None:
    assert isinstance(engine, PageEngine)
    # Streamed by flow.read_stream and warmed up by a worker (a renamed member would lose both).
    assert isinstance(engine, StreamingEngine) and engine.continuous is False
    info = engine.describe()
    manifest = json.loads((gemma_tiny_package / "manifest.json").read_text())
    assert info["engine"] == "gemma"
    assert info["package"] == manifest["model"] == "gemma-4-tiny"
    assert info["sha256"] == sha256_file(gemma_tiny_package / "manifest.json")
    assert info["provider"] == "CPUExecutionProvider"
    assert json.loads(json.dumps(info)) == info  # stored on Job.engine_info as JSON


def test_predict_batch_reads_each_page_in_order(engine: GemmaPageEngine) -> None:
    batch = pages(3, blank=(1,))
    readings = engine.predict_batch(batch)
    assert [r.page_number for r in readings] == [10, 11, 12]
    for r, p in zip(readings, batch, strict=True):
        assert r.source == "model"
        assert (r.width, r.height) == p.image.size
    blank = readings[1]
    assert blank.blocks == [] and blank.raw_text is None and blank.findings == []
    for r in (readings[0], readings[2]):
        assert isinstance(r.raw_text, str)
        assert r.timings["new_tokens"] <= 12 and r.timings["prompt_tokens"] > 70
        # Random weights never stop: the answer is cut at the limit, and that is flagged.
        codes = {f["code"] for f in r.findings}
        assert codes & {"MODEL_OUTPUT_TRUNCATED", "MODEL_REPETITION"}
        for b in r.blocks:
            assert "\x00" not in b.text


def test_batched_equals_one_by_one(engine: GemmaPageEngine) -> None:
    batch = [
        PageImage(image=page_with_text(["Short"]), page_number=1, dpi=72),
        PageImage(
            image=page_with_text(["A longer page", "with more lines"] * 5), page_number=2, dpi=72
        ),
    ]
    together = engine.predict_batch(batch)
    alone = [engine.predict_batch([p])[0] for p in batch]
    assert [r.raw_text for r in together] == [r.raw_text for r in alone]


def test_out_of_memory_halves_the_batch_and_keeps_it(
    gemma_tiny_package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = GemmaPageEngine.from_package(
        gemma_tiny_package, max_new_tokens=4, max_soft_tokens=70, batch_size=8
    )
    real = engine.runtime.generate_prompts
    sizes: list[int] = []

    def limited(prompts, **kw):  # the real runtime behind an injected 2-page memory limit
        sizes.append(len(prompts))
        if len(prompts) > 2:
            raise RuntimeError(ORT_OOM)
        return real(prompts, **kw)

    monkeypatch.setattr(engine.runtime, "generate_prompts", limited)
    readings = engine.predict_batch(pages(5))
    assert [r.page_number for r in readings] == [10, 11, 12, 13, 14]
    assert all(r.raw_text is not None for r in readings)
    assert sizes == [5, 2, 2, 1]  # 5 pages fail, halved to 2; the remainder is 1
    assert engine.batch_size == 2
    sizes.clear()
    engine.predict_batch(pages(3))
    assert sizes == [2, 1]  # later calls start from the size that worked


def test_run_in_batches_splits_and_recovers() -> None:
    calls: list[list[int]] = []

    def square(chunk: list[int]) -> list[int]:
        calls.append(chunk)
        if len(chunk) > 3:
            raise RuntimeError(CUDA_OOM)
        return [x * x for x in chunk]

    out, size = run_in_batches(list(range(10)), square, batch_size=16)
    assert out == [x * x for x in range(10)]
    assert size == 2
    assert calls[0] == list(range(10)) and calls[1] == list(range(5))
    shrinks: list[int] = []
    out, size = run_in_batches(
        [1, 2, 3], square, batch_size=3, on_shrink=lambda n, e: shrinks.append(n)
    )
    assert out == [1, 4, 9] and size == 3 and shrinks == []


def test_run_in_batches_reraises_real_errors() -> None:
    def boom(chunk: list[int]) -> list[int]:
        raise ValueError("bad input")

    with pytest.raises(ValueError):
        run_in_batches([1, 2, 3, 4], boom, batch_size=4)

    def never_fits(chunk: list[int]) -> list[int]:
        raise RuntimeError(ORT_OOM)

    with pytest.raises(RuntimeError, match="Failed to allocate"):
        run_in_batches([1, 2, 3, 4], never_fits, batch_size=4)


def test_oom_detection() -> None:
    assert is_out_of_memory(RuntimeError(ORT_OOM))
    assert is_out_of_memory(RuntimeError(CUDA_OOM))
    assert is_out_of_memory(MemoryError())
    assert not is_out_of_memory(RuntimeError("Invalid input name: pixel_values"))


def test_memory_bounded_batch() -> None:
    # E2B fp16, ~18 KiB of KV per token, 1400 prompt + 2048 new tokens, 40 GiB budget.
    n = memory_bounded_batch(
        max_batch=256, tokens_per_page=1400 + 2048, bytes_per_token=18432, budget_bytes=40 * 2**30
    )
    assert n == min(256, 40 * 2**30 // (3448 * 18432)) == 256
    n = memory_bounded_batch(
        max_batch=256, tokens_per_page=1400 + 2048, bytes_per_token=18432, budget_bytes=8 * 2**30
    )
    assert n == 8 * 2**30 // (3448 * 18432) == 135
    assert memory_bounded_batch(max_batch=8, tokens_per_page=10**6, bytes_per_token=10**6,
                                budget_bytes=1) == 1  # fmt: skip
    assert memory_bounded_batch(max_batch=8, tokens_per_page=1, bytes_per_token=1,
                                budget_bytes=0) == 8  # fmt: skip


def _until(check, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while not check() and time.monotonic() < deadline:
        time.sleep(0.02)
    return check()


def test_prompt_feed_prepares_pages_ahead_not_chunks() -> None:
    """The producer keeps `ahead_pages` pages ready (two chunks of 4 for 8), waits for the
    third chunk until rows take pages, and the rows get every page in order, then None."""
    feed = PromptFeed(ahead_pages=8)
    chunks = [[(4 * c + j, f"page{4 * c + j}") for j in range(4)] for c in range(5)]
    put: list[int] = []

    def produce() -> None:
        for chunk in chunks:
            assert feed.put(chunk)
            put.append(len(chunk))
        feed.end()

    threading.Thread(target=produce, daemon=True).start()
    assert _until(lambda: len(put) == 2)
    time.sleep(0.3)
    assert len(put) == 2  # 8 pages wait: the third chunk waits for room
    got = feed(3, False)  # three free rows take one chunk's first three pages
    assert [tag for tag, _ in got] == [0, 1, 2]
    assert _until(lambda: len(put) == 3)
    taken = got
    while (more := feed(4, True)) is not None:
        taken += more
    assert [tag for tag, _ in taken] == list(range(20))


def test_prompt_feed_holds_one_chunk_by_default() -> None:
    feed = PromptFeed()
    assert feed.put([(0, "a"), (1, "b")])
    stop_waiting = threading.Event()
    second = threading.Thread(target=lambda: stop_waiting.set() if feed.put([(2, "c")]) else None)
    second.start()
    time.sleep(0.3)
    assert not stop_waiting.is_set()  # the first chunk is not taken yet
    assert [tag for tag, _ in feed(2, False)] == [0, 1]
    assert _until(stop_waiting.is_set)
    second.join()


def test_ink_share_tells_blank_from_printed() -> None:
    assert ink_share(Image.new("RGB", (800, 1000), "white")) < BLANK_INK
    assert ink_share(Image.new("RGB", (800, 1000), (235, 232, 225))) < BLANK_INK  # grey paper
    assert ink_share(page_with_text(["One short line."], size=(1700, 2200))) > BLANK_INK
