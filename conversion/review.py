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

from conversion import downloads, review_checks, review_structure, services, storage
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
from conversion.pipeline.document import OPEN_LEVELS, open_findings, summarize
from conversion.pipeline.errors import ConversionError
from conversion.pipeline.format_writers import describe_formats
from conversion.pipeline.report_html import render_report
from conversion.pipeline.sanitize import sanitize_fragment
from conversion.review_rebuild import keep_edits, rebuilt
from conversion.roles import can_review
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


class BreaksChecks(ReviewError):
    """An edit that would add errors to the document: nothing is written unless the person
    confirms (a fix may take two steps: a second h1 before the first becomes an h2)."""

    code = "EDIT_BREAKS_CHECKS"

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(
            "This change would break the document's accessibility checks: "
            + "; ".join(problems)
            + "."
        )


BROKE_CHECKS = "Saved although it breaks the checks"  # the audit note of a confirmed edit


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


def page_blocks(*, job: Job, number: int) -> list[review_structure.BlockView]:
    """The blocks of one page as the structured editor shows them."""
    _, soup = _soup(job)
    _, nodes = _page_nodes(soup, number)
    return review_structure.describe(review_structure.blocks_of(nodes))


SHOWN_ID = "axiya-shown"  # the anchor a "show it in the page" link scrolls to
SHOWN_STYLE = (
    ".axiya-shown { outline: 4px solid #b3261e; outline-offset: 2px; background: #fff3b0; "
    "color: #1a1a1a; } #axiya-shown { scroll-margin-top: 3rem; }"
)


def page_document(*, job: Job, number: int, show: str = "") -> str:
    """A whole HTML document holding only one page, for the review frame beside the scan.
    `show`: a finding's selector; that element is highlighted, an anchor `#axiya-shown` put
    before it."""
    _, soup = _soup(job)
    marker, nodes = _page_nodes(soup, number)
    keep = {id(n) for n in nodes} | {id(marker)}
    main = soup.find("main")
    # Found before the other pages go: the selector counts siblings (nth-of-type).
    shown = review_checks.select(soup, show) if show else None
    for child in list(main.children):
        if id(child) not in keep:
            child.extract()
    for el in soup.find_all(["nav", "header"]):
        el.decompose()
    if shown is not None and shown.find_parent("main") is main:
        shown["class"] = [*(shown.get("class") or []), "axiya-shown"]
        shown.insert_before(soup.new_tag("span", attrs={"id": SHOWN_ID}))
        style = soup.new_tag("style")
        style.string = SHOWN_STYLE
        (soup.head or soup).append(style)
    return str(soup)


# --- writing the output ---------------------------------------------------------------------


def _finding_key(f: dict) -> tuple:
    return (f.get("code"), f.get("element"), f.get("page"), f.get("message"))


def _checked(
    job: Job, *, old_html: str, soup: BeautifulSoup, edited: str, confirm: bool, note: str
) -> tuple[str, str, str]:
    """The edited document with its navigation and title rebuilt, re-checked whole: (HTML,
    title, the audit note). An edit that adds errors raises BreaksChecks (what and where)
    unless `confirm`; confirmed, the note says what it broke."""
    new_html, title = rebuilt(soup)
    pages = downloads.read_report(job).get("pages") or job.pages_total or None
    problems = review_checks.breakage(old_html, new_html, edited=edited, pages=pages)
    if problems and not confirm:
        raise BreaksChecks(problems)
    if problems:
        note = f"{note} {BROKE_CHECKS}: {'; '.join(problems)}.".strip()
    return new_html, title, note


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
    report["findings"] = flow.in_page_order(kept + checks)
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
    """report.json and the report.html beside it (as flow.finish writes them), its `formats`
    made again from the HTML as it now is (an edited alt text, the review's state)."""
    html = storage.read_html(job.id)
    if html is not None:
        report["formats"] = describe_formats(
            html, report, figures=lambda name: storage.open_figure(job.id, name)
        )
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
    *, job: Job, figure_id: str, alt: str, actor: AbstractBaseUser | None, confirm: bool = False
) -> ReviewEvent | None:
    """Set one figure's alt text; the figure is no longer flagged as undescribed. An alt text
    the checks refuse ("image", a file name) raises BreaksChecks unless `confirm`."""
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
    new_html, title, note = _checked(
        job, old_html=old_html, soup=soup, edited=f"page {page}, figure {figure_id[7:]}",
        confirm=confirm, note="",
    )  # fmt: skip
    with transaction.atomic():
        note = _withdraw_approval(job, actor, note)
        _write_html(job, old_html=old_html, new_html=new_html, title=title)
        return _record(
            job=job, actor=actor, action=Action.EDIT_ALT, page=page, target=f"#{figure_id}",
            before=before, after=alt, note=note,
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
    *, job: Job, number: int, html: str, actor: AbstractBaseUser | None, confirm: bool = False
) -> ReviewEvent | None:
    """Replace one page's HTML (sanitized again). An edit that adds errors to the document
    raises BreaksChecks unless `confirm`."""
    old_html, soup = _soup(job)
    _, nodes = _page_nodes(soup, number)
    before = "".join(str(n) for n in nodes).strip()
    return _save_page(
        job, number=number, old_html=old_html, soup=soup, before=before, after=html,
        action=Action.EDIT_HTML, actor=actor, note="", edited=f"page {number}", confirm=confirm,
    )  # fmt: skip


