"""FastGemma's continuous decode rows (`FastGemma.open_rows`, a `models.gemma.decoder.Rows`).

The rows stay decoding; a row whose page is done is prefilled with the next page between two
read-backs, each row with its own slot and offset in one decode state. Which page goes into which
row, and when, is `models.gemma.batching`'s: the rows execute only.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from models.gemma.decoder import Generation, Prompt
from models.gemma.fast_device import GraphSession, batch_bucket
from models.gemma.fast_prefix import PrefixStore


class RowsRuntime(Protocol):
    """What the rows use of their runtime (FastGemma): its sessions, decode buffers and
    generation cut. A protocol, so that this module never imports the runtime that opens it."""

    cuda_graph: bool
    stop_ids: set[int]
    prefill_chunk: int
    emb: GraphSession
    step_cas: GraphSession | None
    prefixes: PrefixStore

    def decode_state(self, batch: int, length: int, width: int, *, history: int = 0,
                     prefix: int = 0) -> dict[str, Any]: ...  # fmt: skip

    def prefill(self, st: dict[str, Any], prompts: Sequence[Prompt], lens: np.ndarray,
                width: int, base: int = 0) -> np.ndarray: ...  # fmt: skip

    def generation(self, ids: Any, *, prompt_tokens: int, max_new_tokens: int,
                   ignore_stop: bool, timings: dict[str, float]) -> Generation: ...  # fmt: skip

    def drop_cache(self, length: int) -> None: ...

    def on_graph_thread(self, fn: Any) -> Any: ...


@dataclass
class RowPage:
    """A page decoding in one row of a continuous batch."""

    tag: Any
    prompt: Prompt  # to read it again if the decoding is interrupted
    start: int  # the padded index of its last prompt token: generated ids follow it
    first: int  # the first generated id (from the prefill)
    prompt_tokens: int
    joined: float
    steps: int = 0
    prefill_s: float = 0.0


class FastRows:
    """FastGemma's continuous decode rows (see `models.gemma.decoder.Rows`): execution only."""

    def __init__(self, fast: RowsRuntime, *, rows: int, max_prompt: int, max_new_tokens: int,
                 check_every: int, ignore_stop: bool) -> None:  # fmt: skip
        if max_new_tokens < 1:
            raise ValueError("max_new_tokens must be >= 1")
        if fast.cuda_graph:
            rows = batch_bucket(rows)  # the captured graph sizes the batch calls use too
        self.fast, self.rows, self.max_prompt = fast, rows, max_prompt
        self.max_new_tokens, self.check_every, self.ignore_stop = (
            max_new_tokens, check_every, ignore_stop)  # fmt: skip
        self.length = _rows_length(max_prompt + max_new_tokens + check_every)
        self.cache_length = self.length  # of the full layers' caches (shorter with a cascade)
        self.active: list[RowPage | None] = [None] * rows
        self.offsets = np.zeros(rows, np.int64)
        self.plens = np.zeros(rows, np.int64)  # each row's prefix_len (cascade state)
        self.stops = np.array(sorted(fast.stop_ids), np.int64)
        self.st: dict[str, Any] = {}
        self.prefix = 0
        if fast.step_cas is None:  # a cascade state opens at the first join (its prefix)
            self._open(None)

    def _open(self, shared: np.ndarray | None) -> None:
        """The rows' decode state: plain, or cascade after the prefix `shared` (its full-layer
        caches then hold what follows it only)."""
        fast, rows = self.fast, self.rows
        self.prefix = 0 if shared is None else len(shared)
        if self.prefix:
            left = self.max_prompt - self.prefix + self.max_new_tokens + self.check_every
            self.cache_length = _rows_length(left)
        try:
            self.st = fast.decode_state(rows, self.cache_length, self.max_prompt,
                                        history=self.length, prefix=self.prefix)  # fmt: skip
            if shared is not None:
                fast.prefixes.hold(self.st, shared)
            self._write_rows(np.zeros(rows, np.int64))
        except Exception:
            self.close()
            raise

    def _write_rows(self, slot: np.ndarray) -> None:
        self.st["slot"].write(slot)
        self.st["offsets"].write(self.offsets)
        if self.prefix:
            self.st["prefix_len"].write(self.plens)

    def free(self) -> list[int]:
        return [r for r in range(self.rows) if self.active[r] is None]

    def join(self, pages: list[tuple[Any, Prompt]]) -> None:
        """Prefill new prompts into free rows (contiguous runs of rows, in chunks) and point
        those rows' slot and offset at them; the other rows are left as they are."""
        fast, active, offsets = self.fast, self.active, self.offsets
        free = self.free()[: len(pages)]
        t0 = time.perf_counter()
        if not self.st:
            self._open(fast.prefixes.shared([pages[0][1]]))
        st = self.st
        slot = st["slot"].numpy().copy()
        runs: list[list[int]] = []
        for k, r in enumerate(free):
            if k and r == free[k - 1] + 1 and len(runs[-1]) < fast.prefill_chunk:
                runs[-1].append(k)
            else:
                runs.append([k])
        for run in runs:
            prompts = [pages[k][1] for k in run]
            lens = np.array([len(p.ids) for p in prompts], np.int64)
            width = int(lens.max())
            if width > self.max_prompt:
                raise ValueError(f"a prompt of {width} tokens exceeds max_prompt={self.max_prompt}")
            st = fast.decode_state(self.rows, self.cache_length, width, history=self.length,
                                   prefix=self.prefix)  # fmt: skip
            self._fits(fast.prefixes.row_lens(st, prompts), width)
            base = free[run[0]]
            plen = fast.prefill(st, prompts, lens, width, base=base)
            first = st["first"].numpy()[base : base + len(run)].copy()
            for j, k in enumerate(run):
                r = free[k]
                slot[r], offsets[r], self.plens[r] = width, width - lens[j], plen[j]
                active[r] = RowPage(tag=pages[k][0], prompt=pages[k][1], start=width,
                                    first=int(first[j]), prompt_tokens=int(lens[j]),
                                    joined=t0)  # fmt: skip
        self._write_rows(slot)
        took = time.perf_counter() - t0
        for k in range(len(pages)):
            row = active[free[k]]
            assert row is not None
            row.prefill_s = took / len(pages)

    def step(self) -> np.ndarray:
        fast, st = self.fast, self.st

        def steps() -> np.ndarray:
            for _ in range(self.check_every):
                fast.emb1.sess.run_with_iobinding(st["io_emb1"], st["run_options"])
                st["step"].sess.run_with_iobinding(st["io_step"], st["run_options"])
            return st["history"].numpy()

        return fast.on_graph_thread(steps)

    def finished(self, history: np.ndarray) -> list[tuple[Any, Generation]]:
        if all(row is None for row in self.active):
            return []
        return list(self._finished(history))

    def _finished(self, hist: np.ndarray) -> Iterator[tuple[Any, Generation]]:
        """After `check_every` more steps: hand out (tag, Generation) of every row whose page
        has stopped or reached `max_new_tokens`, and free its row."""
        active, stops, check_every = self.active, self.stops, self.check_every
        max_new_tokens, ignore_stop = self.max_new_tokens, self.ignore_stop
        now = time.perf_counter()
        live = [(r, row) for r, row in enumerate(active) if row is not None]
        for _, row in live:
            row.steps += check_every
        # Only the ids of the last `check_every` steps can hold a new stop id: one vectorized
        # look, then Python work for the finished rows only.
        at = np.array([r for r, _ in live])[:, None]
        last = np.array([row.start + row.steps for _, row in live])[:, None]
        window = hist[at, last - np.arange(check_every)[None]]
        firsts = [row.first for _, row in live]
        stopped = np.isin(window, stops).any(axis=1) | np.isin(firsts, stops)
        for (r, row), stop in zip(live, stopped, strict=True):
            limit = min(max_new_tokens, row.prompt.max_new_tokens or max_new_tokens)
            if (ignore_stop or not stop) and 1 + row.steps < limit:
                continue
            active[r] = None
            ids = [row.first, *hist[r, row.start + 1 : row.start + 1 + row.steps]]
            yield row.tag, self.fast.generation(
                ids, prompt_tokens=row.prompt_tokens, max_new_tokens=limit,
                ignore_stop=ignore_stop,
                timings={"prefill_s": row.prefill_s, "decode_s": now - row.joined,
                         "decode_steps": float(row.steps)})  # fmt: skip

    def park_idle(self) -> None:
        idle = self.free()
        if idle:  # idle rows still step: keep their slot inside the cache
            slot = self.st["slot"].numpy().copy()
            slot[idle] = 0
            self.offsets[idle] = 0
            self.plens[idle] = 0  # an idle row writes index 0 of its own cache
            self._write_rows(slot)

    def held(self) -> list[tuple[Any, Prompt]]:
        return [(row.tag, row.prompt) for row in self.active if row is not None]

    def _fits(self, plen: np.ndarray, width: int) -> None:
        """A row without the cascade state's prefix keeps its whole prompt in a cache sized
        for what follows the prefix: refuse one that would run past its end."""
        if self.prefix and (plen == 0).any():
            end = width + self.max_new_tokens + self.check_every
            if end > self.cache_length:
                raise ValueError(
                    f"a prompt without the rows' {self.prefix}-token prefix needs "
                    f"{end} cache slots of {self.cache_length} (cascade rows)"
                )

    def close(self) -> None:
        self.fast.drop_cache(self.cache_length)


def _rows_length(need: int) -> int:
    """Continuous rows' cache length for `need` indices: an odd multiple of 128 (batch calls
    use multiples of 256, so they never bind the rows' store)."""
    return (-(-need // 256) * 2 + 1) * 128


__all__ = ["FastRows", "RowPage"]
