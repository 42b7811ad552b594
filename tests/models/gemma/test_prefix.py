"""The prompt prefix cache: the page prompt puts the instruction before the image, so every page
of one prompt starts with the same ids; both runtimes prefill that prefix once and start each
page from its KV. Greedy tokens must be those of a full prefill (tiny random package: window 8
or 128, KV sharing, full and sliding layers)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

SOFT = 70  # max_soft_tokens of the tiny vision tower
SAME = "Read this page."
OTHER = "Transcribe all the text on this page, please, in reading order."


def _requests(page: Any) -> list:
    """Pages of one prompt (two of one size: a run that prefills together), another prompt,
    a text-only prompt and a page of another size."""
    from models.gemma.decoder import PageRequest

    return [PageRequest(SAME, page(1, 120, 160)), PageRequest(SAME, page(2, 120, 160)),
            PageRequest(OTHER, page(3, 160, 120)), PageRequest("Hi"),
            PageRequest(SAME, page(4, 136, 160))]  # fmt: skip


def test_instruction_comes_before_the_image(tiny_pkg: Path) -> None:
    """Pages of one prompt share every id before the image block (whatever the image size);
    a package may still ask for the image first; an unknown order is an error."""
    from models.gemma.package import load_package
    from models.gemma.prompt import PromptBuilder

    pkg = load_package(tiny_pkg)
    tok = pkg.path(pkg.manifest["tokenizer"])
    builder = PromptBuilder(tok, prompt=pkg.prompt, ids=pkg.config["ids"])
    small, large = (builder.build(content=SAME, image_tokens=n) for n in (60, 70))
    boi = pkg.config["ids"]["boi"]
    assert small.prefix == large.prefix == int(np.argmax(small.ids == boi)) > 4
    assert np.array_equal(small.ids[: small.prefix], large.ids[: large.prefix])
    assert builder.decode(list(small.ids[: small.prefix]), skip_special=False).endswith(SAME)
    assert builder.build(content=SAME).prefix == 0  # no image: nothing shared to cut at
    first = PromptBuilder(tok, prompt={**pkg.prompt, "image_position": "before_text"},
                          ids=pkg.config["ids"]).build(content=SAME, image_tokens=60)  # fmt: skip
    assert first.ids[first.prefix] == boi and first.prefix < small.prefix
    assert sorted(first.ids) == sorted(small.ids)
    with pytest.raises(ValueError, match="image_position"):
        PromptBuilder(tok, prompt={**pkg.prompt, "image_position": "middle"}, ids=pkg.config["ids"])


@pytest.mark.parity
def test_reference_prefix_cache_reads_like_a_full_prefill(tiny_pkg: Path, random_page: Any) -> None:
    """GemmaRuntime with the prefix cache: the same greedy tokens as full prefills, one page at
    a time and in a batch, and the prefilled positions' logits (only those after the prefix)."""
    from models.gemma.runtime import GemmaRuntime

    reqs = _requests(random_page)
    full = GemmaRuntime(tiny_pkg, max_soft_tokens=SOFT, prefix_cache=False)
    cached = GemmaRuntime(tiny_pkg, max_soft_tokens=SOFT)
    want = [full.generate([r], max_new_tokens=24, ignore_stop=True)[0].token_ids for r in reqs]
    got = cached.generate(reqs, max_new_tokens=24, ignore_stop=True)
    assert [g.token_ids for g in got] == want
    assert [g.prompt_tokens for g in got] == [len(full.prompt(r).ids) for r in reqs]
    p = cached.prompt(reqs[0])
    ref = full.prefill(p.ids, p.features)["logits"].numpy()[0, p.prefix :]
    out = cached.prefill(p.ids, p.features, p.prefix)["logits"].numpy()[0]
    assert out.shape == ref.shape and np.abs(out - ref).max() <= 1e-4 * np.abs(ref).max()


