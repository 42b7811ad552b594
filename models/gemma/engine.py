"""GemmaPageEngine: page images -> `PageReading`s with Gemma 4 on onnxruntime.

One engine per process (see `conversion.engines` and `conversion.runner.batch`), made of three
parts that each do one thing: a decoder executes (`models.gemma.decoder`: the reference
`GemmaRuntime`, or `FastGemma` on a GPU), the page reader turns pages into requests and answers
into readings (`models.gemma.reader`), and the batcher owns threads, batch sizes and the
out-of-memory back-off (`models.gemma.batching`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from PIL import Image

from models.engine import PageImage, PageReading
from models.gemma.batching import Batcher, memory_bounded_batch
from models.gemma.decoder import Decoder, PageRequest
from models.gemma.page_prompt import PAGE_PROMPT, PROMPT_VERSION
from models.gemma.reader import PageReader, PageSet


def kv_bytes_per_token(decoder: Decoder) -> int:
    """KV cache bytes per token: k and v for each cached layer (the rest share them)."""
    pkg = decoder.package
    text = pkg.config["text"]
    dims = text.get("kv_head_dims") or []
    itemsize = 2 if pkg.dtype in ("fp16", "bf16") else 4
    return 2 * int(text.get("num_key_value_heads", 1)) * sum(d for d in dims if d) * itemsize


class GemmaPageEngine:
    """The `gemma` PageEngine (see `models.engine.PageEngine`)."""

    name = "gemma"

    def __init__(
        self,
        runtime: Decoder,
        *,
        max_new_tokens: int = 2048,
        batch_size: int = 16,
        kv_budget_bytes: int = 0,
        prompt: str = PAGE_PROMPT,
        reread_rotated: bool = True,
        continuous: bool = False,
        prepared_ahead: int = 1,
    ) -> None:
        self.runtime = runtime
        self.max_new_tokens = max_new_tokens
        self.reader = PageReader(prompt=prompt, reread_rotated=reread_rotated)
        self._sha256 = runtime.package.sha256  # hashes the manifest: once, not per page
        image_tokens = runtime.max_soft_tokens
        prompt_tokens = image_tokens + len(runtime.prompts.encode_text(prompt)) + 16
        self.batcher = Batcher(
            runtime,
            batch_size=memory_bounded_batch(
                max_batch=batch_size,
                tokens_per_page=prompt_tokens + max_new_tokens,
                bytes_per_token=kv_bytes_per_token(runtime),
                budget_bytes=kv_budget_bytes,
            ),
            max_new_tokens=max_new_tokens,
            max_prompt=prompt_tokens,
            continuous=continuous,
            prepared_ahead=prepared_ahead,
        )

    @property
    def batch_size(self) -> int:
        return self.batcher.batch_size

    @property
    def continuous(self) -> bool:
        """Continuous batching in predict_stream (a decoder with rows: FastGemma)."""
        return self.batcher.continuous

    @classmethod
    def from_package(
        cls,
        model_dir: Path | str,
        *,
        max_new_tokens: int = 2048,
        max_soft_tokens: int = 1120,
        batch_size: int = 16,
        kv_budget_gb: float = 0.0,
        device_id: int = 0,
        providers: Sequence[str] | None = None,
        verify: bool = True,
        continuous: bool = False,
        prepared_ahead: int = 1,
        cascade: bool = False,
    ) -> GemmaPageEngine:
        """Load and verify the package (sha256 of every file) and open its sessions."""
        import onnxruntime as ort  # only when an engine is built

        from models.gemma.package import load_package

        package = load_package(model_dir, verify=verify)
        on_cuda = "CUDAExecutionProvider" in (providers or ort.get_available_providers())
        runtime: Decoder
        if on_cuda and package.manifest.get("fast") and package.ple.get("placement") != "external":
            # The GPU fast path: static KV cache on the device, CUDA-graph decode steps.
            from models.gemma.fast import FastGemma

            runtime = FastGemma(
                package,
                max_soft_tokens=max_soft_tokens,
                providers=providers,
                device_id=device_id,
                cascade=cascade,
            )
        else:
            from models.gemma.runtime import GemmaRuntime

            runtime = GemmaRuntime(
                package,
                max_soft_tokens=max_soft_tokens,
                providers=providers,
                device_id=device_id,
                verify=verify,
            )
        return cls(
            runtime,
            max_new_tokens=max_new_tokens,
            batch_size=batch_size,
            kv_budget_bytes=int(kv_budget_gb * 2**30),
            continuous=continuous,
            prepared_ahead=prepared_ahead,
        )

    def warm_up(self) -> None:
        """Run one synthetic page through every graph (a few tokens), so that the first real
        batch does not pay for session warm-up."""
        page = Image.new("RGB", (850, 1100), "white")
        page.paste((0, 0, 0), (100, 100, 750, 140))
        self.batcher.warm_up(PageRequest(prompt=self.reader.prompt, image=page))

    def describe(self) -> dict[str, Any]:
        pkg = self.runtime.package
        return {
            "engine": self.name,
            "package": pkg.manifest.get("model") or pkg.root.name,
            "sha256": self._sha256,
            "dtype": pkg.dtype,
            "provider": self.runtime.provider,
            "prompt": PROMPT_VERSION,
            "max_new_tokens": self.max_new_tokens,
            "max_soft_tokens": self.runtime.max_soft_tokens,
            "decode": "continuous" if self.continuous else "batch",
        }

    # ------------------------------------------------------------------ reading
    def predict_batch(self, pages: list[PageImage]) -> list[PageReading]:
        split = self.reader.split(pages, map=self.batcher.map)
        started = time.perf_counter()
        gens = self.batcher.generate(self.reader.requests(img for _, img in split.todo))
        per_page = (time.perf_counter() - started) / max(1, len(gens))
        return self.reader.readings(split, gens, per_page, generate=self.batcher.generate)

    def predict_stream(self, batches: Iterable[list[PageImage]]) -> Iterator[list[PageReading]]:
        """Read batch after batch, in order. While one batch decodes, the next one is pulled from
        `batches` (a worker claims its pages then) and its image work runs (see
        `models.gemma.batching.Batcher.stream`)."""

        def split(pages: list[PageImage]) -> tuple[PageSet, list[PageRequest]]:
            pageset = self.reader.split(pages, map=self.batcher.map)
            return pageset, self.reader.requests(img for _, img in pageset.todo)

        for pageset, gens, per_page in self.batcher.stream(batches, split):
            yield self.reader.readings(pageset, gens, per_page, generate=self.batcher.generate)
