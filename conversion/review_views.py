"""The review dashboard (staff only): the queue, one page beside its scan, edits, decisions.
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
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from conversion import dispatch, downloads, review, selectors, storage
from conversion.findings import present as present_findings
from conversion.forms import AltTextForm, DecisionForm, PageHtmlForm, ReviewFilterForm
from conversion.models import Job, JobReview, ReviewState
from conversion.pipeline.document import OPEN_LEVELS
from conversion.pipeline.errors import ConversionError
from conversion.roles import can_review
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


@reviewer_required
def review_job(request: HttpRequest, job_id) -> HttpResponse:
    return redirect("review-page", job_id=_review_job(job_id).id, number=1)


@reviewer_required
def review_page(request: HttpRequest, job_id, number: int) -> HttpResponse:
    job = _review_job(job_id)
    if not 1 <= number <= max(job.pages_total, 1):
        raise Http404("No such page.")
    try:
        fragment = review.page_fragment(job=job, number=number)
        figures = review.page_figures(job=job, number=number)
    except ConversionError as exc:
        messages.error(request, exc.message)
        fragment, figures = "", []
    report = downloads.read_report(job)
    findings = [f for f in report.get("findings", []) if f.get("page") in (None, number)]
    html = storage.read_html(job.id)
    token = view_token(job, user=request.user)
    job_review = JobReview.objects.filter(job=job).first()
    page_state = (job_review.page_states or {}).get(str(number), "") if job_review else ""
    context = {
        "job": job,
        "number": number,
        "pages": range(1, job.pages_total + 1),
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
        "html_form": PageHtmlForm(initial={"html": fragment}),
        "page_url": reverse("view-page", kwargs={"token": token, "number": number}),
        "token": token,
        "figures_token": figures_token(job, user=request.user),
        "job_review": job_review,
        "page_state": ReviewState(page_state).label if page_state else "Not reviewed",
        "events": selectors.review_events(job=job)[:100],
        "has_scan": storage.page_image_exists(job.id, number),
    }
    return render(request, "conversion/review_page.html", context)


@reviewer_required
def review_scan(request: HttpRequest, job_id, number: int) -> FileResponse:
    job = _review_job(job_id)
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
    """A reviewer's edit of one page as a view: the form checked, `edit(job=, number=, data=,
    actor=)` run (its event, or None when nothing changed), the outcome said, back to the page."""

    @reviewer_required
    @require_POST
    def view(request: HttpRequest, job_id, number: int) -> HttpResponse:
        job = _review_job(job_id)
        form = form_class(request.POST)
        if not form.is_valid():
            messages.error(request, invalid)
            return _back(job, number)
        try:
            event = edit(job=job, number=number, data=form.cleaned_data, actor=request.user)
        except ConversionError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, saved if event else "Nothing changed.")
        return _back(job, number)

    return view


review_alt = _page_edit(
    AltTextForm, invalid="Write an alt text before saving.", saved="Alt text saved.",
    edit=lambda *, job, number, data, actor: review.review_edit_alt(
        job=job, figure_id=data["figure"], alt=data["alt"], actor=actor),
)  # fmt: skip
review_html = _page_edit(
    PageHtmlForm, invalid="The page HTML is missing.", saved="Page saved (sanitized).",
    edit=lambda *, job, number, data, actor: review.review_edit_page_html(
        job=job, number=number, html=data["html"], actor=actor),
)  # fmt: skip


@reviewer_required
@require_POST
def review_page_decision(request: HttpRequest, job_id, number: int) -> HttpResponse:
    job = _review_job(job_id)
    form = DecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose approve, reject or re-run.")
        return _back(job, number)
    decision, note = form.cleaned_data["decision"], form.cleaned_data["note"]
    try:
        if decision == "rerun":
            dispatch.enqueue_rerun(job=job, number=number, actor=request.user)
            messages.success(
                request, f"Page {number} is being read again: reload this page in a moment."
            )
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
