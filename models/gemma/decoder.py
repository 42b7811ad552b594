"""The decoder protocol: what the page reader and the batching module need of a Gemma runtime.

Two runtimes implement it: `models.gemma.runtime.GemmaRuntime` (the reference: any provider, any
package, a whole batch decoded together) and `models.gemma.fast.FastGemma` (the GPU fast path:
static KV cache, CUDA graphs, and decode rows that take a new page between steps). A decoder only
executes: it never starts a thread, never queues, never retries; batch sizes, threads and the
out-of-memory back-off are `models.gemma.batching`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import numpy as np
from PIL import Image

if TYPE_CHECKING:
    from models.gemma.package import Package
    from models.gemma.prompt import PromptBuilder


@dataclass(frozen=True)
class PageRequest:
    """One sequence to generate: a prompt and, for pages, the page image."""

    prompt: str
    image: Image.Image | None = None


@dataclass
class Generation:
    text: str
    token_ids: list[int]  # generated ids, without the stop id
    prompt_tokens: int
    finish_reason: Literal["stop", "length"]
    timings: dict[str, float] = field(default_factory=dict)


@dataclass
class Prompt:
    """A tokenized prompt and its image features (host array or device OrtValue, or None): a
    request after the image work, ready to decode."""

    ids: np.ndarray
    features: Any = None
    max_new_tokens: int | None = None  # this page's own limit, if lower than the call's
    # Leading ids shared by every page of the same prompt text (before the image block): their
    # KV can come from the runtime's prefix cache. 0: no shared prefix (prefill it all).
    prefix: int = 0


@runtime_checkable
class Rows(Protocol):
    """Decode rows of a continuous batch (`Decoder.open_rows`): the caller decides which page
    goes into which free row and when; the rows only run."""

    def free(self) -> list[int]:
        """Rows without a page."""
        ...

    def join(self, pages: list[tuple[Any, Prompt]]) -> None:
        """Prefill (tag, Prompt) pairs into the first free rows (as many as given)."""
        ...

    def step(self) -> np.ndarray:
        """Run the decode steps of one read-back; returns the token history (host)."""
        ...

    def finished(self, history: np.ndarray) -> list[tuple[Any, Generation]]:
        """(tag, Generation) of each row whose page has stopped or reached its limit; those
        rows become free."""
        ...

    def park_idle(self) -> None:
        """Keep the free rows' slots inside the cache (they step along with the others)."""
        ...

    def held(self) -> list[tuple[Any, Prompt]]:
        """The pages in the rows, unfinished."""
        ...

    def close(self) -> None:
        """Free the rows' device memory."""
        ...


@runtime_checkable
class Decoder(Protocol):
    """Greedy generation for page requests, in two steps: `prepare` (tokenize, image work) and
    `generate_prompts` (decode a batch together); `generate` is both. Decoders whose
    `decodes_rows` is true also open continuous rows (`open_rows`)."""

    package: Package
    provider: str
    max_soft_tokens: int
    prompts: PromptBuilder
    stop_ids: set[int]
    decodes_rows: bool

    def prepare(self, requests: Sequence[PageRequest]) -> tuple[list[Prompt], dict[str, float]]:
        """Prompts ready to decode, and the image work's timings."""
        ...

    def generate_prompts(
        self, prompts: Sequence[Prompt], *, max_new_tokens: int, ignore_stop: bool = False
    ) -> list[Generation]: ...

    def generate(
        self, requests: Sequence[PageRequest], *, max_new_tokens: int, ignore_stop: bool = False
    ) -> list[Generation]: ...

    def open_rows(
        self,
        *,
        rows: int,
        max_prompt: int,
        max_new_tokens: int,
        check_every: int,
        ignore_stop: bool = False,
    ) -> Rows: ...


class TwoSteps:
    """`generate` as the two steps of a decoder (`prepare`, then `generate_prompts`), each
    generation carrying the timings of its image work: the runtimes' shared half."""

    def generate(
        self: Decoder,
        requests: Sequence[PageRequest],
        *,
        max_new_tokens: int = 1024,
        ignore_stop: bool = False,
    ) -> list[Generation]:
        """Greedy decoding of a batch of requests (any mix of lengths); results in input order.
        `ignore_stop` (benchmarks, parity tests) decodes exactly `max_new_tokens` tokens."""
        prompts, times = self.prepare(requests)
        gens = self.generate_prompts(prompts, max_new_tokens=max_new_tokens,
                                     ignore_stop=ignore_stop)  # fmt: skip
        for gen in gens:
            gen.timings.update(times)
        return gens


__all__ = ["Decoder", "Generation", "PageRequest", "Prompt", "Rows", "TwoSteps"]
