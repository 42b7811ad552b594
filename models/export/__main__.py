"""python -m models.export {tiny-random,e2b-random,checkpoint} OUT [options]."""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.export", description=__doc__)
    ap.add_argument("kind", choices=["tiny-random", "e2b-random", "checkpoint", "fast"],
                    help="fast: write the fast graphs of the package OUT again (its weights "
                    "stay; --prefill-attention)")  # fmt: skip
    ap.add_argument("out", type=Path, help="package directory to write (replaced)")
    ap.add_argument("--checkpoint", type=Path, help="transformers checkpoint dir (kind checkpoint)")
    ap.add_argument("--dtype", choices=["fp32", "fp16"], default="fp32")
    ap.add_argument("--int4", action="store_true", help="4-bit MatMulNBits decoder (block 32)")
    ap.add_argument(
        "--ple",
        choices=["graph", "external"],
        default=None,
        help="PLE table in the embedding graph or a 4-bit row file "
        "(default: graph for tiny-random, external for e2b-random)",
    )
    ap.add_argument("--ple-format", choices=["ggml-q4_0", "npy"], default="ggml-q4_0")
    ap.add_argument(
        "--ep",
        choices=["default", "cuda"],
        default="default",
        help="cuda: fuse GroupQueryAttention (fp16/bf16 only)",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--fast",
        action="store_true",
        help="also write static-KV-cache prefill/step graphs (GPU worker; needs --ple graph, "
        "--ep default)",
    )
    ap.add_argument(
        "--lean",
        action="store_true",
        help="tiny-random via the graph-by-graph route e2b-random always uses",
    )
    ap.add_argument(
        "--clip-bounds",
        choices=["random", "none"],
        default="random",
        help="random-weight kinds, lean route: the vision clamps' bounds; none = -inf/+inf "
        "(no-op clamps, dropped from the fast vision graph)",
    )
    ap.add_argument(
        "--prefill-attention",
        choices=["mha", "matmul"],
        default="mha",
        help="--fast prefill graph: MultiHeadAttention (default) or MatMul/Softmax/MatMul",
    )
    ap.add_argument(
        "--no-vision-fusions",
        action="store_true",
        help="--fast / fast: the fast vision graph without the fusion passes (RotaryEmbedding "
        "for the 2-D RoPE: models.export.fast_vision.VISION_FUSIONS), to measure both",
    )
    ap.add_argument(
        "--no-decoder-fusions",
        action="store_true",
        help="--fast / fast: the fast decoder graphs without models.export.fast's "
        "DECODER_FUSIONS (a layer's end as one SkipSimplifiedLayerNormalization)",
    )
    ap.add_argument(
        "--cascade",
        action="store_true",
        help="--fast / fast: also the cascade decode step (the shared prompt prefix read once "
        "for all rows: models.export.fast_cascade) and its prefill; FastGemma(cascade=True)",
    )
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    from models.export.build import build_package
    from models.export.checkpoint import write_checkpoint

    t0 = time.perf_counter()
    if a.ple is None:
        a.ple = "external" if a.kind == "e2b-random" else "graph"
    opts = dict(dtype=a.dtype, int4=a.int4, ple=a.ple, ep=a.ep, ple_format=a.ple_format,
                fast=a.fast, prefill_attention=a.prefill_attention,
                vision_fusions=not a.no_vision_fusions,
                decoder_fusions=not a.no_decoder_fusions, cascade=a.cascade)  # fmt: skip
    if a.kind == "fast":
        from models.export.build import rebuild_fast

        rebuild_fast(a.out, prefill_attention=a.prefill_attention,
                     vision_fusions=not a.no_vision_fusions,
                     decoder_fusions=not a.no_decoder_fusions, cascade=a.cascade)  # fmt: skip
    elif a.kind == "checkpoint":
        if a.checkpoint is None:
            ap.error("kind checkpoint needs --checkpoint DIR")
        build_package(a.checkpoint, a.out, **opts, source={"checkpoint": str(a.checkpoint)})
    elif a.kind == "e2b-random" or a.lean:
        # E2B in fp32 is ~19 GB as a checkpoint: build graph by graph, never materializing it.
        from models.export.lean import build_random_lean

        kind = "e2b" if a.kind == "e2b-random" else "tiny"
        build_random_lean(kind, a.out, dtype=a.dtype, int4=a.int4, ple=a.ple, ep=a.ep,
                          seed=a.seed, fast=a.fast, clip_bounds=a.clip_bounds,
                          prefill_attention=a.prefill_attention,
                          vision_fusions=not a.no_vision_fusions,
                          decoder_fusions=not a.no_decoder_fusions,
                          cascade=a.cascade)  # fmt: skip
    else:
        kind = "tiny"
        with tempfile.TemporaryDirectory(prefix="axiya-ckpt-") as tmp:
            ckpt = write_checkpoint(kind, Path(tmp), seed=a.seed)
            build_package(
                ckpt, a.out, **opts, source={"random": kind, "seed": a.seed, "weights": "random"}
            )
    print(f"wrote {a.out} in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
