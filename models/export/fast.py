"""Static-KV-cache graphs for fast batched decoding (GPU worker): `decoder/prefill.onnx` and
`decoder/step.onnx`, cut from the package's default-EP decoder (`decoder/model.onnx`).

Both graphs reuse the decoder's weights file (`decoder/model.onnx.data`, same folder): no second
copy on disk. What changes, per attention layer (the ONNX `Attention` nodes are replaced):

- KV caches are preallocated by the caller and updated IN PLACE with `TensorScatter` (opset 24):
  inputs `cache.{i}.key/value`, outputs `cache_out.{i}.key/value`; the caller binds each pair to
  the same device buffer (I/O binding), so nothing is copied or reallocated per step.
  Full-attention layers: `[B, 1, L, head_dim]`, slot = padded token index (linear).
  Sliding layers: a ring of `[B, 1, W, head_dim]` (W = sliding window), slot = index % W: keys are
  stored after RoPE, so their order in the ring does not matter for attention.
- Attention is plain MatMul / Softmax / MatMul (one KV head: the query heads fold into rows, so
  both products are strided-batched GEMMs that read the cache once). The masks come from per-row
  left-padding offsets and the current slot - no Shape ops, nothing on the CPU.
- The LM head runs on the last position only; `next_token` = ArgMax.

prefill (fresh rows, left-padded to a common length S):
    inputs_embeds [b,S,H], per_layer_inputs [b,S,P], attention_mask [b,S] (0 = left pad),
    position_ids [b,S], cache.* -> next_token [b], next_input [b], logits [b,V] (last position),
    cache_out.*
prefill_past (rows of one shared prompt prefix, no padding: all rows S tokens after it):
    inputs_embeds [b,S,H], per_layer_inputs [b,S,P], position_ids [b,S] (prefix length + 0..S-1),
    prefix.{i}.key/value [1,1,Pi,hd] (the prefix's KV, computed once: full layers all of it,
    sliding layers its last Pi <= W tokens, in order), bias.full_attention [1,1,S,P+S] and
    bias.sliding_attention [1,1,S,Pi+S] (0 / -inf-ish: the caller builds them), write_at [b]
    (padded index of each row's first prefix token), ring_at [b] (ring slot of the first token
    written to the sliding rings), cache.* -> next_token, next_input, logits, cache_out.*
    The prefix is written into each row's cache with the row's own tokens, so decoding after it
    is the same as after a full prefill.
step (one token per row, every row at the same padded index `slot`):
    inputs_embeds [B,1,H], per_layer_inputs [B,1,P], slot [B], offsets [B] (left pad per row),
    kv_index [L] (0..L-1), history [B,L] (int64), cache.*
    -> next_token [B], next_input [B] (the id to embed next: multimodal ids -> pad),
       history_out (next_token written at slot+1), slot_out (= slot + 1), cache_out.*
    Bind `slot`/`slot_out`, `history`/`history_out` and each cache pair to the same buffers and the
    step needs no host data between calls, so it can run as a CUDA graph.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from models.export.fast_cascade import cascade_attention, cascade_masks, prefix_input
from models.export.fast_vision import build_fast_vision
from models.export.graph_edit import Builder, remove_unused, scalar

log = logging.getLogger(__name__)

PREFILL_FILE = "decoder/prefill.onnx"
PREFILL_PAST_FILE = "decoder/prefill_past.onnx"
STEP_FILE = "decoder/step.onnx"
# Cascade attention (`build_fast(cascade=True)`, models.export.fast_cascade): the step that reads
# the shared prompt prefix once for all rows and the prefill that fills its shorter caches.
PREFILL_CASCADE_FILE = "decoder/prefill_cascade.onnx"
STEP_CASCADE_FILE = "decoder/step_cascade.onnx"
FAST_FORMAT = 1
PREFILL_ATTENTION = ("mha", "matmul")


def _layer_of(name: str) -> int:
    import re

    m = re.search(r"layers\.(\d+)/", name)
    if not m:
        raise ValueError(f"cannot tell the layer of node {name}")
    return int(m.group(1))


def _attention_nodes(g: Any) -> dict[int, Any]:
    nodes = {_layer_of(n.name): n for n in g if n.op_type == "Attention" and n.domain == ""}
    if not nodes:
        raise ValueError("decoder has no ONNX Attention nodes (build it with --ep default)")
    return nodes


def _float_dtype(g: Any) -> Any:
    return next(i for i in g.inputs if i.name == "inputs_embeds").dtype


def _np_float(dtype: Any) -> Any:
    import onnx_ir as ir

    return np.float16 if dtype == ir.DataType.FLOAT16 else np.float32


def _last_token_head(b: Builder, g: Any, *, raw_argmax: bool = False) -> tuple[Any, Any]:
    """LM head on the last position: norm output [B,S,H] -> Gather(-1) -> [B,H] -> head -> softcap.
    Returns (logits [B,V], next_token [B]); the old logits/next_token nodes are left dead.
    raw_argmax: next_token = ArgMax of the head's own output (the softcap is monotonic, so the
    same token; a decode step then skips three elementwise passes over [B, vocab])."""
    head = next(n for n in g if n.op_type == "MatMul" and "lm_head" in n.name)
    hidden = head.inputs[0]
    last = b.op("Gather", hidden, b.const(-1), axis=1)  # [B, H]
    # Clone the chain head -> ... -> logits onto the gathered row (elementwise after the MatMul).
    old_to_new = {hidden: last}
    chain, cur = [head], head
    logits_old = next(o for o in g.outputs if o.name == "logits")
    while cur.outputs[0] is not logits_old:
        users = [u for u, _ in cur.outputs[0].uses()]
        if len(users) != 1:
            raise ValueError(f"unexpected LM-head chain at {cur.name}")
        cur = users[0]
        chain.append(cur)
    for n in chain:
        ins = [old_to_new.get(i, i) for i in n.inputs]
        attrs = {k: v.value for k, v in n.attributes.items()}
        old_to_new[n.outputs[0]] = b.op(n.op_type, *ins, domain=n.domain, **attrs)
    logits = old_to_new[logits_old]
    scores = old_to_new[head.outputs[0]] if raw_argmax else logits
    nxt = b.op("ArgMax", scores, axis=-1, keepdims=0)
    return logits, nxt


def _next_input(b: Builder, nxt: Any, cfg: dict[str, Any]) -> Any:
    """The id the embedding should see for a generated token: multimodal ids (image, audio,
    video) become pad, as transformers embeds such ids when they carry no features."""
    ids = cfg["ids"]
    special = [ids[k] for k in ("image", "audio", "video") if ids.get(k) is not None]
    hit = None
    for sid in special:
        e = b.op("Equal", nxt, b.const(sid))
        hit = e if hit is None else b.op("Or", hit, e)
    if hit is None:
        return b.op("Identity", nxt)
    return b.op("Where", hit, b.const(ids["pad"]), nxt)


def _rename(v: Any, name: str, shape: list[Any], dtype: Any = None) -> Any:
    import onnx_ir as ir

    v.name = name
    v.shape = ir.Shape(shape)
    if dtype is not None:
        v.dtype = dtype
    return v


def _cache_inputs(g: Any, cfg: dict[str, Any], *, batch: str, ring: bool,
                  full_length: str = "kv_length") -> dict[int, tuple]:  # fmt: skip
    import onnx_ir as ir

    t = cfg["text"]
    dt = _float_dtype(g)
    caches = {}
    for i in t["kv_layers"]:
        hd = int(next(v for v in g.inputs if v.name == f"past_key_values.{i}.key").shape[-1])
        full = t["layer_types"][i] == "full_attention"
        length = full_length if (full or not ring) else t["sliding_window"]
        pair = []
        for kind in ("key", "value"):
            v = ir.Value(name=f"cache.{i}.{kind}", type=ir.TensorType(dt),
                         shape=ir.Shape([batch, 1, length, hd]))  # fmt: skip
            g.inputs.append(v)
            pair.append(v)
        caches[i] = tuple(pair)
    return caches


def _finish(g: Any, outputs: list[Any]) -> None:
    g.outputs.clear()
    g.outputs.extend(outputs)
    # Drop the old KV inputs and whatever fed only the replaced attention.
    remove_unused(g)
    for v in list(g.inputs):
        if not v.uses():
            g.inputs.remove(v)
    g.sort()


def _attn(b: Builder, q: Any, k3: Any, v3: Any, bias: Any, *, heads: int, hd: int,
          prefill: bool, shapes: tuple[Any, Any] | None = None,
          fused: bool = False) -> Any:  # fmt: skip
    """One KV head, `heads` query heads. prefill: q [B,S,heads*hd], k3/v3 [B,S,hd],
    bias [B,1,S,S], shapes (to [B,heads,S,S], back to [B,heads*S,S]), `fused`: one
    MultiHeadAttention instead of MatMul/Softmax/MatMul; step: q [B,1,heads*hd], k3/v3 [B,L,hd]
    (the cache), bias [B,1,L]."""
    if prefill and fused:
        # com.microsoft MultiHeadAttention over the row's own keys: the bias [B,1,S,S]
        # broadcasts over the heads and the scores never reach device memory (CUDA: memory-
        # efficient / cuDNN kernels). Its heads each need a key: tile the one KV head.
        kt, vt = (b.op("Tile", x, b.const([1, 1, heads])) for x in (k3, v3))
        return b.op("MultiHeadAttention", q, kt, vt, None, None, bias, domain="com.microsoft",
                    num_heads=heads, scale=1.0)  # fmt: skip
    if prefill:
        assert shapes is not None
        q4 = b.op("Transpose", b.op("Reshape", q, b.const([0, 0, heads, hd])), perm=[0, 2, 1, 3])
        qr = b.op("Reshape", q4, b.const([0, -1, hd]))  # [B, heads*S, hd]
        s = b.op("FusedMatMul", qr, k3, domain="com.microsoft", transB=1, alpha=1.0)
        # The mask broadcasts over the heads (no [B, heads*S, S] copy of it in memory; Add +
        # Softmax can then fuse into onnxruntime's BiasSoftmax, as in the decode step).
        s4 = b.op("Reshape", s, shapes[0])  # [B, heads, S, S]
        p = b.op("Reshape", b.op("Softmax", b.op("Add", s4, bias), axis=-1), shapes[1])
        o = b.op("MatMul", p, v3)  # [B, heads*S, hd]
        o = b.op("Transpose", b.op("Reshape", o, b.const([0, heads, -1, hd])), perm=[0, 2, 1, 3])
        return b.op("Reshape", o, b.const([0, 0, heads * hd]))
    qr = b.op("Reshape", q, b.const([0, heads, hd]))  # [B, heads, hd]
    s = b.op("FusedMatMul", qr, k3, domain="com.microsoft", transB=1, alpha=1.0)  # [B,h,L]
    p = b.op("Softmax", b.op("Add", s, bias), axis=-1)
    o = b.op("MatMul", p, v3)  # [B, heads, hd]
    return b.op("Reshape", o, b.const([0, 1, heads * hd]))


def fold_weightless_rms(b: Builder, g: Any, npf: Any) -> int:
    """x / Sqrt(ReduceMean(x * x, -1) + eps) (how mobius writes the weightless v_norm: five
    kernels, each a pass over x) -> one RMSNormalization with scale 1 (the same function).
    Returns how many were folded."""
    count = 0
    for rm in [n for n in g if n.op_type == "ReduceMean"]:
        sq = rm.inputs[0].producer()
        axes = scalar(rm.inputs[1]) if len(rm.inputs) > 1 else None
        attrs = {k: v.value for k, v in rm.attributes.items()}
        if sq is None or sq.op_type != "Mul" or sq.inputs[0] is not sq.inputs[1]:
            continue
        if axes != -1 or attrs.get("keepdims", 1) != 1:
            continue
        x = sq.inputs[0]
        chain = [rm]
        for op in ("Add", "Sqrt", "Div"):
            users = [u for u, _ in chain[-1].outputs[0].uses()]
            if len(users) != 1 or users[0].op_type != op:
                break
            chain.append(users[0])
        if len(chain) != 4:
            continue
        _, add, _, div = chain
        eps = scalar(add.inputs[1])
        width = x.shape[-1] if x.shape is not None else None
        if eps is None or div.inputs[0] is not x or not isinstance(width, int):
            continue
        y = b.op("RMSNormalization", x, b.const(np.ones(width), npf), axis=-1, epsilon=eps)
        div.outputs[0].replace_all_uses_with(y)
        count += 1
    return count


def fold_scaled_residual_norm(b: Builder, g: Any) -> int:
    """A layer's end, Add(residual, branch) -> Mul(layer_scalar s > 0) -> the next layer's
    input RMSNormalization(w, eps) (the scaled sum also goes on as the residual), becomes one
    com.microsoft SkipSimplifiedLayerNormalization(residual, branch, w, eps / s^2) and the Mul
    on its sum output: one kernel a layer fewer (Add, Mul, norm -> Skip, Mul). Exact in real
    arithmetic: norm(s x) = x / sqrt(mean(x^2) + eps / s^2) * w for s > 0. Returns how many."""
    count = 0
    for mul in [n for n in g if n.op_type == "Mul"]:
        add = mul.inputs[0].producer()
        s = scalar(mul.inputs[1])
        if add is None or add.op_type != "Add" or s is None or not s > 0:
            continue
        norms = [u for u, _ in mul.outputs[0].uses() if u.op_type == "RMSNormalization"]
        if len(add.outputs[0].uses()) != 1 or len(norms) != 1:
            continue
        norm, (x, y) = norms[0], add.inputs
        a = {k: v.value for k, v in norm.attributes.items()}
        if norm.inputs[0] is not mul.outputs[0] or a.get("axis", -1) != -1:
            continue
        if any(v in g.outputs for v in (norm.outputs[0], mul.outputs[0])):
            continue
        same = x.shape is not None and x.shape == y.shape and x.dtype == y.dtype
        if not same or norm.inputs[1].dtype != x.dtype or norm.domain != "":
            continue
        out, _, _, total = b.op("SkipSimplifiedLayerNormalization", x, y, norm.inputs[1],
                                domain="com.microsoft", outputs=4,
                                epsilon=float(a.get("epsilon", 1e-5)) / s**2)  # fmt: skip
        norm.outputs[0].replace_all_uses_with(out)
        mul.outputs[0].replace_all_uses_with(b.op("Mul", total, mul.inputs[1]))
        count += 1
    return count


def _check_attention(node: Any) -> None:
    a = {k: v.value for k, v in node.attributes.items()}
    if a.get("kv_num_heads") != 1 or float(a.get("scale", 1.0)) != 1.0 or a.get("softcap", 0):
        raise ValueError(f"{node.name}: fast graphs support 1 KV head, scale 1, no softcap ({a})")


def _attention_layers(
    attn: dict[int, Any], t: dict[str, Any], heads: int
) -> Iterator[tuple[int, Any, str, int, int | None]]:
    """Each attention node in layer order, checked: (layer, node, layer type, head size read
    from the graph (the config may lack it), the layer whose KV it shares or None)."""
    shared = {int(k): v for k, v in t["kv_shared_from"].items()}
    for i in sorted(attn):
        node = attn[i]
        _check_attention(node)
        yield i, node, t["layer_types"][i], int(node.inputs[0].shape[-1]) // heads, shared.get(i)


# Fusions of the decoder graphs past the attention rewrite (on unless build_fast is told not
# to; each graph's counts: the manifest's fast.decoder_fusions).
DECODER_FUSIONS = {"scaled_residual_norm": fold_scaled_residual_norm}


def _graph_setup(model: Any, cfg: dict[str, Any], *, prefix: str, fusions: bool,
                 full_length: str = "kv_length") -> tuple:  # fmt: skip
    """What both fast graphs start from: the graph, text config, heads, window, the masking
    value of the graph's float type, a node builder, the attention nodes and the cache inputs
    (full layers `full_length` long). The `DECODER_FUSIONS` run here when `fusions`; their
    counts go to g.meta["fusions"]."""
    g = model.graph
    t = cfg["text"]
    npf = _np_float(_float_dtype(g))
    neg = float(np.finfo(npf).min) / 2
    b = Builder(g, prefix)
    fold_weightless_rms(b, g, npf)
    g.meta["fusions"] = {k: f(b, g) for k, f in DECODER_FUSIONS.items()} if fusions else {}
    attn = _attention_nodes(g)
    caches = _cache_inputs(g, cfg, batch="batch", ring=True, full_length=full_length)
    return g, t, t["num_attention_heads"], t["sliding_window"], npf, neg, b, attn, caches


def make_prefill(model: Any, cfg: dict[str, Any], *, attention: str = "mha",
                 fusions: bool = True) -> Any:  # fmt: skip
    """attention: "mha" (one MultiHeadAttention per layer) or "matmul" (scores in memory)."""
    import onnx_ir as ir

    if attention not in PREFILL_ATTENTION:
        raise ValueError(f"prefill attention {attention!r}: one of {PREFILL_ATTENTION}")

    g, t, heads, W, npf, neg, b, attn, caches = _graph_setup(
        model, cfg, prefix="fastp/", fusions=fusions
    )
    mask = next(i for i in g.inputs if i.name == "attention_mask")
    # Row-local indices 0..S-1 from the mask's shape (device ops only): ar [b,S].
    ones = b.op("Add", b.op("Mul", mask, b.const(0)), b.const(1))
    ar = b.op("Sub", b.op("CumSum", ones, b.const(1)), b.const(1))
    qi = b.op("Unsqueeze", ar, b.const([2]))  # [b,S,1]
    kj = b.op("Unsqueeze", ar, b.const([1]))  # [b,1,S]
    causal = b.op("LessOrEqual", kj, qi)
    keyok = b.op("Equal", b.op("Unsqueeze", mask, b.const([1])), b.const(1))
    diag = b.op("Equal", kj, qi)  # padded query rows see themselves: no all-masked row
    full_ok = b.op("Or", b.op("And", causal, keyok), diag)
    win = b.op("Less", b.op("Sub", qi, kj), b.const(W))
    slide_ok = b.op("Or", b.op("And", b.op("And", causal, win), keyok), diag)
    zero, negc = b.const(0.0, npf), b.const(neg, npf)
    bias = {  # [b,1,S,S]: broadcast over the heads
        "full_attention": b.op("Unsqueeze", b.op("Where", full_ok, zero, negc), b.const([1])),
        "sliding_attention": b.op("Unsqueeze", b.op("Where", slide_ok, zero, negc), b.const([1])),
    }
    width = b.op("Shape", mask, start=1)  # [S]
    shapes = (
        b.op("Concat", b.const([0, heads, -1]), width, axis=0),  # scores as [b, heads, S, S]
        b.op("Concat", b.const([0, -1]), width, axis=0),  # and back to [b, heads*S, S]
    )
    seq = b.op("Add", b.op("Gather", ar, b.const(-1), axis=1), b.const(1))  # [b] = S
    ring_at = b.op("Mod", b.op("Max", b.op("Sub", seq, b.const(W)), b.const(0)), b.const(W))
    zeros_b = b.op("Mul", seq, b.const(0))
    kv: dict[int, tuple[Any, Any]] = {}  # layer -> (k3, v3) of this prompt
    outputs = []
    for i, node, ltype, hd, source in _attention_layers(attn, t, heads):
        q = node.inputs[0]
        if source is not None:
            k3, v3 = kv[source]
        else:
            k3, v3 = node.inputs[1], node.inputs[2]
            kv[i] = (k3, v3)
            ck, cv = caches[i]
            for c, x, kind in ((ck, k3, "key"), (cv, v3, "value")):
                x4 = b.op("Unsqueeze", x, b.const([1]))  # [b,1,S,hd] (one KV head)
                if ltype == "full_attention":
                    out = b.op("TensorScatter", c, x4, zeros_b, axis=2)
                else:
                    tail = b.op("Slice", x4, b.const([-W]), b.const([2**62]), b.const([2]))
                    out = b.op("TensorScatter", c, tail, ring_at, axis=2, mode="circular")
                outputs.append(_rename(out, f"cache_out.{i}.{kind}", list(c.shape), c.dtype))
        y = _attn(b, q, k3, v3, bias[ltype], heads=heads, hd=hd, prefill=True, shapes=shapes,
                  fused=attention == "mha")  # fmt: skip
        node.outputs[0].replace_all_uses_with(y)
    logits, nxt = _last_token_head(b, g)
    _rename(nxt, "next_token", ["batch"], ir.DataType.INT64)
    _rename(logits, "logits", ["batch", t["vocab_size"]], _float_dtype(g))
    nin = _rename(_next_input(b, nxt, cfg), "next_input", ["batch"], ir.DataType.INT64)
    _finish(g, [nxt, nin, logits, *outputs])
    return model


def make_prefill_past(model: Any, cfg: dict[str, Any], *, attention: str = "mha",
                      fusions: bool = True, cascade: bool = False) -> Any:  # fmt: skip
    """The prefill of rows that start with a cached prompt prefix (see the module doc).
    cascade: the full layers' caches get the rows' own tokens only, from write_at (the cascade
    step reads the prefix from its own input)."""
    import onnx_ir as ir

    if attention not in PREFILL_ATTENTION:
        raise ValueError(f"prefill attention {attention!r}: one of {PREFILL_ATTENTION}")
    g, t, heads, W, npf, neg, b, attn, caches = _graph_setup(
        model, cfg, prefix="fastx/", fusions=fusions
    )
    dt = _float_dtype(g)
    i64 = ir.TensorType(ir.DataType.INT64)
    write_at = ir.Value(name="write_at", type=i64, shape=ir.Shape(["batch"]))
    ring_at = ir.Value(name="ring_at", type=i64, shape=ir.Shape(["batch"]))
    bias = {lt: ir.Value(name=f"bias.{lt}", type=ir.TensorType(dt),
                         shape=ir.Shape([1, 1, "seq", f"keys_{lt}"]))
            for lt in ("full_attention", "sliding_attention")}  # fmt: skip
    g.inputs.extend([write_at, ring_at, *bias.values()])
    embeds = next(i for i in g.inputs if i.name == "inputs_embeds")
    # [b,1,1]: a prefix [1,Pi,hd] expanded to every row.
    rows = b.op("Concat", b.op("Shape", embeds, start=0, end=1), b.const([1, 1]), axis=0)
    shapes = {lt: (b.op("Concat", b.const([0, heads, -1]), b.op("Shape", v, start=3), axis=0),
                   b.op("Concat", b.const([0, -1]), b.op("Shape", v, start=3), axis=0))
              for lt, v in bias.items()}  # fmt: skip
    if attention == "mha":  # per row, as the plain prefill gives MultiHeadAttention its bias
        rows4 = b.op("Concat", b.op("Shape", embeds, start=0, end=1), b.const([1, 1, 1]), axis=0)
        bias = {lt: b.op("Expand", v, rows4) for lt, v in bias.items()}
    kv: dict[int, tuple[Any, Any]] = {}
    outputs = []
    for i, node, ltype, hd, source in _attention_layers(attn, t, heads):
        if source is not None:
            k3, v3 = kv[source]
        else:
            ck, cv = caches[i]
            pair = []
            for c, x, kind in ((ck, node.inputs[1], "key"), (cv, node.inputs[2], "value")):
                pv = ir.Value(name=f"prefix.{i}.{kind}", type=ir.TensorType(dt),
                              shape=ir.Shape([1, 1, f"prefix_{ltype}", hd]))  # fmt: skip
                g.inputs.append(pv)
                pre = b.op("Expand", b.op("Squeeze", pv, b.const([1])), rows)  # [b,Pi,hd]
                whole = b.op("Concat", pre, x, axis=1)  # [b,Pi+S,hd]: prefix, then the row's
                x4 = b.op("Unsqueeze", whole, b.const([1]))
                if ltype == "full_attention" and cascade:
                    own = b.op("Unsqueeze", x, b.const([1]))
                    out = b.op("TensorScatter", c, own, write_at, axis=2)
                elif ltype == "full_attention":
                    out = b.op("TensorScatter", c, x4, write_at, axis=2)
                else:
                    tail = b.op("Slice", x4, b.const([-W]), b.const([2**62]), b.const([2]))
                    out = b.op("TensorScatter", c, tail, ring_at, axis=2, mode="circular")
                outputs.append(_rename(out, f"cache_out.{i}.{kind}", list(c.shape), c.dtype))
                pair.append(whole)
            k3, v3 = kv[i] = tuple(pair)
        y = _attn(b, node.inputs[0], k3, v3, bias[ltype], heads=heads, hd=hd, prefill=True,
                  shapes=shapes[ltype], fused=attention == "mha")  # fmt: skip
        node.outputs[0].replace_all_uses_with(y)
    logits, nxt = _last_token_head(b, g)
    _rename(nxt, "next_token", ["batch"], ir.DataType.INT64)
    _rename(logits, "logits", ["batch", t["vocab_size"]], dt)
    nin = _rename(_next_input(b, nxt, cfg), "next_input", ["batch"], ir.DataType.INT64)
    _finish(g, [nxt, nin, logits, *outputs])
    return model


def make_step(model: Any, cfg: dict[str, Any], *, fusions: bool = True,
              cascade: bool = False) -> Any:  # fmt: skip
    """cascade: the full layers read the shared prompt prefix once for all rows
    (`models.export.fast_cascade`; inputs prefix_len and prefix.{i}.key/value, full-layer
    caches `cache_length` long)."""
    import onnx_ir as ir

    full_len = "cache_length" if cascade else "kv_length"
    g, t, heads, W, npf, neg, b, attn, caches = _graph_setup(
        model, cfg, prefix="fasts/", fusions=fusions, full_length=full_len
    )
    i64 = ir.TensorType(ir.DataType.INT64)
    slot = ir.Value(name="slot", type=i64, shape=ir.Shape(["batch"]))
    offsets = ir.Value(name="offsets", type=i64, shape=ir.Shape(["batch"]))
    kv_index = ir.Value(name="kv_index", type=i64, shape=ir.Shape([full_len]))
    history = ir.Value(name="history", type=i64, shape=ir.Shape(["batch", "kv_length"]))
    g.inputs.extend([slot, offsets, kv_index, history])
    # RoPE positions = slot - offsets (replaces the position_ids input).
    pos_in = next(i for i in g.inputs if i.name == "position_ids")
    pos = b.op("Unsqueeze", b.op("Sub", slot, offsets), b.const([1]))  # [B,1]
    pos_in.replace_all_uses_with(pos)
    cur = b.op("Unsqueeze", slot, b.const([1]))  # [B,1]
    off = b.op("Unsqueeze", offsets, b.const([1]))
    zero, negc = b.const(0.0, npf), b.const(neg, npf)
    kidx = b.op("Unsqueeze", kv_index, b.const([0]))  # [1,L]
    full_at, pre_bias = slot, None
    if cascade:
        plen = ir.Value(name="prefix_len", type=i64, shape=ir.Shape(["batch"]))
        g.inputs.append(plen)
        full_at, full_bias, pre_bias = cascade_masks(b, slot, plen, off, kidx, zero, negc)
    else:
        full_ok = b.op("And", b.op("GreaterOrEqual", kidx, off), b.op("LessOrEqual", kidx, cur))
        full_bias = b.op("Unsqueeze", b.op("Where", full_ok, zero, negc), b.const([1]))
    ring_j = b.const(np.arange(W, dtype=np.int64)[None])  # [1,W]
    ring_pos = b.op("Sub", cur, b.op("Mod", b.op("Sub", cur, ring_j), b.const(W)))  # padded index
    ring_ok = b.op("GreaterOrEqual", ring_pos, off)
    bias = {
        "full_attention": full_bias,
        "sliding_attention": b.op("Unsqueeze", b.op("Where", ring_ok, zero, negc), b.const([1])),
    }
    ring_at = b.op("Mod", slot, b.const(W))
    kv: dict[int, tuple[Any, ...]] = {}
    outputs = []
    for i, node, ltype, hd, source in _attention_layers(attn, t, heads):
        if source is not None:
            k3, v3, *pre = kv[source]
        else:
            ck, cv = caches[i]
            pair = []
            for c, x, kind in ((ck, node.inputs[1], "key"), (cv, node.inputs[2], "value")):
                x4 = b.op("Unsqueeze", x, b.const([1]))  # [B,1,1,hd]
                at = full_at if ltype == "full_attention" else ring_at
                out = b.op("TensorScatter", c, x4, at, axis=2)
                outputs.append(_rename(out, f"cache_out.{i}.{kind}", list(c.shape), c.dtype))
                pair.append(b.op("Reshape", out, b.const([0, -1, hd])))  # [B,L,hd]
            pre = []
            if cascade and ltype == "full_attention":
                pre = [prefix_input(b, g, f"prefix.{i}.{kind}", c.dtype, hd)
                       for kind in ("key", "value")]  # fmt: skip
            k3, v3 = pair
            kv[i] = (k3, v3, *pre)
        if pre:
            y = cascade_attention(b, node.inputs[0], (k3, v3, bias[ltype]),
                                  (pre[0], pre[1], pre_bias), heads=heads, hd=hd)  # fmt: skip
        else:
            y = _attn(b, node.inputs[0], k3, v3, bias[ltype], heads=heads, hd=hd, prefill=False)
        node.outputs[0].replace_all_uses_with(y)
    _, nxt = _last_token_head(b, g, raw_argmax=True)
    _rename(nxt, "next_token", ["batch"], ir.DataType.INT64)
    # slot_out = slot + 1, computed after next_token (so after every reader of `slot`: it is
    # written in place into the same buffer).
    after = b.op("Add", b.op("Add", slot, b.op("Mul", nxt, b.const(0))), b.const(1))
    slot_out = _rename(after, "slot_out", ["batch"], ir.DataType.INT64)
    hist = b.op("TensorScatter", history, b.op("Unsqueeze", nxt, b.const([1])), slot_out, axis=1)
    hist = _rename(hist, "history_out", ["batch", "kv_length"], ir.DataType.INT64)
    nin = _rename(_next_input(b, nxt, cfg), "next_input", ["batch"], ir.DataType.INT64)
    _finish(g, [nxt, nin, slot_out, hist, *outputs])
    return model


def _kv_dims(out: Path, layers: list[int]) -> list[int]:
    import onnx

    m = onnx.load(str(out / "decoder" / "model.onnx"), load_external_data=False)
    dims = {i.name: i.type.tensor_type.shape.dim[-1].dim_value for i in m.graph.input}
    return [int(dims[f"past_key_values.{i}.key"]) for i in layers]


def build_fast(out: Path, cfg: dict[str, Any], *, prefill_attention: str = "mha",
               vision_fusions: bool = True, decoder_fusions: bool = True,
               cascade: bool = False) -> dict:  # fmt: skip
    """Write decoder/prefill.onnx and decoder/step.onnx next to decoder/model.onnx (sharing its
    weights file), and the fast vision graph; `vision_fusions` / `decoder_fusions`: with the
    fusion passes (models.export.fast_vision.VISION_FUSIONS, DECODER_FUSIONS); `cascade`: also
    the cascade step and its prefill (models.export.fast_cascade). Returns the manifest's
    "fast" section."""
    import onnx_ir as ir

    dec = out / "decoder" / "model.onnx"
    att, fuse = prefill_attention, decoder_fusions
    makers = [(PREFILL_FILE, lambda m: make_prefill(m, cfg, attention=att, fusions=fuse)),
              (PREFILL_PAST_FILE,
               lambda m: make_prefill_past(m, cfg, attention=att, fusions=fuse)),
              (STEP_FILE, lambda m: make_step(m, cfg, fusions=fuse))]  # fmt: skip
    if cascade:
        makers += [(PREFILL_CASCADE_FILE, lambda m: make_prefill_past(
                       m, cfg, attention=att, fusions=fuse, cascade=True)),
                   (STEP_CASCADE_FILE, lambda m: make_step(m, cfg, fusions=fuse,
                                                           cascade=True))]  # fmt: skip
    fused = {}
    for rel, make in makers:
        model = ir.load(dec)
        make(model)
        fused[rel] = model.graph.meta["fusions"]
        ir.save(model, out / rel)  # external tensors keep pointing at model.onnx.data
        log.info("fast graph %s: %d nodes, fusions %s", rel, len(list(model.graph)), fused[rel])
        del model
    for rel in (PREFILL_CASCADE_FILE, STEP_CASCADE_FILE):  # a rebuild without cascade drops them
        if not cascade:
            (out / rel).unlink(missing_ok=True)
    t = cfg["text"]
    vision = build_fast_vision(out, fusions=vision_fusions)
    return {
        "format": FAST_FORMAT,
        "prefill": PREFILL_FILE,
        "prefill_past": PREFILL_PAST_FILE,
        "step": STEP_FILE,
        **(
            {"prefill_cascade": PREFILL_CASCADE_FILE, "step_cascade": STEP_CASCADE_FILE}
            if cascade
            else {}
        ),
        **vision,
        "vision_input": "unpadded",
        "prefill_attention": prefill_attention,
        "decoder_fusions": fused,
        "kv_layers": t["kv_layers"],
        "kv_head_dims": _kv_dims(out, t["kv_layers"]),
        "ring": t["sliding_window"],
        "padding": "left",
    }
