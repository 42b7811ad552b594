"""Google's QAT W4A16 linears (`core.safetensors`) as onnxruntime MatMulNBits weights, exactly.

Checkpoint layout per linear `X`: `X.weight_packed` int32 [out, in/8] (8 nibbles per word, lowest
first, q = n - 8) and `X.weight_scale` bf16 [out, in/32]. MatMulNBits (bits 4, block 32, no zero
point -> implicit 8) wants B uint8 [N, in/32, 16] with element 2i in the low nibble of byte i and
scales [N * in/32]. Little-endian int32 words viewed as bytes are exactly that packing, so the
conversion is a reinterpretation: no dequantize/requantize round trip, bit-identical weights.
The bf16 scales widen exactly to float32 (to float16 they round: keep float32 graphs for QAT).

Reads safetensors with numpy only (the runtime does not depend on the safetensors package).
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.gemma.ple import bf16_bits_to_f32

BLOCK = 32
_ST_DTYPES = {
    "I32": np.int32,
    "BF16": np.uint16,
    "F16": np.float16,
    "F32": np.float32,
    "U8": np.uint8,
    "I8": np.int8,
    "I64": np.int64,
}


def read_safetensors(path: Path | str) -> dict[str, tuple[str, np.ndarray]]:
    """name -> (safetensors dtype, array memory-mapped from the file). BF16 comes as uint16 bits."""
    path = Path(path)
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    mm = np.memmap(path, dtype=np.uint8, mode="r")
    base = 8 + n
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        dt = _ST_DTYPES.get(meta["dtype"])
        if dt is None:
            raise ValueError(f"{path}: unsupported dtype {meta['dtype']} for {name}")
        s, e = meta["data_offsets"]
        arr = mm[base + s : base + e].view(np.dtype(dt).newbyteorder("<")).reshape(meta["shape"])
        out[name] = (meta["dtype"], arr)
    return out


@dataclass(frozen=True)
class MatMulNBitsWeights:
    """Inputs/attributes of one MatMulNBits node (Y = A @ W^T with W [N, K])."""

    b: np.ndarray  # uint8 [N, K/32, 16]
    scales: np.ndarray  # float32 [N * K/32]
    k: int
    n: int
    bits: int = 4
    block_size: int = BLOCK


def qat_to_matmulnbits(packed: np.ndarray, scale_bits: np.ndarray) -> MatMulNBitsWeights:
    """int32 [out, in/8] + bf16 bits [out, in/32] -> MatMulNBits weights, no requantization."""
    n, words = packed.shape
    k = words * 8
    if k % BLOCK or scale_bits.shape != (n, k // BLOCK):
        raise ValueError(
            f"QAT shapes do not match: packed {packed.shape}, scale {scale_bits.shape}"
        )
    b = np.ascontiguousarray(packed, dtype="<i4").view(np.uint8).reshape(n, k // BLOCK, 16)
    scales = bf16_bits_to_f32(scale_bits).reshape(-1)
    return MatMulNBitsWeights(b=b, scales=scales, k=k, n=n)


def dequantize_qat(packed: np.ndarray, scale_bits: np.ndarray) -> np.ndarray:
    """The reference: float32 W [out, in] = (n - 8) * scale[i // 32]."""
    n_out, words = packed.shape
    u = np.ascontiguousarray(packed, dtype="<i4").view(np.uint32)
    shifts = np.arange(8, dtype=np.uint32) * 4
    nib = ((u[..., None] >> shifts) & 0xF).reshape(n_out, words * 8).astype(np.float32)
    return (nib - 8.0) * np.repeat(bf16_bits_to_f32(scale_bits), BLOCK, axis=1)


def load_qat_linears(path: Path | str) -> dict[str, MatMulNBitsWeights]:
    """Every `X.weight_packed`/`X.weight_scale` pair of a core.safetensors, keyed by `X`."""
    tensors = read_safetensors(path)
    out = {}
    for name, (dt, arr) in tensors.items():
        if name.endswith(".weight_packed"):
            prefix = name[: -len(".weight_packed")]
            sdt, scale = tensors[prefix + ".weight_scale"]
            if dt != "I32" or sdt != "BF16":
                raise ValueError(f"{prefix}: expected I32 packed / BF16 scale, got {dt}/{sdt}")
            out[prefix] = qat_to_matmulnbits(np.asarray(arr), np.asarray(scale))
    return out
