"""Cascade (shared-prefix) attention for the decode step (`decoder/step_cascade.onnx`, written
by `models.export.fast.build_fast(cascade=True)`).

With the prompt prefix cache every row of a decode batch starts with the same prompt prefix
(the page prompt's instruction, 1,216 of a page's ~2,700 keys). The plain step reads each row's
own copy of it from the row's cache; the cascade step keeps the full-attention layers' prefix
K/V ONCE, `prefix.{i}.key/value [1,1,P,hd]` (as `prefill_past` takes them), and each row's
full-layer cache holds only what follows the prefix:

- scores of all rows' queries against the prefix: ONE GEMM (rows x heads folded into M:
  [B,heads,hd] x [hd,P]); against the row's own keys as in the plain step ([B,heads,Lc]);
- one softmax over both, written as its log-sum-exp merge (the max and the sum of both parts,
  then (e_prefix @ V_prefix + e_own @ V_own) / sum): the same function as a softmax over the
  concatenation, without a Slice whose bounds would need a Shape op (the step runs as a CUDA
  graph: nothing may run on the host);
- `prefix_len [B]` per row: a row's full-layer cache index is its padded index minus its
  prefix_len; a row whose prefix_len is 0 (a prompt without this prefix, an idle row) is
  stored whole and sees no prefix key (its prefix scores are masked).

Sliding layers keep their ring unchanged (the prefix leaves a 512-token window during the
image tokens, so there is nothing shared left to read); KV-shared layers read their source
layer's prefix with its cache. RoPE positions stay padded index - offset.
"""

from __future__ import annotations

from typing import Any

from models.export.graph_edit import Builder


def cascade_masks(b: Builder, slot: Any, plen: Any, off: Any, kidx: Any, zero: Any,
                  negc: Any) -> tuple[Any, Any, Any]:  # fmt: skip
    """(full-layer cache index to write [B], bias of the row's own keys [B,1,Lc], bias of the
    prefix keys [B,1,1]). The row's own tokens sit at padded index - prefix_len, so its first
    one (padded offset + prefix_len) at `offsets`: the visible own keys are offsets..index."""
    own_at = b.op("Sub", slot, plen)
    cur = b.op("Unsqueeze", own_at, b.const([1]))  # [B,1]
    ok = b.op("And", b.op("GreaterOrEqual", kidx, off), b.op("LessOrEqual", kidx, cur))
    own_bias = b.op("Unsqueeze", b.op("Where", ok, zero, negc), b.const([1]))
    has = b.op("Greater", plen, b.const(0))
    pre_bias = b.op("Unsqueeze", b.op("Where", has, zero, negc), b.const([1, 2]))
    return own_at, own_bias, pre_bias


def prefix_input(b: Builder, g: Any, name: str, dtype: Any, hd: int) -> Any:
    """A graph input `name` [1,1,prefix,hd] (one KV head), returned as [prefix, hd]."""
    import onnx_ir as ir

    v = ir.Value(name=name, type=ir.TensorType(dtype), shape=ir.Shape([1, 1, "prefix", hd]))
    g.inputs.append(v)
    return b.op("Reshape", v, b.const([-1, hd]))


def cascade_attention(b: Builder, q: Any, own: tuple[Any, Any, Any],
                      prefix: tuple[Any, Any, Any], *, heads: int, hd: int) -> Any:  # fmt: skip
    """One decode token per row, one KV head, `heads` query heads. q [B,1,heads*hd]; own =
    (keys [B,Lc,hd], values [B,Lc,hd], bias [B,1,Lc]); prefix = (keys [P,hd], values [P,hd],
    bias [B,1,1]). Returns [B,1,heads*hd]."""
    qr = b.op("Reshape", q, b.const([0, heads, hd]))  # [B, heads, hd]
    k_own, v_own, bias_own = own
    k_pre, v_pre, bias_pre = prefix
    # [B,heads,hd] x [hd,P]: the right side is 2-D, so one GEMM with M = B*heads.
    s_pre = b.op("Add", b.op("FusedMatMul", qr, k_pre, domain="com.microsoft", transB=1,
                             alpha=1.0), bias_pre)  # fmt: skip
    s_own = b.op("Add", b.op("FusedMatMul", qr, k_own, domain="com.microsoft", transB=1,
                             alpha=1.0), bias_own)  # fmt: skip
    last = b.const([-1])
    m = b.op("Max", b.op("ReduceMax", s_pre, last, keepdims=1),
             b.op("ReduceMax", s_own, last, keepdims=1))  # fmt: skip
    e_pre = b.op("Exp", b.op("Sub", s_pre, m))
    e_own = b.op("Exp", b.op("Sub", s_own, m))
    total = b.op("Add", b.op("ReduceSum", e_pre, last, keepdims=1),
                 b.op("ReduceSum", e_own, last, keepdims=1))  # fmt: skip
    o = b.op("Add", b.op("MatMul", e_pre, v_pre), b.op("MatMul", e_own, v_own))  # [B,heads,hd]
    return b.op("Reshape", b.op("Div", o, total), b.const([0, 1, heads * hd]))


def attention_model(heads: int, hd: int, dtype: Any) -> bytes:
    """The masks and attention alone as a model (tests, bench/gemma_attention.py): inputs q
    [B,1,heads*hd], the rows' own keys/values [B,L,hd], slot/offsets/prefix_len [B], kv_index
    [L], prefix.key/value [1,1,P,hd]; outputs y [B,1,heads*hd] and own_at [B] (the full-layer
    write index). dtype: an onnx_ir DataType (FLOAT, FLOAT16)."""
    import numpy as np
    import onnx_ir as ir

    npf = np.float16 if dtype == ir.DataType.FLOAT16 else np.float32
    f, i64 = ir.TensorType(dtype), ir.TensorType(ir.DataType.INT64)
    shapes = {"q": (f, ["B", 1, heads * hd]), "keys": (f, ["B", "L", hd]),
              "values": (f, ["B", "L", hd]), "slot": (i64, ["B"]), "offsets": (i64, ["B"]),
              "prefix_len": (i64, ["B"]), "kv_index": (i64, ["L"])}  # fmt: skip
    ins = {k: ir.Value(name=k, type=t, shape=ir.Shape(s)) for k, (t, s) in shapes.items()}
    g = ir.Graph(list(ins.values()), [], nodes=[], opset_imports={"": 24, "com.microsoft": 1})
    b = Builder(g, "cascade/")
    kidx = b.op("Unsqueeze", ins["kv_index"], b.const([0]))
    off = b.op("Unsqueeze", ins["offsets"], b.const([1]))
    neg = b.const(float(np.finfo(npf).min) / 2, npf)
    own_at, own_bias, pre_bias = cascade_masks(b, ins["slot"], ins["prefix_len"], off, kidx,
                                               b.const(0.0, npf), neg)  # fmt: skip
    pk, pv = (prefix_input(b, g, f"prefix.{k}", dtype, hd) for k in ("key", "value"))
    y = cascade_attention(b, ins["q"], (ins["keys"], ins["values"], own_bias),
                          (pk, pv, pre_bias), heads=heads, hd=hd)  # fmt: skip
    for v, name in ((y, "y"), (own_at, "own_at")):
        v.name = name
        g.outputs.append(v)
    return ir.to_proto(ir.Model(g, ir_version=10)).SerializeToString()


__all__ = ["attention_model", "cascade_attention", "cascade_masks", "prefix_input"]
