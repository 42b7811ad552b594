"""Gemma 4 E2B-shaped page throughput on one GPU: our fast onnxruntime path vs transformers' eager
`generate`, in one go (random weights: speed only, never quality).

    python bench/gemma_throughput.py --package /tmp/e2b-fast --build   # build if missing, run all

Parts (each in its own process, so GPU memory of one never counts against the other):
  ours  builds nothing; loads the package's fast graphs (models.gemma.fast.FastGemma), makes N
        synthetic page images of exactly `--soft-tokens` image tokens, warms up at the benchmark
        shape, then times: preprocessing + vision, prefill, greedy decode of exactly
        `--new-tokens` tokens per page (stop ids ignored), batch `--batch`.
  hf    transformers Gemma4ForConditionalGeneration (E2B config, random bf16 weights, eager
        attention) `generate` at batch `--hf-batch`, the same prompt length, the same new tokens.
Writes bench/results/gemma-<date>-<gpu>.json with the merged numbers and the memory-bandwidth
roofline of a decode step. `--continuous` times continuous batching instead (`--batch` rows,
pages prepared `--chunk` at a time, as the GPU worker with AXIYA_GEMMA_CONTINUOUS): end-to-end
rates only, no baseline run; writes gemma-<date>-<gpu>-continuous.json.

Over 450 lines: a standalone bench script (both sides, building the package, the JSON record).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHORT_PROMPT = "Transcribe this page in reading order as Markdown with HTML tables."
HBM_BYTES_PER_S = 4.8e12  # H200 datasheet (KINDS.md measured ~4.3e12 on a device-to-device copy)


class GpuMemPoll:
    """Peak device memory in use (nvidia-smi, whole GPU) while the block runs."""

    def __init__(self, period: float = 0.25) -> None:
        self.period, self.peak_mib, self._stop = period, 0.0, threading.Event()

    def _read(self) -> float:
        try:
            out = subprocess.run(
                ["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                capture_output=True, text=True, timeout=5).stdout  # fmt: skip
            return float(out.split()[0])
        except Exception:
            return 0.0

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.peak_mib = max(self.peak_mib, self._read())
            self._stop.wait(self.period)

    def __enter__(self) -> GpuMemPoll:
        self._t = threading.Thread(target=self._loop, daemon=True)
        self._t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._t.join()


def gpu_name(*, count: bool = False) -> str:
    """The first GPU's name; with `count`, and several GPUs, their number ("NVIDIA H200 x2")."""
    try:
        cmd = ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"]
        names = subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout.split("\n")
    except Exception:
        return "unknown"
    names = [n.strip() for n in names if n.strip()]
    if not names:
        return "unknown"
    return f"{names[0]} x{len(names)}" if count and len(names) > 1 else names[0]


