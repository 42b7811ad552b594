"""Fast static-KV-cache graphs (models.export.fast + models.gemma.fast) against the reference
runtime: the same greedy tokens for a batch of pages of different lengths (left padding, the
sliding-window ring, KV sharing, prefill in chunks, multimodal-id remap).

Over 450 lines: every parity case shares the session's tiny packages and runtimes.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

pytestmark = pytest.mark.parity


# How onnxruntime's CUDA EP words a failed allocation.
_OOM = "CUDA failure 2: out of memory ; GPU=0 ; expr=cudaMalloc(&p, n);"


def _page(rng: np.random.Generator, w: int, h: int) -> Image.Image:
    return Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8))


def _pages(*, seed: int, n: int) -> list:
    """n random page images of growing width, numbered from 1."""
    from models.engine import PageImage

    rng = np.random.default_rng(seed)
    return [PageImage(image=_page(rng, 120 + 8 * i, 160), page_number=i + 1, dpi=100)
            for i in range(n)]  # fmt: skip


def test_fast_graphs_in_manifest(tiny_pkg_fast: Path) -> None:
    from models.gemma.package import load_package

    pkg = load_package(tiny_pkg_fast)
    fast = pkg.manifest["fast"]
    for rel in (fast["prefill"], fast["step"], fast["vision"]):
        assert rel in pkg.manifest["files"]
    assert fast["ring"] == pkg.config["text"]["sliding_window"]


def test_fast_graphs_fuse_what_they_can(tiny_pkg_fast: Path) -> None:
    """Prefill attention is one MultiHeadAttention per layer; the weightless v_norm is one
    RMSNormalization (no ReduceMean left); the tiny package's finite clamps all stay."""
    import onnx

    pkg = tiny_pkg_fast
    man = json.loads((pkg / "manifest.json").read_text())
    fast = man["fast"]
    assert fast["prefill_attention"] == "mha"
    assert fast["vision_clips_dropped"] == 0
    ops = {}
    for rel in (fast["prefill"], fast["step"], fast["vision"], "vision_encoder/model.onnx"):
        graph = onnx.load(str(pkg / rel), load_external_data=False).graph
        ops[rel] = [n.op_type for n in graph.node]
    layers = len(man["config"]["text"]["layer_types"])
    assert ops[fast["prefill"]].count("MultiHeadAttention") == layers
    assert "Softmax" not in ops[fast["prefill"]]
    for rel in (fast["prefill"], fast["step"]):
        assert "ReduceMean" not in ops[rel]
    assert ops[fast["vision"]].count("Clip") == ops["vision_encoder/model.onnx"].count("Clip")


def test_fast_graphs_rebuilt_in_place(tmp_path: Path, tiny_ckpt: Path) -> None:
    """`python -m models.export fast PKG --prefill-attention matmul` writes the fast graphs of a
    package again: the manifest says which prefill it has, every file still checks out, and the
    MatMul prefill reads the same tokens."""
    from models.export.build import build_package, rebuild_fast
    from models.gemma.fast import FastGemma
    from models.gemma.runtime import PageRequest

    pkg = tmp_path / "pkg"
    build_package(tiny_ckpt, pkg, fast=True)
    reqs = [PageRequest("Read this page.", _page(np.random.default_rng(4), 120, 160))]
    want = FastGemma(pkg, max_soft_tokens=70).generate(reqs, max_new_tokens=8, ignore_stop=True)
    man = rebuild_fast(pkg, prefill_attention="matmul")
    assert man["fast"]["prefill_attention"] == "matmul"
    got = FastGemma(pkg, max_soft_tokens=70).generate(reqs, max_new_tokens=8, ignore_stop=True)
    assert got[0].token_ids == want[0].token_ids