def review_edit_structure(
    *, job: Job, number: int, index: int, fingerprint: str, op: str, data: dict,
    actor: AbstractBaseUser | None, confirm: bool = False,
) -> ReviewEvent | None:  # fmt: skip
    """One structured edit of block `index` of page `number` (`fingerprint`: the block as the
    person saw it; a block changed since is refused). The page then goes through the same
    sanitizer, re-check and audit trail as a page-HTML edit; an edit that adds errors raises
    BreaksChecks (what and where) unless `confirm`."""
    if op not in review_structure.OPS:
        raise ReviewError(f"Unknown edit {op!r}.")
    old_html, soup = _soup(job)
    _, nodes = _page_nodes(soup, number)
    blocks = review_structure.blocks_of(nodes)
    if not 0 <= index < len(blocks) or review_structure.fingerprint(blocks[index]) != fingerprint:
        raise ReviewError(
            "This block has changed since the page was opened (another edit?): look at the page "
            "again and repeat the change."
        )
    edited = review_structure.where(blocks[index])
    before = "".join(str(n) for n in nodes).strip()
    try:
        note = review_structure.apply(op, blocks, index, data)
    except review_structure.StructureError as exc:
        raise ReviewError(f"{edited}: {exc}") from exc
    if not note:
        return None
    _, nodes = _page_nodes(soup, number)
    return _save_page(
        job, number=number, old_html=old_html, soup=soup, before=before,
        after="".join(str(n) for n in nodes), action=Action.EDIT_STRUCTURE, actor=actor,
        note=note, edited=edited, confirm=confirm,
    )  # fmt: skip


def _save_page(
    job: Job, *, number: int, old_html: str, soup: BeautifulSoup, before: str, after: str,
    action: str, actor: AbstractBaseUser | None, note: str, edited: str, confirm: bool,
) -> ReviewEvent | None:  # fmt: skip
    """Put `after` (sanitized again) in place of page `number`, re-check the whole document,
    refuse what it would break unless confirmed, write it and the audit trail."""
    marker, nodes = _page_nodes(soup, number)
    after = _clean_page_html(job, after)
    if after == before:
        return None
    _replace_nodes(marker, nodes, after)
    new_html, title, note = _checked(
        job, old_html=old_html, soup=soup, edited=edited, confirm=confirm, note=note
    )
    with transaction.atomic():
        note = _withdraw_approval(job, actor, note)
        _write_html(job, old_html=old_html, new_html=new_html, title=title)
        return _record(
            job=job, actor=actor, action=action, page=number, target=f"#page-{number}",
            before=before, after=after, note=note,
        )  # fmt: skip


def _withdraw_approval(job: Job, actor: AbstractBaseUser | None, note: str) -> str:
    """An owner who changes a document a reviewer approved withdraws the approval: the
    reviewer vouched for what they saw, not for the change (a reviewer's own edit keeps it).
    Returns the note with that said."""
    if actor is None or can_review(actor):
        return note
    review = JobReview.objects.filter(job=job, state=ReviewState.APPROVED).first()
    if review is None:
        return note
    review.state, review.reviewer = ReviewState.PENDING, None
    review.save(update_fields=["state", "reviewer", "updated_at"])
    report = downloads.read_report(job)
    if report.pop("review", None) is not None:
        _write_report(job, report)
    return f"{note} The reviewer's approval was withdrawn: the owner changed the document.".strip()


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
        withdrawn = _withdraw_approval(job, actor, "")
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
                                           if cleared else "")
                 + (f"; {withdrawn}" if withdrawn else ""),
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
