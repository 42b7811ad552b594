"""Per-layer-embedding (PLE) tables kept off the accelerator: 4-bit row files read by memory map.

Two on-disk formats the product started from, each with a writer (for tests and the exporter) and
a reader returning float32 rows of the RAW table (the graph applies the x sqrt(ple_dim) scale):

- GGML q4_0 row file: `rows x (width/32) x 18` bytes, each 32-value block an fp16 scale d followed
  by 16 nibble bytes: v[j] = d*((qs[j] & 0xF) - 8), v[j+16] = d*((qs[j] >> 4) - 8).
  E2B: width 8960 -> 5040 bytes per row.
- "gemma4-ple-w4-sharded-v1": a manifest plus shards of `rows_per_shard` rows; a shard holds all
  packed rows (width/2 bytes each, two's-complement nibbles low first) then all scale rows
  (width/32 bf16 each); value = q * scale[i // 32], q = n - 16 if n >= 8.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Protocol

import numpy as np

QK = 32  # values per block (both formats)
Q4_0_BLOCK_BYTES = 2 + QK // 2
W4_FORMAT = "gemma4-ple-w4-sharded-v1"


class PleTable(Protocol):
    rows_count: int
    width: int

    def rows(self, ids: np.ndarray) -> np.ndarray:
        """float32 [*ids.shape, width] raw table rows."""
        ...


# ---------------------------------------------------------------- bf16 helpers
def f32_to_bf16_bits(x: np.ndarray) -> np.ndarray:
    """Round-to-nearest-even float32 -> bfloat16 bit patterns (uint16)."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def bf16_bits_to_f32(b: np.ndarray) -> np.ndarray:
    return (np.asarray(b, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


# ---------------------------------------------------------------- GGML q4_0
def q4_0_quantize(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """GGML's reference quantize_row_q4_0, row-wise: (d fp16 [R, nb], qs uint8 [R, nb, 16])."""
    r, w = x.shape
    if w % QK:
        raise ValueError(f"q4_0 needs a width divisible by {QK}, got {w}")
    b = x.astype(np.float32).reshape(r, w // QK, QK)
    idx = np.abs(b).argmax(axis=-1)
    mx = np.take_along_axis(b, idx[..., None], axis=-1)[..., 0]  # signed value of max |x|
    d = mx / -8.0
    inv = np.divide(1.0, d, out=np.zeros_like(d), where=d != 0)
    q = np.minimum(15, (b * inv[..., None] + 8.5).astype(np.int8)).astype(np.uint8)
    qs = (q[..., :16] | (q[..., 16:] << 4)).astype(np.uint8)
    return d.astype(np.float16), qs


def q4_0_dequantize(d: np.ndarray, qs: np.ndarray) -> np.ndarray:
    """[R, nb] fp16, [R, nb, 16] uint8 -> float32 [R, nb*32]."""
    lo = (qs & 0x0F).astype(np.int8) - 8
    hi = (qs >> 4).astype(np.int8) - 8
    q = np.concatenate([lo, hi], axis=-1).astype(np.float32)
    v = q * d.astype(np.float32)[..., None]
    return v.reshape(d.shape[0], -1)


def write_q4_0(path: Path, table: np.ndarray, *, chunk_rows: int = 4096) -> None:
    """Quantize a [rows, width] table to a GGML q4_0 row file (streaming, chunk by chunk)."""
    with open(path, "wb") as f:
        for s in range(0, table.shape[0], chunk_rows):
            d, qs = q4_0_quantize(np.asarray(table[s : s + chunk_rows], dtype=np.float32))
            blocks = np.empty((d.shape[0], d.shape[1], Q4_0_BLOCK_BYTES), dtype=np.uint8)
            blocks[..., :2] = d.view(np.uint8).reshape(d.shape[0], d.shape[1], 2)
            blocks[..., 2:] = qs
            f.write(blocks.tobytes())


class Q4_0RowFile:
    """A memory-mapped GGML q4_0 row file. Only the rows asked for are read."""

    def __init__(self, path: Path | str, *, width: int) -> None:
        self.path = Path(path)
        self.width = width
        self.row_bytes = (width // QK) * Q4_0_BLOCK_BYTES
        size = self.path.stat().st_size
        if width % QK or size % self.row_bytes:
            raise ValueError(
                f"{self.path}: size {size} is not a whole number of "
                f"{self.row_bytes}-byte q4_0 rows of width {width}"
            )
        self.rows_count = size // self.row_bytes
        self._mm = np.memmap(
            self.path,
            dtype=np.uint8,
            mode="r",
            shape=(self.rows_count, width // QK, Q4_0_BLOCK_BYTES),
        )

    def rows(self, ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64)
        flat = ids.reshape(-1)
        if flat.size and (flat.min() < 0 or flat.max() >= self.rows_count):
            raise IndexError(f"PLE row id out of range [0, {self.rows_count})")
        blocks = np.asarray(self._mm[flat])  # [n, nb, 18]: fancy indexing copies only these rows
        d = np.ascontiguousarray(blocks[..., :2]).view(np.float16)[..., 0]
        out = q4_0_dequantize(d, blocks[..., 2:])
        return out.reshape(*ids.shape, self.width)


# ---------------------------------------------------------------- sharded W4 (bf16 scales)
def w4_quantize(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric 4-bit, group 32, q in [-7, 7], bf16 scales: (packed uint8 [R, W/2], scales u16)."""
    r, w = x.shape
    b = x.astype(np.float32).reshape(r, w // QK, QK)
    scale_bits = f32_to_bf16_bits(np.abs(b).max(axis=-1) / 7.0)
    scale = bf16_bits_to_f32(scale_bits)
    inv = np.divide(1.0, scale, out=np.zeros_like(scale), where=scale != 0)
    q = np.clip(np.rint(b * inv[..., None]), -7, 7).astype(np.int8).reshape(r, w)
    n = (q.astype(np.uint8)) & 0x0F  # two's-complement nibbles
    packed = (n[:, 0::2] | (n[:, 1::2] << 4)).astype(np.uint8)  # low nibble first
    return packed, scale_bits


def w4_dequantize(packed: np.ndarray, scale_bits: np.ndarray) -> np.ndarray:
    lo = (packed & 0x0F).astype(np.int16)
    hi = (packed >> 4).astype(np.int16)
    n = np.stack([lo, hi], axis=-1).reshape(packed.shape[0], -1)
    q = np.where(n >= 8, n - 16, n).astype(np.float32)
    s = np.repeat(bf16_bits_to_f32(scale_bits), QK, axis=-1)
    return q * s


def w4_shard_layout(rows: int, width: int) -> dict[str, int]:
    """Byte layout of one full shard: packed rows first, then scale rows."""
    packed = rows * (width // 2)
    return {"packed_offset": 0, "scales_offset": packed, "bytes": packed + rows * (width // QK) * 2}


def write_w4_sharded(out_dir: Path, table: np.ndarray, *, rows_per_shard: int = 4096) -> Path:
    """Write the sharded W4 distribution (manifest.json + ple-000NN-of-000MM.bin) to `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    rows, width = table.shape
    packed_row, scale_row = width // 2, (width // QK) * 2
    n_shards = -(-rows // rows_per_shard)
    shards = []
    for k in range(n_shards):
        s = k * rows_per_shard
        chunk = np.asarray(table[s : s + rows_per_shard], dtype=np.float32)
        packed, scales = w4_quantize(chunk)
        name = f"ple-{k:05d}-of-{n_shards:05d}.bin"
        data = packed.tobytes() + scales.astype("<u2").tobytes()
        (out_dir / name).write_bytes(data)
        lay = w4_shard_layout(int(chunk.shape[0]), width)
        assert lay["bytes"] == len(data)
        shards.append(
            {
                "file": name,
                "row_start": s,
                "rows": int(chunk.shape[0]),
                **lay,
                "sha256": hashlib.sha256(data).hexdigest(),
            }
        )
    manifest = {
        "format": W4_FORMAT,
        "rows": rows,
        "width": width,
        "bits": 4,
        "qmin": -7,
        "qmax": 7,
        "group": QK,
        "scale": "bf16",
        "nibble_order": "low_first",
        "nibbles": "twos_complement",
        "layout": {
            "rows_per_shard": rows_per_shard,
            "packed_row_bytes": packed_row,
            "scale_row_bytes": scale_row,
        },
        "shards": shards,
    }
    path = out_dir / "manifest.json"
    path.write_text(json.dumps(manifest, indent=1))
    return path


class W4ShardedTable:
    """Reader for "gemma4-ple-w4-sharded-v1": one memory map per shard, rows on demand."""

    def __init__(self, manifest_path: Path | str, *, verify: bool = False) -> None:
        self.manifest_path = Path(manifest_path)
        m = json.loads(self.manifest_path.read_text())
        if m.get("format") != W4_FORMAT:
            raise ValueError(f"{self.manifest_path}: format {m.get('format')!r} is not {W4_FORMAT}")
        if (m.get("bits"), m.get("group"), m.get("scale"), m.get("nibble_order")) != (
            4,
            QK,
            "bf16",
            "low_first",
        ):
            raise ValueError(f"{self.manifest_path}: unsupported W4 parameters")
        lay = m["layout"]
        self.rows_per_shard = int(lay["rows_per_shard"])
        self.packed_row_bytes = int(lay["packed_row_bytes"])
        self.scale_row_bytes = int(lay["scale_row_bytes"])
        self.width = int(m.get("width", self.packed_row_bytes * 2))
        if self.width != self.packed_row_bytes * 2 or self.scale_row_bytes != self.width // QK * 2:
            raise ValueError(f"{self.manifest_path}: inconsistent layout {lay}")
        self._shards = []
        total = 0
        for sh in sorted(m["shards"], key=lambda s: s["row_start"]):
            p = self.manifest_path.parent / sh["file"]
            if not p.is_file():
                raise FileNotFoundError(f"PLE shard missing: {p}")
            if p.stat().st_size != sh["bytes"]:
                raise ValueError(f"PLE shard corrupt (size): {p}")
            if verify and hashlib.sha256(p.read_bytes()).hexdigest() != sh["sha256"]:
                raise ValueError(f"PLE shard corrupt (sha256): {p}")
            n = int(sh.get("rows", (sh["bytes"] - sh["scales_offset"]) // self.scale_row_bytes))
            mm = np.memmap(p, dtype=np.uint8, mode="r")
            po, so = int(sh.get("packed_offset", 0)), int(sh["scales_offset"])
            packed = mm[po : po + n * self.packed_row_bytes].reshape(n, self.packed_row_bytes)
            scales = mm[so : so + n * self.scale_row_bytes].view("<u2").reshape(n, -1)
            self._shards.append((int(sh["row_start"]), n, packed, scales))
            total += n
        self.rows_count = int(m.get("rows", total))

    def rows(self, ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64)
        flat = ids.reshape(-1)
        out = np.empty((flat.size, self.width), dtype=np.float32)
        shard_of = flat // self.rows_per_shard
        for k in np.unique(shard_of):
            start, n, packed, scales = self._shards[int(k)]
            sel = np.nonzero(shard_of == k)[0]
            local = flat[sel] - start
            if local.min() < 0 or local.max() >= n:
                raise IndexError("PLE row id out of range")
            out[sel] = w4_dequantize(np.asarray(packed[local]), np.asarray(scales[local]))
        return out.reshape(*ids.shape, self.width)


class DenseRowFile:
    """Unquantized rows (`.npy`, float32 or float16) by memory map: exact parity runs."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._a = np.load(self.path, mmap_mode="r")
        self.rows_count, self.width = self._a.shape

    def rows(self, ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64)
        return np.asarray(self._a[ids.reshape(-1)], dtype=np.float32).reshape(*ids.shape, -1)


def open_ple(path: Path, *, fmt: str, width: int) -> PleTable:
    """Open a PLE table by the format name a package manifest records."""
    if fmt == "ggml-q4_0":
        return Q4_0RowFile(path, width=width)
    if fmt == W4_FORMAT:
        return W4ShardedTable(path)
    if fmt == "npy":
        return DenseRowFile(path)
    raise ValueError(f"unknown PLE format {fmt!r}")
