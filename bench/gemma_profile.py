"""Where the GPU time of the fast Gemma path goes, kernel by kernel (GPU host only).

    python bench/gemma_profile.py --package /tmp/e2b --batch 256 --steps 16

Runs one page through the vision graph, one prefill chunk and `--steps` decode steps (CUDA
graphs off, so every kernel is seen) under torch's profiler (CUPTI sees every kernel of the
process, onnxruntime's included), and prints for each part the kernels that took the most
device time, grouped by name. Writes bench/results/gemma-profile-<date>.json.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _short(name: str) -> str:
    """A kernel's name without template arguments and namespaces, cut to 90 characters."""
    name = re.sub(r"<.*>", "<>", name)
    return name[:90]


def kernel_table(trace: Path, *, top: int) -> dict[str, Any]:
    events = json.loads(trace.read_text()).get("traceEvents", [])
    per: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    total = 0.0
    for e in events:
        if e.get("cat") != "kernel" and e.get("cat") != "gpu_memcpy":
            continue
        d = float(e.get("dur", 0.0))
        name = _short(e.get("name", "?"))
        per[name][0] += d
        per[name][1] += 1
        total += d
    rows = sorted(per.items(), key=lambda kv: -kv[1][0])[:top]
    return {
        "device_ms": total / 1e3,
        "kernels": int(sum(v[1] for v in per.values())),
        "top": [
            {"name": k, "ms": v[0] / 1e3, "count": v[1], "share": v[0] / total if total else 0.0}
            for k, v in rows
        ],  # fmt: skip
    }


def profiled(fn: Any, trace: Path) -> float:
    import torch
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        wall = time.perf_counter() - t
    prof.export_chrome_trace(str(trace))
    return wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--package", type=Path, required=True)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--prefill-chunk", type=int, default=32)
    ap.add_argument("--soft-tokens", type=int, default=1120)
    ap.add_argument("--new-tokens", type=int, default=768)
    ap.add_argument("--steps", type=int, default=16)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    a = ap.parse_args(argv)

    import numpy as np
    import torch  # first: onnxruntime then shares its CUDA libraries

    from bench.gemma_throughput import page_size, synthetic_pages
    from models.gemma.fast import FastGemma
    from models.gemma.runtime import PageRequest

    torch.cuda.init()
    eng = FastGemma(a.package, max_soft_tokens=a.soft_tokens, verify=False, cuda_graph=False,
                    prefill_chunk=a.prefill_chunk)  # fmt: skip
    w, h = page_size(a.soft_tokens, eng.vision["patch_size"], eng.vision["pooling_kernel_size"])
    img = synthetic_pages(1, w, h)[0]
    req = PageRequest("Transcribe this page in reading order as Markdown with HTML tables.", img)
    pre = eng._preprocess(req)
    for _ in range(3):
        eng.encode_image(pre)  # warm-up (cuDNN / cuBLAS choices, arena growth)
    prompts, _ = eng.prepare([req])
    prompts = prompts * a.batch
    width = len(prompts[0].ids)
    length = -(-(width + a.new_tokens) // 256) * 256
    lens = np.full(a.batch, width, np.int64)
    st = eng.decode_state(a.batch, length, width)
    eng.prefill(st, prompts, lens, width)  # warm-up
    st["slot"].write(np.full(a.batch, width + a.new_tokens // 2))  # mid-decode
    st["offsets"].write(np.zeros(a.batch))

    def steps() -> None:
        for _ in range(a.steps):
            eng.emb1.sess.run_with_iobinding(st["io_emb1"], st["run_options"])
            eng.step.sess.run_with_iobinding(st["io_step"], st["run_options"])

    steps()
    tmp = a.out / "profile-traces"
    tmp.mkdir(parents=True, exist_ok=True)
    parts = {
        "vision_one_page": lambda: eng.encode_image(pre),
        f"prefill_{a.batch}_rows": lambda: eng.prefill(st, prompts, lens, width),
        f"decode_{a.steps}_steps_batch_{a.batch}": steps,
    }
    res: dict[str, Any] = {"device": torch.cuda.get_device_name(0), "date": time.strftime(
        "%Y-%m-%d"), "batch": a.batch, "prompt_tokens": width, "cache_length": length}  # fmt: skip
    for name, fn in parts.items():
        trace = tmp / f"{name}.json"
        wall = profiled(fn, trace)
        tab = kernel_table(trace, top=a.top)
        tab["wall_ms"] = wall * 1e3
        res[name] = tab
        print(f"\n== {name}: wall {wall * 1e3:.1f} ms, kernels {tab['kernels']}, "
              f"device {tab['device_ms']:.1f} ms")  # fmt: skip
        for r in tab["top"]:
            print(f"  {r['ms']:9.2f} ms {r['share'] * 100:5.1f}% x{r['count']:<5d} {r['name']}")
    path = a.out / f"gemma-profile-{time.strftime('%Y-%m-%d')}.json"
    path.write_text(json.dumps(res, indent=1))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
