"""The fast vision graph's fusion passes (models.export.fast_vision): the same image features
with them as without them (CPU, fp32, tiny package), fewer kernels, and a switch to leave them
out."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

pytestmark = pytest.mark.parity


def _features(pkg: Path, rel: str, *, seed: int = 3, cuda: bool = False) -> np.ndarray:
    """One page (non-square patch grid: its two RoPE axes have different positions) through
    the graph `rel` of the package, unpadded, on the CPU (or CUDA, TF32 off)."""
    import onnxruntime as ort

    from models.gemma.image import preprocess

    vis = json.loads((pkg / "manifest.json").read_text())["config"]["vision"]
    img = Image.fromarray(np.random.default_rng(seed).integers(0, 255, (160, 112, 3), np.uint8))
    pre = preprocess(img, max_soft_tokens=70, patch_size=vis["patch_size"],
                     pooling=vis["pooling_kernel_size"])  # fmt: skip
    n = int((pre.position_ids[:, 0] >= 0).sum())
    feeds = {"pixel_values": pre.pixel_values[None, :n],
             "pixel_position_ids": pre.position_ids[None, :n]}  # fmt: skip
    prov = [("CUDAExecutionProvider", {"use_tf32": "0"})] if cuda else ["CPUExecutionProvider"]
    s = ort.InferenceSession(str(pkg / rel), providers=prov)
    return s.run(["image_features"], feeds)[0]


def _unfused(pkg: Path) -> str:
    """The fast vision graph without the fusion passes, written beside the package's."""
    import onnx_ir as ir

    from models.export.fast_vision import make_vision

    model = ir.load(pkg / "vision_encoder" / "model.onnx")
    make_vision(model)
    ir.save(model, pkg / "vision_encoder" / "unfused.onnx")
    return "vision_encoder/unfused.onnx"


def _ops(pkg: Path, rel: str) -> list[str]:
    import onnx

    return [n.op_type for n in onnx.load(str(pkg / rel), load_external_data=False).graph.node]


def _rope_graph(pkg: Path, form: str) -> str:
    """The fast vision graph with its RoPE in `form`, written beside the package's."""
    import onnx_ir as ir

    from models.export.fast_vision import apply_fusions, make_vision

    model = ir.load(pkg / "vision_encoder" / "model.onnx")
    make_vision(model)
    layers = json.loads((pkg / "manifest.json").read_text())["config"]["vision"]["num_layers"]
    assert apply_fusions(model, rope=form) == {"rope_2d": 2 * layers}
    ir.save(model, pkg / "vision_encoder" / f"rope-{form}.onnx")
    return f"vision_encoder/rope-{form}.onnx"


@pytest.mark.parametrize("form", ["rotary", "tables"])
def test_rope_fusion_keeps_the_features(tiny_pkg_fast: Path, tmp_path: Path, form: str) -> None:
    """The 2-D RoPE as two RotaryEmbedding a layer (q and k), or as x * C + (x @ R) * S, with
    no Slice, Neg or Concat left, gives the unfused graph's features, and the reference
    graph's (padded patches and all), within 1e-5."""
    pkg = tmp_path / "pkg"
    shutil.copytree(tiny_pkg_fast, pkg)
    layers = json.loads((pkg / "manifest.json").read_text())["config"]["vision"]["num_layers"]
    rel = _rope_graph(pkg, form)
    ops = _ops(pkg, rel)
    assert ops.count("RotaryEmbedding") == (2 * layers if form == "rotary" else 0)
    assert "Neg" not in ops and "Slice" not in ops
    got = _features(pkg, rel)
    want = _features(pkg, _unfused(pkg))
    assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()
    ref = _features(pkg, "vision_encoder/model.onnx")
    assert np.abs(got - ref).max() <= 1e-5 * np.abs(ref).max()


def test_manifest_counts_kernels_before_and_after(tiny_pkg_fast: Path) -> None:
    """The manifest records each graph's kernels per layer: the build's RoPE (the tables
    form) takes 34 of a layer's (2 x 17 Slice/Neg/Concat/Mul/Add) and puts 2 x 4 in their
    place (MatMul, Mul, Mul, Add)."""
    ops = json.loads((tiny_pkg_fast / "manifest.json").read_text())["fast"]["vision_ops"]
    before, after = ops["unfused"], ops["fused"]
    assert before["layer_kernels"] - after["layer_kernels"] == 34 - 8
    assert "RotaryEmbedding" not in after["layer_ops"]
    assert "Neg" in before["layer_ops"] and "Neg" not in after["layer_ops"]


def test_fusions_off_writes_the_unfused_graph(tiny_pkg_fast: Path, tmp_path: Path) -> None:
    """`--no-vision-fusions`: the fast vision graph as before the passes, and the manifest says
    no fusion ran."""
    from models.export.fast_vision import build_fast_vision

    pkg = tmp_path / "pkg"
    shutil.copytree(tiny_pkg_fast, pkg)
    entry = build_fast_vision(pkg, fusions=False)
    assert entry["vision_fusions"] == {}
    assert set(entry["vision_ops"]) == {"unfused"}
    assert "RotaryEmbedding" not in _ops(pkg, entry["vision"])


def test_rope_fusion_needs_rotate_half_tables(tiny_pkg_fast: Path) -> None:
    """A cos table whose column halves differ is not what rotate_half RoPE uses (and not what
    RotaryEmbedding computes): nothing is fused (every layer reads that one table)."""
    import onnx_ir as ir

    from models.export.fast_vision import fuse_rope_2d, make_vision

    model = ir.load(tiny_pkg_fast / "vision_encoder" / "model.onnx")
    make_vision(model)
    cos = next(v for k, v in model.graph.initializers.items() if k.endswith("cos_cache"))
    table = cos.const_value.numpy().copy()
    table[:, -1] += 0.5
    cos.const_value = ir.tensor(table)
    assert fuse_rope_2d(model.graph) == 0
    assert "Neg" in [n.op_type for n in model.graph]


@pytest.mark.gpu
@pytest.mark.parametrize("form", ["rotary", "tables"])
def test_fused_vision_on_cuda_reads_like_the_cpu(
    tiny_pkg_fast: Path, tmp_path: Path, form: str
) -> None:
    """On a CUDA machine: the fused graph (RotaryEmbedding with patches in the kernel's batch
    dimension and halves as its sequence, or the RoPE as tables and a signed permutation)
    gives on the CUDA EP the unfused graph's CPU features."""
    ort = pytest.importorskip("onnxruntime")
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        pytest.skip("no CUDA execution provider")
    pkg = tmp_path / "pkg"
    shutil.copytree(tiny_pkg_fast, pkg)
    rel = _rope_graph(pkg, form)
    got = _features(pkg, rel, cuda=True)
    want = _features(pkg, _unfused(pkg))
    assert np.abs(got - want).max() <= 1e-4 * np.abs(want).max()
