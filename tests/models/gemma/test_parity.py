"""ONNX runtime vs transformers on the tiny random Gemma 4 (window 8 < prompt, KV sharing, image,
randomized norms / layer scalars / clip bounds): prefill logits and greedy tokens."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from models.gemma import GemmaRuntime, PageRequest
from models.gemma.image import preprocess
from models.gemma.ple import Q4_0RowFile

pytestmark = pytest.mark.parity


def rel_err(a: np.ndarray, ref: np.ndarray) -> float:
    return float(np.abs(a - ref).max() / np.abs(ref).max())


SOFT = 70  # max_soft_tokens for the tiny vision tower (patch 4, pooling 3)
N_TOKENS = 32


def page(h: int, w: int, seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    base = rng.random((h // 8 + 1, w // 8 + 1, 3))  # blocky noise: survives the resize
    img = np.kron(base, np.ones((8, 8, 1)))[:h, :w] * 255
    return Image.fromarray(img.astype(np.uint8))


PAGES = [
    PageRequest("Read this page.", page(90, 130, 1)),
    PageRequest("Transcribe the page in reading order, with headings.", page(140, 100, 2)),
    PageRequest("Say hi"),
]


@pytest.fixture(scope="module", params=["graph", "external-q4_0"])
def setup(
    request: pytest.FixtureRequest, tiny_ckpt: Path, oracle: type
) -> tuple[GemmaRuntime, Any]:
    if request.param == "graph":
        rt = GemmaRuntime(request.getfixturevalue("tiny_pkg"), max_soft_tokens=SOFT)
        return rt, oracle(tiny_ckpt)
    rt = GemmaRuntime(request.getfixturevalue("tiny_pkg_ext"), max_soft_tokens=SOFT)
    assert isinstance(rt.ple, Q4_0RowFile)
    # The oracle gets the same 4-bit rows, dequantized: parity is then exact up to fp32 rounding.
    table = rt.ple.rows(np.arange(rt.ple.rows_count))
    return rt, oracle(tiny_ckpt, ple_table=table)


def pixels(rt: GemmaRuntime, req: PageRequest):  # noqa: ANN201
    if req.image is None:
        return None
    return preprocess(
        req.image,
        max_soft_tokens=SOFT,
        patch_size=rt.vision["patch_size"],
        pooling=rt.vision["pooling_kernel_size"],
    )


def test_prompt_exercises_window_sharing_and_image(setup: tuple[GemmaRuntime, Any]) -> None:
    rt, _ = setup
    ids, feats = rt.prompt_ids(PAGES[0])
    assert feats is not None and int((ids == rt.ids["image"]).sum()) == feats.shape[0] > 8
    assert len(ids) > 4 * rt.text["sliding_window"]
    assert rt.text["kv_shared_from"]  # KV sharing is active
    assert rt.text["layer_types"].count("full_attention") == 2


def test_prefill_logits_match(setup: tuple[GemmaRuntime, Any]) -> None:
    rt, oracle = setup
    for req in PAGES:
        ids, _ = rt.prompt_ids(req)
        ref = oracle.prefill_logits(ids, pixels(rt, req))
        got = rt.prefill_logits(req)
        err = rel_err(got, ref)
        print(f"prefill S={len(ids)} rel err {err:.2e}")
        assert err < 1e-3


def test_greedy_single_page(setup: tuple[GemmaRuntime, Any]) -> None:
    rt, oracle = setup
    req = PAGES[0]
    ids, _ = rt.prompt_ids(req)
    ref = oracle.greedy(ids, pixels(rt, req), N_TOKENS)
    got = rt.generate([req], max_new_tokens=N_TOKENS, ignore_stop=True)[0]
    assert got.token_ids == ref
    assert len(set(ref)) > 4  # a degenerate repeat-one-token model would prove little


def test_greedy_batch_of_different_lengths(setup: tuple[GemmaRuntime, Any]) -> None:
    rt, oracle = setup
    refs = []
    for req in PAGES:
        ids, _ = rt.prompt_ids(req)
        refs.append(oracle.greedy(ids, pixels(rt, req), N_TOKENS))
    got = rt.generate(PAGES, max_new_tokens=N_TOKENS, ignore_stop=True)
    assert len({g.prompt_tokens for g in got}) == len(PAGES)
    for g, ref in zip(got, refs, strict=True):
        assert g.token_ids == ref


def test_batch_rows_leave_when_done(setup: tuple[GemmaRuntime, Any]) -> None:
    """Different max lengths via stop ids: a row that stops early must not disturb the others."""
    rt, _ = setup
    solo = [rt.generate([r], max_new_tokens=12, ignore_stop=True)[0].token_ids for r in PAGES]
    stop = solo[1][3]  # make page 1 stop at its 4th token
    saved = rt.stop_ids
    rt.stop_ids = {stop}
    try:
        got = rt.generate(PAGES, max_new_tokens=12)
    finally:
        rt.stop_ids = saved
    for g, s in zip(got, solo, strict=True):
        cut = s.index(stop) if stop in s else len(s)
        assert g.token_ids == s[:cut]
        assert g.finish_reason == ("stop" if stop in s else "length")


def test_a_deliberate_bug_is_caught(tiny_ckpt: Path, tiny_pkg: Path, oracle: type) -> None:
    """A sliding window off by one (9 instead of 8) in the reference fails the parity check."""
    rt = GemmaRuntime(tiny_pkg, max_soft_tokens=SOFT)
    req = PAGES[0]
    ids, _ = rt.prompt_ids(req)
    wrong = oracle(tiny_ckpt, sliding_window=9).prefill_logits(ids, pixels(rt, req))
    err = rel_err(rt.prefill_logits(req), wrong)
    print(f"window 9 vs 8: rel err {err:.2e}")
    assert err > 1e-3
