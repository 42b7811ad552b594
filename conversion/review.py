"""Review writes and reads on a finished job's output: page fragments, alt-text and page-HTML edits
(sanitized again on save), approve / reject, page re-run. Every change is written to the
audit trail (ReviewEvent) and into the output files, so every download carries it.

The output document is the source of truth: a page is the run of `<main>`'s children between its
`doc-pagebreak` marker and the next one (conversion.pipeline.output_format).
"""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path

from bs4 import BeautifulSoup, Tag
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from conversion import downloads, services, storage
from conversion.models import (
    Job,
    JobReview,
    JobStatus,
    Page,
    ReviewEvent,
    ReviewState,
)
from conversion.pipeline import flow, output_format
from conversion.pipeline.accessibility import check_html, locate_dicts
from conversion.pipeline.document import OPEN_LEVELS, open_findings, summarize
from conversion.pipeline.errors import ConversionError
from conversion.pipeline.report_html import render_report
from conversion.pipeline.sanitize import sanitize_fragment
from conversion.review_rebuild import keep_edits, rebuilt
from models.engine import PageReading, reading_from_json

Action = ReviewEvent.Action
_PAGEBREAK = {"role": output_format.PAGEBREAK_ROLE_RE}


class ReviewError(ConversionError):
    code = "REVIEW_FAILED"
    http_status = 409
    default_message = "This change cannot be made to the document."


class OpenFindings(ReviewError):
    code = "OPEN_FINDINGS"
    default_message = "Findings are still open: confirm that you approve anyway."


class NotReady(ConversionError):
    code = "NOT_READY"
    http_status = 409
    default_message = "The result is not ready yet: wait until the job has finished."


# --- reading the output ---------------------------------------------------------------------


def require_output(job: Job) -> None:
    if not storage.output_exists(job.id):
        raise not_ready(job)


def not_ready(job: Job) -> NotReady:
    """What to raise when the job has no result (yet)."""
    if job.status == JobStatus.FAILED:
        return NotReady(f"The conversion failed ({job.error_code}): there is no result.")
    return NotReady()