def test_fast_vision_drops_unbounded_clamps_only(tmp_path: Path) -> None:
    """A checkpoint whose clamps have infinite bounds (as transformers initializes them): the
    fast vision graph drops them and gives the reference graph's features; one clamp made
    finite again stays."""
    import onnx_ir as ir
    import onnxruntime as ort

    from models.export.fast_vision import drop_unbounded_clips
    from models.export.lean import build_random_lean
    from models.gemma.image import preprocess

    pkg = tmp_path / "pkg"
    man = build_random_lean("tiny", pkg, ple="graph", fast=True, clip_bounds="none")
    linears = man["fast"]["vision_clips_dropped"]
    assert linears > 0
    vis = man["config"]["vision"]
    pre = preprocess(_page(np.random.default_rng(3), 120, 160), max_soft_tokens=70,
                     patch_size=vis["patch_size"], pooling=vis["pooling_kernel_size"])  # fmt: skip
    n = int((pre.position_ids[:, 0] >= 0).sum())
    feeds = {"pixel_values": pre.pixel_values[None, :n],
             "pixel_position_ids": pre.position_ids[None, :n]}  # fmt: skip

    def features(rel: str) -> np.ndarray:
        s = ort.InferenceSession(str(pkg / rel), providers=["CPUExecutionProvider"])
        return s.run(["image_features"], feeds)[0]

    want = features("vision_encoder/model.onnx")
    got = features(man["fast"]["vision"])
    assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()
    model = ir.load(pkg / "vision_encoder" / "model.onnx")
    bound = next(v for k, v in model.graph.initializers.items() if k.endswith("output_max"))
    bound.const_value = ir.tensor(np.full(bound.shape.numpy(), 0.5, np.float32))
    assert drop_unbounded_clips(model.graph) == linears - 1


def test_fast_matches_runtime(tiny_pkg_fast: Path) -> None:
    from models.gemma.fast import FastGemma
    from models.gemma.runtime import GemmaRuntime, PageRequest

    rng = np.random.default_rng(1)
    reqs = [
        PageRequest("Read this page.", _page(rng, 120, 160)),
        PageRequest("Transcribe all the text on this page, please.", _page(rng, 160, 120)),
        PageRequest("Hi", None),
    ]
    ref = GemmaRuntime(tiny_pkg_fast, max_soft_tokens=70)
    fast = FastGemma(tiny_pkg_fast, max_soft_tokens=70, prefill_chunk=2)
    want = [ref.generate([r], max_new_tokens=24, ignore_stop=True)[0] for r in reqs]
    got = fast.generate(reqs, max_new_tokens=24, ignore_stop=True)
    for w, g in zip(want, got, strict=True):
        assert g.prompt_tokens == w.prompt_tokens
        assert g.token_ids == w.token_ids
    # Same state reused (buffers of the same shape), stop handling on.
    again = fast.generate(reqs, max_new_tokens=24)
    for w, g in zip(want, again, strict=True):
        cut = next((i for i, t in enumerate(w.token_ids) if t in fast.stop_ids), None)
        assert g.token_ids == (w.token_ids if cut is None else w.token_ids[:cut])
        assert g.finish_reason == ("length" if cut is None else "stop")


def test_batches_of_any_size_share_one_cache(tiny_pkg_fast: Path) -> None:
    """A worker sees batches of every size: they share one KV cache per length (a smaller batch
    uses its first rows, a larger one grows it) and read as a fresh engine would."""
    from models.gemma.fast import FastGemma
    from models.gemma.fast_device import batch_bucket
    from models.gemma.runtime import PageRequest

    rng = np.random.default_rng(2)
    reqs = [PageRequest("Read this page.", _page(rng, 120 + 8 * i, 160)) for i in range(5)]
    fresh = FastGemma(tiny_pkg_fast, max_soft_tokens=70, prefill_chunk=2)
    want = fresh.generate(reqs, max_new_tokens=12, ignore_stop=True)
    fast = FastGemma(tiny_pkg_fast, max_soft_tokens=70, prefill_chunk=2)
    for size in (2, 5, 3, 1):
        got = fast.generate(reqs[:size], max_new_tokens=12, ignore_stop=True)
        assert [g.token_ids for g in got] == [w.token_ids for w in want[:size]]
    assert list(fast.kv_caches.values()) == [5]  # one store, grown to the largest batch
    assert [batch_bucket(n) for n in (1, 3, 16, 17, 250)] == [1, 4, 16, 32, 256]


