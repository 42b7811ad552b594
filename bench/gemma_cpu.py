"""Gemma 4 E2B-shaped package: one page on the CPU (or whatever provider is present).

    python bench/gemma_cpu.py --package DIR            # an existing package
    python bench/gemma_cpu.py --build /tmp/e2b-int4    # build e2b-random (int4 decoder,
                                                       # q4_0 PLE file) first if DIR is empty

Random weights: the numbers measure speed only, never quality. Prints a table and writes JSON
to bench/results/.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def synthetic_page(width: int = 1240, height: int = 1754):  # noqa: ANN201 (PIL image)
    """An A4 page at 150 dpi with lines of text-like marks (deterministic)."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (width, height), "white")
    d = ImageDraw.Draw(img)
    d.text((120, 100), "Chapter 1. A synthetic page for benchmarks", fill="black")
    for i in range(60):
        d.text((120, 160 + i * 25), f"Line {i:02d}: the quick brown fox jumps over the lazy dog.",
               fill="black")  # fmt: skip
    return img


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--package", type=Path, help="existing package directory")
    g.add_argument("--build", type=Path, help="build e2b-random here first (if no manifest)")
    ap.add_argument("--dtype", choices=["fp32", "fp16"], default="fp32", help="for --build")
    ap.add_argument("--no-int4", action="store_true", help="for --build: keep fp MatMuls")
    ap.add_argument("--max-soft-tokens", type=int, default=280,
                    help="image tokens per page (1120 in production; 280 keeps a 2-core CPU "
                    "run to minutes)")  # fmt: skip
    ap.add_argument("--new-tokens", type=int, default=32)
    ap.add_argument("--threads", type=int, default=0, help="onnxruntime intra-op threads")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    a = ap.parse_args(argv)

    from models.gemma import GemmaRuntime, PageRequest

    build_s = None
    pkg = a.package or a.build
    if a.build and not (a.build / "manifest.json").exists():
        from models.export.lean import build_random_lean

        t = time.perf_counter()
        build_random_lean("e2b", a.build, dtype=a.dtype, int4=not a.no_int4, ple="external")
        build_s = time.perf_counter() - t

    t = time.perf_counter()
    rt = GemmaRuntime(pkg, max_soft_tokens=a.max_soft_tokens, intra_op_threads=a.threads or None,
                      verify=False)  # fmt: skip
    load_s = time.perf_counter() - t
    req = PageRequest("Transcribe this page in reading order.", synthetic_page())
    t = time.perf_counter()
    out = rt.generate([req], max_new_tokens=a.new_tokens, ignore_stop=True)[0]
    total_s = time.perf_counter() - t
    tm = out.timings
    n_new = len(out.token_ids)
    row = {
        "package": str(pkg),
        "model": rt.package.manifest.get("model"),
        "dtype": rt.package.dtype,
        "decoder_quantization": rt.package.manifest.get("decoder_quantization"),
        "ple": rt.package.ple.get("placement"),
        "provider": rt.provider,
        "cpu_count": os.cpu_count(),
        "threads": a.threads or None,
        "max_soft_tokens": a.max_soft_tokens,
        "prompt_tokens": out.prompt_tokens,
        "new_tokens": n_new,
        "build_s": build_s,
        "load_s": load_s,
        "vision_s": tm["vision_s"],
        "prefill_s": tm["prefill_s"],
        "prefill_tokens_per_s": out.prompt_tokens / tm["prefill_s"],
        "decode_s": tm["decode_s"],
        "decode_tokens_per_s": (n_new - 1) / tm["decode_s"] if n_new > 1 else None,
        "total_s": total_s,
        "page_tokens_per_s": n_new / total_s,
        "peak_rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
        "machine": platform.platform(),
        "weights": "random (speed only, not quality)",
    }
    width = max(len(k) for k in row)
    for k, v in row.items():
        print(f"{k:<{width}}  {v:.3f}" if isinstance(v, float) else f"{k:<{width}}  {v}")
    a.out.mkdir(parents=True, exist_ok=True)
    path = a.out / f"gemma_cpu-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(row, indent=1))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
