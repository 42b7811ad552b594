"""4-bit PLE row formats: files written in the exact on-disk layouts, rows read back exactly."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from models.gemma.ple import (
    Q4_0RowFile,
    W4ShardedTable,
    bf16_bits_to_f32,
    f32_to_bf16_bits,
    w4_shard_layout,
    write_q4_0,
    write_w4_sharded,
)


def table(rows: int, width: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = rng.standard_normal((rows, width)).astype(np.float32) * 0.3
    t[1] = 0.0  # an all-zero row: scale 0 must not give NaN
    return t


def ref_q4_0_row(raw: bytes, width: int) -> np.ndarray:
    """Scalar GGML q4_0 dequantization, written from the format description, value by value."""
    out = []
    for b in range(width // 32):
        blk = raw[b * 18 : (b + 1) * 18]
        d = float(np.frombuffer(blk[:2], dtype="<f2")[0])
        qs = blk[2:]
        lo = [d * ((qs[j] & 0xF) - 8) for j in range(16)]
        hi = [d * ((qs[j] >> 4) - 8) for j in range(16)]
        out += lo + hi
    return np.array(out, dtype=np.float32)


def test_q4_0_e2b_row_is_5040_bytes(tmp_path: Path) -> None:
    path = tmp_path / "ple.q4_0.bin"
    write_q4_0(path, table(3, 8960))
    assert path.stat().st_size == 3 * 5040
    assert Q4_0RowFile(path, width=8960).rows_count == 3


def test_q4_0_rows_equal_reference_exactly(tmp_path: Path) -> None:
    width = 160
    t = table(300, width)
    path = tmp_path / "ple.q4_0.bin"
    write_q4_0(path, t, chunk_rows=64)
    f = Q4_0RowFile(path, width=width)
    raw = path.read_bytes()
    ids = np.array([[0, 1, 299], [7, 7, 150]])
    got = f.rows(ids)
    assert got.shape == (2, 3, width) and got.dtype == np.float32
    for i, r in np.ndenumerate(ids):
        ref = ref_q4_0_row(raw[r * f.row_bytes : (r + 1) * f.row_bytes], width)
        np.testing.assert_array_equal(got[i], ref)
    assert np.all(got[0, 1] == 0)
    # a faithful 4-bit copy (GGML clamps q at 15: worst case |err| = |d| = max|x|/8)
    assert np.abs(f.rows(np.arange(300)) - t).max() <= np.abs(t).max() / 8 + 1e-6


def test_q4_0_rejects_bad_ids_and_sizes(tmp_path: Path) -> None:
    path = tmp_path / "x.bin"
    write_q4_0(path, table(4, 64))
    with pytest.raises(IndexError):
        Q4_0RowFile(path, width=64).rows(np.array([4]))
    with pytest.raises(ValueError):
        Q4_0RowFile(path, width=96)


def ref_w4_row(packed: bytes, scales: bytes, width: int) -> np.ndarray:
    """Scalar reference: two's-complement nibbles low first, value = q * bf16(scale[i // 32])."""
    sc = bf16_bits_to_f32(np.frombuffer(scales, dtype="<u2"))
    out = []
    for i in range(width):
        n = (packed[i // 2] >> (4 * (i % 2))) & 0xF
        q = n - 16 if n >= 8 else n
        out.append(np.float32(q) * sc[i // 32])
    return np.array(out, dtype=np.float32)


def test_w4_sharded_layout_matches_the_distribution() -> None:
    lay = w4_shard_layout(4096, 8960)
    assert lay == {"packed_offset": 0, "scales_offset": 18_350_080, "bytes": 20_643_840}
    assert 8960 // 2 == 4480 and 8960 // 32 * 2 == 560


def test_w4_sharded_rows_equal_reference_exactly(tmp_path: Path) -> None:
    width, rows, per = 160, 300, 128
    t = table(rows, width, seed=1)
    mpath = write_w4_sharded(tmp_path / "ple-w4", t, rows_per_shard=per)
    m = json.loads(mpath.read_text())
    assert m["format"] == "gemma4-ple-w4-sharded-v1" and len(m["shards"]) == 3
    assert (m["bits"], m["qmin"], m["qmax"], m["group"], m["scale"], m["nibble_order"]) == (
        4,
        -7,
        7,
        32,
        "bf16",
        "low_first",
    )
    assert m["layout"] == {"rows_per_shard": per, "packed_row_bytes": 80, "scale_row_bytes": 10}
    tab = W4ShardedTable(mpath, verify=True)
    ids = np.array([0, 1, 127, 128, 255, 256, 299, 5])
    got = tab.rows(ids)
    for k, r in enumerate(ids):
        sh = m["shards"][r // per]
        data = (mpath.parent / sh["file"]).read_bytes()
        loc = r - sh["row_start"]
        packed = data[sh["packed_offset"] + loc * 80 : sh["packed_offset"] + (loc + 1) * 80]
        scales = data[sh["scales_offset"] + loc * 10 : sh["scales_offset"] + (loc + 1) * 10]
        np.testing.assert_array_equal(got[k], ref_w4_row(packed, scales, width))
    assert np.abs(tab.rows(np.arange(rows)) - t).max() <= np.abs(t).max() / 12


def test_w4_corrupt_shard_is_named(tmp_path: Path) -> None:
    mpath = write_w4_sharded(tmp_path / "w4", table(64, 64), rows_per_shard=32)
    shard = mpath.parent / "ple-00001-of-00002.bin"
    data = bytearray(shard.read_bytes())
    data[0] ^= 0xFF
    shard.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="ple-00001-of-00002.bin"):
        W4ShardedTable(mpath, verify=True)


def test_bf16_round_trip() -> None:
    x = np.array([1.0, -2.5, 3.14159, 1e-3, 65504.0], dtype=np.float32)
    y = bf16_bits_to_f32(f32_to_bf16_bits(x))
    assert np.all(np.abs(y - x) <= np.abs(x) * 2**-8)