def test_engine_overlaps_image_work_with_decoding(tiny_pkg_fast: Path) -> None:
    """Given more pages than one batch, the engine prepares batch k+1 (preprocessing, vision)
    on a thread while batch k decodes: the same readings as one batch at a time."""
    from models.gemma.engine import GemmaPageEngine
    from models.gemma.fast import FastGemma

    pages = _pages(seed=3, n=5)
    fast = FastGemma(tiny_pkg_fast, max_soft_tokens=70, prefill_chunk=2)
    one_batch = GemmaPageEngine(fast, max_new_tokens=12, batch_size=8).predict_batch(pages)
    overlapped = GemmaPageEngine(fast, max_new_tokens=12, batch_size=2)
    readings = overlapped.predict_batch(pages)
    assert overlapped.batcher._prepare_pool is not None  # the overlapped path ran
    assert [r.raw_text for r in readings] == [r.raw_text for r in one_batch]


def test_engine_streams_batches_in_order(tiny_pkg_fast: Path) -> None:
    """predict_stream pulls the next batch (a worker claims it then) while the current one
    decodes, yields one reading list per batch in order, and pulls nothing after the end."""
    from models.gemma.engine import GemmaPageEngine
    from models.gemma.fast import FastGemma

    pages = _pages(seed=4, n=5)
    fast = FastGemma(tiny_pkg_fast, max_soft_tokens=70, prefill_chunk=2)
    engine = GemmaPageEngine(fast, max_new_tokens=12, batch_size=8)
    whole = engine.predict_batch(pages)
    pulled: list[int] = []

    def batches():
        for chunk in (pages[:2], pages[2:4], pages[4:]):
            pulled.append(len(chunk))
            yield chunk

    out = list(engine.predict_stream(batches()))
    assert pulled == [2, 2, 1]
    assert [len(r) for r in out] == [2, 2, 1]
    assert [r.raw_text for rs in out for r in rs] == [r.raw_text for r in whole]
    assert [r.page_number for rs in out for r in rs] == [1, 2, 3, 4, 5]


def test_stream_survives_out_of_memory(tiny_pkg_fast: Path) -> None:
    """A stream batch that does not fit is read again in halved batches (the smaller size is
    kept), with the same readings; the next batch streams on."""
    from models.gemma.engine import GemmaPageEngine
    from models.gemma.fast import FastGemma

    pages = _pages(seed=6, n=5)
    fast = FastGemma(tiny_pkg_fast, max_soft_tokens=70, prefill_chunk=2)
    want = GemmaPageEngine(fast, max_new_tokens=8, batch_size=8).predict_batch(pages)
    real = fast.generate_prompts
    sizes: list[int] = []

    def limited(prompts, **kw):  # an injected 2-page memory limit
        sizes.append(len(prompts))
        if len(prompts) > 2:
            raise RuntimeError(_OOM)
        return real(prompts, **kw)

    fast.generate_prompts = limited  # type: ignore[method-assign]
    engine = GemmaPageEngine(fast, max_new_tokens=8, batch_size=8)
    out = list(engine.predict_stream(iter([pages[:4], pages[4:]])))
    assert [len(r) for r in out] == [4, 1]
    assert [r.raw_text for rs in out for r in rs] == [r.raw_text for r in want]
    assert sizes == [4, 2, 2, 1] and engine.batch_size == 2


