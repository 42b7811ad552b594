"""Fast batched greedy generation on the static-KV-cache graphs (`models.export.fast`).

`FastGemma(package).generate(requests, max_new_tokens=...)` returns the same `Generation`s as
`GemmaRuntime.generate` (greedy, identical tokens up to float rounding), built for throughput on
the GPU worker:

- one preallocated KV cache per decode batch on the device (full layers [B,1,L,hd], sliding layers
  a ring [B,1,W,hd]); prefill writes rows in chunks (I/O binding by pointer into the row block),
  decode updates it in place (TensorScatter, input and output bound to one buffer);
- the prefill computes the LM head on the last position only;
- a decode step is two graph runs (embedding of the previous ids, then the step graph); every
  input and output lives at a fixed device address and the step graph advances its own state
  (slot + 1, the token history), so no host data moves between steps and both sessions run as
  CUDA graphs (onnxruntime `enable_cuda_graph`) when the CUDA EP is used;
- a prompt's shared prefix (the instruction before the image, `Prompt.prefix`) is prefilled
  once per worker and kept (its KV per layer); rows that start with it run `prefill_past`,
  which covers only the image and what follows and writes the prefix into their cache too;
- with `cascade=True` (off by default; packages built with `--cascade`) a batch whose rows all
  start with one prefix decodes on the cascade step: the prefix's full-layer K/V read once for
  all rows, the rows' full-layer caches only what follows it (`models.gemma.fast_prefix`);
- tokens come back once per batch (the history buffer), or every `stop_check` steps to stop early
  when every row has produced a stop id.
- or continuously (`open_rows`): the rows stay decoding and a row whose page is done is
  prefilled with the next page between two steps (each row has its own slot and offset); which
  page goes into which row, and when, is `models.gemma.batching`'s.

Left padding: all rows of a batch share padded indices (prompt padded to the longest, S); row b
starts at offset S - len_b; positions are index - offset, so results equal unpadded decoding.

Here: the sessions, the image work, the device KV store and decode states (with their I/O
bindings), prefill and batch decoding; `models.gemma.fast_device` holds the session and buffer
wrappers, `models.gemma.fast_rows` the continuous rows. Execution only (no threads, queues or
retries).
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from models.gemma.decoder import Generation, PageRequest, Prompt, TwoSteps
from models.gemma.fast_device import DeviceBuffer, GraphSession, batch_bucket, placement
from models.gemma.fast_prefix import PrefixStore
from models.gemma.fast_rows import FastRows
from models.gemma.image import preprocess
from models.gemma.package import Package, PackageError, load_package, session_options
from models.gemma.prompt import PromptBuilder

log = logging.getLogger(__name__)


class FastGemma(TwoSteps):
    """Load a package with fast graphs once; `generate` batches of pages, or `open_rows` for
    continuous decoding (a `models.gemma.decoder.Decoder`)."""

    decodes_rows = True

    def __init__(
        self,
        package: Path | str | Package,
        *,
        max_soft_tokens: int = 1120,
        providers: Sequence[str] | None = None,
        device_id: int = 0,
        cuda_graph: bool = True,
        prefill_chunk: int = 16,
        verify: bool = True,
        threads: int = 8,
        log_severity: int = 3,
        cuda_options: dict[str, str] | None = None,
        prefix_cache: bool = True,
        vision_graph: str | None = None,
        cascade: bool = False,
    ) -> None:
        """vision_graph: a vision graph of the package (path under its root) in place of its
        fast one, e.g. the unfused graph a bench writes beside it to compare the two.
        cascade: decode batches whose rows share one prompt prefix with cascade attention (the
        prefix's K/V read once for all rows; `models.gemma.fast_prefix`)."""
        import onnxruntime as ort

        self.ort = ort
        self.package = (
            package if isinstance(package, Package) else load_package(package, verify=verify)
        )
        man = self.package.manifest
        self.fast = man.get("fast")
        if not self.fast:
            raise PackageError(
                f"{self.package.root}: no fast graphs (rebuild with `models.export ... --fast`)",
                path=self.package.root,
            )
        if self.package.ple.get("placement") == "external":
            raise PackageError("fast graphs need the PLE table in the graph (--ple graph)",
                               path=self.package.root)  # fmt: skip
        cfg = self.package.config
        self.text, self.vision, self.ids = cfg["text"], cfg["vision"], cfg["ids"]
        self.max_soft_tokens = max_soft_tokens
        self.prefill_chunk = prefill_chunk
        place = placement(ort, providers, device_id=device_id, cuda_options=cuda_options)
        self.cuda, self.provider, self.device = place.cuda, place.provider, place.device
        self.cuda_graph = cuda_graph and self.cuda
        if self.cuda:
            # A decode step is two short session runs; with Python's default 5 ms switch
            # interval a thread doing image work (the next batch) holds each of them up for
            # up to 5 ms - as long as the step itself.
            sys.setswitchinterval(min(sys.getswitchinterval(), 0.0005))
        # log_severity 2 shows nodes placed off the CUDA EP
        opts = session_options(ort, cuda=self.cuda, log_severity=log_severity)
        prov = place.providers
        root, g = self.package.root, self.package.graphs
        t0 = time.perf_counter()
        # The fast vision graph (MultiHeadAttention) takes unpadded patches only; encode_image
        # always strips the padding (identical features either way).
        vis = vision_graph or self.fast.get("vision", g["vision_encoder"].file)
        self.vis = GraphSession(ort, root / vis, prov(False), opts, self.device)
        self.emb = GraphSession(ort, root / g["embedding"].file, prov(False), opts, self.device)
        self.pre = GraphSession(ort, root / self.fast["prefill"], prov(False), opts, self.device)
        # Packages built before the prefix cache have no prefill_past graph: full prefills.
        past = self.fast.get("prefill_past") if prefix_cache else None
        self.pre_past = (GraphSession(ort, root / past, prov(False), opts, self.device)
                         if past else None)  # fmt: skip
        self.prefixes = PrefixStore(self)
        # Cascade attention (off by default): needs the prefix cache and the package's cascade
        # graphs (`models.export ... --cascade`).
        cas = self.fast.get("step_cascade") if cascade and past else None
        if cascade and not cas:
            log.warning("%s: no cascade graphs (or the prefix cache is off); plain decode steps",
                        root)  # fmt: skip
        self.pre_cas = (GraphSession(ort, root / self.fast["prefill_cascade"], prov(False), opts,
                                     self.device) if cas else None)  # fmt: skip
        graphs = {"emb1": g["embedding"].file, "step": self.fast["step"],
                  **({"step_cas": cas} if cas else {})}  # fmt: skip
        try:
            for name, rel in graphs.items():
                setattr(self, name, GraphSession(ort, root / rel, prov(self.cuda_graph), opts,
                                                 self.device))  # fmt: skip
        except PackageError as exc:
            if not self.cuda_graph:
                raise
            log.warning("CUDA graph capture refused (%s); decoding without it", exc)
            self.cuda_graph = False
            for name, rel in graphs.items():
                setattr(self, name, GraphSession(ort, root / rel, prov(False), opts, self.device))
        self.step_cas: GraphSession | None = getattr(self, "step_cas", None)
        self.load_s = time.perf_counter() - t0
        self.float = self.emb.types["image_features"]
        self.kv_layers = list(self.fast["kv_layers"])
        self.kv_dims = dict(zip(self.kv_layers, self.fast["kv_head_dims"], strict=True))
        self.ring = int(self.fast["ring"])
        self.full = {i for i in self.kv_layers if self.text["layer_types"][i] == "full_attention"}
        self.prompts = PromptBuilder(root / man["tokenizer"], prompt=self.package.prompt,
                                     ids=self.ids)  # fmt: skip
        self.stop_ids = set(self.prompts.stop_ids)
        mm = [self.ids.get(k) for k in ("image", "audio", "video")]
        self.multimodal = np.array([i for i in mm if i is not None], np.int64)
        self.pool = ThreadPoolExecutor(max(1, threads))
        self._state: dict[tuple[int, ...], dict[str, Any]] = {}
        self._kv_store: dict[int, tuple[int, dict[str, DeviceBuffer]]] = {}
        self._graph_count = 0
        # While a CUDA graph is captured (globally), no other thread may touch the device: a
        # vision run on the prepare thread then fails with cudaErrorStreamCaptureUnsupported
        # (seen on the H200 when a new batch size was captured mid-stream). Captures and the
        # image work hold this lock.
        self.capture_lock = threading.Lock()
        # onnxruntime keeps a session's captured CUDA graphs per thread (its CUDA EP's per-thread
        # context): a graph session run from a new thread captures its graphs again there,
        # outside the capture lock (seen on the H200: a stream's new decode thread captured
        # while the prepare thread ran vision -> CUDA failure 901). Every graph run goes
        # through this one thread (on_graph_thread), so each graph is captured once.
        self._graph_thread = ThreadPoolExecutor(1, thread_name_prefix="gemma-graphs")
        self._graph_ident = self._graph_thread.submit(threading.get_ident).result()
        log.info("fast gemma on %s (cuda graph %s), sessions loaded in %.1f s",
                 self.device, self.cuda_graph, self.load_s)  # fmt: skip

    def on_graph_thread(self, fn: Callable[[], Any]) -> Any:
        """fn() on the thread that runs the CUDA-graph sessions (any thread without graphs)."""
        if not self.cuda_graph or threading.get_ident() == self._graph_ident:
            return fn()
        return self._graph_thread.submit(fn).result()

    # ------------------------------------------------------------------ vision / prompts
    def run_graph(self, s: GraphSession, feeds: dict[str, Any], outs: dict[str, Any] | None = None,
             run_options: Any = None) -> dict[str, Any]:  # fmt: skip
        io = s.sess.io_binding()
        for name, v in feeds.items():
            if isinstance(v, np.ndarray):
                v = self.ort.OrtValue.ortvalue_from_numpy(
                    np.ascontiguousarray(v.astype(s.types[name], copy=False)), *self.device
                )
            io.bind_ortvalue_input(name, v)
        for name in s.outputs:
            if outs is None or name not in outs:
                io.bind_output(name, *self.device)
        s.sess.run_with_iobinding(io, run_options)
        return dict(zip(s.outputs, io.get_outputs(), strict=False)) if outs is None else {}

    def encode_image(self, pre: Any) -> Any:
        """Preprocessed image -> image features (device OrtValue [soft_tokens, hidden])."""
        n = int((pre.position_ids[:, 0] >= 0).sum())  # padding sits at the end
        feeds = {"pixel_values": pre.pixel_values[None, :n],
                 "pixel_position_ids": pre.position_ids[None, :n]}  # fmt: skip
        with self.capture_lock:
            out = self.run_graph(self.vis, feeds)
        feats = out["image_features"]
        if feats.shape()[0] != pre.soft_tokens:
            raise RuntimeError(
                f"vision graph gave {feats.shape()[0]} features for {pre.soft_tokens} image tokens"
            )
        return feats

    def _preprocess(self, r: PageRequest) -> Any:
        if r.image is None:
            return None
        # Unpadded, in the graph's dtype: encode_image would cut the padding and cast anyway.
        return preprocess(r.image, max_soft_tokens=self.max_soft_tokens,
                          patch_size=self.vision["patch_size"],
                          pooling=self.vision["pooling_kernel_size"],
                          dtype=self.vis.types["pixel_values"], pad=False)  # fmt: skip

    def prepare(self, requests: Sequence[PageRequest]) -> tuple[list[Prompt], dict[str, float]]:
        """Tokenize and run the vision graph (images preprocessed on a thread pool)."""
        # Page k's vision runs while the pool still preprocesses the pages after it.
        pres = self.pool.map(self._preprocess, requests)
        prompts = []
        waited = ran = 0.0
        for r in requests:
            t0 = time.perf_counter()
            p = next(pres)
            t1 = time.perf_counter()
            feats = self.encode_image(p) if p is not None else None
            n = 0 if p is None else p.soft_tokens
            built = self.prompts.build(content=r.prompt, image_tokens=n)
            prompts.append(Prompt(built.ids, feats, prefix=built.prefix))
            waited, ran = waited + t1 - t0, ran + time.perf_counter() - t1
        return prompts, {"preprocess_s": waited, "vision_s": ran}

    # ------------------------------------------------------------------ batch state
    @property
    def kv_caches(self) -> dict[int, int]:
        """Cache length -> rows of each KV store held on the device (one store per length)."""
        return {length: rows for length, (rows, _) in self._kv_store.items()}

    @property
    def decode_states(self) -> set[tuple[int, ...]]:
        """(batch, cache length) of each decode state held (its buffers, bindings, graphs); a
        cascade state's: (batch, cache length, history length, prefix length)."""
        return set(self._state)

    def _kv(self, batch: int, length: int) -> dict[str, DeviceBuffer]:
        """The KV cache for one cache length, shared by every batch size up to its capacity
        (a batch of b binds its first b rows): one allocation per length, not per batch size.
        Growing it drops the batch states bound to the old buffers."""
        have = self._kv_store.get(length)
        if have is not None and have[0] >= batch:
            return have[1]
        # Free the old cache (and its graphs) before allocating a larger one.
        self.drop_cache(length)
        kv = {}
        for i in self.kv_layers:
            n = length if i in self.full else self.ring
            for kind in ("key", "value"):
                shape = (batch, 1, n, self.kv_dims[i])
                # Zeros made in the cache's dtype (a float64 detour took ~40 s at 512 rows).
                kv[f"{i}.{kind}"] = DeviceBuffer(self.ort, shape, self.float, self.device,
                                                 fill=np.zeros(shape, self.float))  # fmt: skip
        self._kv_store[length] = (batch, kv)
        return kv

    def decode_state(self, batch: int, length: int, width: int, *, history: int = 0,
                     prefix: int = 0) -> dict[str, Any]:  # fmt: skip
        """Device buffers for one (batch, cache length, prompt width) shape, with the decode
        step's bindings; reused across calls (CUDA graphs replay against fixed addresses).
        prefix > 0: a cascade state (the step_cascade graph; full-layer caches `length` long
        hold what follows a shared prefix of `prefix` tokens; `history` (>= length): the padded
        indices the rows run to)."""
        history = max(history, length)
        key: tuple[int, ...] = (batch, length) if not prefix else (batch, length, history, prefix)
        ort, dev, h = self.ort, self.device, self.text["hidden_size"]
        ple = self.emb.sess.get_outputs()[1].shape[-1]
        chunk = min(self.prefill_chunk, batch)
        kv = self._kv(batch, length)
        st = self._state.get(key)
        if st is not None:
            if st["emb"].shape[:2] != (chunk, width):  # prefill scratch: exact width
                st["emb"] = DeviceBuffer(ort, (chunk, width, h), self.float, dev,
                                         fill=np.zeros((chunk, width, h)))  # fmt: skip
                st["ple"] = DeviceBuffer(ort, (chunk, width, ple), self.float, dev,
                                         fill=np.zeros((chunk, width, ple)))  # fmt: skip
            return st
        st = {"kv": kv}
        st["emb"] = DeviceBuffer(ort, (chunk, width, h), self.float, dev,
                                 fill=np.zeros((chunk, width, h)))  # fmt: skip
        st["ple"] = DeviceBuffer(ort, (chunk, width, ple), self.float, dev,
                                 fill=np.zeros((chunk, width, ple)))  # fmt: skip
        st["emb1"] = DeviceBuffer(ort, (batch, 1, h), self.float, dev, fill=np.zeros((batch, 1, h)))
        st["ple1"] = DeviceBuffer(ort, (batch, 1, ple), self.float, dev,
                                  fill=np.zeros((batch, 1, ple)))  # fmt: skip
        for name in ("tokens", "first", "slot", "offsets"):
            st[name] = DeviceBuffer(ort, (batch,), np.int64, dev, fill=np.zeros(batch))
        st["kv_index"] = DeviceBuffer(ort, (length,), np.int64, dev, fill=np.arange(length))
        st["history"] = DeviceBuffer(ort, (batch, history), np.int64, dev,
                                     fill=np.zeros((batch, history)))  # fmt: skip
        st["no_features"] = ort.OrtValue.ortvalue_from_numpy(np.zeros((0, h), self.float), *dev)
        # Bindings made once: the step and the embedding of the previous ids.
        io = self.emb1.sess.io_binding()
        st["tokens"].bind(io, "input_ids", dev, shape=(batch, 1))
        io.bind_ortvalue_input("image_features", st["no_features"])
        st["emb1"].bind(io, "inputs_embeds", dev, output=True)
        st["ple1"].bind(io, "per_layer_inputs", dev, output=True)
        st["io_emb1"] = io
        step = self.step_cas if prefix else self.step
        assert step is not None, "a cascade state needs the cascade step graph"
        st["step"] = step
        if prefix:
            st["prefix"] = self.prefixes.buffers(prefix)
            st["prefix_len"] = DeviceBuffer(ort, (batch,), np.int64, dev, fill=np.zeros(batch))
        io = step.sess.io_binding()
        for name, buf in ({"prefix_len": st["prefix_len"], **st["prefix"]} if prefix
                          else {}).items():  # fmt: skip
            buf.bind(io, name, dev)
        st["emb1"].bind(io, "inputs_embeds", dev)
        st["ple1"].bind(io, "per_layer_inputs", dev)
        for name in ("slot", "offsets", "kv_index", "history"):
            st[name].bind(io, name, dev)
        st["slot"].bind(io, "slot_out", dev, output=True)
        st["history"].bind(io, "history_out", dev, output=True)
        st["first"].bind(io, "next_token", dev, output=True)  # scratch: raw ids go to history
        st["tokens"].bind(io, "next_input", dev, output=True)
        for k, buf in st["kv"].items():
            buf.bind(io, f"cache.{k}", dev, rows=(0, batch))
            buf.bind(io, f"cache_out.{k}", dev, output=True, rows=(0, batch))
        st["io_step"] = io
        ro = self.ort.RunOptions()
        if self.cuda_graph:
            # A fresh id for every state: a state rebuilt on a grown cache must capture anew.
            self._graph_count += 1
            ro.add_run_config_entry("gpu_graph_id", str(self._graph_count))
        st["run_options"] = ro
        if self.cuda_graph:
            # onnxruntime runs once, then captures (that run's results are not usable): burn
            # those runs here on scratch state; generate resets every state it reads.
            def burn() -> None:
                with self.capture_lock:
                    for _ in range(3):
                        self.emb1.sess.run_with_iobinding(st["io_emb1"], ro)
                        st["step"].sess.run_with_iobinding(st["io_step"], ro)

            self.on_graph_thread(burn)
        self._state[key] = st
        return st

    # ------------------------------------------------------------------ generation
    def generate_prompts(self, prompts: Sequence[Prompt], *, max_new_tokens: int,
                         ignore_stop: bool = False, stop_check: int = 64,
                         length: int | None = None) -> list[Generation]:  # fmt: skip
        """Greedy decoding of one batch (all prompts decode together). `length`: the KV cache
        length to use when it fits (default: the need rounded up to 256, so pages of similar
        size share one cache); on the cascade step the full layers' caches are shorter by the
        shared prefix."""
        if max_new_tokens < 1:
            raise ValueError("max_new_tokens must be >= 1")
        asked = len(prompts)
        if self.cuda_graph:
            # Each batch size captures its own CUDA graphs: pad to a few sizes (repeat the last
            # prompt; those rows are dropped) so a worker fed batches of any size keeps few.
            prompts = [*prompts, *[prompts[-1]] * (batch_bucket(asked) - asked)]
        batch = len(prompts)
        lens = np.array([len(p.ids) for p in prompts], np.int64)
        width = int(lens.max())
        need = width + max_new_tokens
        if not length or length < need:
            length = -(-need // 256) * 256
        # Cascade attention when every row starts with one prefix: the rows' full-layer caches
        # then hold only the indices after it (the caller's `length` counts the prefix too).
        shared = self.prefixes.shared(prompts) if self.step_cas is not None else None
        P = 0 if shared is None else len(shared)
        st = self.decode_state(batch, length - P, width, history=length, prefix=P)
        if shared is not None:
            self.prefixes.hold(st, shared)
        t0 = time.perf_counter()
        plen = self.prefill(st, prompts, lens, width)
        t1 = time.perf_counter()
        first = st["first"].numpy().copy()
        st["slot"].write(np.full(batch, width))
        st["offsets"].write(width - lens)
        if P:
            st["prefix_len"].write(plen)

        def decode() -> int:
            steps = 0
            for k in range(max_new_tokens - 1):
                self.emb1.sess.run_with_iobinding(st["io_emb1"], st["run_options"])
                st["step"].sess.run_with_iobinding(st["io_step"], st["run_options"])
                steps += 1
                if (not ignore_stop and (k + 1) % stop_check == 0
                        and self._all_stopped(st, first, width, width + k + 2)):  # fmt: skip
                    break
            return steps

        steps = self.on_graph_thread(decode)
        hist = st["history"].numpy()[:, width + 1 : width + 1 + steps].copy()
        t2 = time.perf_counter()
        timings = {"prefill_s": t1 - t0, "decode_s": t2 - t1, "decode_steps": float(steps)}
        return [
            self.generation(
                [first[b], *hist[b]],
                prompt_tokens=len(p.ids),
                max_new_tokens=min(max_new_tokens, p.max_new_tokens or max_new_tokens),
                ignore_stop=ignore_stop,
                timings=dict(timings),
            )
            for b, p in enumerate(prompts[:asked])
        ]

    def generation(self, ids: Sequence[Any], *, prompt_tokens: int, max_new_tokens: int,
                   ignore_stop: bool, timings: dict[str, float]) -> Generation:  # fmt: skip
        """A row's generated ids (the prefill's first, then the steps') as a Generation: cut at
        `max_new_tokens` (a row read back every few steps may have run past it), then before
        the first stop id unless `ignore_stop`."""
        toks = [int(t) for t in ids[:max_new_tokens]]
        finish = "length"
        if not ignore_stop:
            cut = next((j for j, tok in enumerate(toks) if tok in self.stop_ids), None)
            if cut is not None:
                toks, finish = toks[:cut], "stop"
        return Generation(text=self.prompts.decode(toks), token_ids=toks,
                          prompt_tokens=prompt_tokens,
                          finish_reason=finish,  # type: ignore[arg-type]
                          timings=timings)  # fmt: skip

    def open_rows(self, *, rows: int, max_prompt: int, max_new_tokens: int,
                  check_every: int = 16, ignore_stop: bool = False) -> FastRows:  # fmt: skip
        """`rows` decode rows for continuous batching (`models.gemma.batching.decode_continuous`
        schedules them): a row whose page has finished takes the next prompt between two
        read-backs, each row with its own slot and offset.

        Its KV store has a length that batch calls never use (an odd multiple of 128), so a
        batch `generate` run between two of its steps (a re-read) never binds its rows."""
        return FastRows(self, rows=rows, max_prompt=max_prompt, max_new_tokens=max_new_tokens,
                        check_every=check_every, ignore_stop=ignore_stop)  # fmt: skip

    def drop_cache(self, length: int) -> None:
        """Forget the KV store of one cache length and every batch state bound to it (their
        CUDA graphs point at it): its device memory is freed."""
        for key in [k for k in self._state if k[1] == length]:
            del self._state[key]
        self._kv_store.pop(length, None)

    def _all_stopped(self, st: dict[str, Any], first: np.ndarray, width: int, end: int) -> bool:
        h = st["history"].numpy()[:, width + 1 : end]
        stops = np.array(sorted(self.stop_ids), np.int64)
        done = np.isin(first, stops) | np.isin(h, stops).any(axis=1)
        return bool(done.all())

    def prefill(self, st: dict[str, Any], prompts: Sequence[Prompt], lens: np.ndarray,
                width: int, base: int = 0) -> np.ndarray:  # fmt: skip
        """Prefill `prompts` (left-padded to `width`) into the cache rows from `base` on: runs
        of rows with one cached prefix and one length through `prefill_past` (`prefill_cascade`
        for the prefix a cascade state holds), the others in padded chunks. Returns each row's
        prefix length in the state (`prefix_len` of the cascade step; 0 in a plain state)."""
        chunk = st["emb"].shape[0]
        plen = self.prefixes.row_lens(st, prompts)
        runs: list[tuple[Any, list[int]]] = []
        for r, p in enumerate(prompts):
            key = self._prefix_key(p)
            if runs and runs[-1][0] == key and len(runs[-1][1]) < chunk:
                runs[-1][1].append(r)
            else:
                runs.append((key, [r]))
        for key, rows in runs:
            if key is None:
                self._prefill_padded(st, prompts, rows, lens, width, base)
            else:
                sess = self.pre_cas if plen[rows[0]] else self.pre_past
                self._prefill_past(st, prompts, rows, width, base, sess)
        return plen

    def _prefix_key(self, p: Prompt) -> tuple[bytes, int] | None:
        """Rows with the same key prefill together after one cached prefix (None: padded)."""
        if self.pre_past is None or p.features is None or not 0 < p.prefix < len(p.ids):
            return None
        return p.ids[: p.prefix].tobytes(), len(p.ids)

    def _embed_rows(self, st: dict[str, Any], prompts: Sequence[Prompt], rows: list[int],
                    start: int, shape: tuple[int, int]) -> None:  # fmt: skip
        """Embed ids[start:] of each row into the prefill scratch: row j's tokens at row j
        (`shape` = (row stride, first token) in tokens: left padding puts short rows late)."""
        dev, pad, h = self.device, self.ids["pad"], self.text["hidden_size"]
        emb_tok = h * st["emb"].dtype.itemsize
        ple_w = st["ple"].shape[2]
        ple_tok = ple_w * st["ple"].dtype.itemsize
        non_image = self.multimodal[self.multimodal != self.ids["image"]]
        stride, width = shape
        for j, r in enumerate(rows):
            p = prompts[r]
            ids = p.ids[start:]
            n = len(ids)
            remap = non_image if p.features is not None else self.multimodal
            ids = np.where(np.isin(ids, remap), pad, ids).astype(np.int64)
            io = self.emb.sess.io_binding()
            io.bind_ortvalue_input("input_ids", self.ort.OrtValue.ortvalue_from_numpy(
                ids[None], *dev))  # fmt: skip
            feats = p.features if p.features is not None else st["no_features"]
            io.bind_ortvalue_input("image_features", feats)
            at = j * stride + width - n  # token index in the scratch
            st["emb"].bind(io, "inputs_embeds", dev, output=True, rows=(0, 1),
                           shape=(1, n, h), offset=at * emb_tok)  # fmt: skip
            st["ple"].bind(io, "per_layer_inputs", dev, output=True, rows=(0, 1),
                           shape=(1, n, ple_w), offset=at * ple_tok)  # fmt: skip
            self.emb.sess.run_with_iobinding(io)

    def _bind_run(self, sess: GraphSession, st: dict[str, Any], b: int, width: int,
                  feeds: dict[str, Any], at: tuple[int, int]) -> None:  # fmt: skip
        """Run a prefill graph on b scratch rows of `width` tokens into cache rows `at`."""
        dev, h = self.device, self.text["hidden_size"]
        io = sess.sess.io_binding()
        st["emb"].bind(io, "inputs_embeds", dev, rows=(0, b), shape=(b, width, h))
        st["ple"].bind(io, "per_layer_inputs", dev, rows=(0, b),
                       shape=(b, width, st["ple"].shape[2]))  # fmt: skip
        for name, a in feeds.items():
            if isinstance(a, np.ndarray):
                a = self.ort.OrtValue.ortvalue_from_numpy(
                    np.ascontiguousarray(a.astype(sess.types[name], copy=False)), *dev
                )
            io.bind_ortvalue_input(name, a)
        for k, buf in st["kv"].items():
            buf.bind(io, f"cache.{k}", dev, rows=at)
            buf.bind(io, f"cache_out.{k}", dev, output=True, rows=at)
        st["first"].bind(io, "next_token", dev, output=True, rows=at)
        st["tokens"].bind(io, "next_input", dev, output=True, rows=at)
        io.bind_output("logits", *dev)
        sess.sess.run_with_iobinding(io)

    def _prefill_padded(self, st: dict[str, Any], prompts: Sequence[Prompt], rows: list[int],
                        lens: np.ndarray, width: int, base: int) -> None:  # fmt: skip
        """Consecutive rows, each whole and left-padded to `width`."""
        b = len(rows)
        self._embed_rows(st, prompts, rows, 0, (width, width))
        mask = (np.arange(width)[None] >= (width - lens[rows])[:, None]).astype(np.int64)
        pos = np.maximum(np.arange(width)[None] - (width - lens[rows])[:, None], 0)
        self._bind_run(self.pre, st, b, width, {"attention_mask": mask, "position_ids": pos},
                       (base + rows[0], base + rows[0] + b))  # fmt: skip

    def _prefill_past(self, st: dict[str, Any], prompts: Sequence[Prompt], rows: list[int],
                      width: int, base: int, sess: GraphSession | None) -> None:  # fmt: skip
        """Consecutive rows of one cached prefix and one length: only their tokens after the
        prefix go through the decoder; the prefix's KV is written into their cache rows
        (`sess` prefill_past), or, on `prefill_cascade`, into their rings only."""
        assert sess is not None
        p0 = prompts[rows[0]]
        n, P = len(p0.ids), p0.prefix
        S, b = n - P, len(rows)
        pre = self.prefixes.kv(p0.ids[:P])
        self._embed_rows(st, prompts, rows, P, (S, S))
        tail = min(self.ring, pre["sliding"] + S)  # sliding-ring tokens the rows write
        start = width - n  # the rows' first (prefix) token, left-padded to `width`
        feeds: dict[str, Any] = {
            "position_ids": np.broadcast_to(np.arange(P, n, dtype=np.int64), (b, S)),
            "write_at": np.full(b, start, np.int64),
            "ring_at": np.full(b, (start + n - tail) % self.ring, np.int64),
            **self.prefixes.bias(P, pre["sliding"], S),
            **pre["kv"],
        }
        self._bind_run(sess, st, b, S, feeds, (base + rows[0], base + rows[0] + b))


__all__ = ["FastGemma", "Prompt"]
