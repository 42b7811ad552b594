"""The web pages: thin, they call services, review and selectors.

Results are shown in a sandboxed frame. The frame loads them from a signed, time-limited URL
(`/view/<token>/document.html`): a sandboxed document has an opaque origin, so the browser sends
no session cookie with its image requests; the signature is what authorizes them.
"""

from __future__ import annotations

from functools import wraps
from pathlib import Path

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core import signing
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from conversion import dispatch, review, selectors, services, storage
from conversion.api.throttles import UploadRateThrottle
from conversion.forms import AltTextForm, DecisionForm, PageHtmlForm, ReviewFilterForm, UploadForm
from conversion.models import Batch, Job, JobReview, ReviewState
from conversion.pipeline.errors import ConversionError

# Results never run script in the site's origin, whatever a scan says.
RESULT_CSP = (
    "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; "
    "frame-ancestors 'self'; form-action 'none'; base-uri 'none'"
)
VIEW_SALT = "axiya.view"
VIEW_MAX_AGE = 12 * 3600


def _wants_json(request: HttpRequest) -> bool:
    return request.headers.get("x-requested-with") == "XMLHttpRequest"


@login_required
@require_http_methods(["GET", "POST"])
def home(request: HttpRequest) -> HttpResponse:
    bound = request.method == "POST"
    files = request.FILES.copy() if bound else None
    if files is not None and not files.getlist("files") and files.getlist("file"):
        files.setlist("files", files.getlist("file"))  # the single-file field of earlier forms
    form = UploadForm(request.POST if bound else None, files)
    if bound:
        # The site shares the API's upload budget per user (AXIYA_UPLOAD_RATE), one unit a file.
        if not UploadRateThrottle().allow_request(request, None):
            message = "Too many uploads in a short time: wait a while and try again (THROTTLED)."
            if _wants_json(request):
                return JsonResponse({"errors": [message]}, status=429)
            messages.error(request, message)
            jobs = selectors.jobs_for_user(user=request.user).select_related("review")[:50]
            context = {"form": UploadForm(), "jobs": jobs}
            return render(request, "conversion/home.html", context, status=429)
        if form.is_valid():
            jobs, errors, batch = _create_jobs(request, form)
            if jobs:
                for error in errors:
                    messages.error(request, error)
                if batch is None:
                    messages.success(request, f"{jobs[0].original_name} is queued.")
                    target = reverse("job-detail", kwargs={"job_id": jobs[0].id})
                else:
                    messages.success(request, f"{len(jobs)} files are queued.")
                    target = reverse("batch-detail", kwargs={"batch_id": batch.id})
                if _wants_json(request):
                    return JsonResponse({"redirect": target})
                return redirect(target)
            for error in errors:
                form.add_error("files", error)
        if _wants_json(request):
            errors = [str(e) for errs in form.errors.values() for e in errs]
            return JsonResponse({"errors": errors}, status=400)
    jobs = selectors.jobs_for_user(user=request.user).select_related("review")[:50]
    return render(request, "conversion/home.html", {"form": form, "jobs": jobs})


def _create_jobs(
    request: HttpRequest, form: UploadForm
) -> tuple[list[Job], list[str], Batch | None]:
    uploads = form.cleaned_data["files"]
    jobs: list[Job] = []
    errors: list[str] = []
    with transaction.atomic():
        batch = services.batch_create(owner=request.user) if len(uploads) > 1 else None
        for upload in uploads:
            try:
                with transaction.atomic():
                    jobs.append(
                        dispatch.job_submit(
                            owner=request.user,
                            upload=upload,
                            engine=form.cleaned_data["engine"] or None,
                            language=form.cleaned_data["language"] or None,
                            batch=batch,
                        )
                    )
            except ConversionError as exc:
                errors.append(f"{upload.name}: {exc.message} (error {exc.code})")
        if not jobs:
            transaction.set_rollback(True)
    return jobs, errors, batch


def _own_job(request: HttpRequest, job_id) -> Job:
    job = selectors.job_get_for_user(user=request.user, job_id=job_id)
    if job is None:
        raise Http404("No such job.")
    return job


def view_token(job: Job) -> str:
    return signing.dumps(str(job.id), salt=VIEW_SALT)


def _job_from_token(token: str) -> Job:
    try:
        job_id = signing.loads(token, salt=VIEW_SALT, max_age=VIEW_MAX_AGE)
    except signing.BadSignature as exc:
        raise Http404("This link has expired: open the document from its job page again.") from exc
    job = Job.objects.filter(pk=job_id).first()
    if job is None:
        raise Http404("No such job.")
    return job