def test_stream_decodes_the_next_batch_while_the_caller_records(tiny_pkg_fast: Path) -> None:
    """The decode thread goes on to batch k+1 while the caller still holds batch k (a worker
    records its pages then); a caller that stops early leaves no thread behind, and an error
    of the batch source reaches the caller."""
    import threading

    from models.gemma.engine import GemmaPageEngine
    from models.gemma.fast import FastGemma

    pages = _pages(seed=7, n=6)
    fast = FastGemma(tiny_pkg_fast, max_soft_tokens=70, prefill_chunk=2)
    real = fast.generate_prompts
    decoding = threading.Semaphore(0)

    def counted(prompts, **kw):
        out = real(prompts, **kw)
        decoding.release()  # one batch decoded
        return out

    fast.generate_prompts = counted  # type: ignore[method-assign]
    engine = GemmaPageEngine(fast, max_new_tokens=6, batch_size=8)
    stream = engine.predict_stream(iter([pages[:2], pages[2:4], pages[4:]]))
    assert [r.page_number for r in next(stream)] == [1, 2]
    # Batches 1 and 2 are decoded while the caller still holds batch 1.
    assert decoding.acquire(timeout=30) and decoding.acquire(timeout=30)
    stream.close()  # stops early: the decode thread ends
    assert not [t for t in threading.enumerate() if t.name == "gemma-decode"]

    def failing():
        yield pages[:2]
        raise RuntimeError("claim failed")

    stream = GemmaPageEngine(fast, max_new_tokens=6, batch_size=8).predict_stream(failing())
    assert len(next(stream)) == 2
    with pytest.raises(RuntimeError, match="claim failed"):
        next(stream)


def test_continuous_decoding_matches_one_page_at_a_time(tiny_pkg_fast: Path) -> None:
    """Continuous batching: 2 rows for 5 prompts of different lengths (one without an image);
    a row that stops or reaches the limit takes the next prompt while the other row goes on.
    Each page gets the tokens it gets when generated alone, stops included."""
    from models.gemma.batching import decode_continuous
    from models.gemma.fast import FastGemma
    from models.gemma.runtime import PageRequest

    rng = np.random.default_rng(8)
    reqs = [PageRequest("Read this page.", _page(rng, 120 + 16 * i, 160)) for i in range(4)]
    reqs.insert(2, PageRequest("Hi", None))
    # TF32 off: on a CUDA machine near-tied random logits must not depend on the batch shape.
    fast = FastGemma(tiny_pkg_fast, max_soft_tokens=70, prefill_chunk=2,
                     cuda_options={"use_tf32": "0"})  # fmt: skip
    # Random weights never stop: make an id of page 1's answer a stop id, so that rows end
    # at different steps.
    fast.stop_ids = {fast.generate(reqs[:1], max_new_tokens=20)[0].token_ids[7]}
    want = [fast.generate([r], max_new_tokens=20)[0] for r in reqs]
    assert "stop" in {w.finish_reason for w in want}
    prompts, _ = fast.prepare(reqs)
    todo = list(enumerate(prompts))
    asked: list[tuple[int, bool]] = []

    def feed(free: int, wait: bool):
        asked.append((free, wait))
        if not todo:
            return None
        taken = todo[:free]
        del todo[:free]
        return taken

    width = max(len(p.ids) for p in prompts)
    got = dict(decode_continuous(fast, feed, rows=2, max_new_tokens=20, max_prompt=width,
                                 check_every=3))  # fmt: skip
    assert sorted(got) == list(range(5))
    for k, w in enumerate(want):
        assert got[k].token_ids == w.token_ids
        assert got[k].finish_reason == w.finish_reason
    assert asked[0] == (2, True)  # all rows free at the start


