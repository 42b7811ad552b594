"""FastGemma's prompt prefix cache and cascade attention state (`models.gemma.fast`).

- `PrefixStore`: a prompt prefix's KV per layer, computed once by the prefill graph (batch 1)
  and kept on the device (the most recent `PREFIX_ENTRIES`), and the masks of rows prefilled
  after it (`prefill_past`).
- Cascade attention (`FastGemma(cascade=True)`, graphs of `models.export.fast_cascade`): a
  decode state whose full-layer caches hold only what follows one shared prefix, and the
  state's own copy of that prefix's full-layer K/V (fixed device buffers: a CUDA graph replays
  against their addresses, so another prefix of the same length is copied in, not rebound).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from models.gemma.decoder import Prompt
from models.gemma.fast_device import DeviceBuffer, GraphSession
from models.gemma.prompt import PREFIX_ENTRIES


class PrefixRuntime(Protocol):
    """What the store uses of its runtime (FastGemma)."""

    ort: Any
    device: tuple[str, int]
    float: Any
    ring: int
    kv_layers: list[int]
    full: set[int]
    kv_dims: dict[int, int]
    multimodal: np.ndarray
    ids: dict[str, Any]
    text: dict[str, Any]
    emb: GraphSession
    pre: GraphSession

    def run_graph(self, s: GraphSession, feeds: dict[str, Any],
                  outs: dict[str, Any] | None = None,
                  run_options: Any = None) -> dict[str, Any]: ...  # fmt: skip


class PrefixStore:
    """Prompt prefixes' KV on the device (see the module)."""

    def __init__(self, fast: PrefixRuntime) -> None:
        self.fast = fast
        self._prefixes: OrderedDict[bytes, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self._biases: dict[tuple[int, int, int], dict[str, Any]] = {}

    def bias(self, prefix: int, sliding: int, seq: int) -> dict[str, Any]:
        """The masks of rows after a prefix (the same for every row: no padding), as device
        values: full layers see every earlier key, sliding layers the last `ring`."""
        f = self.fast
        key = (prefix, sliding, seq)
        got = self._biases.get(key)
        if got is None:
            neg = float(np.finfo(f.float).min) / 2
            q = prefix + np.arange(seq)[:, None]
            out = {}
            for lt, first in (("full_attention", 0), ("sliding_attention", prefix - sliding)):
                k = first + np.arange(prefix - first + seq)[None]
                ok = (k <= q) & ((q - k < f.ring) | (lt == "full_attention"))
                out[f"bias.{lt}"] = f.ort.OrtValue.ortvalue_from_numpy(
                    np.where(ok, 0.0, neg).astype(f.float)[None, None], *f.device
                )
            if len(self._biases) >= PREFIX_ENTRIES:
                self._biases.clear()
            got = self._biases[key] = out
        return got

    def kv(self, ids: np.ndarray) -> dict[str, Any]:
        """A prompt prefix's KV per layer: "kv" (device values `prefix.{i}.{kind}` [1,1,Pi,hd]:
        full layers all of it, sliding layers its last min(P, ring) tokens in order), "sliding"
        (that Pi) and "host" (the full layers' arrays, to copy into cascade states): one prefill
        of the prefix alone, then kept (the most recent PREFIX_ENTRIES)."""
        key = ids.tobytes()
        with self._lock:
            got = self._prefixes.get(key)
            if got is None:
                got = self._prefixes[key] = self._compute(ids)
                while len(self._prefixes) > PREFIX_ENTRIES:
                    self._prefixes.popitem(last=False)
            self._prefixes.move_to_end(key)
            return got

    def _compute(self, ids: np.ndarray) -> dict[str, Any]:
        f = self.fast
        P, h, dev = len(ids), f.text["hidden_size"], f.device
        ids = np.where(np.isin(ids, f.multimodal), f.ids["pad"], ids).astype(np.int64)
        emb = f.run_graph(f.emb, {"input_ids": ids[None],
                                  "image_features": np.zeros((0, h), f.float)})  # fmt: skip
        feeds: dict[str, Any] = {
            "inputs_embeds": emb["inputs_embeds"],
            "per_layer_inputs": emb["per_layer_inputs"],
            "attention_mask": np.ones((1, P), np.int64),
            "position_ids": np.arange(P, dtype=np.int64)[None],
        }
        for i in f.kv_layers:
            n = P if i in f.full else f.ring
            for kind in ("key", "value"):
                feeds[f"cache.{i}.{kind}"] = np.zeros((1, 1, n, f.kv_dims[i]), f.float)
        out = f.run_graph(f.pre, feeds)
        sliding = min(P, f.ring)
        ring_slots = np.arange(P - sliding, P) % f.ring  # the ring keeps index t at t % ring
        kv, host = {}, {}
        for i in f.kv_layers:
            for kind in ("key", "value"):
                a = out[f"cache_out.{i}.{kind}"].numpy()
                a = np.ascontiguousarray(a if i in f.full else a[:, :, ring_slots])
                kv[f"prefix.{i}.{kind}"] = f.ort.OrtValue.ortvalue_from_numpy(a, *dev)
                if i in f.full:
                    host[f"prefix.{i}.{kind}"] = a
        return {"kv": kv, "sliding": sliding, "host": host}

    # ------------------------------------------------------------------ cascade attention
    @staticmethod
    def shared(prompts: Sequence[Prompt]) -> np.ndarray | None:
        """The prefix ids every prompt starts with (each a page with an image and a prefix),
        or None: then a batch decodes on the plain step."""
        heads = {p.ids[: p.prefix].tobytes() for p in prompts}
        p0 = prompts[0]
        if len(heads) != 1 or any(p.features is None or not 0 < p.prefix < len(p.ids)
                                  for p in prompts):  # fmt: skip
            return None
        return p0.ids[: p0.prefix]

    def buffers(self, prefix: int) -> dict[str, DeviceBuffer]:
        """A cascade state's prefix inputs: the full KV layers' [1,1,prefix,hd], zero."""
        f = self.fast
        out = {}
        for i in sorted(f.full):
            shape = (1, 1, prefix, f.kv_dims[i])
            for kind in ("key", "value"):
                out[f"prefix.{i}.{kind}"] = DeviceBuffer(f.ort, shape, f.float, f.device,
                                                         fill=np.zeros(shape, f.float))  # fmt: skip
        return out

    def hold(self, st: dict[str, Any], ids: np.ndarray) -> None:
        """Make a cascade state's prefix inputs hold the prefix `ids` (copied in when another
        prefix was there: the state's step graph keeps reading the same buffers)."""
        if st.get("prefix_ids") == ids.tobytes():
            return
        host = self.kv(ids)["host"]
        for name, buf in st["prefix"].items():
            buf.write(host[name])
        st["prefix_ids"] = ids.tobytes()

    def row_lens(self, st: dict[str, Any], prompts: Sequence[Prompt]) -> np.ndarray:
        """Each prompt's prefix length in a cascade state (0 in a plain state, or for a prompt
        without the state's prefix: its full-layer cache then holds it whole)."""
        held = st.get("prefix_ids")
        return np.array([p.prefix if held is not None and p.features is not None
                         and 0 < p.prefix < len(p.ids) and p.ids[: p.prefix].tobytes() == held
                         else 0 for p in prompts], np.int64)  # fmt: skip


__all__ = ["PrefixRuntime", "PrefixStore"]
