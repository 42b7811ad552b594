"""The fast vision graph alone, without its fusion passes and with each form of them, in one
sitting.

    python bench/gemma_vision.py --package /tmp/e2b [--pages 64] [--profile]

Writes three variants next to the package's vision encoder from its `model.onnx` (whatever
the package was built with): `vision_encoder/fast-unfused.onnx` (attention and clamps only: the
graph before the passes), `fast-rotary.onnx` and `fast-tables.onnx` (models.export.fast_vision's
passes with the 2-D RoPE as one RotaryEmbedding, or as cos/sin tables and a signed permutation;
`VISION_ROPE` is the form builds write). For each: the graph's node and kernel counts (per encoder
layer and whole), then `--pages` synthetic pages of `--soft-tokens` image tokens through the
graph one page a call, as the engine runs them (unpadded patches, I/O binding, features left
on the device): images/s alone. `--profile` (GPU host, torch): the kernels of one page under
torch's profiler (bench/gemma_profile.py's tables): device ms and kernels per page. Vision
under decode load: `bench/gemma_throughput.py --vision-graph vision_encoder/fast-rotary.onnx`
against the same run without it. Writes bench/results/gemma-vision-<date><tag>.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# name -> (graph written, the RoPE's form or None: no fusion passes)
VARIANTS = {"unfused": ("vision_encoder/fast-unfused.onnx", None),
            "rotary": ("vision_encoder/fast-rotary.onnx", "rotary"),
            "tables": ("vision_encoder/fast-tables.onnx", "tables")}  # fmt: skip


def write_variants(pkg: Path) -> dict[str, Any]:
    """Both vision graphs from the package's vision encoder; returns their op counts."""
    import onnx_ir as ir

    from models.export.fast_vision import apply_fusions, make_vision, op_counts

    counts = {}
    for name, (rel, rope) in VARIANTS.items():
        model = ir.load(pkg / "vision_encoder" / "model.onnx")
        make_vision(model)
        fusions = apply_fusions(model, rope=rope) if rope else {}
        ir.save(model, pkg / rel)  # beside model.onnx: its weights file stays shared
        counts[name] = {**op_counts(model.graph), "fusions": fusions}
    return counts


class Vision:
    """One vision graph's session with the engine's options, run one page at a time."""

    def __init__(self, pkg: Path, rel: str) -> None:
        import onnxruntime as ort

        from models.gemma.fast_device import GraphSession, placement
        from models.gemma.package import session_options

        self.ort = ort
        place = placement(ort, None, device_id=0, cuda_options=None)
        self.device, self.cuda = place.device, place.cuda
        opts = session_options(ort, cuda=place.cuda)
        self.s = GraphSession(ort, pkg / rel, place.providers(False), opts, place.device)

    def feeds(self, pre: Any) -> dict[str, Any]:
        n = int((pre.position_ids[:, 0] >= 0).sum())
        return {"pixel_values": pre.pixel_values[None, :n],
                "pixel_position_ids": pre.position_ids[None, :n]}  # fmt: skip

    def run(self, feeds: dict[str, Any]) -> Any:
        io = self.s.sess.io_binding()
        for name, v in feeds.items():
            arr = v.astype(self.s.types[name], copy=False)
            io.bind_ortvalue_input(name, self.ort.OrtValue.ortvalue_from_numpy(arr, *self.device))
        io.bind_output("image_features", *self.device)
        self.s.sess.run_with_iobinding(io)
        io.synchronize_outputs()
        return io.get_outputs()[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--package", type=Path, required=True)
    ap.add_argument("--soft-tokens", type=int, default=1120)
    ap.add_argument("--pages", type=int, default=64)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="kernels of one page (torch, GPU)")
    ap.add_argument("--tag", default="")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    a = ap.parse_args(argv)

    import numpy as np

    if a.profile:  # first, as bench/gemma_profile.py: onnxruntime then shares its CUDA libraries
        import torch

        torch.cuda.init()
    from bench.gemma_throughput import page_size, synthetic_pages
    from models.gemma.image import preprocess

    man = json.loads((a.package / "manifest.json").read_text())
    vis = man["config"]["vision"]
    res: dict[str, Any] = {"date": time.strftime("%Y-%m-%d"), "package": str(a.package),
                           "dtype": man["dtype"], "soft_tokens": a.soft_tokens,
                           "pages": a.pages, "ops": write_variants(a.package)}  # fmt: skip
    w, h = page_size(a.soft_tokens, vis["patch_size"], vis["pooling_kernel_size"])
    imgs = synthetic_pages(4, w, h)
    for name, (rel, _) in VARIANTS.items():
        v = Vision(a.package, rel)
        dt = v.s.types["pixel_values"]
        pres = [preprocess(im, max_soft_tokens=a.soft_tokens, patch_size=vis["patch_size"],
                           pooling=vis["pooling_kernel_size"], dtype=dt, pad=False)
                for im in imgs]  # fmt: skip
        feeds = [v.feeds(p) for p in pres]
        for k in range(a.warmup):
            v.run(feeds[k % len(feeds)])
        t = time.perf_counter()
        for k in range(a.pages):
            v.run(feeds[k % len(feeds)])
        wall = time.perf_counter() - t
        row: dict[str, Any] = {"graph": rel, "device": v.device[0], "images_per_s": a.pages / wall,
                               "ms_per_page": wall / a.pages * 1e3}  # fmt: skip
        if a.profile and v.cuda:
            from bench.gemma_profile import kernel_table, profiled

            trace = a.out / "profile-traces" / f"vision-{name}.json"
            trace.parent.mkdir(parents=True, exist_ok=True)
            page = feeds[0]
            row["profile"] = {"wall_ms": profiled(lambda v=v, p=page: v.run(p), trace) * 1e3,
                              **kernel_table(trace, top=20)}  # fmt: skip
        res[name] = row
        ops = res["ops"][name]
        print(f"== {name}: {row['images_per_s']:.2f} images/s alone ({row['ms_per_page']:.1f} "
              f"ms a page), kernels a layer {ops['layer_kernels']}, whole graph "
              f"{ops['kernels']}")  # fmt: skip
        for r in row.get("profile", {}).get("top", []):
            print(f"  {r['ms']:9.2f} ms {r['share'] * 100:5.1f}% x{r['count']:<5d} {r['name']}")
        if "profile" in row:
            p = row["profile"]
            print(f"  device {p['device_ms']:.2f} ms, {p['kernels']} kernels a page")
        del v
    feats = {}  # every graph's features of one page: the passes change nothing
    for name, (rel, _) in VARIANTS.items():
        feats[name] = np.asarray(Vision(a.package, rel).run(feeds[0]).numpy(), np.float32)
    ref = feats["unfused"]
    for name in VARIANTS:
        if name == "unfused":
            continue
        res[f"{name}_rel_err"] = float(np.abs(feats[name] - ref).max() / np.abs(ref).max())
        res[f"{name}_speedup_alone"] = res[name]["images_per_s"] / res["unfused"]["images_per_s"]
        print(f"{name} / unfused alone: {res[f'{name}_speedup_alone']:.3f}x, features rel err "
              f"{res[f'{name}_rel_err']:.2e}")  # fmt: skip
    a.out.mkdir(parents=True, exist_ok=True)
    path = a.out / f"gemma-vision-{res['date']}{a.tag}.json"
    path.write_text(json.dumps(res, indent=1))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
