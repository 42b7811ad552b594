"""Decoder fusions of the fast graphs (models.export.fast): a layer's scaled residual sum and
the next layer's input norm as one SkipSimplifiedLayerNormalization. Token parity of the
graphs that carry it: test_fast.py and test_prefix.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.parity


def _layer_end(scale: float, eps: float) -> bytes:
    """Add(x, y) -> Mul(scale) -> RMSNormalization(w, eps), the scaled sum an output too (the
    residual the next layer reads), as mobius writes a Gemma layer's end."""
    from onnx import TensorProto, helper, numpy_helper

    w = np.random.default_rng(0).standard_normal(8).astype(np.float32)
    nodes = [helper.make_node("Add", ["x", "y"], ["sum"]),
             helper.make_node("Mul", ["sum", "s"], ["scaled"]),
             helper.make_node("RMSNormalization", ["scaled", "w"], ["n"], axis=-1, epsilon=eps),
             helper.make_node("Identity", ["n"], ["normed"]),
             helper.make_node("Identity", ["scaled"], ["residual"])]  # fmt: skip
    io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3, 8]) for n in "xy"]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3, 8])
            for n in ("normed", "residual")]  # fmt: skip
    inits = [numpy_helper.from_array(np.array([scale], np.float32), "s"),
             numpy_helper.from_array(w, "w")]  # fmt: skip
    graph = helper.make_graph(nodes, "layer_end", io, outs, inits)
    opsets = [helper.make_opsetid("", 23), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets)
    return model.SerializeToString()


def _run(model: bytes) -> list[np.ndarray]:
    import onnxruntime as ort

    rng = np.random.default_rng(1)
    feeds = {n: rng.standard_normal((2, 3, 8)).astype(np.float32) for n in "xy"}
    s = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    return s.run(["normed", "residual"], feeds)


def test_scaled_residual_norm_is_one_skip_norm(tmp_path: Path) -> None:
    """Add, Mul, RMSNormalization -> SkipSimplifiedLayerNormalization (its epsilon over the
    scale squared) and a Mul: the same norm and the same scaled residual. An epsilon as large
    as the mean square makes the fold fail without the eps / s^2."""
    import onnx
    import onnx_ir as ir

    from models.export.fast import fold_scaled_residual_norm
    from models.export.graph_edit import Builder, remove_unused

    src = _layer_end(scale=0.6, eps=0.5)
    model = ir.from_proto(onnx.load_from_string(src))
    assert fold_scaled_residual_norm(Builder(model.graph, "t/"), model.graph) == 1
    remove_unused(model.graph)
    ops = [n.op_type for n in model.graph]
    assert sorted(ops) == ["Identity", "Identity", "Mul", "SkipSimplifiedLayerNormalization"]
    ir.save(model, tmp_path / "fused.onnx")
    want = _run(src)
    got = _run((tmp_path / "fused.onnx").read_bytes())
    for g, w in zip(got, want, strict=True):
        assert np.abs(g - w).max() <= 1e-5 * np.abs(w).max()


def test_fold_needs_a_positive_scale() -> None:
    """A negative scale flips the norm's sign: left as it is."""
    import onnx
    import onnx_ir as ir

    from models.export.fast import fold_scaled_residual_norm
    from models.export.graph_edit import Builder

    model = ir.from_proto(onnx.load_from_string(_layer_end(scale=-0.6, eps=1e-6)))
    assert fold_scaled_residual_norm(Builder(model.graph, "t/"), model.graph) == 0


def test_decoder_graphs_end_layers_with_one_skip_norm(tiny_pkg_fast: Path) -> None:
    """In every fast decoder graph each layer's end (residual sum, layer scalar, the next
    norm) is folded: two SkipSimplifiedLayerNormalization a layer, no norm of a scaled sum."""
    import onnx

    man = json.loads((tiny_pkg_fast / "manifest.json").read_text())
    layers = len(man["config"]["text"]["layer_types"])
    for key in ("prefill", "prefill_past", "step"):
        assert man["fast"]["decoder_fusions"][man["fast"][key]] == {"scaled_residual_norm": layers}
        graph = onnx.load(str(tiny_pkg_fast / man["fast"][key]), load_external_data=False).graph
        ops = [n.op_type for n in graph.node]
        assert ops.count("SkipSimplifiedLayerNormalization") == 2 * layers, key
        made = {o: n.op_type for n in graph.node for o in n.output}
        scaled = [n for n in graph.node if n.op_type == "RMSNormalization"
                  and made.get(n.input[0]) == "Mul"]  # fmt: skip
        assert not scaled, key


def test_decoder_fusions_off(tiny_ckpt: Path, tmp_path: Path) -> None:
    """`--no-decoder-fusions`: the decoder graphs keep mobius' layer ends (one skip norm a
    layer) and the manifest says no fusion ran; the vision fusions are the other switch."""
    import onnx

    from models.export.build import build_package, rebuild_fast

    pkg = tmp_path / "pkg"
    build_package(tiny_ckpt, pkg, fast=True)
    man = rebuild_fast(pkg, decoder_fusions=False)
    layers = len(man["config"]["text"]["layer_types"])
    assert set(map(str, man["fast"]["decoder_fusions"].values())) == {"{}"}
    assert man["fast"]["vision_fusions"]
    graph = onnx.load(str(pkg / man["fast"]["step"]), load_external_data=False).graph
    assert [n.op_type for n in graph.node].count("SkipSimplifiedLayerNormalization") == layers