def test_continuous_stream_reads_like_batches(tiny_pkg_fast: Path) -> None:
    """predict_stream with continuous batching (3 rows; batches of 2, 3 and 2 pages, one of
    them blank) gives the readings of predict_batch, batch by batch, in order, also with a
    batch call made while it decodes."""
    from models.engine import PageImage
    from models.gemma.engine import GemmaPageEngine
    from models.gemma.fast import FastGemma

    pages = _pages(seed=9, n=7)
    pages[3] = PageImage(image=Image.new("RGB", (120, 160), "white"), page_number=4, dpi=100)
    fast = FastGemma(tiny_pkg_fast, max_soft_tokens=70, prefill_chunk=2)
    want = GemmaPageEngine(fast, max_new_tokens=10, batch_size=8).predict_batch(pages)
    engine = GemmaPageEngine(fast, max_new_tokens=10, batch_size=3, continuous=True)
    assert engine.continuous
    stream = engine.predict_stream(iter([pages[:2], pages[2:5], pages[5:]]))
    out = [next(stream)]
    # A batch call (a turned page read again) between two decode steps, on its own cache.
    again = engine.predict_batch(pages[4:6])
    out += list(stream)
    assert [r.raw_text for r in again] == [r.raw_text for r in want[4:6]]
    assert [len(r) for r in out] == [2, 3, 2]
    assert [r.raw_text for rs in out for r in rs] == [r.raw_text for r in want]
    assert [r.page_number for rs in out for r in rs] == list(range(1, 8))
    assert out[1][1].timings.get("blank_skipped") == 1.0


def test_continuous_warm_up_makes_the_state_the_stream_decodes_in(tiny_pkg_fast: Path) -> None:
    """A continuous engine's warm-up (at worker start) allocates the decode state of its rows;
    the first stream then reads in it (no new KV store, no new state) and reads as before."""
    from models.gemma.engine import GemmaPageEngine
    from models.gemma.fast import FastGemma

    pages = _pages(seed=4, n=3)
    fast = FastGemma(tiny_pkg_fast, max_soft_tokens=70, prefill_chunk=2)
    want = GemmaPageEngine(fast, max_new_tokens=10, batch_size=8).predict_batch(pages)
    engine = GemmaPageEngine(fast, max_new_tokens=10, batch_size=3, continuous=True)
    before = fast.decode_states
    engine.warm_up()
    states, stores = fast.decode_states, set(fast.kv_caches)
    assert len(states - before) == 1  # the continuous state: 3 rows, its own cache length
    out = [r for rs in engine.predict_stream(iter([pages[:2], pages[2:]])) for r in rs]
    assert (fast.decode_states, set(fast.kv_caches)) == (states, stores)
    assert [r.raw_text for r in out] == [r.raw_text for r in want]


def test_continuous_stream_out_of_memory_takes_fewer_rows(tiny_pkg_fast: Path) -> None:
    """Rows that do not fit: at the start (the cache) and in the middle of the stream (while
    rows decode), the stream goes on with half the rows, reads the pages it held again first
    and gives the same readings; no error reaches the caller."""
    from models.gemma.engine import GemmaPageEngine
    from models.gemma.fast import FastGemma

    pages = _pages(seed=11, n=6)
    fast = FastGemma(tiny_pkg_fast, max_soft_tokens=70, prefill_chunk=2)
    want = GemmaPageEngine(fast, max_new_tokens=8, batch_size=8).predict_batch(pages)
    real_open = fast.open_rows
    asked: list[int] = []
    reads: list[int] = []

    def limited(*, rows: int = 0, **kw):  # an injected 4-row memory limit
        asked.append(rows)
        if rows > 4:
            raise RuntimeError(_OOM)
        opened = real_open(rows=rows, **kw)
        real_finished = opened.finished

        def first_read_back_fails(history):
            held = len(opened.held())
            if held:
                reads.append(held)
                if len(reads) == 1:  # pages in the rows
                    raise RuntimeError(_OOM)
            return real_finished(history)

        opened.finished = first_read_back_fails  # type: ignore[method-assign]
        return opened

    fast.open_rows = limited  # type: ignore[method-assign]
    engine = GemmaPageEngine(fast, max_new_tokens=8, batch_size=8, continuous=True)
    out = list(engine.predict_stream(iter([pages[:3], pages[3:]])))
    assert [r.raw_text for rs in out for r in rs] == [r.raw_text for r in want]
    assert asked == [8, 4, 2] and engine.batch_size == 2 and reads[0] > 0