def _soup(job: Job) -> tuple[str, BeautifulSoup]:
    html = storage.read_html(job.id)  # one read, no look before it: absent is not ready
    if html is None:
        raise not_ready(job)
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
            src = img.get("src", "") if img else ""
            folder, _, name = src.partition("/")
            out.append(
                {
                    "id": fig.get("id", ""),
                    "src": src,
                    # The figure's own file, when src names one (an edit may have left any src).
                    "file": name if folder == storage.FILES_DIR_NAME and "/" not in name else "",
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


def _write(job: Job, *, old_html: str, soup: BeautifulSoup) -> None:
    """Write the edited document (navigation and title rebuilt) and a report re-checked against
    it, atomically."""
    new_html, title = rebuilt(soup)
    _write_html(job, old_html=old_html, new_html=new_html, title=title)


def _write_html(
    job: Job, *, old_html: str, new_html: str, title: str,
    reread: tuple[int, list[dict]] | None = None,
) -> None:  # fmt: skip
    """Write new_html and a report re-checked against it, atomically. `reread`: (page number,
    the reading findings of the document read again): they replace that page's and the
    document-wide ones. The job's status follows the new evidence (unless a reviewer has
    approved the document)."""
    report = downloads.read_report(job)
    pages = report.get("pages") or job.pages_total or None
    old_checks = {_finding_key(f.as_dict()) for f in check_html(old_html, expected_pages=pages)}
    # Findings of the reading itself (engine notes, blank pages) stay; the HTML checks are redone.
    kept = [f for f in report.get("findings", []) if _finding_key(f) not in old_checks]
    if reread is not None:
        number, fresh = reread
        kept = [f for f in kept if f.get("page") not in (None, number)]
        kept += [f for f in fresh if f.get("page") in (None, number)]
    checks = [f.as_dict() for f in check_html(new_html, expected_pages=pages)]
    # Located afresh: an edit moves blocks ("page 2, paragraph 3" may be paragraph 2 now).
    report["findings"] = flow.in_page_order(locate_dicts(new_html, kept + checks))
    report["summary"] = summarize(report["findings"])
    report["title"] = title
    storage.write_html(job.id, new_html)
    _write_report(job, report)
    update = {"summary": report["summary"], "title": title[:255]}
    approved = JobReview.objects.filter(job=job, state=ReviewState.APPROVED).exists()
    if job.status in (JobStatus.DONE, JobStatus.NEEDS_REVIEW) and not approved:
        update["status"] = services.status_from_evidence(report["summary"])
    Job.objects.filter(pk=job.pk).update(**update)
    for field, value in update.items():
        setattr(job, field, value)


def _write_report(job: Job, report: dict) -> None:
    """report.json and the report.html beside it (as flow.finish writes them)."""
    storage.write_reports(
        job.id,
        report_json=json.dumps(report, indent=2),
        report_html=render_report(report, document_href=storage.HTML_NAME),
    )


def _record(
    *, job: Job, actor: AbstractBaseUser | None, action: str, page: int | None = None,
    target: str = "", before: str = "", after: str = "", note: str = "",
) -> ReviewEvent:  # fmt: skip
    return ReviewEvent.objects.create(
        job=job,
        job_ref=job.id,
        job_name=job.original_name,
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
    if fig is None or fig.name != "figure":
        raise ReviewError(f"The document has no figure {figure_id!r}.")
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
    marker = fig.find_previous(attrs=_PAGEBREAK)
    page = int(marker["id"][5:]) if marker and marker.get("id", "").startswith("page-") else None
    with transaction.atomic():
        _write(job, old_html=old_html, soup=soup)
        return _record(
            job=job, actor=actor, action=Action.EDIT_ALT, page=page, target=f"#{figure_id}",
            before=before, after=alt,
        )  # fmt: skip


def _clean_page_html(job: Job, html: str) -> str:
    """Sanitize a reviewer's page HTML, and keep it inside its page: no page markers of its own,
    no second <main>, navigation or header, no image but the document's own figure files."""
    images = {f"{storage.FILES_DIR_NAME}/{name}" for name in storage.figure_names(job.id)}
    clean = BeautifulSoup(sanitize_fragment(html, images=images), "html.parser")
    for el in clean.find_all(attrs=_PAGEBREAK):
        el.decompose()
    for el in clean.find_all(["main", "header", "nav"]):
        el.unwrap()
    return str(clean).strip()


def review_edit_page_html(
    *, job: Job, number: int, html: str, actor: AbstractBaseUser | None
) -> ReviewEvent | None:
    old_html, soup = _soup(job)
    marker, nodes = _page_nodes(soup, number)
    before = "".join(str(n) for n in nodes).strip()
    after = _clean_page_html(job, html)
    if after == before:
        return None
    _replace_nodes(marker, nodes, after)
    with transaction.atomic():
        _write(job, old_html=old_html, soup=soup)
        return _record(
            job=job, actor=actor, action=Action.EDIT_HTML, page=number,
            target=f"#page-{number}", before=before, after=after,
        )  # fmt: skip


def _replace_nodes(marker: Tag, nodes: list, html: str) -> None:
    for node in nodes:
        node.extract()
    fragment = BeautifulSoup("\n" + html + "\n", "html.parser")
    anchor = marker
    for child in list(fragment.contents):
        child = child.extract()
        anchor.insert_after(child)
        anchor = child


def _review_row(job: Job) -> JobReview:
    review, _ = JobReview.objects.get_or_create(job=job)
    return review


def _open_on_page(job: Job, number: int | None) -> int:
    """Open findings (errors, items to review) of the whole job, or of one page of it."""
    if number is None:
        return open_findings(job.summary)
    report = downloads.read_report(job)
    return sum(
        1
        for f in report.get("findings", [])
        if f.get("page") == number and f.get("level") in OPEN_LEVELS
    )


def _override_note(open_count: int, state: str, note: str) -> str:
    if state != ReviewState.APPROVED or not open_count:
        return note
    override = f"Approved with {open_count} open finding{'s' if open_count != 1 else ''}"
    return f"{override} (override). {note}".strip()


def _check_override(open_count: int, state: str, override: bool, what: str) -> None:
    if state == ReviewState.APPROVED and open_count and not override:
        plural = "s are" if open_count != 1 else " is"
        raise OpenFindings(
            f"{open_count} finding{plural} still open on {what}: confirm that you approve anyway."
        )


def review_set_page_state(
    *, job: Job, number: int, state: str, actor: AbstractBaseUser | None, note: str = "",
    override: bool = False,
) -> ReviewEvent:  # fmt: skip
    """Approve or reject one page. Approving a page with open findings needs `override`, and
    the override is recorded in the audit trail."""
    if state not in (ReviewState.APPROVED, ReviewState.REJECTED):
        raise ReviewError(f"Unknown review decision {state!r}.")
    if not 1 <= number <= job.pages_total:
        raise ReviewError(f"The document has no page {number}.")
    open_count = _open_on_page(job, number)
    _check_override(open_count, state, override, f"page {number}")
    with transaction.atomic():
        review = _review_row(job)
        review.page_states = dict(review.page_states or {}, **{str(number): state})
        review.save(update_fields=["page_states", "updated_at"])
        action = Action.APPROVE_PAGE if state == ReviewState.APPROVED else Action.REJECT_PAGE
        return _record(
            job=job, actor=actor, action=action, page=number, after=state,
            note=_override_note(open_count, state, note),
        )  # fmt: skip


def review_set_job_state(
    *, job: Job, state: str, actor: AbstractBaseUser | None, note: str = "",
    override: bool = False,
) -> ReviewEvent:  # fmt: skip
    """Approve (the job becomes `done`) or reject the whole document; the report records it.
    Approving a document with open findings needs `override`; the override is recorded in the
    audit trail and in the report."""
    if state not in (ReviewState.APPROVED, ReviewState.REJECTED):
        raise ReviewError(f"Unknown review decision {state!r}.")
    if job.status not in (JobStatus.DONE, JobStatus.NEEDS_REVIEW):
        raise NotReady("Only a finished conversion can be approved or rejected.")
    open_count = _open_on_page(job, None)
    _check_override(open_count, state, override, "this document")
    note = _override_note(open_count, state, note)
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
        report = downloads.read_report(job)
        if report:
            report["review"] = {
                "state": state,
                "reviewer": actor.get_username() if actor is not None else None,
                "at": review.updated_at.isoformat(),
                "note": note,
                "open_findings_overridden": open_count if state == ReviewState.APPROVED else 0,
            }
            _write_report(job, report)
        action = Action.APPROVE if state == ReviewState.APPROVED else Action.REJECT
        return _record(job=job, actor=actor, action=action, before=before, after=state, note=note)


def review_apply_rerun(
    *, job: Job, number: int, reading: PageReading, actor: AbstractBaseUser | None
) -> ReviewEvent:
    """Put a new reading of one page in place of that page (conversion.runner read it; edits on
    other pages stay). The document is finished again from the stored readings with this one
    replaced, as flow.finish does; a page a reviewer changed keeps its edited text (and the
    navigation is then rebuilt), so a document nobody edited elsewhere comes out byte for byte
    as a fresh conversion would."""
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
        fresh_html, _ = flow.render_and_check(document, files_dir_name=f"{stem}_files")
        if staged.exists():
            for figure in staged.glob(f"figure-*-p{number}.png"):
                storage.save_figure(job.id, figure.name, figure)
    new_html, title = keep_edits(old_html, fresh_html, number, document.title)
    fresh_findings = [f.as_dict() for f in flow.reading_findings(document, repaired=job.repaired)]
    with transaction.atomic():
        services.page_reading_set(job_id=job.id, number=number, reading=reading)
        _write_html(
            job, old_html=old_html, new_html=new_html, title=title,
            reread=(number, fresh_findings),
        )  # fmt: skip
        cleared = _clear_page_state(job, number)
        return _record(
            job=job, actor=actor, action=Action.RERUN_PAGE, page=number,
            target=f"#page-{number}", before=before,
            after=output_format.page_text(new_html, number).strip(),
            note=f"engine {job.engine}" + (f"; its earlier decision ({cleared}) was cleared"
                                           if cleared else ""),
        )  # fmt: skip


def _clear_page_state(job: Job, number: int) -> str:
    """Forget the decision on a page whose content was read again. Returns the old decision."""
    review = JobReview.objects.filter(job=job).first()
    if review is None or str(number) not in (review.page_states or {}):
        return ""
    states = dict(review.page_states)
    old = states.pop(str(number))
    review.page_states = states
    review.save(update_fields=["page_states", "updated_at"])
    return old
