"""What the fast path (`models.gemma.fast`) holds on the device: where its sessions run (the
provider and device, CUDA graphs or not), the sessions, the device buffers it binds whole or by
row blocks (by pointer, so CUDA graphs replay against fixed addresses), and the batch sizes it
runs at (each captures its own graphs)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models.gemma.package import PackageError, session_error

log = logging.getLogger(__name__)

_CUDA = "CUDAExecutionProvider"
_NP = {"tensor(float)": np.float32, "tensor(float16)": np.float16, "tensor(int64)": np.int64}


@dataclass(frozen=True)
class Placement:
    """Where the fast graphs run: the provider asked for first, and the device."""

    provider: str
    device: tuple[str, int]
    cuda_options: dict[str, str]  # the CUDA provider's options (device_id and the caller's)

    @property
    def cuda(self) -> bool:
        return self.provider == _CUDA

    def providers(self, graph: bool) -> list[Any]:
        """A session's providers; `graph`: captured as CUDA graphs (the decode step's)."""
        if not self.cuda:
            return ["CPUExecutionProvider"]
        o = dict(self.cuda_options)
        if graph:
            o["enable_cuda_graph"] = "1"
        return [(_CUDA, o), "CPUExecutionProvider"]


def placement(ort: Any, providers: Sequence[str] | None, *, device_id: int,
              cuda_options: dict[str, str] | None) -> Placement:  # fmt: skip
    """The providers asked for (default: CUDA where onnxruntime has it, else the CPU)."""
    avail = ort.get_available_providers()
    wanted = list(providers) if providers else [_CUDA if _CUDA in avail else "CPUExecutionProvider"]
    cuda = wanted[0] == _CUDA
    if cuda and hasattr(ort, "preload_dlls"):
        try:  # CUDA / cuDNN from the nvidia-* wheels when they are not on the loader path
            ort.preload_dlls()
        except Exception as exc:  # pragma: no cover - depends on the machine
            log.info("onnxruntime.preload_dlls: %s", exc)
    device = ("cuda", device_id) if cuda else ("cpu", 0)
    return Placement(wanted[0], device, {"device_id": str(device_id), **(cuda_options or {})})


class GraphSession:
    """One graph file's onnxruntime session, its inputs' dtypes and its input and output names
    (a CUDA session that did not get the CUDA execution provider is an error)."""

    def __init__(self, ort: Any, path: Path, prov: list[Any], opts: Any, device: tuple[str, int]):
        try:
            self.sess = ort.InferenceSession(str(path), sess_options=opts, providers=prov)
        except Exception as exc:
            raise session_error(path, exc) from exc
        self.ort, self.device = ort, device
        if device[0] == "cuda" and "CUDAExecutionProvider" not in self.sess.get_providers():
            raise PackageError(f"{path}: the CUDA execution provider did not load "
                               "(CUDA / cuDNN libraries missing?)", path=path)  # fmt: skip
        self.types = {i.name: _NP.get(i.type, np.float32) for i in self.sess.get_inputs()}
        self.inputs = [i.name for i in self.sess.get_inputs()]
        self.outputs = [o.name for o in self.sess.get_outputs()]


class DeviceBuffer:
    """A device buffer (an OrtValue) that can be bound whole or by row blocks."""

    def __init__(self, ort: Any, shape: Sequence[int], dtype: Any, device: tuple[str, int],
                 fill: np.ndarray | None = None) -> None:  # fmt: skip
        self.shape, self.dtype = tuple(int(s) for s in shape), np.dtype(dtype)
        if fill is not None:
            self.ov = ort.OrtValue.ortvalue_from_numpy(
                np.ascontiguousarray(fill.astype(self.dtype, copy=False)), *device
            )
        else:
            self.ov = ort.OrtValue.ortvalue_from_shape_and_type(self.shape, self.dtype, *device)
        self.ptr = self.ov.data_ptr()
        self.row_bytes = int(np.prod(self.shape[1:], dtype=np.int64)) * self.dtype.itemsize

    def bind(self, io: Any, name: str, device: tuple[str, int], *, output: bool = False,
             rows: tuple[int, int] | None = None, shape: Sequence[int] | None = None,
             offset: int = 0) -> None:  # fmt: skip
        r0, r1 = rows if rows is not None else (0, self.shape[0])
        shp = list(shape) if shape is not None else [r1 - r0, *self.shape[1:]]
        ptr = self.ptr + r0 * self.row_bytes + offset
        fn = io.bind_output if output else io.bind_input
        fn(name, device[0], device[1], self.dtype, shp, ptr)

    def write(self, a: np.ndarray) -> None:
        self.ov.update_inplace(np.ascontiguousarray(a.astype(self.dtype).reshape(self.shape)))

    def numpy(self) -> np.ndarray:
        return self.ov.numpy()


def batch_bucket(n: int) -> int:
    """The batch size a batch of n runs at: a power of two up to 16, then a multiple of 16."""
    return 1 << (n - 1).bit_length() if n <= 16 else -(-n // 16) * 16


__all__ = ["DeviceBuffer", "GraphSession", "Placement", "batch_bucket", "placement"]
