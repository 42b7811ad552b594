"""Gemma runtime tests: one tiny random checkpoint (tests/conftest.py) + its packages per
session, and the oracle (transformers' Gemma4ForConditionalGeneration, eager attention, fp32
CPU)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest


def _build(tmp_path_factory: pytest.TempPathFactory, ckpt: Path, name: str, **kw: object) -> Path:
    from models.export.build import build_package

    out = tmp_path_factory.mktemp(name) / "pkg"
    build_package(ckpt, out, **kw)  # type: ignore[arg-type]
    return out


@pytest.fixture(scope="session")
def tiny_pkg(gemma_tiny_package: Path) -> Path:
    """The default build of tiny_ckpt (tests/conftest.py): the same package the app's tests
    use, built once a session (a build costs seconds); only its manifest's `source` note says
    "random" rather than the checkpoint's path."""
    return gemma_tiny_package


@pytest.fixture(scope="session")
def tiny_pkg_fast(tmp_path_factory: pytest.TempPathFactory, tiny_ckpt: Path) -> Path:
    return _build(tmp_path_factory, tiny_ckpt, "tiny-fast", fast=True)


@pytest.fixture(scope="session")
def tiny_pkg_ext(tmp_path_factory: pytest.TempPathFactory, tiny_ckpt: Path) -> Path:
    return _build(tmp_path_factory, tiny_ckpt, "tiny-ple-q4", ple="external")


@pytest.fixture(scope="session")
def tiny_pkg_int4(tmp_path_factory: pytest.TempPathFactory, tiny_ckpt: Path) -> Path:
    return _build(tmp_path_factory, tiny_ckpt, "tiny-int4", int4=True, ple="external")


class Oracle:
    def __init__(
        self, ckpt: Path, *, ple_table: np.ndarray | None = None, sliding_window: int | None = None
    ) -> None:
        import torch
        from transformers import AutoConfig, Gemma4ForConditionalGeneration

        self.torch = torch
        cfg = AutoConfig.from_pretrained(ckpt)
        if sliding_window is not None:  # deliberate bugs for the can-it-fail test
            cfg.text_config.sliding_window = sliding_window
        self.model = Gemma4ForConditionalGeneration.from_pretrained(
            ckpt, config=cfg, attn_implementation="eager", dtype=torch.float32
        ).eval()
        if ple_table is not None:  # the same (4-bit) PLE rows the package reads
            w = self.model.model.language_model.embed_tokens_per_layer.weight
            with torch.no_grad():
                w.copy_(torch.from_numpy(ple_table))

    def _inputs(self, ids: np.ndarray, pixels: Any) -> dict[str, Any]:
        t = self.torch
        kw: dict[str, Any] = {"input_ids": t.from_numpy(ids[None].astype(np.int64))}
        if pixels is not None:
            kw["pixel_values"] = t.from_numpy(pixels.pixel_values[None])
            kw["image_position_ids"] = t.from_numpy(pixels.position_ids[None])
        return kw

    def prefill_logits(self, ids: np.ndarray, pixels: Any) -> np.ndarray:
        with self.torch.no_grad():
            return self.model(**self._inputs(ids, pixels), use_cache=False).logits[0].numpy()

    def greedy(self, ids: np.ndarray, pixels: Any, n: int) -> list[int]:
        """n greedy tokens (no stop ids), with the model's own KV cache."""
        t = self.torch
        with t.no_grad():
            out = self.model(**self._inputs(ids, pixels), use_cache=True)
            toks = []
            for _ in range(n):
                nxt = int(out.logits[0, -1].argmax())
                toks.append(nxt)
                out = self.model(
                    input_ids=t.tensor([[nxt]]), past_key_values=out.past_key_values, use_cache=True
                )
        return toks


def rel_err(a: np.ndarray, ref: np.ndarray) -> float:
    return float(np.abs(a - ref).max() / np.abs(ref).max())


@pytest.fixture(scope="session")
def oracle() -> type[Oracle]:
    """The Oracle class (a fixture, so test modules need no package imports)."""
    return Oracle


def _continuous_tokens(fast: Any, requests: list, *, rows: int, max_new_tokens: int,
                       check_every: int) -> list[list[int]]:  # fmt: skip
    """Greedy tokens of `requests` through continuous rows (`decode_continuous`, stop ids
    ignored): every free row takes the next prepared page. In the requests' order."""
    from models.gemma.batching import decode_continuous

    prompts, _ = fast.prepare(requests)
    todo = list(enumerate(prompts))

    def feed(free: int, wait: bool) -> list | None:
        taken = todo[:free]
        del todo[:free]
        return taken or None

    got = dict(decode_continuous(fast, feed, rows=rows, max_new_tokens=max_new_tokens,
                                 ignore_stop=True, max_prompt=max(len(p.ids) for p in prompts),
                                 check_every=check_every))  # fmt: skip
    return [got[k].token_ids for k in range(len(requests))]


@pytest.fixture(scope="session")
def continuous_tokens() -> Any:
    """`_continuous_tokens` (a fixture, so test modules need no helper imports)."""
    return _continuous_tokens


def _random_page(seed: int, w: int, h: int) -> Any:
    """A page image of random pixels (PIL), w x h, from `seed`."""
    from PIL import Image

    rng = np.random.default_rng(seed)
    return Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8))


@pytest.fixture(scope="session")
def random_page() -> Any:
    """`_random_page` (a fixture, so test modules need no helper imports)."""
    return _random_page
