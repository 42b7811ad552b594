"""Gemma 4 on onnxruntime: sessions, vision -> embedding -> decoder, batched greedy generation.

One code path for CPU and CUDA: every graph runs through I/O binding, outputs stay as OrtValues on
the session's device and the KV cache goes from one step's `present.*` straight into the next
step's `past_key_values.*`. Only the sampled ids (the graph's `next_token`) come back per step.

Batching: each page is prefilled on its own (batch 1, exact, no padded query rows), then the
caches are left-padded into one batch and decoded together with an attention mask and per-row
position ids. A finished page leaves the batch (its rows are dropped from the cache, and leading
columns that are padding for every remaining row are trimmed).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NoReturn

import numpy as np
from PIL import Image

from models.gemma.decoder import Generation, PageRequest, Prompt, TwoSteps
from models.gemma.image import preprocess
from models.gemma.package import (
    Package,
    PackageError,
    find_custom_ops,
    load_package,
    session_error,
    session_options,
)
from models.gemma.ple import PleTable, open_ple
from models.gemma.prompt import PREFIX_ENTRIES, PromptBuilder

log = logging.getLogger(__name__)

_NP_TYPES = {
    "tensor(float)": np.float32,
    "tensor(float16)": np.float16,
    "tensor(int64)": np.int64,
    "tensor(int32)": np.int32,
}


@dataclass
class _Seq:
    index: int
    ids: np.ndarray  # prompt ids [S]
    features: np.ndarray | None  # image features [n, hidden] (host) or None
    limit: int  # new tokens at most: the call's, or the prompt's own if lower
    prefix: int = 0  # leading ids whose KV may come from the prefix cache
    out: list[int] = field(default_factory=list)
    finish: Literal["stop", "length"] | None = None


class _Graph:
    """An onnxruntime session run through I/O binding on one device."""

    def __init__(
        self, ort: Any, path: Path, *, providers: list[Any], opts: Any, device: tuple[str, int]
    ) -> None:
        self.ort, self.path, self.device = ort, path, device
        ops = find_custom_ops(path)
        if ops:
            raise session_error(path, RuntimeError(f"custom ops {ops}"))
        try:
            self.sess = ort.InferenceSession(str(path), sess_options=opts, providers=providers)
        except Exception as exc:  # onnxruntime raises several types; all mean "cannot load"
            raise session_error(path, exc) from exc
        self.inputs = {i.name: _NP_TYPES.get(i.type, np.float32) for i in self.sess.get_inputs()}
        self.outputs = [o.name for o in self.sess.get_outputs()]

    def to_device(self, a: np.ndarray) -> Any:
        return self.ort.OrtValue.ortvalue_from_numpy(np.ascontiguousarray(a), *self.device)

    def run(self, feeds: dict[str, Any]) -> dict[str, Any]:
        b = self.sess.io_binding()
        for name, v in feeds.items():
            if isinstance(v, np.ndarray):
                v = self.to_device(v.astype(self.inputs[name], copy=False))
            b.bind_ortvalue_input(name, v)
        for name in self.outputs:
            b.bind_output(name, *self.device)
        self.sess.run_with_iobinding(b)
        return dict(zip(self.outputs, b.get_outputs(), strict=True))


class GemmaRuntime(TwoSteps):
    """Load a package once; `generate` a batch of (prompt, image) requests to texts (the
    reference `models.gemma.decoder.Decoder`: whole batches only, no continuous rows)."""

    decodes_rows = False

    def __init__(
        self,
        package: Path | str | Package,
        *,
        max_soft_tokens: int = 1120,
        providers: Sequence[str] | None = None,
        device_id: int = 0,
        intra_op_threads: int | None = None,
        verify: bool = True,
        prefix_cache: bool = True,
    ) -> None:
        import onnxruntime as ort

        self.package = (
            package if isinstance(package, Package) else load_package(package, verify=verify)
        )
        self.max_soft_tokens = max_soft_tokens
        # The KV of a prompt's shared prefix (Prompt.prefix), computed once and copied into the
        # past of every page that starts with it: prefill covers the image and what follows.
        self.prefix_cache = prefix_cache
        self._prefixes: OrderedDict[bytes, dict[str, Any]] = OrderedDict()
        self._prefix_lock = threading.Lock()
        cfg = self.package.config
        self.text, self.vision, self.ids = cfg["text"], cfg["vision"], cfg["ids"]
        available = ort.get_available_providers()
        wanted = (
            list(providers)
            if providers
            else (["CUDAExecutionProvider"] if "CUDAExecutionProvider" in available else [])
            + ["CPUExecutionProvider"]
        )
        self.provider = wanted[0]
        if self.provider == "CUDAExecutionProvider":
            prov: list[Any] = [
                ("CUDAExecutionProvider", {"device_id": device_id}),
                "CPUExecutionProvider",
            ]
            device = ("cuda", device_id)
        else:
            prov, device = ["CPUExecutionProvider"], ("cpu", 0)
        log.info(
            "gemma: onnxruntime %s on %s (%s)", ort.__version__, self.provider, self.package.root
        )
        opts = session_options(ort, cuda=device[0] == "cuda", intra_op_threads=intra_op_threads)
        self.graphs = {
            name: _Graph(
                ort, self.package.path(spec.file), providers=prov, opts=opts, device=device
            )
            for name, spec in self.package.graphs.items()
        }
        self.dec, self.emb, self.vis = (
            self.graphs[k] for k in ("decoder", "embedding", "vision_encoder")
        )
        self.float_type = self.emb.inputs["image_features"]
        self.kv_names = [n for n in self.dec.inputs if n.startswith("past_key_values.")]
        self.kv_dims = {
            n: (self.dec.sess.get_inputs()[list(self.dec.inputs).index(n)].shape)
            for n in self.kv_names
        }
        self.ple: PleTable | None = None
        self.multimodal_ids = np.array(
            [
                i
                for i in (self.ids.get("image"), self.ids.get("audio"), self.ids.get("video"))
                if i is not None
            ],
            dtype=np.int64,
        )
        self.non_image_ids = self.multimodal_ids[self.multimodal_ids != self.ids["image"]]
        ple = self.package.ple
        if ple.get("placement") == "external":
            path = self.package.path(ple["file"])
            self.ple = open_ple(path, fmt=ple["format"], width=int(ple["width"]))
            self.ple_input = ple.get("input", "ple_rows")
        self.prompts = PromptBuilder(
            self.package.path(self.package.manifest["tokenizer"]),
            prompt=self.package.prompt,
            ids=self.ids,
        )
        self.stop_ids = set(self.prompts.stop_ids)

    # ------------------------------------------------------------------ pieces
    def encode_image(self, image: Image.Image) -> np.ndarray:
        """Page image -> image features [soft_tokens, hidden] (host array)."""
        p = preprocess(
            image,
            max_soft_tokens=self.max_soft_tokens,
            patch_size=self.vision["patch_size"],
            pooling=self.vision["pooling_kernel_size"],
        )
        out = self.vis.run(
            {"pixel_values": p.pixel_values[None], "pixel_position_ids": p.position_ids[None]}
        )
        feats = out["image_features"].numpy()
        if feats.shape[0] != p.soft_tokens:
            raise RuntimeError(
                f"vision graph gave {feats.shape[0]} features for {p.soft_tokens} image tokens"
            )
        return feats

    def prompt(self, request: PageRequest) -> Prompt:
        """A request tokenized, with its image features (host) and shared prefix length."""
        feats = self.encode_image(request.image) if request.image is not None else None
        n = 0 if feats is None else feats.shape[0]
        built = self.prompts.build(content=request.prompt, image_tokens=n)
        return Prompt(built.ids, feats, prefix=built.prefix)

    def prompt_ids(self, request: PageRequest) -> tuple[np.ndarray, np.ndarray | None]:
        p = self.prompt(request)
        return p.ids, p.features

    def _embed(self, ids: np.ndarray, feats: np.ndarray | None) -> dict[str, Any]:
        hidden = self.text["hidden_size"]
        f = feats if feats is not None else np.zeros((0, hidden), dtype=self.float_type)
        # transformers embeds every multimodal id that gets no features as the pad token (for
        # the token and the PLE lookup); the graph scatters image features only, so remap the
        # others here (and image ids too when there are no features, e.g. a generated one).
        remap = self.non_image_ids if feats is not None else self.multimodal_ids
        ids = np.where(np.isin(ids, remap), self.ids["pad"], ids)
        feeds: dict[str, Any] = {"input_ids": ids, "image_features": f}
        if self.ple is not None:
            # The graph scales the rows; the caller remaps multimodal ids to the pad row.
            rows_ids = np.where(np.isin(ids, self.multimodal_ids), self.ids["pad"], ids)
            feeds[self.ple_input] = self.ple.rows(rows_ids)
        return self.emb.run(feeds)

    def _decode(
        self, emb: dict[str, Any], mask: np.ndarray, pos: np.ndarray, past: dict[str, Any]
    ) -> dict[str, Any]:
        feeds: dict[str, Any] = {"inputs_embeds": emb["inputs_embeds"], "attention_mask": mask}
        if "per_layer_inputs" in self.dec.inputs:
            feeds["per_layer_inputs"] = emb["per_layer_inputs"]
        if "position_ids" in self.dec.inputs:
            feeds["position_ids"] = pos
        feeds.update(past)
        return self.dec.run(feeds)

    def _empty_past(self, batch: int) -> dict[str, Any]:
        return {
            n: np.zeros((batch, d[1], 0, d[3]), dtype=self.dec.inputs[n])
            for n, d in self.kv_dims.items()
        }

    def prefill(self, ids: np.ndarray, feats: np.ndarray | None, prefix: int = 0) -> dict[str, Any]:
        """One sequence, batch 1: returns the decoder outputs (logits, next_token, present.*;
        logits of the ids after the prefix only). `prefix`: the first ids' KV comes from the
        prefix cache (when on), the decoder runs on the rest."""
        s = ids.shape[0]
        if not (self.prefix_cache and 0 < prefix < s):
            prefix = 0
        past = self._prefix_past(ids[:prefix]) if prefix else self._empty_past(1)
        emb = self._embed(ids[None, prefix:], feats)
        return self._decode(emb, np.ones((1, s), np.int64),
                            np.arange(prefix, s, dtype=np.int64)[None], past)  # fmt: skip

    def _prefix_past(self, ids: np.ndarray) -> dict[str, Any]:
        """The past (per KV layer, [1, kv heads, len(ids), hd]) of a prompt prefix: computed by
        a prefill of the prefix alone once, then reused (the most recent PREFIX_ENTRIES)."""
        key = ids.astype(np.int64).tobytes()
        with self._prefix_lock:
            past = self._prefixes.get(key)
            if past is None:
                out = self.prefill(ids, None)
                past = {n: out["present." + n[len("past_key_values.") :]] for n in self.kv_names}
                self._prefixes[key] = past
                while len(self._prefixes) > PREFIX_ENTRIES:
                    self._prefixes.popitem(last=False)
            self._prefixes.move_to_end(key)
            return past

    def prefill_logits(self, request: PageRequest) -> np.ndarray:
        """Logits [S, vocab] for every prompt position (parity tests)."""
        ids, feats = self.prompt_ids(request)
        return self.prefill(ids, feats)["logits"].numpy()[0]  # no prefix: every position

    @staticmethod
    def _next(out: dict[str, Any]) -> np.ndarray:
        if "next_token" in out:  # argmax inside the graph: only B ids cross to the host
            return out["next_token"].numpy().reshape(-1).astype(np.int64)
        return out["logits"].numpy()[:, -1].argmax(-1).astype(np.int64)

    # ------------------------------------------------------------------ generation
    def prepare(self, requests: Sequence[PageRequest]) -> tuple[list[Prompt], dict[str, float]]:
        """Tokenize and run the vision graph (features on the host)."""
        t0 = time.perf_counter()
        prompts = [self.prompt(r) for r in requests]
        return prompts, {"vision_s": time.perf_counter() - t0}

    def open_rows(self, **_: Any) -> NoReturn:
        raise NotImplementedError("the reference runtime decodes whole batches only")

    def generate_prompts(
        self, prompts: Sequence[Prompt], *, max_new_tokens: int, ignore_stop: bool = False
    ) -> list[Generation]:
        """Greedy decoding of prepared prompts, all together (see `generate`)."""
        seqs = [
            _Seq(
                i,
                p.ids,
                p.features,
                limit=min(max_new_tokens, p.max_new_tokens or 1 << 30),
                prefix=p.prefix,
            )
            for i, p in enumerate(prompts)
        ]

        # Prefill each sequence alone; keep its presents and first token.
        t1 = time.perf_counter()
        presents, firsts = [], []
        for s in seqs:
            out = self.prefill(s.ids, s.features, s.prefix)
            presents.append({k: out[k].numpy() for k in out if k.startswith("present.")})
            firsts.append(int(self._next(out)[0]))
        t_prefill = time.perf_counter() - t1

        t2 = time.perf_counter()
        lens = np.array([len(s.ids) for s in seqs], dtype=np.int64)
        width = int(lens.max())
        past: dict[str, Any] = {}
        for name in self.kv_names:
            pres = "present." + name[len("past_key_values.") :]
            a0 = presents[0][pres]
            buf = np.zeros((len(seqs), a0.shape[1], width, a0.shape[3]), dtype=a0.dtype)
            for b, p in enumerate(presents):
                buf[b, :, width - lens[b] :] = p[pres]  # left padding
            past[name] = self.dec.to_device(buf)
        del presents
        mask = (np.arange(width)[None, :] >= (width - lens)[:, None]).astype(np.int64)
        active = list(range(len(seqs)))
        tokens = np.array(firsts, dtype=np.int64)
        steps = 0
        while True:
            # Record this step's tokens; finished rows leave the batch.
            keep = []
            for row, si in enumerate(active):
                s, tok = seqs[si], int(tokens[row])
                if tok in self.stop_ids and not ignore_stop:
                    s.finish = "stop"
                    continue
                s.out.append(tok)
                if len(s.out) >= s.limit:
                    s.finish = "length"
                    continue
                keep.append(row)
            if not keep:
                break
            if len(keep) < len(active):
                past, mask = self._compact(past, mask, keep)
                active = [active[r] for r in keep]
                tokens = tokens[keep]
            cur = np.array([len(seqs[si].ids) + len(seqs[si].out) - 1 for si in active], np.int64)
            emb = self._embed(tokens[:, None], None)
            mask = np.concatenate([mask, np.ones((len(active), 1), np.int64)], axis=1)
            out = self._decode(emb, mask, cur[:, None], past)
            past = {n: out["present." + n[len("past_key_values.") :]] for n in self.kv_names}
            tokens = self._next(out)
            steps += 1
        t_decode = time.perf_counter() - t2
        return [
            Generation(
                text=self.prompts.decode(s.out),
                token_ids=s.out,
                prompt_tokens=len(s.ids),
                finish_reason=s.finish or "length",
                timings={
                    "prefill_s": t_prefill,
                    "decode_s": t_decode,
                    "decode_steps": float(steps),
                },  # fmt: skip
            )
            for s in seqs
        ]

    def _compact(
        self, past: dict[str, Any], mask: np.ndarray, keep: list[int]
    ) -> tuple[dict[str, Any], np.ndarray]:
        """Drop finished rows (a host round trip, once per finished page) and trim columns that
        are padding for every remaining row."""
        mask = mask[keep]
        lead = int(np.argmax(mask.any(axis=0)))  # first column some remaining row uses
        mask = mask[:, lead:]
        new = {
            n: self.dec.to_device(np.ascontiguousarray(v.numpy()[keep][:, :, lead:]))
            for n, v in past.items()
        }
        return new, mask


__all__ = ["GemmaRuntime", "Generation", "PackageError", "PageRequest"]
