"""One format (EPUB 3 or tagged PDF) written from the finished HTML with its self-check, and
the report's `formats`: what each format holds and how it was checked.

Every report carries `formats` (flow.finish writes it, every review edit writes it again): the
EPUB as made then (cheap: about 0.01 s a page, written to a temporary file and read back by
epub.check_epub) and what the tagged PDF holds, from the HTML. The PDF itself costs about 0.05 s
of CPU a page, so it is rendered, and checked with pikepdf (pdf_check), only when it
is asked for: the command line's `--formats`, the download, the zip with `formats`, whose
report.json then carries the PDF's own check. EPUBCheck and DAISY Ace run in the tests and the
bench (a JVM and a browser per document), not per job.
"""

from __future__ import annotations

import datetime as dt
import io
import logging
import shutil
import tempfile
from pathlib import Path
from typing import IO

from conversion.pipeline.epub import CHECKED_BY as EPUB_CHECKED_BY
from conversion.pipeline.epub import Figures, check_epub, write_epub
from conversion.pipeline.tagged_pdf import CHECKED_BY as PDF_CHECKED_BY
from conversion.pipeline.tagged_pdf import pdf_contents, write_pdf

log = logging.getLogger(__name__)
_CHECKED_BY = {"epub": EPUB_CHECKED_BY, "pdf": PDF_CHECKED_BY}


def files_opener(files_dir: Path):
    """figures(name) for the writers: the figure file in files_dir, or None."""

    def open_figure(name: str) -> IO[bytes] | None:
        path = Path(files_dir) / name
        return open(path, "rb") if path.is_file() else None  # noqa: SIM115 (the writer closes)

    return open_figure


def write_format(
    fmt: str,
    html: str,
    report: dict,
    out: IO[bytes],
    *,
    figures: Figures,
    identifier: str | None = None,
    modified: dt.datetime | None = None,
) -> dict:
    """Write the document in `fmt` (epub or pdf) into out; what it holds and its self-check's
    problems (`check`), as a dict."""
    if fmt == "epub":
        with tempfile.TemporaryFile() as made:
            result = write_epub(
                html, report, made, figures=figures, modified=modified, identifier=identifier
            )
            made.seek(0)
            problems = check_epub(made)
            made.seek(0)
            shutil.copyfileobj(made, out, 1 << 20)
        return {**result.as_dict(), "check": {"by": EPUB_CHECKED_BY, "problems": problems}}
    if fmt == "pdf":
        return write_pdf(html, out, figures=figures).as_dict()
    raise ValueError(f"No writer for {fmt!r}.")


def describe_formats(html: str, report: dict, *, figures: Figures) -> dict:
    """The report's `formats`: the EPUB made and self-checked now, the PDF's contents. A
    writer's failure is recorded there and logged: it never costs the HTML its result."""
    report = {key: value for key, value in report.items() if key != "formats"}
    described = {}
    for fmt, describe in (
        ("epub", lambda: write_format("epub", html, report, _Discard(), figures=figures)),
        ("pdf", lambda: pdf_contents(html)),
    ):
        try:
            described[fmt] = describe()
        except Exception as exc:  # a bug in a writer, not in the document's HTML
            log.exception("The %s of this document could not be made", fmt)
            problem = f"could not be made ({type(exc).__name__}: {exc})"
            described[fmt] = {"check": {"by": _CHECKED_BY[fmt], "problems": [problem]}}
    return described


class _Discard(io.RawIOBase):
    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        return len(data)
