"""The fast vision graph (`vision_encoder/fast.onnx`), cut from the package's vision encoder:
attention as com.microsoft MultiHeadAttention on unpadded patches, no-op clamps dropped, and
(by default) the fusions of `VISION_FUSIONS`, each a small named pass that counts what it did.

What mobius already fuses (checked on the exported graph, nothing left to do here): every norm
is one ONNX `RMSNormalization` (q/k/v and the post-attention / post-feedforward norms) or one
com.microsoft `SkipSimplifiedLayerNormalization` (residual Add + the next norm), and the MLP's
activation is one ONNX `Gelu(approximate="tanh")` (onnxruntime has a CUDA kernel for Gelu-20)
times the up projection, with no bias Add for a BiasGelu."""

from __future__ import annotations

import logging
import re
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from models.export.graph_edit import Builder, remove_unused, scalar

log = logging.getLogger(__name__)

VISION_FILE = "vision_encoder/fast.onnx"
# Ops that launch no device kernel in onnxruntime's CUDA EP (views of their input, or shapes
# computed on the host): left out of the kernel counts.
NO_KERNEL_OPS = frozenset({"Reshape", "Unsqueeze", "Squeeze", "Shape", "Constant", "Identity",
                           "Flatten"})  # fmt: skip
# com.microsoft RotaryEmbedding launches one CUDA block per (head, position, batch row), the
# rows in grid z: at most 65,535 patches a call (a 1120-token page has 10,080).
_LAYER = re.compile(r"layers\.(\d+)[/.]")


def drop_unbounded_clips(g: Any) -> int:
    """Remove every Clip whose bounds are constants of -inf and +inf (or absent): a clippable
    linear of a checkpoint that never set its bounds clamps nothing, yet each Clip is a pass
    over the activations (224 of them took 8.6 ms of a 1120-token page's 37 ms on an H200).
    Finite (or non-constant) bounds stay. Returns how many were removed."""
    count = 0
    for n in [n for n in g if n.op_type == "Clip"]:
        bounds = [n.inputs[k] if len(n.inputs) > k else None for k in (1, 2)]
        free = []
        for v, sign in zip(bounds, (-1.0, 1.0), strict=True):
            if v is None:
                free.append(True)
            elif v.const_value is None:
                free.append(False)
            else:
                a = v.const_value.numpy()
                free.append(bool(a.size and np.all(np.isinf(a) & (np.sign(a) == sign))))
        if all(free) and not any(o in g.outputs for o in n.outputs):
            n.outputs[0].replace_all_uses_with(n.inputs[0])
            count += 1
    remove_unused(g)
    return count


def layer_tag(name: str) -> str:
    """The encoder layer ("layers.3/") a node or value name says, or ""."""
    m = _LAYER.search(name)
    return f"layers.{m.group(1)}/" if m else ""


def _node_layer(node: Any) -> str:
    """A node's layer: its name's, else its first output's (mobius' fused norms have bare
    names; their outputs are named after the norm they compute)."""
    return layer_tag(node.name) or (layer_tag(node.outputs[0].name or "") if node.outputs else "")


class LayerBuilders:
    """One Builder per encoder layer, its nodes named with the layer's tag (so `op_counts`
    counts them with their layer) and a suffix that keeps names unique."""

    def __init__(self, g: Any, suffix: str) -> None:
        self.g, self.suffix, self.by_tag = g, suffix, {}

    def __call__(self, node_name: str) -> Builder:
        tag = layer_tag(node_name)
        if tag not in self.by_tag:
            self.by_tag[tag] = Builder(self.g, f"fastv/{tag}{self.suffix}")
        return self.by_tag[tag]


def op_counts(g: Any) -> dict[str, Any]:
    """Nodes and kernel-launching nodes (not `NO_KERNEL_OPS`) of the whole graph and of one
    encoder layer, the last (the first also computes what all layers share: the RoPE
    positions and tables), with that layer's op types."""
    tags = {t for t in (_node_layer(n) for n in g) if t}
    last = max(tags, key=lambda t: int(_LAYER.match(t).group(1)), default="")
    ops = Counter(n.op_type for n in g if last and _node_layer(n) == last)
    return {
        "layers": len(tags),
        "nodes": len(list(g)),
        "kernels": sum(1 for n in g if n.op_type not in NO_KERNEL_OPS),
        "layer_nodes": sum(ops.values()),
        "layer_kernels": sum(c for op, c in ops.items() if op not in NO_KERNEL_OPS),
        "layer_ops": dict(sorted(ops.items())),
    }