def synthetic_pages(n_distinct: int, width: int, height: int) -> list[Any]:
    """Text-like page images (deterministic), sized so that no resize happens."""
    from PIL import Image, ImageDraw

    pages = []
    for k in range(n_distinct):
        img = Image.new("RGB", (width, height), "white")
        d = ImageDraw.Draw(img)
        d.text((100, 80), f"Chapter {k + 1}. A synthetic page for benchmarks", fill="black")
        for i in range((height - 200) // 22):
            d.text((100, 140 + i * 22), f"{k}.{i:03d} the quick brown fox jumps over the lazy "
                   "dog; 0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ", fill="black")  # fmt: skip
        pages.append(img)
    return pages


def page_size(soft_tokens: int, patch: int = 16, pool: int = 3) -> tuple[int, int]:
    """(width, height) with exactly `soft_tokens` image tokens and no resize (portrait)."""
    side = patch * pool
    best = None
    for rows in range(1, soft_tokens + 1):
        if soft_tokens % rows == 0:
            cols = soft_tokens // rows
            if rows >= cols and (best is None or rows - cols < best[0] - best[1]):
                best = (rows, cols)
    rows, cols = best  # type: ignore[misc]
    return cols * side, rows * side


MIXED_LENGTHS = "lognormal(median 600, sigma 0.5) tokens, clipped to 150-1,500 (mean ~680)"


def answer_lengths(n: int, *, seed: int = 0) -> list[int]:
    """Answer lengths of n document pages, for random weights that never stop: a log-normal
    around 600 tokens (a short letter page ~150-300, a dense text page 600-900, a table or a
    two-column page up to 1,500), clipped to 150-1,500 (`MIXED_LENGTHS`)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return [int(x) for x in np.clip(np.round(rng.lognormal(np.log(600), 0.5, n)), 150, 1500)]


def decode_step_bytes(man: dict[str, Any], pkg: Path, batch: int, mean_ctx: float) -> dict:
    """Bytes a decode step must read at least: every decoder weight once (the LM head included;
    the embedding/PLE rows of B tokens are negligible) + each attention layer's valid KV."""
    t = man["config"]["text"]
    weights = (pkg / "decoder" / "model.onnx.data").stat().st_size
    item = 2 if man["dtype"] == "fp16" else 4
    kvd = dict(zip(man["fast"]["kv_layers"], man["fast"]["kv_head_dims"], strict=True))
    hd = {t["layer_types"][i]: d for i, d in kvd.items()}  # head dim per layer type
    kv_row = 0.0
    for ltype in t["layer_types"]:
        if ltype == "full_attention":
            kv_row += mean_ctx * 2 * hd[ltype] * item
        else:
            kv_row += min(mean_ctx, t["sliding_window"]) * 2 * hd[ltype] * item
    total = weights + batch * kv_row
    step_s = total / HBM_BYTES_PER_S
    return {
        "weights_bytes_per_step": weights,
        "kv_bytes_per_step": batch * kv_row,
        "bytes_per_step": total,
        "mean_context_tokens": mean_ctx,
        "hbm_bytes_per_s": HBM_BYTES_PER_S,
        "min_step_ms": step_s * 1e3,
        "roofline_decode_tokens_per_s": batch / step_s,
    }


def run_ours(a: argparse.Namespace) -> dict[str, Any]:
    import numpy as np

    from models.gemma.fast import FastGemma
    from models.gemma.page_prompt import PAGE_PROMPT
    from models.gemma.runtime import PageRequest

    pkg = a.package
    man = json.loads((pkg / "manifest.json").read_text())
    poll = GpuMemPoll()
    with poll:
        t = time.perf_counter()
        eng = FastGemma(pkg, max_soft_tokens=a.soft_tokens, verify=False,
                        prefill_chunk=a.prefill_chunk, cuda_graph=not a.no_cuda_graph,
                        log_severity=2, prefix_cache=not a.no_prefix_cache,
                        vision_graph=a.vision_graph, cascade=a.cascade)  # fmt: skip
        load_s = time.perf_counter() - t
        w, h = page_size(a.soft_tokens, eng.vision["patch_size"], eng.vision["pooling_kernel_size"])
        imgs = synthetic_pages(8, w, h)
        # "page": the GPU worker's own prompt (~350 tokens), the same work as the service does;
        # "short": one line (the figures before 2026-12-01).
        prompt = PAGE_PROMPT if a.prompt == "page" else SHORT_PROMPT
        reqs = [PageRequest(prompt, imgs[i % len(imgs)]) for i in range(a.pages)]
        # The prompt's shared prefix (before the image): prefilled once when the cache is on.
        one = eng.prompts.build(content=prompt, image_tokens=a.soft_tokens)
        prefix = {"vision_graph": a.vision_graph or eng.fast["vision"],
                  "prefix_cache": eng.pre_past is not None, "prompt_prefix_tokens": one.prefix,
                  "cascade": eng.step_cas is not None,
                  "prefilled_tokens_per_page": len(one.ids) - (one.prefix if eng.pre_past
                                                               else 0)}  # fmt: skip
        # Each page's answer length (mixed), or --new-tokens for all.
        limits = answer_lengths(a.pages) if a.lengths == "mixed" else [a.new_tokens] * a.pages
        a.new_tokens = max(limits)
        if a.continuous:
            cont = _run_continuous(eng, reqs, limits, a)
            peak_gb = poll.peak_mib * 2**20 / 1e9
            return {**cont, **prefix, "load_s": load_s, "peak_gpu_mem_gb": peak_gb,
                    "package": str(pkg), "dtype": man["dtype"],
                    "page_image_size": [w, h]}  # fmt: skip
        # Warm-up at the benchmark shape (same batch and cache length: the CUDA graphs are
        # captured here), few tokens.
        t = time.perf_counter()
        wp, _ = eng.prepare(reqs[: a.batch])
        width = max(len(p.ids) for p in wp)
        length = -(-(width + a.new_tokens) // 64) * 64
        eng.generate_prompts(wp, max_new_tokens=8, ignore_stop=True, length=length)
        del wp
        warm_s = time.perf_counter() - t
        # Timed: every page through preprocessing, vision, prefill and decode.
        tm = {"preprocess_s": 0.0, "vision_s": 0.0, "prefill_s": 0.0, "decode_s": 0.0}
        prompt_tokens = new_tokens = steps = iters = 0
        # Per batch: (tokens its steps made, its decode seconds, the next batch's vision beside)
        per_batch: list[tuple[int, float, bool]] = []
        starts = range(0, a.pages, a.batch)
        batches = [reqs[r0 : r0 + a.batch] for r0 in starts]
        batch_limits = [limits[r0 : r0 + a.batch] for r0 in starts]
        t0 = time.perf_counter()
        # The next batch's preprocessing + vision runs on a thread while this batch decodes.
        from concurrent.futures import ThreadPoolExecutor

        ahead = ThreadPoolExecutor(1)
        nxt = ahead.submit(eng.prepare, batches[0])
        for k in range(len(batches)):
            prompts, pt = nxt.result()
            if k + 1 < len(batches):
                nxt = ahead.submit(eng.prepare, batches[k + 1])
            # A batch decodes until its longest answer is done (finished rows ride along).
            lim = batch_limits[k]
            prompts = [replace(p, max_new_tokens=n) for p, n in zip(prompts, lim, strict=True)]
            gens = eng.generate_prompts(prompts, max_new_tokens=max(lim), ignore_stop=True,
                                        length=length)  # fmt: skip
            for key in ("preprocess_s", "vision_s"):
                tm[key] += pt[key]
            tm["prefill_s"] += gens[0].timings["prefill_s"]
            tm["decode_s"] += gens[0].timings["decode_s"]
            iters += int(gens[0].timings["decode_steps"])
            prompt_tokens += sum(g.prompt_tokens for g in gens)
            new_tokens += sum(len(g.token_ids) for g in gens)
            made = sum(len(g.token_ids) - 1 for g in gens)  # tokens the steps made for pages
            steps += made
            per_batch.append((made, gens[0].timings["decode_s"], k + 1 < len(batches)))
            assert [len(g.token_ids) for g in gens] == lim
        total_s = time.perf_counter() - t0
        sample = gens[0].token_ids[:16]
    mean_prompt = prompt_tokens / a.pages
    print("raw", json.dumps({**tm, "total_s": total_s, "steps": steps, "iters": iters,
                             "prompt_tokens": prompt_tokens}), flush=True)  # fmt: skip
    roof = decode_step_bytes(man, pkg, a.batch, mean_prompt + a.new_tokens / 2)
    dec_tps = steps / tm["decode_s"]

    def rate(beside: bool) -> float | None:
        made = sum(n for n, _, b in per_batch if b == beside)
        took = sum(s for _, s, b in per_batch if b == beside)
        return made / took if took else None

    return {
        "engine": f"models.gemma.fast (onnxruntime {eng.ort.__version__}, {eng.device[0]}, "
        f"cuda graph {eng.cuda_graph})",
        "package": str(pkg),
        "dtype": man["dtype"],
        "pages": a.pages,
        "batch_size": a.batch,
        "prefill_chunk": a.prefill_chunk,
        "image_tokens_per_page": a.soft_tokens,
        "page_image_size": [w, h],
        "prompt": a.prompt,
        "prompt_tokens_mean": mean_prompt,
        **prefix,
        "new_tokens_per_page": new_tokens / a.pages,
        "answer_lengths": MIXED_LENGTHS if a.lengths == "mixed" else "fixed",
        "cache_length": length,
        # (batch, cache length) of each decode state; a cascade state's (batch, full-layer cache
        # length, padded indices, prefix length): which step the batches ran on.
        "decode_states": sorted(list(k) for k in eng.decode_states),
        "load_s": load_s,
        "warmup_s": warm_s,
        "total_s": total_s,
        **tm,
        "pages_per_s": a.pages / total_s,
        "decode_tokens_per_s": dec_tps,
        "decode_ms_per_step": tm["decode_s"] / iters * 1e3,
        # The same steps split: batches that decoded alone on the GPU (the last one), and those
        # that shared it with the next batch's vision tower.
        "decode_tokens_per_s_alone": rate(False),
        "decode_tokens_per_s_beside_vision": rate(True),
        "vision_overlapped_with_decode": len(batches) > 1,
        "generated_tokens_per_s_end_to_end": new_tokens / total_s,
        # The tokens the prefill ran (after the cached prefix when the cache is on).
        "prefill_tokens_per_s": prefix["prefilled_tokens_per_page"] * a.pages / tm["prefill_s"],
        "vision_images_per_s": a.pages / tm["vision_s"],  # with overlap: under decode load
        "preprocess_images_per_s": a.pages / tm["preprocess_s"],
        "peak_gpu_mem_gb": poll.peak_mib * 2**20 / 1e9,
        "roofline": roof,
        "roofline_fraction": dec_tps / roof["roofline_decode_tokens_per_s"],
        "sample_tokens": sample,
        "nan_free": bool(np.all(np.array(sample) >= 0)),
    }


def _run_continuous(eng: Any, reqs: list[Any], limits: list[int],
                    a: argparse.Namespace) -> dict[str, Any]:  # fmt: skip
    """Continuous batching (`models.gemma.batching.decode_continuous`, `a.batch` rows): a
    thread prepares the pages `a.chunk` at a time (preprocessing, vision) and each free row
    takes the next prepared page, as the GPU worker does with AXIYA_GEMMA_CONTINUOUS. Decode
    and vision overlap throughout, so only end-to-end rates are reported."""
    import threading

    from models.gemma.batching import PromptFeed, decode_continuous

    def prepare(feed: PromptFeed, batch: list[Any], first: int) -> None:
        prompts, _ = eng.prepare(batch)
        lim = limits[first : first + len(prompts)]
        prompts = [replace(p, max_new_tokens=n) for p, n in zip(prompts, lim, strict=True)]
        feed.put(list(enumerate(prompts, start=first)))

    width = max(len(p.ids) for p in eng.prepare(reqs[:1])[0])
    # Warm-up: one page through the same state (its CUDA graphs are captured here).
    t = time.perf_counter()
    feed = PromptFeed()  # the page and the end, before the decoding starts
    prepare(feed, reqs[:1], 0)
    feed.end()
    list(decode_continuous(eng, feed, rows=a.batch, max_new_tokens=a.new_tokens,
                               max_prompt=width, ignore_stop=True))  # fmt: skip
    warm_s = time.perf_counter() - t
    t0 = time.perf_counter()
    # Pages prepared ahead of free rows, as the GPU worker's AXIYA_GEMMA_PREPARED_AHEAD.
    ahead = a.prepared_ahead or 2 * a.chunk
    feed = PromptFeed(ahead_pages=ahead)

    def prepare_all() -> None:
        for r0 in range(0, len(reqs), a.chunk):
            prepare(feed, reqs[r0 : r0 + a.chunk], r0)
        feed.end()

    threading.Thread(target=prepare_all, daemon=True).start()
    got = dict(decode_continuous(eng, feed, rows=a.batch, max_new_tokens=a.new_tokens,
                                     max_prompt=width, ignore_stop=True))  # fmt: skip
    total_s = time.perf_counter() - t0
    assert sorted(got) == list(range(len(reqs)))
    assert [len(got[k].token_ids) for k in range(len(reqs))] == limits
    new_tokens = sum(len(g.token_ids) for g in got.values())
    return {
        "engine": f"models.gemma.fast continuous (onnxruntime {eng.ort.__version__}, "
        f"{eng.device[0]}, cuda graph {eng.cuda_graph})",
        "pages": len(reqs),
        "batch_size": a.batch,
        "continuous_chunk": a.chunk,
        "prepared_ahead_pages": ahead,
        "prefill_chunk": a.prefill_chunk,
        "image_tokens_per_page": a.soft_tokens,
        "prompt": a.prompt,
        "prompt_tokens_mean": sum(g.prompt_tokens for g in got.values()) / len(got),
        "new_tokens_per_page": new_tokens / len(reqs),
        "answer_lengths": MIXED_LENGTHS if a.lengths == "mixed" else "fixed",
        "warmup_s": warm_s,
        "total_s": total_s,
        "pages_per_s": len(reqs) / total_s,
        "generated_tokens_per_s_end_to_end": new_tokens / total_s,
        "decode_tokens_per_s": new_tokens / total_s,  # end to end: vision runs beside it
    }


def run_hf(a: argparse.Namespace, prompt_len: int) -> dict[str, Any]:
    import torch
    import transformers
    from transformers import Gemma4ForConditionalGeneration

    from models.export.checkpoint import make_config

    cfg = make_config("e2b")
    torch.manual_seed(0)
    t = time.perf_counter()
    with torch.device("cuda"):
        model = Gemma4ForConditionalGeneration._from_config(
            cfg, dtype=torch.bfloat16, attn_implementation="eager"
        )
    model.eval()
    init_s = time.perf_counter() - t
    kw = dict(do_sample=False, pad_token_id=0)
    new = a.hf_new_tokens or a.new_tokens

    def gen(ids: Any, n: int) -> float:
        torch.cuda.synchronize()
        t = time.perf_counter()
        with torch.no_grad():
            out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids),
                                 max_new_tokens=n, min_new_tokens=n, **kw)  # fmt: skip
        torch.cuda.synchronize()
        assert out.shape[1] == prompt_len + n, out.shape
        return time.perf_counter() - t

    # The largest batch of --hf-batch that fits (tried largest first; out of memory: next).
    tried = {}
    for batch in sorted((int(x) for x in str(a.hf_batch).split(",")), reverse=True):
        g = torch.Generator(device="cuda").manual_seed(0)
        ids = torch.randint(3, 250_000, (batch, prompt_len), device="cuda", generator=g)
        try:
            gen(ids, 2)  # warm-up
            t1 = gen(ids, 1)  # prefill + first token
            tn = gen(ids, new)
        except torch.cuda.OutOfMemoryError as exc:
            tried[batch] = f"out of memory: {str(exc)[:120]}"
            del ids
            torch.cuda.empty_cache()
            continue
        return {
            "engine": f"transformers {transformers.__version__} eager generate, "
            f"torch {torch.__version__}",
            "dtype": "bf16",
            "batch_size": batch,
            "larger_batches_tried": tried,
            "prompt_tokens": prompt_len,
            "new_tokens": new,
            "init_s": init_s,
            "prefill_s": t1,
            "total_s": tn,
            "decode_tokens_per_s": batch * (new - 1) / (tn - t1),
            "peak_torch_mem_gb": torch.cuda.max_memory_allocated() / 1e9,
        }
    raise SystemExit(f"transformers: no batch of {a.hf_batch} fits ({tried})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--package", type=Path, required=True)
    ap.add_argument("--build", action="store_true", help="build e2b-random fp16 --fast if missing")
    ap.add_argument("--part", choices=["all", "ours", "hf"], default="all")
    ap.add_argument("--pages", type=int, default=256)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--prefill-chunk", type=int, default=32)
    ap.add_argument("--soft-tokens", type=int, default=1120)
    ap.add_argument(
        "--prompt",
        choices=("short", "page"),
        default="short",
        help="page: the GPU worker's page prompt (compare with the service)",
    )
    ap.add_argument("--new-tokens", type=int, default=768)
    ap.add_argument(
        "--hf-batch",
        default="64",
        help="transformers batch; several (512,256): the largest that fits",
    )
    ap.add_argument(
        "--hf-new-tokens",
        type=int,
        default=0,
        help="tokens transformers generates (0: --new-tokens; fewer = a shorter "
        "context, so a faster baseline)",
    )
    ap.add_argument(
        "--lengths",
        choices=["fixed", "mixed"],
        default="fixed",
        help="fixed: --new-tokens per page; mixed: answer_lengths() per page",
    )
    ap.add_argument("--tag", default="", help="suffix of the result file name")
    ap.add_argument("--hf-prompt", type=int, default=0, help="HF prompt length (0: ours' mean)")
    ap.add_argument("--no-cuda-graph", action="store_true")
    ap.add_argument(
        "--no-prefix-cache",
        action="store_true",
        help="prefill every prompt whole (the figures before issue 35)",
    )
    ap.add_argument(
        "--vision-graph",
        help="a vision graph of the package in place of its fast one (bench/gemma_vision.py "
        "writes the unfused one: vision_encoder/fast-unfused.onnx)",
    )
    ap.add_argument(
        "--continuous",
        action="store_true",
        help="continuous batching: --batch rows, pages prepared --chunk at a time",
    )
    ap.add_argument(
        "--prepared-ahead",
        type=int,
        default=0,
        help="continuous: pages prepared ahead of free rows (0: two --chunk, as before "
        "2026-12-05; the GPU worker: AXIYA_GEMMA_PREPARED_AHEAD)",
    )
    ap.add_argument(
        "--cascade",
        action="store_true",
        help="cascade attention in the decode step (the shared prompt prefix read once for all "
        "rows; the package needs `python -m models.export fast PKG --cascade`)",
    )
    ap.add_argument("--chunk", type=int, default=32)
    ap.add_argument("--json", type=Path, help="part output (internal)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    a = ap.parse_args(argv)

    if a.part == "ours":
        res = run_ours(a)
    elif a.part == "hf":
        res = run_hf(a, a.hf_prompt)
    if a.part != "all":
        text = json.dumps(res, indent=1)
        print(text)
        if a.json:
            a.json.write_text(text)
        return 0

    build_s = None
    if a.build and not (a.package / "manifest.json").exists():
        t = time.perf_counter()
        cmd = [sys.executable, "-m", "models.export", "e2b-random", str(a.package),
               "--dtype", "fp16", "--ple", "graph", "--fast"]  # fmt: skip
        subprocess.run(cmd, check=True, cwd=ROOT)
        build_s = time.perf_counter() - t
    tmp = Path(os.environ.get("TMPDIR", "/tmp"))
    base = [sys.executable, str(Path(__file__).resolve()), "--package", str(a.package),
            "--pages", str(a.pages), "--batch", str(a.batch), "--soft-tokens", str(a.soft_tokens),
            "--new-tokens", str(a.new_tokens), "--hf-batch", str(a.hf_batch),
            "--prefill-chunk", str(a.prefill_chunk), "--chunk", str(a.chunk),
            "--prepared-ahead", str(a.prepared_ahead),
            "--hf-new-tokens", str(a.hf_new_tokens), "--lengths", a.lengths,
            "--prompt", a.prompt] + (
                ["--no-cuda-graph"] if a.no_cuda_graph else []) + (
                ["--no-prefix-cache"] if a.no_prefix_cache else []) + (
                ["--vision-graph", a.vision_graph] if a.vision_graph else []) + (
                ["--continuous"] if a.continuous else []) + (
                ["--cascade"] if a.cascade else [])  # fmt: skip
    ours_json = tmp / "gemma_ours.json"
    r = subprocess.run([*base, "--part", "ours", "--json", str(ours_json)], cwd=ROOT)
    if r.returncode != 0 and not a.no_cuda_graph:
        print("ours failed with CUDA graphs: again without them", flush=True)
        r = subprocess.run([*base, "--no-cuda-graph", "--part", "ours", "--json", str(ours_json)],
                           cwd=ROOT)  # fmt: skip
    if r.returncode != 0:
        raise SystemExit(f"ours failed (exit {r.returncode})")
    ours = json.loads(ours_json.read_text())
    plen = a.hf_prompt or round(ours["prompt_tokens_mean"])
    hf_json = tmp / "gemma_hf.json"
    hf: dict[str, Any] = {"skipped": "continuous or mixed-length run: see the batch run's"}
    if not a.continuous and a.lengths == "fixed" and a.hf_batch != "0":
        r = subprocess.run([*base, "--part", "hf", "--hf-prompt", str(plen), "--json",
                            str(hf_json)], cwd=ROOT)  # fmt: skip
        hf = (
            json.loads(hf_json.read_text())
            if r.returncode == 0
            else {"error": f"exit {r.returncode}"}
        )
    gpu = gpu_name()
    base_tps = hf.get("decode_tokens_per_s")
    row = {
        "device": gpu,
        "date": time.strftime("%Y-%m-%d"),
        "weights": "random (speed only, not quality)",
        "build_s": build_s,
        "batch_size": ours["batch_size"],
        "pages": ours["pages"],
        "pages_per_s": ours["pages_per_s"],
        "decode_tokens_per_s": ours["decode_tokens_per_s"],
        "decode_tokens_per_s_alone": ours.get("decode_tokens_per_s_alone"),
        "decode_tokens_per_s_beside_vision": ours.get("decode_tokens_per_s_beside_vision"),
        "prefill_tokens_per_s": ours.get("prefill_tokens_per_s"),
        "prompt": ours.get("prompt"),
        "prompt_tokens_mean": ours.get("prompt_tokens_mean"),
        "prefix_cache": ours.get("prefix_cache"),
        "cascade": ours.get("cascade"),
        "prompt_prefix_tokens": ours.get("prompt_prefix_tokens"),
        "prefilled_tokens_per_page": ours.get("prefilled_tokens_per_page"),
        "vision_images_per_s": ours.get("vision_images_per_s"),
        "peak_gpu_mem_gb": ours["peak_gpu_mem_gb"],
        "baseline_hf_decode_tokens_per_s": base_tps,
        "speedup_vs_hf_decode": ours["decode_tokens_per_s"] / base_tps if base_tps else None,
        "speedup_vs_hf_decode_alone": (
            ours["decode_tokens_per_s_alone"] / base_tps
            if base_tps and ours.get("decode_tokens_per_s_alone")
            else None
        ),
        "roofline": ours.get("roofline"),
        "roofline_fraction": ours.get("roofline_fraction"),
        "image_tokens_per_page": a.soft_tokens,
        "new_tokens_per_page": ours["new_tokens_per_page"],
        "answer_lengths": ours["answer_lengths"],
        # Issue 35: the page prompt at batch 512; decode over all steps.
        "targets": {"pages_per_s": 18, "decode_tokens_per_s": 35000},
        "ours": ours,
        "hf": hf,
    }
    a.out.mkdir(parents=True, exist_ok=True)
    tag = "h200" if "H200" in gpu else gpu.lower().replace(" ", "-") or "gpu"
    mode = "-continuous" if a.continuous else ""
    mode += f"-{a.lengths}" if a.lengths != "fixed" else ""
    path = a.out / f"gemma-{time.strftime('%Y-%m-%d')}-{tag}{mode}{a.tag}.json"
    path.write_text(json.dumps(row, indent=1))
    print(json.dumps({k: v for k, v in row.items() if k not in ("ours", "hf", "roofline")},
                     indent=1))  # fmt: skip
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
