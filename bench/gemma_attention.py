"""Decode attention alone, at the fast path's shapes: which onnxruntime formulation reads the KV
cache fastest (GPU host; also runs on the CPU with small shapes, to check the graphs).

    python bench/gemma_attention.py --batch 512 --kv-length 1966

One decode step of one layer: 8 query heads over one KV head, the cache already holding the row's
keys (static cache, as `models/export/fast.py` binds it). Variants:
- `matmul`: what the step graph runs today (FusedMatMul q.K^T, Add mask, Softmax, MatMul .V);
- `gqa`: com.microsoft GroupQueryAttention on a shared past/present buffer (right-padded rows:
  each row's keys from slot 0, `seqlens_k` its last index), which also writes the new key;
- `attention`: ONNX Attention (opset 23) over the cache with an additive mask;
- `cascade` (full layers only; `--prefix P`): the cascade step's attention
  (`models.export.fast_cascade`): a shared prefix of P keys read once for all rows (one GEMM)
  and each row's own L - P keys, merged by log-sum-exp. Against `matmul` at the same L: what
  reading the prompt prefix once instead of per row saves (e.g. `--kv-length 3328 --prefix
  1216`: the page prompt's 2,343 tokens + 768 new, 1,216 of them the cached prefix).
Full layers have head size 512 over the whole cache, sliding layers 256 over a 512-slot window.
Prints ms per call and the cache bytes read per second, writes
bench/results/gemma-attention-<date>[<tag>].json. A variant onnxruntime cannot run is reported
with its error, not skipped silently.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

ROOT = Path(__file__).resolve().parents[1]
HEADS = 8
LAYERS = {"full": (512, None), "sliding": (256, 512)}  # head size, window (None: whole cache)


def _model(nodes, inputs, outputs, *, opset: int = 23) -> bytes:
    graph = helper.make_graph(nodes, "attention", inputs, outputs)
    opsets = [helper.make_opsetid("", opset), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=10).SerializeToString()


def _t(name: str, dtype: int, shape: list) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, dtype, shape)


def matmul_graph(hd: int) -> bytes:
    f = TensorProto.FLOAT16
    nodes = [
        helper.make_node(
            "FusedMatMul", ["q", "k"], ["s"], domain="com.microsoft", transB=1, alpha=1.0
        ),  # fmt: skip
        helper.make_node("Add", ["s", "bias"], ["sb"]),
        helper.make_node("Softmax", ["sb"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["o"]),
    ]
    inputs = [_t("q", f, ["B", HEADS, hd]), _t("k", f, ["B", "L", hd]), _t("v", f, ["B", "L", hd]),
              _t("bias", f, ["B", 1, "L"])]  # fmt: skip
    return _model(nodes, inputs, [_t("o", f, ["B", HEADS, hd])])


def gqa_graph(hd: int, window: int | None) -> bytes:
    f, i32 = TensorProto.FLOAT16, TensorProto.INT32
    attrs = dict(num_heads=HEADS, kv_num_heads=1, scale=1.0)
    if window:
        attrs["local_window_size"] = window
    nodes = [
        helper.make_node(
            "GroupQueryAttention",
            ["q", "k", "v", "past_key", "past_value", "seqlens_k", "total_len"],
            ["o", "present_key", "present_value"],
            domain="com.microsoft",
            **attrs,
        )
    ]
    inputs = [_t("q", f, ["B", 1, HEADS * hd]), _t("k", f, ["B", 1, hd]), _t("v", f, ["B", 1, hd]),
              _t("past_key", f, ["B", 1, "L", hd]), _t("past_value", f, ["B", 1, "L", hd]),
              _t("seqlens_k", i32, ["B"]), _t("total_len", i32, [])]  # fmt: skip
    outputs = [_t("o", f, ["B", 1, HEADS * hd]), _t("present_key", f, ["B", 1, "L", hd]),
               _t("present_value", f, ["B", 1, "L", hd])]  # fmt: skip
    return _model(nodes, inputs, outputs)


def attention_graph(hd: int) -> bytes:
    f = TensorProto.FLOAT16
    nodes = [helper.make_node("Attention", ["q", "k", "v", "bias"], ["o"], scale=1.0)]
    inputs = [_t("q", f, ["B", HEADS, 1, hd]), _t("k", f, ["B", 1, "L", hd]),
              _t("v", f, ["B", 1, "L", hd]), _t("bias", f, ["B", 1, 1, "L"])]  # fmt: skip
    return _model(nodes, inputs, [_t("o", f, ["B", HEADS, 1, hd])])


def _feeds(variant: str, batch: int, length: int, hd: int, rng,
           prefix: int = 0) -> dict[str, np.ndarray]:  # fmt: skip
    def half(*shape):
        # The speed does not depend on the values: the large caches are filled, not drawn
        # (drawing 1,024 rows of a 1,966-slot cache took minutes of CPU).
        if np.prod(shape) > 1 << 22:
            return np.full(shape, 0.01, np.float16)
        return (rng.standard_normal(shape, dtype=np.float32) * 0.1).astype(np.float16)

    bias = np.zeros((batch, 1, length), np.float16)
    bias[:, :, : length // 8] = -30000.0  # some left padding, as in a real batch
    if variant == "matmul":
        return dict(q=half(batch, HEADS, hd), k=half(batch, length, hd),
                    v=half(batch, length, hd), bias=bias)  # fmt: skip
    if variant == "cascade":
        own = length - prefix
        shared = {f"prefix.{k}": half(1, 1, prefix, hd) for k in ("key", "value")}
        return dict(q=half(batch, 1, HEADS * hd), keys=half(batch, own, hd),
                    values=half(batch, own, hd), slot=np.full(batch, length - 2, np.int64),
                    offsets=np.full(batch, own // 8, np.int64),
                    prefix_len=np.full(batch, prefix, np.int64),
                    kv_index=np.arange(own, dtype=np.int64), **shared)  # fmt: skip
    if variant == "attention":
        return dict(q=half(batch, HEADS, 1, hd), k=half(batch, 1, length, hd),
                    v=half(batch, 1, length, hd), bias=bias[:, :, None])  # fmt: skip
    return dict(q=half(batch, 1, HEADS * hd), k=half(batch, 1, hd), v=half(batch, 1, hd),
                past_key=half(batch, 1, length, hd), past_value=half(batch, 1, length, hd),
                seqlens_k=np.full(batch, length - 2, np.int32),
                total_len=np.array(length - 1, np.int32))  # fmt: skip


def cascade_graph(hd: int) -> bytes:
    import onnx_ir as ir

    from models.export.fast_cascade import attention_model

    return attention_model(HEADS, hd, ir.DataType.FLOAT16)


def time_variant(variant: str, kind: str, *, batch: int, length: int, provider: str,
                 runs: int, prefix: int = 0) -> dict:  # fmt: skip
    hd, window = LAYERS[kind]
    length = min(length, window) if window else length
    row = dict(variant=variant, layer=kind, batch=batch, kv_length=length, head_size=hd)
    if variant == "cascade" and (window or not 0 < prefix < length):
        return {**row, "error": "cascade: full layers with 0 < --prefix < --kv-length only"}
    if variant == "cascade":
        row["prefix"] = prefix
    model = {"matmul": lambda: matmul_graph(hd), "gqa": lambda: gqa_graph(hd, window),
             "attention": lambda: attention_graph(hd),
             "cascade": lambda: cascade_graph(hd)}[variant]()  # fmt: skip
    try:
        so = ort.SessionOptions()
        sess = ort.InferenceSession(model, so, providers=[provider])
        device = "cuda" if provider.startswith("CUDA") else "cpu"
        feeds = _feeds(variant, batch, length, hd, np.random.default_rng(0), prefix)
        binding = sess.io_binding()
        values = {}
        for name, array in feeds.items():
            where = "cpu" if name == "total_len" else device
            values[name] = ort.OrtValue.ortvalue_from_numpy(array, where, 0)
            binding.bind_ortvalue_input(name, values[name])
        for out in sess.get_outputs():
            if out.name.startswith("present_"):  # the cache updated in place
                binding.bind_ortvalue_output(out.name, values[out.name.replace("present", "past")])
            else:
                binding.bind_output(out.name, device)
        times = []
        for i in range(runs + 3):
            started = time.perf_counter()
            sess.run_with_iobinding(binding)
            binding.synchronize_outputs()
            if i >= 3:
                times.append(time.perf_counter() - started)
        ms = statistics.median(times) * 1000
        keys = batch * (length - prefix) + prefix if variant == "cascade" else batch * length
        cache_bytes = 2 * keys * hd * 2  # K and V, fp16 (the cascade's prefix once)
        row.update(ms=round(ms, 4), cache_gb_per_s=round(cache_bytes / ms / 1e6, 1))
    except Exception as exc:  # an op onnxruntime cannot run is a result here
        row.update(error=f"{type(exc).__name__}: {str(exc)[:300]}")
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, nargs="+", default=[512])
    ap.add_argument("--kv-length", type=int, default=1966)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--variants", nargs="+", default=["matmul", "gqa", "attention"])
    ap.add_argument("--prefix", type=int, default=1216, help="cascade: shared prefix keys")
    ap.add_argument("--tag", default="")
    args = ap.parse_args()
    gpu = "CUDAExecutionProvider" in ort.get_available_providers()
    if gpu:
        ort.preload_dlls()
    provider = "CUDAExecutionProvider" if gpu else "CPUExecutionProvider"
    rows = []
    print(f"{'variant':<10} {'layer':<8} {'batch':>5} {'L':>5} {'hd':>4} {'ms':>9} {'GB/s':>8}")
    for batch in args.batch:
        for kind in LAYERS:
            for variant in args.variants:
                row = time_variant(variant, kind, batch=batch, length=args.kv_length,
                                   provider=provider, runs=args.runs,
                                   prefix=args.prefix)  # fmt: skip
                rows.append(row)
                print(f"{variant:<10} {kind:<8} {batch:>5} {row['kv_length']:>5} "
                      f"{row['head_size']:>4} {row.get('ms', '-'):>9} "
                      f"{row.get('cache_gb_per_s', '-'):>8} {row.get('error', '')}")  # fmt: skip
    out = ROOT / "bench" / "results" / f"gemma-attention-{dt.date.today()}{args.tag}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(provider=provider, onnxruntime=ort.__version__,
                                   heads=HEADS, rows=rows), indent=2))  # fmt: skip
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
