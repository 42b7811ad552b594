"""Package integrity (missing / corrupt files named), custom ops, int4 end to end, preprocessing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from models.gemma import GemmaRuntime, PackageError, PageRequest, load_package
from models.gemma.image import preprocess
from models.gemma.package import sha256_file


@pytest.fixture
def pkg_copy(tiny_pkg: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "pkg"
    shutil.copytree(tiny_pkg, dst)
    return dst


def test_missing_package_dir(tmp_path: Path) -> None:
    with pytest.raises(PackageError, match="not found"):
        load_package(tmp_path / "nope")


def test_missing_manifest(pkg_copy: Path) -> None:
    (pkg_copy / "manifest.json").unlink()
    with pytest.raises(PackageError, match="manifest.json"):
        load_package(pkg_copy)


def test_missing_file_is_named(pkg_copy: Path) -> None:
    (pkg_copy / "decoder" / "model.onnx.data").unlink()
    with pytest.raises(PackageError, match=r"missing: .*decoder/model\.onnx\.data") as e:
        GemmaRuntime(pkg_copy)
    assert e.value.path == pkg_copy / "decoder" / "model.onnx.data"


def test_corrupt_file_is_named(pkg_copy: Path) -> None:
    p = pkg_copy / "embedding" / "model.onnx.data"
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0x01  # one bit, same size: only the sha256 can tell
    p.write_bytes(bytes(data))
    with pytest.raises(PackageError, match=r"corrupt \(sha256 mismatch\): .*embedding/model"):
        load_package(pkg_copy)


def test_truncated_file_is_named(pkg_copy: Path) -> None:
    p = pkg_copy / "tokenizer.json"
    p.write_bytes(p.read_bytes()[:100])
    with pytest.raises(PackageError, match=r"corrupt \(size .*tokenizer\.json"):
        load_package(pkg_copy, verify=False)


def _replace_graph(pkg: Path, name: str, op: str, domain: str) -> Path:
    """Swap a graph for one that uses `op`, and re-sign the manifest (the file is 'valid')."""
    from onnx import TensorProto, helper, save

    node = helper.make_node(op, ["x"], ["y"], domain=domain)
    g = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )
    m = helper.make_model(
        g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(domain, 1)]
    )
    path = pkg / name / "model.onnx"
    save(m, str(path))
    man = json.loads((pkg / "manifest.json").read_text())
    rel = f"{name}/model.onnx"
    man["files"][rel] = {"sha256": sha256_file(path), "size": path.stat().st_size}
    (pkg / "manifest.json").write_text(json.dumps(man))
    return path


def test_split_masked_softmax_is_a_clear_error(pkg_copy: Path) -> None:
    path = _replace_graph(pkg_copy, "decoder", "SplitMaskedSoftmax", "com.microsoft")
    with pytest.raises(PackageError, match="SplitMaskedSoftmax") as e:
        GemmaRuntime(pkg_copy)
    assert e.value.path == path


def test_unknown_custom_op_is_named(pkg_copy: Path) -> None:
    _replace_graph(pkg_copy, "vision_encoder", "FancyFusedThing", "org.example")
    with pytest.raises(PackageError, match="vision_encoder/model.onnx uses op.*FancyFusedThing"):
        GemmaRuntime(pkg_copy)


def test_manifest_records_graph_io_and_config(tiny_pkg: Path) -> None:
    pkg = load_package(tiny_pkg)
    dec = pkg.graphs["decoder"]
    assert "next_token" in dec.outputs and "logits" in dec.outputs
    assert [n for n in dec.inputs if n.startswith("past_key_values.")][:2] == [
        "past_key_values.0.key",
        "past_key_values.0.value",
    ]
    t = pkg.config["text"]
    assert t["kv_layers"] == [0, 1, 2, 3, 4]
    assert t["kv_shared_from"] == {"5": 3, "6": 3, "7": 3, "8": 3, "9": 4}
    assert t["kv_head_dims"] == [32, 32, 32, 32, 64]
    assert pkg.prompt["stop_ids"] == [1, 106, 50]
    assert set(pkg.manifest["files"]) >= {"tokenizer.json", "decoder/model.onnx.data"}


@pytest.mark.parity
def test_int4_package_runs_end_to_end(tiny_pkg_int4: Path) -> None:
    """Random weights cannot judge int4 accuracy; this proves the package builds and decodes."""
    import onnx

    dec = onnx.load(str(tiny_pkg_int4 / "decoder" / "model.onnx"), load_external_data=False)
    n_nbits = sum(1 for n in dec.graph.node if n.op_type == "MatMulNBits")
    assert n_nbits > 0
    rt = GemmaRuntime(tiny_pkg_int4, max_soft_tokens=70)
    img = Image.fromarray((np.random.default_rng(3).random((60, 80, 3)) * 255).astype(np.uint8))
    out = rt.generate(
        [PageRequest("Read.", img), PageRequest("Hi")], max_new_tokens=8, ignore_stop=True
    )
    assert [len(o.token_ids) for o in out] == [8, 8]
    assert all(0 <= t < rt.text["vocab_size"] for o in out for t in o.token_ids)


@pytest.mark.parity
@pytest.mark.parametrize("size", [(90, 130), (1000, 700), (48, 48), (30, 400)])
@pytest.mark.parametrize("soft, patch", [(70, 4), (280, 16)])
def test_preprocess_matches_transformers(size: tuple[int, int], soft: int, patch: int) -> None:
    pytest.importorskip("transformers")
    from transformers.models.gemma4.image_processing_pil_gemma4 import Gemma4ImageProcessorPil

    h, w = size
    rng = np.random.default_rng(h * w)
    img = Image.fromarray((rng.random((h, w, 3)) * 255).astype(np.uint8))
    ref = Gemma4ImageProcessorPil(patch_size=patch, max_soft_tokens=soft, pooling_kernel_size=3)(
        images=[img], return_tensors="np"
    )
    got = preprocess(img, max_soft_tokens=soft, patch_size=patch, pooling=3)
    np.testing.assert_array_equal(got.position_ids, ref["image_position_ids"][0])
    np.testing.assert_allclose(got.pixel_values, ref["pixel_values"][0], atol=1e-6)
    assert got.soft_tokens == int(ref["num_soft_tokens_per_image"][0])


@pytest.mark.parity
def test_lean_route_builds_the_same_package(tiny_pkg_ext: Path, tmp_path: Path) -> None:
    """The graph-by-graph route e2b-random uses gives the same model as the checkpoint route."""
    from models.export.lean import build_random_lean

    lean = tmp_path / "lean"
    build_random_lean("tiny", lean, ple="external", seed=0)
    assert (lean / "ple.q4_0.bin").read_bytes() == (tiny_pkg_ext / "ple.q4_0.bin").read_bytes()
    img = Image.fromarray((np.random.default_rng(5).random((64, 96, 3)) * 255).astype(np.uint8))
    req = PageRequest("Read.", img)
    a = GemmaRuntime(lean, max_soft_tokens=70).prefill_logits(req)
    b = GemmaRuntime(tiny_pkg_ext, max_soft_tokens=70).prefill_logits(req)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parity
def test_lean_int4_package_runs_end_to_end(tmp_path: Path) -> None:
    """The e2b-random route (own in-memory int4) on the tiny shape: builds, loads, decodes."""
    import onnx

    from models.export.lean import build_random_lean

    out = tmp_path / "lean4"
    build_random_lean("tiny", out, ple="external", int4=True, seed=0)
    dec = onnx.load(str(out / "decoder" / "model.onnx"), load_external_data=False)
    ops = [n.op_type for n in dec.graph.node]
    # Every MatMul with K % 32 == 0 (all but the 16-wide PLE projections) is 4-bit now.
    assert ops.count("MatMulNBits") == 71 and ops.count("MatMul") == 10
    rt = GemmaRuntime(out, max_soft_tokens=70)
    got = rt.generate([PageRequest("Hi"), PageRequest("Hello there")], max_new_tokens=6,
                      ignore_stop=True)  # fmt: skip
    assert [len(g.token_ids) for g in got] == [6, 6]


def test_preprocess_unpadded_in_graph_dtype_is_the_padded_float32_cast() -> None:
    """The fast path's patches (no padding, float16 straight away) hold the same values as the
    padded float32 patches cast by the session: parity does not depend on which one runs."""
    img = Image.fromarray((np.random.default_rng(7).random((300, 260, 3)) * 255).astype(np.uint8))
    full = preprocess(img, max_soft_tokens=70, patch_size=4, pooling=3)
    lean = preprocess(img, max_soft_tokens=70, patch_size=4, pooling=3, dtype=np.float16,
                      pad=False)  # fmt: skip
    n = int((full.position_ids[:, 0] >= 0).sum())
    assert n < len(full.position_ids) and lean.pixel_values.shape[0] == n
    assert lean.pixel_values.dtype == np.float16
    np.testing.assert_array_equal(lean.pixel_values, full.pixel_values[:n].astype(np.float16))
    np.testing.assert_array_equal(lean.position_ids, full.position_ids[:n])
    assert lean.soft_tokens == full.soft_tokens