def _attr(node: Any, name: str) -> Any:
    a = node.attributes.get(name)
    return None if a is None else a.value


def _slice_range(v: Any, width: int | None = None) -> tuple[Any, int, int] | None:
    """(source, start, end) of `v` = Slice(source) over the last axis with step 1, the end
    clamped to the source's width (`width`, else its static last dim); else None."""
    n = v.producer()
    if n is None or n.op_type != "Slice" or len(n.inputs) < 4:
        return None
    src = n.inputs[0]
    rank = len(src.shape) if src.shape is not None else None
    width = width if width is not None else (src.shape[-1] if rank else None)
    start, end, axis = (scalar(n.inputs[k]) for k in (1, 2, 3))
    step = scalar(n.inputs[4]) if len(n.inputs) > 4 and n.inputs[4] is not None else 1.0
    if None in (start, end, axis, rank) or not isinstance(width, int):
        return None
    if step != 1.0 or axis not in (-1, rank - 1):
        return None
    return src, int(start), min(int(end), width)


def _table_row(v: Any) -> tuple[Any, Any] | None:
    """(table, indices) of `v` = Unsqueeze(Gather(constant table, indices), axis 2): a cos or
    sin row per patch, broadcast over the heads. Else None."""
    u = v.producer()
    if u is None or u.op_type != "Unsqueeze" or scalar(u.inputs[1]) not in (2, -2):
        return None
    gather = u.inputs[0].producer()
    if gather is None or gather.op_type != "Gather" or gather.inputs[0].const_value is None:
        return None
    if _attr(gather, "axis") not in (None, 0):
        return None
    return gather.inputs[0], gather.inputs[1]


def _rotated_half(add: Any) -> tuple[Any, Any, Any, Any, Any] | None:
    """Match Add(Mul(a, cos row), Mul(rot, sin row)) (either order) with rot a Concat.
    Returns (a, cos table, sin table, indices, rot's Concat) or None."""
    if add is None or add.op_type != "Add":
        return None
    terms = []
    for m in (i.producer() for i in add.inputs):
        if m is None or m.op_type != "Mul":
            return None
        pairs = [(_table_row(i), j) for i, j in zip(m.inputs, reversed(m.inputs), strict=True)]
        hit = next(((row, x) for row, x in pairs if row is not None), None)
        if hit is None:
            return None
        terms.append(hit)
    rot_first = [t[1].producer() is not None and t[1].producer().op_type == "Concat"
                 for t in terms]  # fmt: skip
    if sorted(rot_first) != [False, True]:
        return None
    (cos, idx), a = terms[rot_first.index(False)]
    (sin, idx2), rot = terms[rot_first.index(True)]
    return (a, cos, sin, idx, rot.producer()) if idx2 is idx else None


def _rotates(cat: Any, a: Any, width: int) -> bool:
    """cat = Concat(Neg(a[..., w/2:]), a[..., :w/2]) over the last axis (rotate_half of a
    `width`-wide a)."""
    if len(cat.inputs) != 2 or _attr(cat, "axis") not in (-1, 3):
        return False
    neg = cat.inputs[0].producer()
    if neg is None or neg.op_type != "Neg":
        return False
    q = width // 2
    return (_slice_range(neg.inputs[0], width) == (a, q, width)
            and _slice_range(cat.inputs[1], width) == (a, 0, q))  # fmt: skip


def _half_table(v: Any) -> np.ndarray | None:
    """A [M, w] cos/sin table whose two column halves are equal (rotate_half tables repeat
    their frequencies) -> its first half [M, w/2], the table RotaryEmbedding takes."""
    a = v.const_value.numpy()
    if a.ndim != 2 or a.shape[1] % 2:
        return None
    h = a.shape[1] // 2
    return a[:, :h] if np.array_equal(a[:, :h], a[:, h:]) else None