@login_required
def job_detail(request: HttpRequest, job_id) -> HttpResponse:
    job = _own_job(request, job_id)
    token = view_token(job) if storage.html_path(job.id).exists() else None
    return render(
        request,
        "conversion/job.html",
        {
            "job": job,
            "view_url": reverse("view-html", kwargs={"token": token}) if token else None,
            "review": JobReview.objects.filter(job=job).first(),
        },
    )


@login_required
def job_status(request: HttpRequest, job_id) -> JsonResponse:
    job = _own_job(request, job_id)
    return JsonResponse(
        {
            "status": job.status,
            "status_display": job.get_status_display(),
            "finished": job.is_finished,
            "pages_done": job.pages_done,
            "pages_total": job.pages_total,
            "error": {"code": job.error_code, "message": job.error_message}
            if job.error_code
            else None,
        }
    )


@login_required
def batch_detail(request: HttpRequest, batch_id) -> HttpResponse:
    qs = Batch.objects.all() if request.user.is_staff else Batch.objects.filter(owner=request.user)
    batch = qs.filter(pk=batch_id).first()
    if batch is None:
        raise Http404("No such batch.")
    jobs = batch.jobs.order_by("created_at")
    return render(request, "conversion/batch.html", {"batch": batch, "jobs": jobs})


def _result_response(path: Path, content_type: str) -> FileResponse:
    response = FileResponse(path.open("rb"), content_type=content_type)
    response["Content-Security-Policy"] = RESULT_CSP
    return response


@login_required
def job_html(request: HttpRequest, job_id) -> FileResponse:
    job = _own_job(request, job_id)
    path = storage.html_path(job.id)
    if not path.exists():
        raise Http404("The result is not ready.")
    return _result_response(path, "text/html; charset=utf-8")


@login_required
def job_file(request: HttpRequest, job_id, name: str) -> FileResponse:
    job = _own_job(request, job_id)
    return _figure_file(job, name)


def _figure_file(job: Job, name: str) -> FileResponse:
    base = storage.files_dir(job.id).resolve()
    path = (base / name).resolve()
    if base not in path.parents or not path.is_file():
        raise Http404("No such file.")
    return FileResponse(path.open("rb"))


@login_required
def job_report(request: HttpRequest, job_id) -> FileResponse:
    job = _own_job(request, job_id)
    path = storage.report_path(job.id)
    if not path.exists():
        raise Http404("The report is not ready.")
    download = request.GET.get("download") == "1"
    name = f"{Path(job.original_name).stem or 'document'}.report.json"
    return FileResponse(
        path.open("rb"), content_type="application/json", as_attachment=download, filename=name
    )


@login_required
def job_download_html(request: HttpRequest, job_id) -> FileResponse:
    job = _own_job(request, job_id)
    path = storage.html_path(job.id)
    if not path.exists():
        raise Http404("The result is not ready.")
    name = f"{Path(job.original_name).stem or 'document'}.html"
    return FileResponse(
        path.open("rb"), content_type="text/html; charset=utf-8", as_attachment=True, filename=name
    )


@login_required
def job_download_zip(request: HttpRequest, job_id) -> FileResponse:
    job = _own_job(request, job_id)
    try:
        archive = review.job_zip(job=job)
    except ConversionError as exc:
        raise Http404(exc.message) from exc
    return FileResponse(
        archive, content_type="application/zip", as_attachment=True, filename=review.zip_name(job)
    )


@login_required
@require_POST
def job_delete(request: HttpRequest, job_id) -> HttpResponse:
    job = _own_job(request, job_id)
    name = job.original_name
    services.job_delete(job=job)
    messages.success(request, f"{name} and all its files are deleted.")
    return redirect("home")


# --- signed views of a result (for the sandboxed frames) -----------------------------------------


@xframe_options_sameorigin  # the site frames results; nothing else may
@require_GET
def view_html(request: HttpRequest, token: str) -> FileResponse:
    job = _job_from_token(token)
    path = storage.html_path(job.id)
    if not path.exists():
        raise Http404("The result is not ready.")
    return _result_response(path, "text/html; charset=utf-8")


@xframe_options_sameorigin  # the site frames results; nothing else may
@require_GET
def view_file(request: HttpRequest, token: str, name: str) -> FileResponse:
    return _figure_file(_job_from_token(token), name)


