"""QAT W4A16 tensors -> MatMulNBits without requantization: ORT CPU == dequantized matmul."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

from models.gemma.ple import f32_to_bf16_bits
from models.gemma.qat import dequantize_qat, load_qat_linears


def write_safetensors(path: Path, tensors: dict[str, tuple[str, np.ndarray]]) -> None:
    """Minimal safetensors writer (the format: u64 header size, JSON header, raw bytes)."""
    header, blobs, off = {}, [], 0
    for name, (dt, a) in tensors.items():
        b = np.ascontiguousarray(a).tobytes()
        header[name] = {"dtype": dt, "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def matmulnbits_model(k: int, n: int, b: np.ndarray, scales: np.ndarray) -> bytes:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    node = helper.make_node(
        "MatMulNBits",
        ["A", "B", "scales"],
        ["Y"],
        domain="com.microsoft",
        K=k,
        N=n,
        bits=4,
        block_size=32,
    )
    g = helper.make_graph(
        [node],
        "qat",
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, ["m", k])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["m", n])],
        initializer=[numpy_helper.from_array(b, "B"), numpy_helper.from_array(scales, "scales")],
    )
    m = helper.make_model(
        g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)]
    )
    return m.SerializeToString() if onnx.checker.check_model(m) is None else b""


def test_qat_linear_runs_as_matmulnbits_exactly(tmp_path: Path) -> None:
    import onnxruntime as ort

    rng = np.random.default_rng(0)
    out_f, in_f = 48, 96
    packed = rng.integers(-(2**31), 2**31, size=(out_f, in_f // 8), dtype=np.int64).astype(np.int32)
    scale = f32_to_bf16_bits(rng.uniform(0.001, 0.05, size=(out_f, in_f // 32)).astype(np.float32))
    path = tmp_path / "core.safetensors"
    write_safetensors(
        path,
        {
            "model.layers.0.mlp.up_proj.weight_packed": ("I32", packed),
            "model.layers.0.mlp.up_proj.weight_scale": ("BF16", scale),
        },
    )
    w = load_qat_linears(path)["model.layers.0.mlp.up_proj"]
    assert (w.k, w.n, w.b.shape, w.b.dtype) == (in_f, out_f, (out_f, 3, 16), np.uint8)
    # The packed bytes are the checkpoint's bytes, untouched.
    assert w.b.tobytes() == packed.astype("<i4").tobytes()
    sess = ort.InferenceSession(
        matmulnbits_model(w.k, w.n, w.b, w.scales), providers=["CPUExecutionProvider"]
    )
    a = rng.standard_normal((5, in_f)).astype(np.float32)
    y = sess.run(None, {"A": a})[0]
    ref = a.astype(np.float64) @ dequantize_qat(packed, scale).astype(np.float64).T
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())


def test_dequantize_qat_nibble_order() -> None:
    # word 0x76543210 holds nibbles 0..7 lowest first -> q = n - 8 = -8..-1; 0xFEDCBA98 -> 0..7
    words = np.array([[0x76543210, 0xFEDCBA98, 0, 0]], dtype=np.uint32).view(np.int32)
    scale = f32_to_bf16_bits(np.array([[0.5]], dtype=np.float32))
    w = dequantize_qat(words, scale)
    assert w.shape == (1, 32)
    assert (w[0, :16] * 2).tolist() == list(range(-8, 8))
    assert (w[0, 16:] == -4.0).all()


def test_export_rtn_int4_layout_is_what_matmulnbits_reads() -> None:
    """The lean exporter's own int4 (E2B cannot take ORT's quantizer in 24 GiB): the packed
    weights, read back by MatMulNBits, are the RTN weights, and those are within scale/2 of W."""
    import onnxruntime as ort

    from models.export.build import rtn_int4

    rng = np.random.default_rng(1)
    k, n = 128, 40
    w = rng.standard_normal((k, n)).astype(np.float32)  # MatMul weight [K, N]
    b, scales = rtn_int4(w)
    assert b.shape == (n, k // 32, 16) and scales.shape == (n * k // 32,)
    q = np.stack([b & 0xF, b >> 4], axis=-1).reshape(n, k).astype(np.float32) - 8
    deq = q * np.repeat(scales.reshape(n, -1), 32, axis=1)  # [N, K]
    assert np.abs(deq - w.T).max() <= scales.max() / 2 + 1e-6
    sess = ort.InferenceSession(matmulnbits_model(k, n, b, scales),
                                providers=["CPUExecutionProvider"])  # fmt: skip
    a = rng.standard_normal((3, k)).astype(np.float32)
    ref = a.astype(np.float64) @ deq.T.astype(np.float64)
    np.testing.assert_allclose(sess.run(None, {"A": a})[0], ref, rtol=1e-4, atol=1e-3)
