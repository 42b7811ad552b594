"""The review dashboard: the queue (reviewers), one page beside its scan, edits (reviewers on
every job, owners on their own: conversion.roles.can_correct), decisions (reviewers).
Thin, like views.py: writes go through conversion.review."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import wraps

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Max
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from conversion import dispatch, downloads, review, selectors, storage
from conversion.findings import present as present_findings
from conversion.forms import (
    AltTextForm,
    BlockEditForm,
    DecisionForm,
    PageHtmlForm,
    ReviewFilterForm,
)
from conversion.models import Job, JobReview, ReviewEvent, ReviewState
from conversion.pipeline.document import OPEN_LEVELS
from conversion.pipeline.errors import ConversionError
from conversion.roles import can_correct, can_review
from conversion.views import figures_token, view_token

QUEUE_PAGE_SIZE = 50


def reviewer_required(view):
    @wraps(view)
    @login_required
    def wrapper(request: HttpRequest, *args, **kwargs):
        if not can_review(request.user):
            raise PermissionDenied("The review dashboard is for reviewers.")
        return view(request, *args, **kwargs)

    return wrapper


@reviewer_required
def review_queue(request: HttpRequest) -> HttpResponse:
    form = ReviewFilterForm(request.GET or None)
    page = Paginator(form.queue(), QUEUE_PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {"form": form, "jobs": page, "query": query.urlencode()}
    return render(request, "conversion/review_queue.html", context)


def _review_job(job_id) -> Job:
    job = Job.objects.select_related("owner").filter(pk=job_id).first()
    if job is None:
        raise Http404("No such job.")
    return job


def _correctable_job(request: HttpRequest, job_id) -> Job:
    """The job, when this user may correct it (a reviewer: any; an owner: theirs); anyone
    else is told it does not exist, as on the job pages."""
    job = _review_job(job_id)
    if not can_correct(request.user, job):
        raise Http404("No such job, or it is not yours.")
    return job


@login_required
def review_job(request: HttpRequest, job_id) -> HttpResponse:
    return redirect("review-page", job_id=_correctable_job(request, job_id).id, number=1)


def _page_state(job_review: JobReview | None, number: int) -> str:
    """A page's own decision, else the document's (an approved document's pages are approved
    with it), else not reviewed."""
    state = (job_review.page_states or {}).get(str(number), "") if job_review else ""
    if state:
        return ReviewState(state).label
    if job_review and job_review.state:
        return f"{ReviewState(job_review.state).label} with the document"
    return ReviewState.PENDING.label


def _number(text: str) -> int | None:
    # ASCII digits only: "²".isdigit() is true and int("²") fails.
    return int(text) if re.fullmatch(r"[0-9]{1,12}", text) else None


def _latest_event_id(job: Job) -> int:
    return ReviewEvent.objects.filter(job=job).aggregate(top=Max("id"))["top"] or 0


@login_required
def review_page(request: HttpRequest, job_id, number: int) -> HttpResponse:
    job = _correctable_job(request, job_id)
    if not 1 <= number <= max(job.pages_total, 1):
        raise Http404("No such page.")
    try:
        fragment = review.page_fragment(job=job, number=number)
        figures = review.page_figures(job=job, number=number)
        blocks = review.page_blocks(job=job, number=number)
    except ConversionError as exc:
        messages.error(request, exc.message)
        fragment, figures, blocks = "", [], []
    report = downloads.read_report(job)
    findings = [f for f in report.get("findings", []) if f.get("page") in (None, number)]
    html = storage.read_html(job.id)
    token = view_token(job, user=request.user)
    job_review = JobReview.objects.filter(job=job).first()
    reread = request.GET.get("reread", "")
    context = {
        "job": job,
        "number": number,
        "pages": range(1, job.pages_total + 1),
        "can_decide": can_review(request.user),
        "finding_groups": present_findings(html=html, findings=findings),
        "findings_count": len(findings),
        "open_on_page": sum(1 for f in findings if f.get("level") in OPEN_LEVELS),
        "figures": [
            dict(
                f,
                form=AltTextForm(
                    initial={"figure": f["id"], "alt": "" if f["needs_alt"] else f["alt"]}
                ),
            )
            for f in figures
        ],  # fmt: skip
        "blocks": blocks,
        "levels": BlockEditForm.base_fields["level"].choices,
        "html_form": PageHtmlForm(initial={"html": fragment}),
        "page_url": reverse("view-page", kwargs={"token": token, "number": number}),
        "token": token,
        "figures_token": figures_token(job, user=request.user),
        "job_review": job_review,
        "page_state": _page_state(job_review, number),
        "events": selectors.review_events(job=job)[:100],
        "has_scan": storage.page_image_exists(job.id, number),
        # After "read this page again": the event the page waits for comes after this one.
        "reread_since": _number(reread),
        # After a structured edit: the block it came back to, where its outcome is said again.
        "said_block": _number(request.GET.get("block", "")),
    }
    return render(request, "conversion/review_page.html", context)


@login_required
@require_GET
def review_reread_status(request: HttpRequest, job_id, number: int) -> JsonResponse:
    """Whether page `number` has been read again since event `since` (the review page polls)."""
    job = _correctable_job(request, job_id)
    since_id = _number(request.GET.get("since", "")) or 0
    done = ReviewEvent.objects.filter(
        job=job, page=number, action=ReviewEvent.Action.RERUN_PAGE, id__gt=since_id
    ).exists()
    return JsonResponse({"done": done})


@login_required
def review_scan(request: HttpRequest, job_id, number: int) -> FileResponse:
    job = _correctable_job(request, job_id)
    scan = storage.open_page_image(job.id, number)
    if scan is None:
        raise Http404("No scan for this page.")
    return FileResponse(scan, content_type="image/png")


def _back(job: Job, number: int | None) -> HttpResponse:
    if number is None:
        return redirect("review-job", job_id=job.id)
    return redirect("review-page", job_id=job.id, number=number)


def _page_edit(form_class: type[forms.Form], *, invalid: str, saved: str,
               edit: Callable[..., object]) -> Callable[..., HttpResponse]:  # fmt: skip
    """An edit of one page as a view: the form checked, `edit(job=, number=, data=, actor=)`
    run (its event, or None when nothing changed), the outcome said, back to the page. An edit
    that breaks the checks asks first (what and where), like an approval with open findings."""

    @login_required
    @require_POST
    def view(request: HttpRequest, job_id, number: int) -> HttpResponse:
        job = _correctable_job(request, job_id)
        form = form_class(request.POST)
        if not form.is_valid():
            messages.error(request, invalid)
            return _back(job, number)
        try:
            event = edit(job=job, number=number, data=form.cleaned_data, actor=request.user)
        except review.BreaksChecks as exc:
            return _confirm_edit(request, job, number, exc)
        except ConversionError as exc:
            messages.error(request, exc.message)
        else:
            if event is None:
                messages.success(request, "Nothing changed.")
            elif review.BROKE_CHECKS in getattr(event, "note", ""):
                messages.warning(request, f"{saved} It breaks the checks: see the findings.")
            else:
                messages.success(request, saved)
        return _back(job, number)

    return view


def _confirm_edit(
    request: HttpRequest, job: Job, number: int, error: review.BreaksChecks
) -> HttpResponse:
    """An edit that would break the checks: say what and where, and offer to save anyway (the
    same form again, confirmed) or to go back."""
    fields = [
        (name, value)
        for name, values in request.POST.lists()
        if name not in ("csrfmiddlewaretoken", "confirm", "html")
        for value in values
    ]
    context = {
        "job": job, "number": number, "problems": error.problems, "action": request.path,
        "fields": fields, "html": request.POST.get("html"),  # the page HTML: to correct there
        "back_url": reverse("review-page", kwargs={"job_id": job.id, "number": number}),
    }  # fmt: skip
    return render(request, "conversion/review_edit_confirm.html", context, status=409)


review_alt = _page_edit(
    AltTextForm, invalid="Write an alt text before saving.", saved="Alt text saved.",
    edit=lambda *, job, number, data, actor: review.review_edit_alt(
        job=job, figure_id=data["figure"], alt=data["alt"], actor=actor,
        confirm=data["confirm"]),
)  # fmt: skip
review_html = _page_edit(
    PageHtmlForm, invalid="The page HTML is missing.", saved="Page saved (sanitized).",
    edit=lambda *, job, number, data, actor: review.review_edit_page_html(
        job=job, number=number, html=data["html"], actor=actor, confirm=data["confirm"]),
)  # fmt: skip


def _edit_block(*, job: Job, number: int, data: dict, actor, index: int):
    return review.review_edit_structure(
        job=job, number=number, index=index, fingerprint=data["fingerprint"], op=data["op"],
        data=data, actor=actor, confirm=data["confirm"],
    )  # fmt: skip


@login_required
@require_POST
def review_block(request: HttpRequest, job_id, number: int, index: int) -> HttpResponse:
    """One structured edit of block `index` (the structured editor's plain forms)."""
    view = _page_edit(
        BlockEditForm, invalid="This edit could not be read: open the page again.",
        saved="Structure saved.",
        edit=lambda *, job, number, data, actor: _edit_block(
            job=job, number=number, data=data, actor=actor, index=index),
    )  # fmt: skip
    response = view(request, job_id=job_id, number=number)
    if response.status_code != 302:
        return response
    # Back to the block (where it is now), its outcome said there too: the keyboard and the
    # screen reader carry on where they were, not at the top of a long page.
    shift = {"up": 0, "down": 2}.get(request.POST.get("op", ""), 1)
    block = index + shift
    return redirect(f"{response['Location']}?block={block}#block-{block}")


def _rerun(request: HttpRequest, job: Job, number: int) -> HttpResponse:
    """Queue the page's new reading; the page then waits for it (review.js polls and updates
    in place; without scripts, the message says to reload)."""
    since = _latest_event_id(job)
    try:
        dispatch.enqueue_rerun(job=job, number=number, actor=request.user)
    except ConversionError as exc:
        messages.error(request, exc.message)
        return _back(job, number)
    messages.success(
        request, f"Page {number} is being read again. This page shows the new reading when it is "
        "ready (without JavaScript: reload it in a moment).",
    )  # fmt: skip
    url = reverse("review-page", kwargs={"job_id": job.id, "number": number})
    return redirect(f"{url}?reread={since}")


@login_required
@require_POST
def review_page_decision(request: HttpRequest, job_id, number: int) -> HttpResponse:
    """Approve or reject a page (reviewers), or read it again (whoever may correct it)."""
    job = _correctable_job(request, job_id)
    form = DecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose approve, reject or re-run.")
        return _back(job, number)
    decision, note = form.cleaned_data["decision"], form.cleaned_data["note"]
    if decision != "rerun" and not can_review(request.user):
        raise PermissionDenied("Only a reviewer approves or rejects a page.")
    try:
        if decision == "rerun":
            return _rerun(request, job, number)
        else:
            state = ReviewState.APPROVED if decision == "approve" else ReviewState.REJECTED
            review.review_set_page_state(
                job=job, number=number, state=state, actor=request.user, note=note,
                override=form.cleaned_data["confirm"],
            )  # fmt: skip
            messages.success(request, f"Page {number}: {state.label.lower()}.")
    except review.OpenFindings as exc:
        return _confirm_approval(request, job, number, exc, note=note, page=number)
    except ConversionError as exc:
        messages.error(request, exc.message)
    return _back(job, number)


@reviewer_required
@require_POST
def review_job_decision(request: HttpRequest, job_id) -> HttpResponse:
    job = _review_job(job_id)
    form = DecisionForm(request.POST)
    number = request.POST.get("page") or ""
    # ASCII digits only: "²".isdigit() is true and int("²") fails.
    back_to = int(number) if re.fullmatch(r"[0-9]{1,6}", number) else None
    if not form.is_valid() or form.cleaned_data["decision"] == "rerun":
        messages.error(request, "Choose approve or reject.")
        return _back(job, back_to)
    state = (
        ReviewState.APPROVED if form.cleaned_data["decision"] == "approve" else ReviewState.REJECTED
    )
    try:
        review.review_set_job_state(
            job=job, state=state, actor=request.user, note=form.cleaned_data["note"],
            override=form.cleaned_data["confirm"],
        )  # fmt: skip
    except review.OpenFindings as exc:
        return _confirm_approval(request, job, back_to, exc, note=form.cleaned_data["note"])
    except ConversionError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"{job.original_name}: {state.label.lower()}.")
    return _back(job, back_to)


def _confirm_approval(
    request: HttpRequest, job: Job, back_to: int | None, error: ConversionError, *, note: str,
    page: int | None = None,
) -> HttpResponse:  # fmt: skip
    """Approving with open findings: say how many, and ask again (the answer is recorded)."""
    action = (
        reverse("review-page-decision", kwargs={"job_id": job.id, "number": page})
        if page is not None
        else reverse("review-job-decision", kwargs={"job_id": job.id})
    )
    context = {
        "job": job, "message": error.message, "action": action, "note": note, "page": page,
        "back_to": back_to,
        "back_url": reverse("review-page", kwargs={"job_id": job.id, "number": back_to or 1}),
    }  # fmt: skip
    return render(request, "conversion/review_confirm.html", context, status=409)