def _rope_2d(cat: Any) -> tuple[Any, Any, Any, Any, Any] | None:
    """(x, cos table, sin table, first-half indices, second-half indices) when `cat` is
    Concat(rotated x[..., :H/2], rotated x[..., H/2:]) over the last axis of x [B,P,N,H]
    (static N, H), both halves rotated with one table pair whose column halves repeat and
    int64 indices; else None."""
    import onnx_ir as ir

    if len(cat.inputs) != 2 or _attr(cat, "axis") not in (-1, 3):
        return None
    halves = [_rotated_half(i.producer()) for i in cat.inputs]
    if halves[0] is None or halves[1] is None:
        return None
    (a0, cos, sin, idx0, rot0), (a1, cos1, sin1, idx1, rot1) = halves
    first = _slice_range(a0)
    x = first[0] if first is not None else None
    if x is None or x.shape is None or len(x.shape) != 4 or not isinstance(x.shape[-2], int):
        return None
    width = x.shape[-1]
    if width % 4 or first != (x, 0, width // 2) or _slice_range(a1) != (x, width // 2, width):
        return None
    if not (_rotates(rot0, a0, width // 2) and _rotates(rot1, a1, width // 2)):
        return None
    if cos1 is not cos or sin1 is not sin or x.dtype != cos.dtype or x.dtype != sin.dtype:
        return None
    tabs = [_half_table(t) for t in (cos, sin)]
    if any(t is None or t.shape[1] != width // 4 for t in tabs):
        return None
    if idx0.dtype != ir.DataType.INT64 or idx1.dtype != ir.DataType.INT64:
        return None
    return x, cos, sin, idx0, idx1


def _rotate_halves(width: int, dtype: Any) -> np.ndarray:
    """[H, H] signed permutation R with x @ R = each half of x rotated (rotate_half)."""
    r = np.zeros((width, width), dtype)
    w, q = width // 2, width // 4
    for o in (0, w):
        for j in range(w):
            if j < q:
                r[o + j + q, o + j] = -1
            else:
                r[o + j - q, o + j] = 1
    return r


def fuse_rope_2d(g: Any, *, form: str = "rotary") -> int:
    """The vision tower's 2-D RoPE, for q and k of every layer, in fewer kernels.

    mobius writes it as x [B,P,N,H] split into halves, each half rotated (a*cos +
    rotate_half(a)*sin) with its own axis' positions, then concatenated: 2 Slices + 2 x (2
    Slices, Neg, Concat, 2 Muls, Add) + Concat = 17 kernels, plus 4 table Gathers a layer.
    - form "rotary": viewed as [B*P, N, 2, H/2] (BNSH: batch = patch, "sequence" = half), the
      same is ONE com.microsoft RotaryEmbedding (non-interleaved, head size H/2) with position
      ids [B*P, 2] = each patch's (first-half, second-half) positions. Its CUDA kernel puts the
      B*P patches in grid z and took 0.15 ms a call on an H200 (tenth run): no faster than the
      17 kernels it replaced.
    - form "tables": x * C + (x @ R) * S, with C, S [B,P,1,H] the two halves' cos / sin rows
      side by side (gathered once for every layer) and R the signed permutation that rotates
      each half: 4 plain elementwise-sized kernels (the MatMul's K is H), no slices or copies.
    Returns how many tensors were rewritten."""
    if form not in ROPE_FORMS:
        raise ValueError(f"rope form {form!r}: one of {ROPE_FORMS}")
    b = Builder(g, "fastv/rope/")
    builders = LayerBuilders(g, "rope/")
    positions: dict[tuple[int, int], Any] = {}
    tables: dict[tuple[int, ...], Any] = {}
    count = 0
    for cat in [n for n in g if n.op_type == "Concat"]:
        hit = _rope_2d(cat)
        if hit is None:
            continue
        x, cos, sin, idx0, idx1 = hit
        heads, width = int(x.shape[-2]), int(x.shape[-1])
        bt = builders(cat.name)
        if form == "tables":
            for t in (cos, sin):  # [B,P,1,H]: the first half's row, then the second's
                key = (id(t), id(idx0), id(idx1))
                if key not in tables:
                    rows = [b.op("Gather", t, i, axis=0) for i in (idx0, idx1)]
                    tables[key] = b.op("Unsqueeze", b.op("Concat", *rows, axis=-1),
                                       b.const([2]))  # fmt: skip
            if ("rotate", width) not in tables:
                r = _rotate_halves(width, cos.const_value.numpy().dtype)
                tables[("rotate", width)] = b.const(r, r.dtype)
            rotated = bt.op("MatMul", x, tables[("rotate", width)])
            y = bt.op("Add", bt.op("Mul", x, tables[(id(cos), id(idx0), id(idx1))]),
                      bt.op("Mul", rotated, tables[(id(sin), id(idx0), id(idx1))]))  # fmt: skip
        else:
            key = (id(idx0), id(idx1))
            if key not in positions:  # [B*P, 2], shared by every layer
                pair = [b.op("Unsqueeze", i, b.const([-1])) for i in (idx0, idx1)]
                positions[key] = b.op("Reshape", b.op("Concat", *pair, axis=-1),
                                      b.const([-1, 2]))  # fmt: skip
            for t in (cos, sin):
                if (id(t),) not in tables:
                    half = _half_table(t)
                    tables[(id(t),)] = b.const(half, half.dtype)
            x4 = bt.op("Reshape", x, b.const([-1, heads, 2, width // 2]))
            y4 = bt.op("RotaryEmbedding", x4, positions[key], tables[(id(cos),)],
                       tables[(id(sin),)], domain="com.microsoft", interleaved=0)  # fmt: skip
            y = bt.op("Reshape", y4, bt.op("Shape", x))
        y.shape, y.dtype = x.shape, x.dtype
        cat.outputs[0].replace_all_uses_with(y)
        count += 1
    remove_unused(g)
    return count


# Passes run after the attention rewrite when fusions are on (manifest: fast.vision_fusions).
VISION_FUSIONS = {"rope_2d": fuse_rope_2d}
ROPE_FORMS = ("rotary", "tables")
VISION_ROPE = "tables"  # the form builds write (bench/gemma_vision.py times each)


def apply_fusions(model: Any, *, rope: str = VISION_ROPE) -> dict[str, int]:
    """Run every pass of `VISION_FUSIONS` on the graph (the RoPE in `rope`'s form: see
    fuse_rope_2d); returns {pass: count}."""
    done = {name: fuse(model.graph, form=rope) for name, fuse in VISION_FUSIONS.items()}
    model.graph.sort()
    return done


def make_vision(model: Any) -> tuple[int, int]:
    """Vision attention (MatMul + mask + Softmax + MatMul over [B, heads, P, P]) -> one
    com.microsoft MultiHeadAttention per layer (flash / memory-efficient kernels on CUDA; the
    P x P scores never reach device memory). The padding mask is dropped: feed UNPADDED patches
    (only the valid ones) - their features are identical, padding only ever masked out. Clamps
    with infinite bounds are dropped (`drop_unbounded_clips`). Returns (attention layers,
    clamps dropped)."""
    g = model.graph
    clips = drop_unbounded_clips(g)
    count = 0
    builders = LayerBuilders(g, "")
    for sm in [n for n in g if n.op_type == "Softmax"]:
        b = builders(sm.name)
        add = sm.inputs[0].producer()
        qk = add.inputs[0].producer() if add is not None and add.op_type == "Add" else None
        users = [u for u, _ in sm.outputs[0].uses()]
        if qk is None or qk.op_type != "MatMul" or len(users) != 1 or users[0].op_type != "MatMul":
            raise ValueError(f"unexpected vision attention around {sm.name}")
        pv = users[0]
        tr = [u for u, _ in pv.outputs[0].uses()][0]
        out = [u for u, _ in tr.outputs[0].uses()][0]
        if tr.op_type != "Transpose" or out.op_type != "Reshape":
            raise ValueError(f"unexpected vision attention output at {pv.name}")
        q4 = qk.inputs[0].producer().inputs[0]  # [B,P,N,H] (Transpose -> BNSH before)
        k4 = qk.inputs[1].producer().inputs[0].producer().inputs[0]
        v4 = pv.inputs[1].producer().inputs[0]
        heads = q4.shape[2]
        flat = [b.op("Reshape", x, b.const([0, 0, -1])) for x in (q4, k4, v4)]
        y = b.op("MultiHeadAttention", *flat, domain="com.microsoft", num_heads=int(heads),
                 scale=1.0)  # fmt: skip
        out.outputs[0].replace_all_uses_with(y)
        count += 1
    remove_unused(g)
    g.sort()
    return count, clips


def build_fast_vision(out: Path, *, fusions: bool = True) -> dict[str, Any]:
    """Write the fast vision graph; returns the manifest's vision entries: its file, the no-op
    clamps dropped, the fusions applied (pass -> count) and the ops before / after them."""
    import onnx_ir as ir

    model = ir.load(out / "vision_encoder" / "model.onnx")
    n, clips = make_vision(model)
    before = op_counts(model.graph)
    done = apply_fusions(model) if fusions else {}
    ir.save(model, out / VISION_FILE)
    after = op_counts(model.graph)
    log.info("fast vision graph: %d MultiHeadAttention, %d unbounded clamps dropped, fusions %s, "
             "kernels a layer %d -> %d", n, clips, done, before["layer_kernels"],
             after["layer_kernels"])  # fmt: skip
    ops = {"unfused": before, "fused": after} if fusions else {"unfused": before}
    return {"vision": VISION_FILE, "vision_clips_dropped": clips, "vision_fusions": done,
            "vision_ops": ops}  # fmt: skip
