"""The output formats beyond the HTML, made from the finished HTML, its figures and its report
(so a reviewed document gives reviewed EPUB and PDF): `html` (always written: the others come
from it), `epub` (EPUB 3, epub.py) and `pdf` (tagged PDF, tagged_pdf.py). The command line
writes them beside `<stem>.html`; the site makes them when they are downloaded (downloads.py).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
from pathlib import Path

from conversion.pipeline.errors import ConversionError, OutputFailed
from conversion.pipeline.flow import output_paths
from conversion.pipeline.format_writers import files_opener, write_format

FORMATS = ("html", "epub", "pdf")
DEFAULT_FORMATS = ("html",)


class UnknownFormat(ConversionError, ValueError):
    code = "UNKNOWN_FORMAT"
    exit_code = 2
    http_status = 400
    default_message = f"Unknown format: choose from {', '.join(FORMATS)}."


def parse_formats(text: str | None) -> tuple[str, ...]:
    """`html,epub` -> ("html", "epub"): known names, in FORMATS' order, html always in."""
    asked = {f.strip().lower() for f in (text or "").split(",") if f.strip()}
    unknown = asked - set(FORMATS)
    if unknown:
        raise UnknownFormat(
            f"Unknown format {', '.join(sorted(unknown))}: choose from {', '.join(FORMATS)}."
        )
    return tuple(f for f in FORMATS if f in asked | {"html"})


def format_path(out_dir: Path, stem: str, fmt: str) -> Path:
    return Path(out_dir) / f"{stem}.{fmt}"


def write_formats(
    out_dir: Path, stem: str, formats: tuple[str, ...], *, modified: dt.datetime | None = None
) -> dict:
    """Write `<stem>.epub` / `<stem>.pdf` from the `<stem>.html` in out_dir and record what each
    holds in report.json's `formats`; {} when only HTML was asked for."""
    html_path, files_dir, report_path, _ = output_paths(Path(out_dir), stem)
    wanted = [f for f in formats if f != "html"]
    if not wanted:
        return {}
    html = html_path.read_text(encoding="utf-8")
    report = json.loads(report_path.read_text(encoding="utf-8"))
    results = {}
    for fmt in wanted:
        results[fmt] = _atomic(
            format_path(out_dir, stem, fmt),
            lambda fh, fmt=fmt: write_format(
                fmt, html, report, fh, figures=files_opener(files_dir), modified=modified
            ),
        )
    report["formats"] = results
    _atomic(report_path, lambda fh: fh.write(json.dumps(report, indent=2).encode("utf-8")))
    return results


def _atomic(target: Path, write):
    """Write through a temporary file beside target, renamed into place: whole or absent."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            result = write(fh)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except OSError as exc:
        raise OutputFailed(f"Could not write {target.name}: {exc.strerror}.") from exc
    finally:
        Path(tmp).unlink(missing_ok=True)
    return result
