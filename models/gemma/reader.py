"""The Gemma page reader: page -> request -> reading.

`split` sets blank pages aside (never ask a model to invent text for an empty page) and makes
one request (the page image + the page prompt) per page to read; `readings` parses each answer
with `models.gemma.parse` into a `PageReading` and has a page the model found turned read once
more, upright. How the requests are generated (batches, threads, memory) is the caller's: it
hands in `generate` (`models.gemma.batching.Batcher.generate`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from models.engine import PageImage, PageReading
from models.gemma.decoder import Generation, PageRequest
from models.gemma.page_prompt import PAGE_PROMPT
from models.gemma.parse import parse_page

# Share of dark pixels under which a page counts as blank and is not sent to the model.
BLANK_INK = 0.0002

Generate = Callable[[list[PageRequest]], list[Generation]]


def ink_share(image: Image.Image) -> float:
    """Share of pixels clearly darker than the page background (on a <=1024 px copy)."""
    gray = image.convert("L")
    gray.thumbnail((1024, 1024), Image.Resampling.BOX)
    a = np.asarray(gray, dtype=np.int16)
    if a.size == 0:
        return 0.0
    background = int(np.percentile(a, 90))
    return float(np.mean(a < min(160, background - 80)))


@dataclass
class PageSet:
    """Pages split for reading: the blank ones already read, (position, RGB image) of the rest."""

    pages: list[PageImage]
    readings: list[PageReading | None]
    todo: list[tuple[int, Image.Image]]


def _map(fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
    return [fn(item) for item in items]


class PageReader:
    """Pages to requests, answers to readings (see the module)."""

    def __init__(self, *, prompt: str = PAGE_PROMPT, reread_rotated: bool = True) -> None:
        self.prompt = prompt
        self.reread_rotated = reread_rotated

    def split(self, pages: list[PageImage], *, map: Callable[..., list[Any]] = _map) -> PageSet:
        """Readings of the blank pages and the pages the model must read. `map(fn, items)`
        runs the image work (a thread pool's, for hundreds of pages)."""
        readings: list[PageReading | None] = [None] * len(pages)
        todo: list[tuple[int, Image.Image]] = []
        rgb = map(lambda p: p.image.convert("RGB"), pages)
        inked = map(ink_share, rgb)
        for i, (page, image) in enumerate(zip(pages, rgb, strict=True)):
            if inked[i] < BLANK_INK:
                # Nothing printed: never ask a model to invent text for an empty page.
                readings[i] = PageReading(
                    page_number=page.page_number,
                    blocks=[],
                    width=image.width,
                    height=image.height,
                    source="model",
                    timings={"blank_skipped": 1.0},
                )
            else:
                todo.append((i, image))
        return PageSet(pages=pages, readings=readings, todo=todo)

    def requests(self, images: Iterable[Image.Image]) -> list[PageRequest]:
        return [PageRequest(prompt=self.prompt, image=img) for img in images]

    def readings(
        self, split: PageSet, generations: list[Generation], per_page: float, *,
        generate: Generate,
    ) -> list[PageReading]:  # fmt: skip
        """The readings of a split's pages from the answers to its requests (in order): parsed,
        turned pages read again upright (through `generate`), numbered as the pages."""
        images = [img for _, img in split.todo]
        first = self._parse(images, [0] * len(images), generations, per_page)
        readings = list(split.readings)
        again: list[tuple[int, int]] = []  # (position in todo, rotation)
        for k, ((i, _), (reading, turn)) in enumerate(zip(split.todo, first, strict=True)):
            readings[i] = reading
            if turn and self.reread_rotated:
                again.append((k, turn))
            elif turn:
                reading.findings.append(
                    {
                        "code": "MODEL_PAGE_ROTATED",
                        "level": "needs_review",
                        "message": f"The page looks turned by {turn} degrees; it was read as is.",
                    }
                )
        if again:
            # The model read the page sideways: turn it upright and read it once more.
            turned = [split.todo[k][1].rotate(-rot, expand=True) for k, rot in again]
            started = time.perf_counter()
            gens = generate(self.requests(turned))
            took = (time.perf_counter() - started) / len(turned)
            second = self._parse(turned, [rot for _, rot in again], gens, took)
            for (k, _), (reading, _) in zip(again, second, strict=True):
                readings[split.todo[k][0]] = reading
        out: list[PageReading] = []
        for page, reading in zip(split.pages, readings, strict=True):
            assert reading is not None
            reading.page_number = page.page_number
            out.append(reading)
        return out

    def _parse(
        self,
        images: list[Image.Image],
        rotation: list[int],
        generations: list[Generation],
        per_page: float,
    ) -> list[tuple[PageReading, int]]:
        """Each answer as a reading, with the turn the model still asks for (0 once turned)."""
        readings = []
        for img, rot, gen in zip(images, rotation, generations, strict=True):
            parsed = parse_page(
                gen.text,
                width=img.width,
                height=img.height,
                truncated=gen.finish_reason == "length",
            )
            readings.append(
                (
                    PageReading(
                        page_number=0,
                        blocks=parsed.blocks,
                        width=img.width,
                        height=img.height,
                        language=parsed.language,
                        rotation=rot,
                        source="model",
                        findings=parsed.findings,
                        raw_text=gen.text,
                        timings={
                            "generate_s": per_page,
                            "prompt_tokens": float(gen.prompt_tokens),
                            "new_tokens": float(len(gen.token_ids)),
                        },
                    ),
                    0 if rot else parsed.rotation,
                )
            )
        return readings


__all__ = ["BLANK_INK", "PageReader", "PageSet", "ink_share"]