def test_continuous_row_past_its_limit_ends_on_length(tiny_pkg_fast: Path) -> None:
    """Rows are read back every check_every steps, so a row runs past max_new_tokens: a stop id
    after the limit does not count (as in a batch call: the answer was cut)."""
    from models.gemma.batching import decode_continuous
    from models.gemma.fast import FastGemma
    from models.gemma.runtime import PageRequest

    fast = FastGemma(tiny_pkg_fast, max_soft_tokens=70, prefill_chunk=2)
    req = PageRequest("Read this page.", _page(np.random.default_rng(12), 120, 160))
    long = fast.generate([req], max_new_tokens=9, ignore_stop=True)[0].token_ids
    # max_new_tokens 6, read back every 4 steps: the row runs 8 steps (9 ids).
    late = next(t for t in long[6:] if t not in long[:6])  # first seen after the limit
    fast.stop_ids = {late}
    prompts, _ = fast.prepare([req])
    todo = [(0, prompts[0])]

    def feed(free: int, wait: bool):
        return [todo.pop()] if todo else None

    ((_, gen),) = decode_continuous(fast, feed, rows=1, max_new_tokens=6,
                                         max_prompt=len(prompts[0].ids), check_every=4)  # fmt: skip
    assert gen.token_ids == long[:6] and gen.finish_reason == "length"


def test_a_page_limit_below_the_call_ends_its_row(tiny_pkg_fast: Path) -> None:
    """A prompt's own max_new_tokens (the throughput bench's stand-in for answers of different
    lengths): its row ends there, in batches and in continuous decoding, the others go on."""
    from dataclasses import replace

    from models.gemma.batching import decode_continuous
    from models.gemma.fast import FastGemma
    from models.gemma.runtime import PageRequest

    fast = FastGemma(tiny_pkg_fast, max_soft_tokens=70, prefill_chunk=2)
    rng = np.random.default_rng(13)
    reqs = [PageRequest("Read this page.", _page(rng, 120 + 8 * i, 160)) for i in range(3)]
    full = [g.token_ids for g in fast.generate(reqs, max_new_tokens=12, ignore_stop=True)]
    limits = [5, None, 9]
    prepared, _ = fast.prepare(reqs)
    prompts = [replace(p, max_new_tokens=n) for p, n in zip(prepared, limits, strict=True)]
    want = [ids[:n] for ids, n in zip(full, (5, 12, 9), strict=True)]
    got = fast.generate_prompts(prompts, max_new_tokens=12, ignore_stop=True)
    assert [g.token_ids for g in got] == want
    todo = list(enumerate(prompts))

    def feed(free: int, wait: bool):
        return [todo.pop(0)] if todo else None

    out = dict(decode_continuous(fast, feed, rows=2, max_new_tokens=12, check_every=4,
                                      max_prompt=max(len(p.ids) for p in prompts),
                                      ignore_stop=True))  # fmt: skip
    assert [out[k].token_ids for k in range(3)] == want


def test_streams_end_with_the_source_error_after_earlier_batches(tiny_pkg_fast: Path) -> None:
    """Both streams: a batch of blank pages only reads without the model, and an error of the
    batch source (a claim that failed) is raised after the batches before it are read."""
    from models.engine import PageImage
    from models.gemma.engine import GemmaPageEngine
    from models.gemma.fast import FastGemma

    pages = _pages(seed=13, n=3)
    blank = [PageImage(image=Image.new("RGB", (120, 160), "white"), page_number=9, dpi=100)]
    fast = FastGemma(tiny_pkg_fast, max_soft_tokens=70, prefill_chunk=2)

    def source():
        yield pages[:2]
        yield blank
        yield pages[2:]
        raise RuntimeError("claim failed")

    for continuous in (False, True):
        engine = GemmaPageEngine(fast, max_new_tokens=6, batch_size=4, continuous=continuous)
        stream = engine.predict_stream(source())
        got = [next(stream) for _ in range(3)]
        assert [len(r) for r in got] == [2, 1, 1]
        assert got[1][0].timings.get("blank_skipped") == 1.0
        with pytest.raises(RuntimeError, match="claim failed"):
            next(stream)


