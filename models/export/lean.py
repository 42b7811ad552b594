"""Memory-lean build of random-weight packages (the E2B shape on a 24 GiB machine).

The regular route materializes a transformers checkpoint (E2B: ~19 GB fp32) and then mobius'
copy of it. Here no transformers model is ever instantiated with weights: tensor shapes come
from a meta-device model, values from `checkpoint.random_value` (a function of seed and name, so
the same weights as `write_checkpoint`), and each graph gets its weights, is saved and is freed
before the next. With `ple="external"` the PLE table is cut from the embedding graph before any
weight exists and is streamed into the 4-bit row file chunk by chunk.
"""

from __future__ import annotations

import gc
import logging
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from models.export import build as B
from models.export.checkpoint import PLE_KEY, ROW_CHUNK, make_config, random_value

log = logging.getLogger(__name__)


def _group(name: str) -> set[str]:
    """Which graphs an HF checkpoint key ends up in."""
    if name.startswith(("model.vision_tower.", "model.embed_vision.")):
        return {"vision_encoder"}
    if name == "model.language_model.embed_tokens.weight":
        return {"embedding", "decoder"}  # tied LM head
    if name.startswith("model.language_model.") and (
        ".embed_tokens_per_layer" in name or ".per_layer_model_projection" in name
        or ".per_layer_projection_norm" in name
    ):  # fmt: skip
        return {"embedding"}
    return {"decoder"}


def _stream_ple_q4_0(path: Path, shape: tuple[int, int], *, seed: int) -> None:
    from models.gemma.ple import q4_0_quantize

    with open(path, "wb") as f:
        for s in range(0, shape[0], ROW_CHUNK):
            rows = slice(s, min(s + ROW_CHUNK, shape[0]))
            t = random_value(PLE_KEY, shape, seed=seed, rows=rows).numpy()
            d, qs = q4_0_quantize(t)
            blocks = np.concatenate([d.view(np.uint8).reshape(*d.shape, 2), qs], axis=-1)
            f.write(blocks.tobytes())


def build_random_lean(
    kind: str,
    out: Path,
    *,
    dtype: str = "fp32",
    int4: bool = False,
    ple: str = "external",
    ep: str = "default",
    seed: int = 0,
    fast: bool = False,
    clip_bounds: str = "random",
    prefill_attention: str = "mha",
    vision_fusions: bool = True,
    decoder_fusions: bool = True,
    cascade: bool = False,
) -> dict[str, Any]:
    """Write a random-weight package of `kind` ("tiny" or "e2b") to `out`; returns the manifest.
    clip_bounds "none": the vision tower's clippable linears get bounds of -inf/+inf (clamps
    that clamp nothing, as transformers initializes them) instead of random finite ones, for
    speed runs shaped like a checkpoint whose clamps are no-ops (issue 18)."""
    if clip_bounds not in ("random", "none"):
        raise ValueError(f"clip_bounds {clip_bounds!r}: random or none")

    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="axiya-cfg-") as tmp:
        return _build(kind, out, Path(tmp), dtype=dtype, int4=int4, ple=ple, ep=ep, seed=seed,
                      fast=fast, clip_bounds=clip_bounds, prefill_attention=prefill_attention,
                      vision_fusions=vision_fusions, decoder_fusions=decoder_fusions,
                      cascade=cascade)  # fmt: skip


def _unbounded(name: str, value: Any) -> Any:
    """A clip bound of -inf/+inf in place of `value` (same shape and dtype)."""
    return value.fill_(float("-inf") if name.endswith("_min") else float("inf"))


def _build(kind: str, out: Path, ck: Path, *, dtype: str, int4: bool, ple: str, ep: str,
           seed: int, fast: bool = False, clip_bounds: str = "random",
           prefill_attention: str = "mha", vision_fusions: bool = True,
           decoder_fusions: bool = True, cascade: bool = False) -> dict[str, Any]:  # fmt: skip
    import torch
    from transformers import Gemma4ForConditionalGeneration

    from models.export.tokenizer import write_tokenizer

    config = make_config(kind)
    config.save_pretrained(ck)  # config.json only: mobius and the manifest read it
    with torch.device("meta"):
        shapes = {k: tuple(v.shape) for k, v in
                  Gemma4ForConditionalGeneration(config).state_dict().items()}  # fmt: skip
    shapes.pop("lm_head.weight", None)
    mod, pkg = B.mobius_graphs(ck, dtype=dtype, ep="cuda" if ep == "cuda" else "default")
    ple_info: dict[str, Any] = {"placement": "graph"}
    if ple == "external":
        B.cut_ple(pkg.data["embedding"])
        shapes_ple = shapes.pop(PLE_KEY)
        _stream_ple_q4_0(out / B.PLE_FILE, shapes_ple, seed=seed)
        ple_info = {"placement": "external", "input": B.PLE_INPUT, "file": B.PLE_FILE,
                    "format": "ggml-q4_0", "rows": shapes_ple[0], "width": shapes_ple[1],
                    "scale_in_graph": True, "pad_remap": "caller"}  # fmt: skip
    for comp in ("vision_encoder", "embedding", "decoder"):
        state = {k: random_value(k, s, seed=seed) for k, s in shapes.items() if comp in _group(k)}
        if clip_bounds == "none":
            bounds = ("input_min", "input_max", "output_min", "output_max")
            state = {k: _unbounded(k, v) if k.endswith(bounds) else v for k, v in state.items()}
        if dtype == "fp16":
            state = {k: v.half() for k, v in state.items()}
        weights = mod.preprocess_weights(state)
        from mobius._weight_loading import apply_weights

        apply_weights(pkg.data[comp], {k: v for k, v in weights.items()
                                       if k in pkg.data[comp].graph.initializers})  # fmt: skip
        del state, weights
        if int4 and comp == "decoder":
            log.info("int4: %d MatMulNBits", B.quantize_ir_matmuls(pkg.data[comp]))
        pkg.save(str(out / comp), components=lambda n, c=comp: n == c, progress_bar=False)
        del pkg.data[comp]
        gc.collect()
        log.info("saved %s", comp)
    B.add_next_token(out / "decoder" / "model.onnx")
    cfg = B.model_config(ck)
    write_tokenizer(
        out / "tokenizer.json",
        vocab_size=cfg["text"]["vocab_size"],
        image_ids={k: cfg["ids"][k] for k in ("image", "boi", "eoi", "audio", "video")},
    )
    manifest = B.write_manifest(out, ckpt=ck, dtype=dtype, ep=ep, int4=int4, ple=ple_info,
                                source={"random": kind, "seed": seed, "weights": "random",
                                        "route": "lean", "clip_bounds": clip_bounds},
                                extra=B.fast_graphs(
                                    out, cfg, fast=fast, ep=ep, ple=ple,
                                    prefill_attention=prefill_attention,
                                    vision_fusions=vision_fusions,
                                    decoder_fusions=decoder_fusions,
                                    cascade=cascade))  # fmt: skip
    return manifest
