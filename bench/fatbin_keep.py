"""Zero the GPU code a shared library carries for other GPUs, so that it compresses to what one
GPU needs: `python bench/fatbin_keep.py SRC DST --arch 90`.

onnxruntime-gpu's CUDA provider (284 MB) holds its kernels once per GPU architecture (sm_75 ...
sm_120) in the ELF section `.nv_fatbin`; the device tool carries < 64 MiB a call. In every fat
binary that also has a cubin for `--arch`, the payloads of the other entries are overwritten
with zeros: the file keeps its layout (offsets, sizes, headers), the driver picks the entry of
its own GPU and never reads the others, and xz squeezes the zeros away (the whole onnxruntime
package: 255 MB wheel -> 69 MB .tar.xz). Fat binaries without that cubin stay as they are.
"""

from __future__ import annotations

import argparse
import struct
from pathlib import Path

FATBIN_MAGIC = 0xBA55ED50


def fatbin_section(data: bytes) -> tuple[int, int]:
    """(file offset, size) of `.nv_fatbin` in a 64-bit little-endian ELF file."""
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)

    def header(i: int) -> tuple[int, int, int]:
        name, _, _, _, off, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        return name, off, size

    _, stroff, _ = header(shstrndx)
    for i in range(shnum):
        name, off, size = header(i)
        if data[stroff + name : data.index(b"\0", stroff + name)] == b".nv_fatbin":
            return off, size
    raise SystemExit("no .nv_fatbin section")


def keep_arch(data: bytearray, arch: int) -> tuple[int, int]:
    """Zero other architectures' payloads in place; returns (bytes zeroed, bytes kept)."""
    pos, size = fatbin_section(bytes(data))
    end, zeroed, kept = pos + size, 0, 0
    while pos < end:
        magic, _, hsize, fsize = struct.unpack_from("<IHHQ", data, pos)
        if magic != FATBIN_MAGIC:  # alignment padding between fat binaries
            pos += 8
            continue
        entries, e, stop = [], pos + hsize, pos + hsize + fsize
        while e < stop:
            kind, _, ehsize, psize = struct.unpack_from("<HHIQ", data, e)
            (entry_arch,) = struct.unpack_from("<I", data, e + 28)
            entries.append((kind, entry_arch, e + ehsize, psize))
            e += ehsize + psize
        if any(kind == 2 and a == arch for kind, a, _, _ in entries):  # 2: an ELF cubin
            for _, a, start, n in entries:
                if a == arch:
                    kept += n
                else:
                    data[start : start + n] = bytes(n)
                    zeroed += n
        pos = stop
    return zeroed, kept


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("src", type=Path)
    ap.add_argument("dst", type=Path)
    ap.add_argument("--arch", type=int, default=90, help="sm_XX to keep (H100/H200: 90)")
    a = ap.parse_args()
    data = bytearray(a.src.read_bytes())
    zeroed, kept = keep_arch(data, a.arch)
    a.dst.write_bytes(data)
    print(f"{a.dst}: kept {kept / 1e6:.1f} MB of sm_{a.arch} code, zeroed {zeroed / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