def test_fast_needs_fast_graphs(tiny_pkg: Path) -> None:
    from models.gemma.fast import FastGemma
    from models.gemma.package import PackageError

    with pytest.raises(PackageError, match="fast"):
        FastGemma(tiny_pkg)


@pytest.fixture
def cuda_pkg(tiny_ckpt: Path, tmp_path: Path) -> Path:
    """The tiny fp32 fast package, on a machine with onnxruntime's CUDA provider (else skip)."""
    ort = pytest.importorskip("onnxruntime")
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        pytest.skip("no CUDA execution provider")
    from models.export.build import build_package

    pkg = tmp_path / "pkg"
    build_package(tiny_ckpt, pkg, fast=True)
    return pkg


@pytest.mark.gpu
def test_fast_cuda_matches_cpu_runtime(cuda_pkg: Path) -> None:
    """On a CUDA machine: the fast path on the CUDA EP (CUDA graphs on and off) gives the CPU
    reference runtime's tokens (fp32 tiny package)."""
    from models.gemma.fast import FastGemma
    from models.gemma.runtime import GemmaRuntime, PageRequest

    pkg = cuda_pkg
    rng = np.random.default_rng(2)
    reqs = [PageRequest("Read this page.", _page(rng, 120, 160)),
            PageRequest("Transcribe all the text on this page, please.", _page(rng, 160, 120)),
            PageRequest("Hi", None)]  # fmt: skip
    ref = GemmaRuntime(pkg, max_soft_tokens=70, providers=["CPUExecutionProvider"])
    want = [ref.generate([r], max_new_tokens=24, ignore_stop=True)[0].token_ids for r in reqs]
    runs = {}
    for graph in (True, False):
        fast = FastGemma(pkg, max_soft_tokens=70, prefill_chunk=2, cuda_graph=graph,
                         providers=["CUDAExecutionProvider"],
                         cuda_options={"use_tf32": "0"})  # fmt: skip
        assert fast.cuda_graph == graph
        runs[graph] = [
            [g.token_ids for g in fast.generate(reqs, max_new_tokens=24, ignore_stop=True)]
            for _ in range(2)
        ]  # the second call replays the captured graphs
        # Smaller batches (padded to a bucket under CUDA graphs) on the same cache.
        for size in (1, 2):
            got = fast.generate(reqs[:size], max_new_tokens=24, ignore_stop=True)
            assert [g.token_ids for g in got] == runs[graph][0][:size]
    # CUDA graphs change nothing; against the CPU: random tiny weights have near-tied logits,
    # so compare a prefix (seen on an H200 with TF32 on: 11 of 12 tokens equal, then a tie).
    assert runs[True] == runs[False]
    for got in runs[True]:
        assert [g[:8] for g in got] == [w[:8] for w in want]


def _on_cuda(pkg: Path, *, seed: int, pages: int) -> tuple[Any, list, list]:
    """FastGemma on CUDA with graphs, `pages` random page requests and their prepared prompts."""
    from models.gemma.fast import FastGemma
    from models.gemma.runtime import PageRequest

    rng = np.random.default_rng(seed)
    reqs = [PageRequest("Read this page.", _page(rng, 120 + 8 * i, 160)) for i in range(pages)]
    fast = FastGemma(pkg, max_soft_tokens=70, prefill_chunk=4,
                     providers=["CUDAExecutionProvider"])  # fmt: skip
    assert fast.cuda_graph
    return fast, reqs, fast.prepare(reqs)[0]