@xframe_options_sameorigin  # the site frames results; nothing else may
@require_GET
def view_page(request: HttpRequest, token: str, number: int) -> HttpResponse:
    job = _job_from_token(token)
    try:
        html = review.page_document(job=job, number=number)
    except ConversionError as exc:
        raise Http404(exc.message) from exc
    response = HttpResponse(html, content_type="text/html; charset=utf-8")
    response["Content-Security-Policy"] = RESULT_CSP
    return response


# --- review dashboard (staff only) --------------------------------------------------------------


def staff_required(view):
    @wraps(view)
    @login_required
    def wrapper(request: HttpRequest, *args, **kwargs):
        if not request.user.is_staff:
            raise PermissionDenied("The review dashboard is for staff.")
        return view(request, *args, **kwargs)

    return wrapper


@staff_required
def review_queue(request: HttpRequest) -> HttpResponse:
    form = ReviewFilterForm(request.GET or None)
    jobs = form.queue()[:200]
    return render(request, "conversion/review_queue.html", {"form": form, "jobs": jobs})


def _review_job(job_id) -> Job:
    job = Job.objects.select_related("owner").filter(pk=job_id).first()
    if job is None:
        raise Http404("No such job.")
    return job


@staff_required
def review_job(request: HttpRequest, job_id) -> HttpResponse:
    return redirect("review-page", job_id=_review_job(job_id).id, number=1)


@staff_required
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
    report = _read_report(job)
    findings = [f for f in report.get("findings", []) if f.get("page") in (None, number)]
    token = view_token(job)
    job_review = JobReview.objects.filter(job=job).first()
    page_state = (job_review.page_states or {}).get(str(number), "") if job_review else ""
    context = {
        "job": job,
        "number": number,
        "pages": range(1, job.pages_total + 1),
        "findings": findings,
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
        "job_review": job_review,
        "page_state": ReviewState(page_state).label if page_state else "Not reviewed",
        "events": selectors.review_events(job=job)[:100],
        "has_scan": storage.page_image(job.id, number).exists(),
    }
    return render(request, "conversion/review_page.html", context)


def _read_report(job: Job) -> dict:
    import json

    path = storage.report_path(job.id)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


@staff_required
def review_scan(request: HttpRequest, job_id, number: int) -> FileResponse:
    job = _review_job(job_id)
    path = storage.page_image(job.id, number)
    if not path.exists():
        raise Http404("No scan for this page.")
    return FileResponse(path.open("rb"), content_type="image/png")


def _back(job: Job, number: int | None) -> HttpResponse:
    if number is None:
        return redirect("review-job", job_id=job.id)
    return redirect("review-page", job_id=job.id, number=number)


@staff_required
@require_POST
def review_alt(request: HttpRequest, job_id, number: int) -> HttpResponse:
    job = _review_job(job_id)
    form = AltTextForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Write an alt text before saving.")
        return _back(job, number)
    try:
        event = review.review_edit_alt(
            job=job, figure_id=form.cleaned_data["figure"], alt=form.cleaned_data["alt"],
            actor=request.user,
        )  # fmt: skip
    except ConversionError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "Alt text saved." if event else "Nothing changed.")
    return _back(job, number)


@staff_required
@require_POST
def review_html(request: HttpRequest, job_id, number: int) -> HttpResponse:
    job = _review_job(job_id)
    form = PageHtmlForm(request.POST)
    if not form.is_valid():
        messages.error(request, "The page HTML is missing.")
        return _back(job, number)
    try:
        event = review.review_edit_page_html(
            job=job, number=number, html=form.cleaned_data["html"], actor=request.user
        )
    except ConversionError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "Page saved (sanitized)." if event else "Nothing changed.")
    return _back(job, number)


@staff_required
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
                job=job, number=number, state=state, actor=request.user, note=note
            )
            messages.success(request, f"Page {number}: {state.label.lower()}.")
    except ConversionError as exc:
        messages.error(request, exc.message)
    return _back(job, number)


@staff_required
@require_POST
def review_job_decision(request: HttpRequest, job_id) -> HttpResponse:
    job = _review_job(job_id)
    form = DecisionForm(request.POST)
    number = request.POST.get("page")
    back_to = int(number) if number and number.isdigit() else None
    if not form.is_valid() or form.cleaned_data["decision"] == "rerun":
        messages.error(request, "Choose approve or reject.")
        return _back(job, back_to)
    state = (
        ReviewState.APPROVED if form.cleaned_data["decision"] == "approve" else ReviewState.REJECTED
    )
    try:
        review.review_set_job_state(
            job=job, state=state, actor=request.user, note=form.cleaned_data["note"]
        )
    except ConversionError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"{job.original_name}: {state.label.lower()}.")
    return _back(job, back_to)