@pytest.mark.parity
def test_fast_prefix_cache_reads_like_a_full_prefill(
    tiny_pkg_fast: Path, continuous_tokens: Any, random_page: Any
) -> None:
    """FastGemma with the prefix cache (the prefill_past graph), in batches and in continuous
    rows: the reference runtime's tokens from full prefills."""
    from models.gemma.fast import FastGemma
    from models.gemma.runtime import GemmaRuntime

    reqs = _requests(random_page)
    ref = GemmaRuntime(tiny_pkg_fast, max_soft_tokens=SOFT, prefix_cache=False)
    want = [ref.generate([r], max_new_tokens=20, ignore_stop=True)[0].token_ids for r in reqs]
    fast = FastGemma(tiny_pkg_fast, max_soft_tokens=SOFT, prefill_chunk=2)
    assert fast.pre_past is not None
    got = fast.generate(reqs, max_new_tokens=20, ignore_stop=True)
    assert [g.token_ids for g in got] == want
    assert continuous_tokens(fast, reqs, rows=3, max_new_tokens=20, check_every=4) == want


@pytest.mark.parity
@pytest.mark.slow
def test_prefix_cache_with_a_window_wider_than_the_image(
    tmp_path_factory: pytest.TempPathFactory, random_page: Any
) -> None:
    """A sliding window (128) wider than what follows the prefix (~90 tokens): the rows' rings
    then hold prefix keys too (one prompt's prefix and suffix fit in the window, the other's
    wrap around it). Fast path with the cache = reference runtime without it; so is the
    cascade step (each prompt's pages a batch: its prefix in the rings, not in the caches)."""
    from models.export.build import build_package
    from models.export.checkpoint import write_checkpoint
    from models.gemma.fast import FastGemma
    from models.gemma.runtime import GemmaRuntime

    root = tmp_path_factory.mktemp("tiny-window-128")
    ckpt = write_checkpoint("tiny", root / "ckpt", seed=1, sliding_window=128)
    pkg = root / "pkg"
    build_package(ckpt, pkg, fast=True, cascade=True)
    reqs = _requests(random_page)
    ref = GemmaRuntime(pkg, max_soft_tokens=SOFT, prefix_cache=False)
    prompts = [ref.prompt(r) for r in reqs]
    fits = [len(p.ids) <= 128 for p in prompts if p.prefix]
    assert True in fits and False in fits  # both ring cases
    want = [ref.generate([r], max_new_tokens=16, ignore_stop=True)[0].token_ids for r in reqs]
    cached = GemmaRuntime(pkg, max_soft_tokens=SOFT)
    assert [g.token_ids for g in cached.generate(reqs, max_new_tokens=16, ignore_stop=True)] == want
    fast = FastGemma(pkg, max_soft_tokens=SOFT, prefill_chunk=2)
    assert [g.token_ids for g in fast.generate(reqs, max_new_tokens=16, ignore_stop=True)] == want
    cascade = FastGemma(pkg, max_soft_tokens=SOFT, prefill_chunk=2, cascade=True)
    for text in (SAME, OTHER):
        group = [k for k, r in enumerate(reqs) if r.prompt == text and r.image is not None]
        got = cascade.generate([reqs[k] for k in group], max_new_tokens=16, ignore_stop=True)
        assert [g.token_ids for g in got] == [want[k] for k in group]
    assert all(len(key) == 4 for key in cascade.decode_states)  # cascade states only


@pytest.mark.gpu
def test_fast_prefix_cache_on_cuda_reads_like_cpu_full_prefill(
    tmp_path_factory: pytest.TempPathFactory, tiny_ckpt: Path, random_page: Any
) -> None:
    """On a CUDA machine: the fast path with the prefix cache (CUDA graphs on, TF32 off) gives
    the CPU reference runtime's tokens from full prefills (fp32 tiny package)."""
    ort = pytest.importorskip("onnxruntime")
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        pytest.skip("no CUDA execution provider")
    from models.export.build import build_package
    from models.gemma.fast import FastGemma
    from models.gemma.runtime import GemmaRuntime

    pkg = tmp_path_factory.mktemp("tiny-cuda") / "pkg"
    build_package(tiny_ckpt, pkg, fast=True)
    reqs = _requests(random_page)
    ref = GemmaRuntime(pkg, max_soft_tokens=SOFT, providers=["CPUExecutionProvider"],
                       prefix_cache=False)  # fmt: skip
    want = [ref.generate([r], max_new_tokens=20, ignore_stop=True)[0].token_ids for r in reqs]
    fast = FastGemma(pkg, max_soft_tokens=SOFT, prefill_chunk=2, cuda_options={"use_tf32": "0"})
    assert fast.cuda and fast.pre_past is not None
    got = fast.generate(reqs, max_new_tokens=20, ignore_stop=True)
    assert [g.token_ids for g in got] == want
