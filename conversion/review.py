"""Review writes and reads on a finished job's output: page fragments, alt-text and page-HTML edits
(sanitized again on save), approve / reject, page re-run, zip export. Every change is written to the
audit trail (ReviewEvent) and into the output files, so every download carries it.

The output document is the source of truth: a page is the run of `<main>`'s children between its
`doc-pagebreak` marker and the next one (conversion.pipeline.output_format). A change rewrites
only its page's text: every other byte stays as the renderer wrote it.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import IO

from bs4 import BeautifulSoup, Tag
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from conversion import services, storage
from conversion.models import (
    Job,
    JobReview,
    JobStatus,
    Page,
    ReviewEvent,
    ReviewState,
)
from conversion.pipeline import flow, output_format
from conversion.pipeline.accessibility import check_html
from conversion.pipeline.errors import ConversionError
from conversion.pipeline.report_html import write_report_html
from conversion.pipeline.sanitize import sanitize_fragment
from models.engine import PageReading, reading_from_json

Action = ReviewEvent.Action
_PAGEBREAK = {"role": output_format.PAGEBREAK_ROLE_RE}


class ReviewError(ConversionError):
    code = "REVIEW_FAILED"
    http_status = 409
    default_message = "This change cannot be made to the document."


class NotReady(ConversionError):
    code = "NOT_READY"
    http_status = 409
    default_message = "The result is not ready yet: wait until the job has finished."


# --- reading the output ---------------------------------------------------------------------


def _require_output(job: Job) -> Path:
    path = storage.html_path(job.id)
    if not path.exists():
        if job.status == JobStatus.FAILED:
            raise NotReady(f"The conversion failed ({job.error_code}): there is no result.")
        raise NotReady()
    return path


def _soup(job: Job) -> tuple[str, BeautifulSoup]:
    html = _require_output(job).read_text(encoding="utf-8")
    return html, BeautifulSoup(html, "html.parser")


def _page_nodes(soup: BeautifulSoup, number: int) -> tuple[Tag, list]:
    main = soup.find("main")
    marker = main.find(id=f"page-{number}", recursive=False) if main else None
    if marker is None:
        raise ReviewError(f"The document has no page {number}.")
    nodes = []
    for sibling in marker.next_siblings:
        if isinstance(sibling, Tag) and _PAGEBREAK["role"].search(sibling.get("role") or ""):
            break
        nodes.append(sibling)
    return marker, nodes


def page_fragment(*, job: Job, number: int) -> str:
    """The HTML of one page of the output, as a reviewer edits it."""
    _, soup = _soup(job)
    _, nodes = _page_nodes(soup, number)
    return "".join(str(n) for n in nodes).strip()


def page_figures(*, job: Job, number: int) -> list[dict]:
    """The figures on one page: id, image file name, alt text, whether it still needs one."""
    _, soup = _soup(job)
    _, nodes = _page_nodes(soup, number)
    out = []
    for node in nodes:
        if not isinstance(node, Tag):
            continue
        figures = [node] if node.name == "figure" else node.find_all("figure")
        for fig in figures:
            img = fig.find("img")
            alt = img.get("alt", "") if img else fig.get("aria-label", "")
            out.append(
                {
                    "id": fig.get("id", ""),
                    "src": img.get("src", "") if img else "",
                    "alt": alt,
                    "needs_alt": fig.get("data-review") == "alt-missing",
                }
            )
    return out


def page_document(*, job: Job, number: int) -> str:
    """A whole HTML document holding only one page, for the review frame beside the scan."""
    _, soup = _soup(job)
    marker, nodes = _page_nodes(soup, number)
    keep = {id(n) for n in nodes} | {id(marker)}
    main = soup.find("main")
    for child in list(main.children):
        if id(child) not in keep:
            child.extract()
    for el in soup.find_all(["nav", "header"]):
        el.decompose()
    return str(soup)


# --- writing the output ---------------------------------------------------------------------


def _finding_key(f: dict) -> tuple:
    return (f.get("code"), f.get("element"), f.get("page"), f.get("message"))


def _write(
    job: Job, *, old_html: str, new_html: str, reread: tuple[int, list[dict]] | None = None
) -> None:
    """Write the edited document and a report re-checked against it, atomically. `reread`:
    (page number, the re-read document's reading findings): they replace that page's and the
    document-wide ones."""
    report_path = storage.report_path(job.id)
    report = json.loads(report_path.read_text(encoding="utf-8")) if report_path.exists() else {}
    pages = report.get("pages") or job.pages_total or None
    old_checks = {_finding_key(f.as_dict()) for f in check_html(old_html, expected_pages=pages)}
    # Findings of the reading itself (engine notes, blank pages) stay; the HTML checks are redone.
    kept = [f for f in report.get("findings", []) if _finding_key(f) not in old_checks]
    if reread is not None:
        number, fresh = reread
        kept = [f for f in kept if f.get("page") not in (None, number)]
        kept += [f for f in fresh if f.get("page") in (None, number)]
    checks = [f.as_dict() for f in check_html(new_html, expected_pages=pages)]
    report["findings"] = flow.in_page_order(kept + checks)
    report["summary"] = flow.summarize(report["findings"])
    _atomic_write(storage.html_path(job.id), new_html)
    _atomic_write(report_path, json.dumps(report, indent=2))
    write_report_html(
        report, storage.report_html_path(job.id), document_href=storage.html_path(job.id).name
    )
    Job.objects.filter(pk=job.pk).update(summary=report["summary"])
    job.summary = report["summary"]


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def _record(
    *, job: Job, actor: AbstractBaseUser | None, action: str, page: int | None = None,
    target: str = "", before: str = "", after: str = "", note: str = "",
) -> ReviewEvent:  # fmt: skip
    return ReviewEvent.objects.create(
        job=job,
        actor=actor if actor is not None and actor.is_authenticated else None,
        action=action,
        page=page,
        target=target[:120],
        before=before,
        after=after,
        note=note,
    )


def review_edit_alt(
    *, job: Job, figure_id: str, alt: str, actor: AbstractBaseUser | None
) -> ReviewEvent | None:
    """Set one figure's alt text; the figure is no longer flagged as undescribed."""
    alt = " ".join(alt.split())
    if not alt:
        raise ReviewError("Write a description: an empty alt text hides the figure from readers.")
    old_html, soup = _soup(job)
    main = soup.find("main")
    fig = main.find(id=figure_id) if main else None
    marker = fig.find_previous(attrs=_PAGEBREAK) if fig is not None else None
    if fig is None or fig.name != "figure" or marker is None:
        raise ReviewError(f"The document has no figure {figure_id!r}.")
    page = int(marker["id"][5:])
    # The figure's page alone is parsed and written again.
    fragment = BeautifulSoup(output_format.page_text(old_html, page), "html.parser")
    fig = fragment.find(id=figure_id)
    img = fig.find("img")
    before = (img.get("alt", "") if img else fig.get("aria-label", "")) or ""
    if before == alt and fig.get("data-review") != "alt-missing":
        return None
    if img is not None:
        img["alt"] = alt
    else:
        fig["aria-label"] = alt
    if fig.get("data-review") == "alt-missing":
        del fig["data-review"]
    new_html = output_format.replace_page(old_html, page, str(fragment))
    with transaction.atomic():
        _write(job, old_html=old_html, new_html=new_html)
        return _record(
            job=job, actor=actor, action=Action.EDIT_ALT, page=page, target=f"#{figure_id}",
            before=before, after=alt,
        )  # fmt: skip


def _clean_page_html(html: str) -> str:
    """Sanitize a reviewer's page HTML, and keep it inside its page: no page markers of its own,
    no second <main>, navigation or header."""
    clean = BeautifulSoup(sanitize_fragment(html), "html.parser")
    for el in clean.find_all(attrs=_PAGEBREAK):
        el.decompose()
    for el in clean.find_all(["main", "header", "nav"]):
        el.unwrap()
    return str(clean).strip()


def review_edit_page_html(
    *, job: Job, number: int, html: str, actor: AbstractBaseUser | None
) -> ReviewEvent | None:
    old_html, soup = _soup(job)
    _, nodes = _page_nodes(soup, number)
    before = "".join(str(n) for n in nodes).strip()
    after = _clean_page_html(html)
    if after == before:
        return None
    new_html = output_format.replace_page(old_html, number, "\n" + after + "\n")
    with transaction.atomic():
        _write(job, old_html=old_html, new_html=new_html)
        return _record(
            job=job, actor=actor, action=Action.EDIT_HTML, page=number,
            target=f"#page-{number}", before=before, after=after,
        )  # fmt: skip


def _review_row(job: Job) -> JobReview:
    review, _ = JobReview.objects.get_or_create(job=job)
    return review


def review_set_page_state(
    *, job: Job, number: int, state: str, actor: AbstractBaseUser | None, note: str = ""
) -> ReviewEvent:
    if state not in (ReviewState.APPROVED, ReviewState.REJECTED):
        raise ReviewError(f"Unknown review decision {state!r}.")
    if not 1 <= number <= job.pages_total:
        raise ReviewError(f"The document has no page {number}.")
    with transaction.atomic():
        review = _review_row(job)
        review.page_states = dict(review.page_states or {}, **{str(number): state})
        review.save(update_fields=["page_states", "updated_at"])
        action = Action.APPROVE_PAGE if state == ReviewState.APPROVED else Action.REJECT_PAGE
        return _record(job=job, actor=actor, action=action, page=number, after=state, note=note)


def review_set_job_state(
    *, job: Job, state: str, actor: AbstractBaseUser | None, note: str = ""
) -> ReviewEvent:
    """Approve (the job becomes `done`) or reject the whole document; the report records it."""
    if state not in (ReviewState.APPROVED, ReviewState.REJECTED):
        raise ReviewError(f"Unknown review decision {state!r}.")
    if job.status not in (JobStatus.DONE, JobStatus.NEEDS_REVIEW):
        raise NotReady("Only a finished conversion can be approved or rejected.")
    with transaction.atomic():
        review = _review_row(job)
        before = review.state
        review.state = state
        review.reviewer = actor if actor is not None and actor.is_authenticated else None
        review.note = note
        review.save()
        if state == ReviewState.APPROVED and job.status == JobStatus.NEEDS_REVIEW:
            Job.objects.filter(pk=job.pk).update(status=JobStatus.DONE)
            job.status = JobStatus.DONE
        report_path = storage.report_path(job.id)
        if report_path.exists():
            report = json.loads(report_path.read_text(encoding="utf-8"))
            report["review"] = {
                "state": state,
                "reviewer": actor.get_username() if actor is not None else None,
                "at": review.updated_at.isoformat(),
                "note": note,
            }
            _atomic_write(report_path, json.dumps(report, indent=2))
        action = Action.APPROVE if state == ReviewState.APPROVED else Action.REJECT
        return _record(job=job, actor=actor, action=action, before=before, after=state, note=note)


def review_apply_rerun(
    *, job: Job, number: int, reading: PageReading, actor: AbstractBaseUser | None
) -> ReviewEvent:
    """Put a new reading of one page in place of that page's HTML (edits on other pages stay):
    the document is finished again from the stored readings with this one replaced (as
    flow.finish would), and this page's part of it replaces the page in the output."""
    old_html, soup = _soup(job)
    _, nodes = _page_nodes(soup, number)
    before = "".join(str(n) for n in nodes).strip()
    readings = [
        reading if p.number == number else reading_from_json(p.reading)
        for p in Page.objects.filter(job=job).order_by("number")
        if p.reading or p.number == number
    ]
    stem = storage.OUTPUT_STEM
    with tempfile.TemporaryDirectory(prefix="axiya-rerun-") as tmp:
        staged = Path(tmp) / "files"
        document = flow.build_document(
            readings, functools.partial(storage.read_page_image, job.id),
            title=flow.document_title(job.original_name),
            language=job.requested_language or None, files_dir=staged,
        )  # fmt: skip
        html, _ = flow.render_and_check(document, files_dir_name=f"{stem}_files")
        new_text = output_format.page_text(html, number)
        files = storage.files_dir(job.id)
        if staged.exists():
            for figure in staged.glob(f"figure-*-p{number}.png"):
                files.mkdir(parents=True, exist_ok=True)
                shutil.copy2(figure, files / figure.name)
    new_html = output_format.replace_page(old_html, number, new_text)
    fresh_findings = flow.reading_findings(document, repaired=job.repaired)
    with transaction.atomic():
        services.page_reading_set(job_id=job.id, number=number, reading=reading)
        _write(
            job, old_html=old_html, new_html=new_html,
            reread=(number, [f.as_dict() for f in fresh_findings]),
        )  # fmt: skip
        return _record(
            job=job, actor=actor, action=Action.RERUN_PAGE, page=number,
            target=f"#page-{number}", before=before, after=new_text.strip(),
            note=f"engine {job.engine}",
        )  # fmt: skip


# --- export ---------------------------------------------------------------------------------


def job_zip(*, job: Job) -> IO[bytes]:
    """A zip of the result: document.html, document_files/ and document.report.json, in a folder
    named after the upload. Returns an open temporary file positioned at its start."""
    _require_output(job)
    folder = Path(job.original_name).stem or "document"
    out = tempfile.TemporaryFile()  # noqa: SIM115 (the caller streams and closes it)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.write(storage.html_path(job.id), f"{folder}/{storage.html_path(job.id).name}")
        for report in (storage.report_path(job.id), storage.report_html_path(job.id)):
            if report.exists():
                zf.write(report, f"{folder}/{report.name}")
        files = storage.files_dir(job.id)
        if files.exists():
            for path in sorted(files.iterdir()):
                if path.is_file():
                    zf.write(path, f"{folder}/{files.name}/{path.name}")
    out.seek(0)
    return out


def zip_name(job: Job) -> str:
    return f"{Path(job.original_name).stem or 'document'}.zip"