@contextlib.contextmanager
def _vision_meanwhile(fast: Any, reqs: list) -> Iterator[list[BaseException]]:
    """`fast.prepare(reqs)` over and over on a thread while the block runs (what the worker's
    prepare thread does beside the decoding); yields the list of the errors it met."""
    errors: list[BaseException] = []
    stop = threading.Event()

    def images() -> None:
        try:
            while not stop.is_set():
                fast.prepare(reqs)
        except BaseException as exc:  # reported by the test
            errors.append(exc)

    worker = threading.Thread(target=images)
    worker.start()
    try:
        yield errors
    finally:
        stop.set()
        worker.join()


@pytest.mark.gpu
def test_capture_while_another_thread_reads_images(cuda_pkg: Path) -> None:
    """A new batch size is captured as a CUDA graph while the prepare thread runs the vision
    graph (the worker's stream does exactly this): neither may fail. Without the capture lock
    onnxruntime raised cudaErrorStreamCaptureUnsupported on an H200."""
    fast, reqs, prompts = _on_cuda(cuda_pkg, seed=5, pages=24)
    with _vision_meanwhile(fast, reqs[:4]) as errors:
        for size in (1, 3, 5, 9, 17, 24):  # each a new bucket: a new capture
            fast.generate_prompts(prompts[:size], max_new_tokens=6, ignore_stop=True)
    assert errors == []


@pytest.mark.gpu
def test_graphs_captured_on_one_thread_replay_on_others(cuda_pkg: Path) -> None:
    """onnxruntime keeps captured CUDA graphs per thread: a worker warms up on one thread and
    decodes each stream on a new one. Decoding the warmed batch size from new threads while
    another thread runs vision must neither fail (a capture again on the new thread, outside
    the capture lock, failed with CUDA error 901 on the H200) nor change the tokens."""
    fast, reqs, prompts = _on_cuda(cuda_pkg, seed=8, pages=8)
    want = [g.token_ids for g in fast.generate_prompts(prompts, max_new_tokens=12,
                                                       ignore_stop=True)]  # fmt: skip
    got: list[list[list[int]]] = []

    def decode(errors: list[BaseException]) -> None:
        try:
            gens = fast.generate_prompts(prompts, max_new_tokens=12, ignore_stop=True)
            got.append([g.token_ids for g in gens])
        except BaseException as exc:  # reported by the test
            errors.append(exc)

    with _vision_meanwhile(fast, reqs[:4]) as errors:
        for _ in range(4):  # a new thread each time, as each stream's decode thread is
            thread = threading.Thread(target=decode, args=(errors,))
            thread.start()
            thread.join()
    assert errors == []
    assert got == [want] * 4


@pytest.mark.gpu
def test_continuous_stream_on_cuda(cuda_pkg: Path) -> None:
    """On a CUDA machine, CUDA graphs on: the continuous stream (rows refilled between graph
    replays, a re-read-sized batch call in between on its own cache) reads as batches do."""
    from models.gemma.engine import GemmaPageEngine
    from models.gemma.fast import FastGemma

    pages = _pages(seed=10, n=9)
    fast = FastGemma(cuda_pkg, max_soft_tokens=70, prefill_chunk=2,
                     providers=["CUDAExecutionProvider"],
                     cuda_options={"use_tf32": "0"})  # fmt: skip
    assert fast.cuda_graph
    want = GemmaPageEngine(fast, max_new_tokens=16, batch_size=16).predict_batch(pages)
    engine = GemmaPageEngine(fast, max_new_tokens=16, batch_size=4, continuous=True)
    stream = engine.predict_stream(iter([pages[:3], pages[3:5], pages[5:]]))
    first = next(stream)
    again = engine.predict_batch(pages[:2])  # a batch call while the stream decodes
    out = [first, *stream]
    assert [r.raw_text for rs in out for r in rs] == [r.raw_text for r in want]
    assert [r.raw_text for r in again] == [r.raw_text for r in want[:2]]
