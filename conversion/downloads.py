"""Every download of a result, under one set of names whatever the way it is fetched (web page,
API, zip, axiya-batch), the same layout the command line writes:

    <stem>.html  <stem>_files/  <stem>.report.json  <stem>.report.html  [<stem>.epub  <stem>.pdf]

and `<stem>.zip` holding exactly these in a `<stem>/` folder. In the store a job's output is kept
as `document.*` (storage.py); the HTML's image links are rewritten to `<stem>_files/` as it leaves.
report.html, the EPUB and the tagged PDF are made from the stored HTML and report when asked
for, so they always match the reviewed state (conversion/pipeline/formats.py).
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import tempfile
import unicodedata
import zipfile
from typing import IO
from urllib.parse import quote

from django.contrib.auth.models import AbstractBaseUser
from django.http import FileResponse

from conversion import selectors, storage
from conversion.models import Batch, Job, JobStatus, ReviewState
from conversion.notice import notice_html, with_notice
from conversion.pipeline.format_writers import write_format
from conversion.pipeline.formats import DEFAULT_FORMATS
from conversion.pipeline.report_html import render_report

_FILES_LINK = re.compile(rf'(\b(?:src|href)=")({re.escape(storage.OUTPUT_STEM)}_files/)')
# A page not transcribed links the report beside the document (render.py's page scans).
_REPORT_LINK = re.compile(rf'(\bhref=")({re.escape(storage.OUTPUT_STEM)}\.report\.html)"')
STEM_MAX = 120
# Characters no file system takes in a name (Windows' set; "/" and NUL everywhere).
_UNSAFE_IN_NAME = re.compile(r'[<>:"/\\|?*]')
_DRIVE = re.compile(r"^[A-Za-z]:")
_WINDOWS_DEVICES = {"CON", "PRN", "AUX", "NUL"} | {
    f"{port}{n}" for port in ("COM", "LPT") for n in range(10)
}


def download_stem(job: Job) -> str:
    """The name every download of this job starts with: the upload's name without `.pdf`,
    made safe for any file system and unzip tool. The upload name is the uploader's: no folder
    part, drive letter, control or format character, reserved character, or leading and
    trailing dot or space survives; a dots-only or empty name becomes "document"; a Windows
    device name (CON, LPT1...) gets a "_" (issue 17: "...pdf" unzipped to "../document.html",
    "C:evil.pdf" to "C:evil/...")."""
    name = re.split(r"[/\\]", job.original_name or "")[-1]
    name = _DRIVE.sub("", name)
    if name.lower().endswith(".pdf"):
        name = name[:-4]
    name = unicodedata.normalize("NFC", name)
    name = "".join(c for c in name if not unicodedata.category(c).startswith("C"))
    name = _UNSAFE_IN_NAME.sub("_", name)
    name = " ".join(name.split())[:STEM_MAX].strip(" .")
    if not name:
        return "document"
    if name.split(".")[0].upper() in _WINDOWS_DEVICES:
        name = f"_{name}"
    return name


def html_name(job: Job) -> str:
    return f"{download_stem(job)}.html"


def report_json_name(job: Job) -> str:
    return f"{download_stem(job)}.report.json"


def report_html_name(job: Job) -> str:
    return f"{download_stem(job)}.report.html"


def files_dir_name(job: Job) -> str:
    return f"{download_stem(job)}_files"


def zip_name(job: Job) -> str:
    return f"{download_stem(job)}.zip"


def format_name(job: Job, fmt: str) -> str:
    """`<stem>.epub`, `<stem>.pdf`."""
    return f"{download_stem(job)}.{fmt}"


def document_format(job: Job, fmt: str) -> IO[bytes] | None:
    """The job's EPUB or tagged PDF, made now from the stored (reviewed) HTML, report and
    figures: an open temporary file at its start; None when the job has no result (yet)."""
    html = storage.read_html(job.id)
    if html is None:
        return None
    out = tempfile.TemporaryFile()  # noqa: SIM115 (the caller streams and closes it)
    _write_format(job, fmt, html, read_report(job), out)
    out.seek(0)
    return out


def _write_format(job: Job, fmt: str, html: str, report: dict, out: IO[bytes]) -> dict:
    return write_format(
        fmt, html, report, out,
        figures=lambda name: storage.open_figure(job.id, name),
        identifier=f"urn:uuid:{job.id}",
    )  # fmt: skip


def document_html(job: Job) -> bytes | None:
    """The result HTML as downloaded: its figures linked from `<stem>_files/`, opening with the
    notice of what nobody checked yet (conversion/notice.py); None when the job has no result
    (yet)."""
    html = storage.read_html(job.id)
    if html is None:
        return None
    report = quote(report_html_name(job))
    html = with_report_at(with_notice(html, job_notice(job, report_href=report)), report)
    return html_with_files_at(html, quote(files_dir_name(job))).encode("utf-8")


def job_notice(job: Job, *, report_href: str = "") -> str:
    """The notice for the job as it stands now (read afresh: a caller's row may be older than
    a reviewer's decision): none once a reviewer approved it; "rejected" after a rejection;
    else what its report still holds open (a job that needs review)."""
    row = Job.objects.filter(pk=job.pk).values_list("status", "review__state", "review__note")
    status, state, note = row.first() or (job.status, None, None)
    if state == ReviewState.APPROVED:
        return ""
    rejected = state == ReviewState.REJECTED
    if not rejected and status != JobStatus.NEEDS_REVIEW:
        return ""
    findings = read_report(job).get("findings", [])
    return notice_html(findings, rejected=rejected, note=note or "", report_href=report_href)


def html_with_files_at(html: str, folder: str) -> str:
    """The stored HTML (or a page of it) with its figure links pointing into `folder`."""
    return _FILES_LINK.sub(lambda m: f"{m.group(1)}{folder}/", html)


def with_report_at(html: str, href: str) -> str:
    """The stored HTML with its links to the report pointing at `href`."""
    return _REPORT_LINK.sub(lambda m: f'{m.group(1)}{href}"', html)


def read_report(job: Job) -> dict:
    text = storage.read_report_text(job.id)
    return json.loads(text) if text is not None else {}


def report_html(job: Job) -> bytes | None:
    """The readable report, with a link to the HTML beside it; None when the job has no report
    (one read of the store: no look before it)."""
    text = storage.read_report_text(job.id)
    return _render_report(job, text) if text is not None else None


def _render_report(job: Job, text: str) -> bytes:
    return render_report(json.loads(text), document_href=quote(html_name(job))).encode("utf-8")


def job_zip(*, job: Job, formats: tuple[str, ...] = DEFAULT_FORMATS) -> IO[bytes] | None:
    """A zip of the result in a folder named after the upload: an open temporary file
    positioned at its start; None when the job has no result (yet). `formats` beyond html add
    `<stem>.epub` / `<stem>.pdf`, made from the HTML as it is now; the report in the zip then
    says what those very files hold and how their checks went."""
    html = document_html(job)
    if html is None:
        return None
    out = tempfile.TemporaryFile()  # noqa: SIM115 (the caller streams and closes it)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        _zip_job(zf, job, html, download_stem(job), formats)
    out.seek(0)
    return out


def _zip_job(zf: zipfile.ZipFile, job: Job, html: bytes, folder: str, formats) -> None:
    """One job's folder in a zip: the HTML, the other formats (each made and checked first, so
    the report inside carries the checks of the very files beside it), the report, figures."""
    report_text = storage.read_report_text(job.id)  # read once: the JSON and its readable page
    report = json.loads(report_text or "{}")
    zf.writestr(f"{folder}/{html_name(job)}", html)
    with contextlib.ExitStack() as stack:
        made = {}
        for fmt in (f for f in formats if f != "html"):
            made[fmt] = stack.enter_context(tempfile.TemporaryFile())
            result = _write_format(job, fmt, html.decode("utf-8"), report, made[fmt])
            report["formats"] = {**report.get("formats", {}), fmt: result}
            made[fmt].seek(0)
        if made and report_text is not None:
            report_text = json.dumps(report, indent=2)
        if report_text is not None:
            zf.writestr(f"{folder}/{report_json_name(job)}", report_text)
            zf.writestr(f"{folder}/{report_html_name(job)}", _render_report(job, report_text))
        for fmt, fh in made.items():
            with zf.open(f"{folder}/{format_name(job, fmt)}", "w") as entry:
                shutil.copyfileobj(fh, entry, 1 << 20)
    for name in storage.figure_names(job.id):
        figure = storage.open_figure(job.id, name)
        if figure is None:
            continue  # removed since it was listed (a re-run's)
        with figure, zf.open(f"{folder}/{files_dir_name(job)}/{name}", "w") as entry:
            shutil.copyfileobj(figure, entry, 1 << 20)


BATCH_MANIFEST = "batch.json"


def batch_zip_name(batch: Batch) -> str:
    return f"batch-{str(batch.pk)[:8]}.zip"


def batch_zip(
    *, batch: Batch, jobs: list[Job], formats: tuple[str, ...] = DEFAULT_FORMATS
) -> IO[bytes]:
    """Every job of a batch that has a result, each in its own folder as in its own zip (a
    name used twice gets -2, -3...), and batch.json: each job's status, error and folder
    (null without a result: failed or not finished yet) and the files refused at upload."""
    out = tempfile.TemporaryFile()  # noqa: SIM115 (the caller streams and closes it)
    used: set[str] = set()
    manifest = {"batch": str(batch.pk), "jobs": [], "rejected": batch.rejected}
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for job in jobs:
            html = document_html(job)
            folder = None
            if html is not None:
                folder = stem = download_stem(job)
                n = 1
                while folder.lower() in used:
                    n += 1
                    folder = f"{stem}-{n}"
                used.add(folder.lower())
                _zip_job(zf, job, html, folder, formats)
            manifest["jobs"].append(
                {
                    "id": str(job.pk),
                    "name": job.original_name,
                    "status": job.status,
                    "error": {"code": job.error_code, "message": job.error_message}
                    if job.error_code
                    else None,
                    "folder": folder,
                }
            )
        zf.writestr(BATCH_MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False))
    out.seek(0)
    return out


def batch_zip_download(
    *, batch: Batch, user: AbstractBaseUser, formats: tuple[str, ...] = DEFAULT_FORMATS
) -> FileResponse:
    """The batch's zip (batch_zip) of the jobs `user` may see, as an attachment (site, API)."""
    jobs = list(selectors.batch_jobs_for_user(user=user, batch=batch))
    return FileResponse(
        batch_zip(batch=batch, jobs=jobs, formats=formats),
        content_type="application/zip",
        as_attachment=True,
        filename=batch_zip_name(batch),
    )
