"""The web pages: thin, they call services, review and selectors.

Results are shown in a sandboxed frame, from a signed, time-limited URL
(`/view/<token>/document.html`) made for the signed-in user who opened the page. The frame's own
request is a same-site navigation, so it carries the session cookie (SameSite=Lax): the document
opens only for that user, signed in (issue 29). A sandboxed document has an opaque origin, so its
image requests carry no cookie: the document it is served lists its figures under a second,
figures-only link (`figures_token`), which opens that job's images and nothing else.
"""

from __future__ import annotations

import io
import re

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AbstractBaseUser
from django.core import signing
from django.core.exceptions import PermissionDenied
from django.core.paginator import Page, Paginator
from django.db import transaction
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_GET, require_http_methods

from axiya.config import config
from conversion import dispatch, downloads, review, selectors, services, storage
from conversion.api.throttles import charge_uploads
from conversion.forms import UploadForm
from conversion.models import Batch, Job, JobReview
from conversion.notice import with_notice
from conversion.pipeline.errors import ConversionError, error_class
from conversion.pipeline.formats import parse_formats
from conversion.request_limits import throttled_response
from conversion.roles import can_delete
from conversion.runner import jobs as runner

# Results never run script in the site's origin, whatever a scan says.
RESULT_CSP = (
    "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; "
    "frame-ancestors 'self'; form-action 'none'; base-uri 'none'"
)
HOME_PAGE_SIZE = 25
_FIGURE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")
_NO_RESULT = "The result is not ready."
VIEW_SALT = "axiya.view"
FIGURES_SALT = "axiya.view.figures"
_USER_PK = re.compile(r"[0-9]{1,18}")
VIEW_MAX_AGE = 3600  # the page that frames a result makes a fresh link each time it is shown
BATCH_QUEUED = "batch-queued"  # the "N files are queued." message's tag


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
    status = 200
    if bound:
        # The site shares the API's upload budget per user (AXIYA_UPLOAD_RATE), one unit a file:
        # UploadThrottleMiddleware refused an exhausted budget before the body was read.
        if form.is_valid() and charge_uploads(request.user, len(form.cleaned_data["files"])):
            return throttled_response(request)
        if form.is_valid():
            jobs, errors, batch, server_failed = _create_jobs(request, form)
            if jobs:
                for error in errors:
                    messages.error(request, error)
                if batch is None:
                    messages.success(request, f"{jobs[0].original_name} is queued.")
                    target = reverse("job-detail", kwargs={"job_id": jobs[0].id})
                else:
                    # Tagged: the batch page leaves it out once the batch has ended.
                    messages.success(
                        request, f"{len(jobs)} files are queued.", extra_tags=BATCH_QUEUED
                    )
                    target = reverse("batch-detail", kwargs={"batch_id": batch.id})
                if _wants_json(request):
                    return JsonResponse({"redirect": target})
                return redirect(target)
            for error in errors:
                form.add_error("files", error)
            # Nothing was queued because of the server (a full disk, a store down): say so in
            # the status too (503), not as if the files were at fault.
            status = 503 if server_failed else status
        if _wants_json(request):
            errors = [str(e) for errs in form.errors.values() for e in errs]
            return JsonResponse({"errors": errors}, status=max(status, 400))
    return render(
        request,
        "conversion/home.html",
        {"form": form, "jobs": _home_jobs(request)},
        status=status,
    )


def _home_jobs(request: HttpRequest) -> Page:
    jobs = selectors.jobs_for_user(user=request.user).select_related("review")
    return Paginator(jobs, HOME_PAGE_SIZE).get_page(request.GET.get("page"))


def _create_jobs(
    request: HttpRequest, form: UploadForm
) -> tuple[list[Job], list[str], Batch | None, bool]:
    """The jobs made, the files' errors, the batch, and whether a file failed for a reason of
    the server's (an error with a 5xx status), not its own."""
    uploads = form.cleaned_data["files"]
    jobs: list[Job] = []
    errors: list[str] = []
    rejected: list[dict] = []
    server_failed = False
    with transaction.atomic():
        batch = services.batch_create(owner=request.user) if len(uploads) > 1 else None
        for upload in uploads:
            try:
                with transaction.atomic():
                    jobs.append(
                        dispatch.submit(
                            runner.job_create(
                                owner=request.user,
                                upload=upload,
                                engine=form.cleaned_data["engine"] or None,
                                language=form.cleaned_data["language"] or None,
                                batch=batch,
                            )
                        )
                    )
            except ConversionError as exc:
                errors.append(f"{upload.name}: {exc.message} (error {exc.code})")
                rejected.append(
                    {"name": upload.name, "error": {"code": exc.code, "message": exc.message}}
                )
                server_failed = server_failed or exc.http_status >= 500
        if not jobs:
            transaction.set_rollback(True)
        elif batch is not None and rejected:
            services.batch_set_rejected(batch=batch, rejected=rejected)
    return jobs, errors, batch, server_failed


def _own_job(request: HttpRequest, job_id) -> Job:
    job = selectors.job_get_for_user(user=request.user, job_id=job_id)
    if job is None:
        raise Http404("No such job.")
    return job


def view_token(job: Job, *, user: AbstractBaseUser) -> str:
    """A short-lived link to a result for one user: `<user id>.<signature>`. The signature
    covers the job and is keyed on the user's session hash (from their password hash), so it
    dies with a password change, and even the secret key alone cannot mint one; the link opens
    only for that user, signed in, and only what they may still see."""
    return f"{user.pk}.{signing.dumps(str(job.id), salt=_view_salt(user, VIEW_SALT))}"


def figures_token(job: Job, *, user: AbstractBaseUser) -> str:
    """The link under which a served result (or the review page) lists the job's figures: the
    sandboxed frame's image requests carry no cookie, so this one opens without a session, but
    only the job's image files, and it appears only in pages served to `user` signed in."""
    return f"{user.pk}.{signing.dumps(str(job.id), salt=_view_salt(user, FIGURES_SALT))}"


def _view_salt(user: AbstractBaseUser, kind: str) -> str:
    return f"{kind}:{user.pk}:{user.get_session_auth_hash()}"


def _signed_in_as_link_user(request: HttpRequest, token: str) -> None:
    user_pk = token.partition(".")[0]
    if not (request.user.is_authenticated and user_pk == str(request.user.pk)):
        raise PermissionDenied(
            "This link opens only for the user who opened its job page, signed in: sign in and "
            "open the document from its job page."
        )


def _job_from_token(token: str, *, kind: str = VIEW_SALT) -> Job:
    user_pk, _, signed = token.partition(".")
    users = get_user_model().objects.filter(is_active=True)
    # Not str.isdigit: "²" is a digit that int() refuses.
    user = users.filter(pk=int(user_pk)).first() if _USER_PK.fullmatch(user_pk) else None
    if user is None:
        raise Http404("No such link.")
    try:
        job_id = signing.loads(signed, salt=_view_salt(user, kind), max_age=VIEW_MAX_AGE)
    except signing.BadSignature as exc:
        raise Http404("This link has expired: open the document from its job page again.") from exc
    job = selectors.job_get_for_user(user=user, job_id=job_id)
    if job is None:
        raise Http404("No such job.")
    return job


@login_required
def job_detail(request: HttpRequest, job_id) -> HttpResponse:
    job = _own_job(request, job_id)
    token = view_token(job, user=request.user) if storage.output_exists(job.id) else None
    return render(
        request,
        "conversion/job.html",
        {
            "job": job,
            "view_url": reverse("view-html", kwargs={"token": token}) if token else None,
            "review": JobReview.objects.filter(job=job).first(),
            "queue_position": selectors.queue_position(job=job),
            "estimate": estimate_text(selectors.job_estimate(job=job)),
            "deletes_at": selectors.job_expires_at(job=job),
            "retention_days": config().retention_days,
            "file_at_fault": bool(job.error_code) and error_class(job.error_code).caused_by_file,
            "names": _download_names(job),
            # What the EPUB and the PDF hold and how their checks went (report.json `formats`).
            "formats": downloads.read_report(job).get("formats", {}) if token else {},
            "can_delete": can_delete(request.user, job),
        },
    )


def estimate_text(estimate: dict | None) -> str:
    """The estimate (selectors.job_estimate) as people read it, with what it is made of."""
    if estimate is None:
        return ""
    minutes = round(estimate["seconds"] / 60)
    if minutes < 1:
        left = "less than a minute"
    elif minutes < 90:
        left = f"about {minutes} minute{'s' if minutes != 1 else ''}"
    else:
        left = f"about {minutes // 60} h {minutes % 60:02d} min"
    pages = estimate["pages_ahead"] + estimate["pages_left"]
    return (
        f"{left} ({pages} page{'s' if pages != 1 else ''} to read, "
        f"{estimate['pages_ahead']} of them for documents ahead of it, at "
        f"{estimate['seconds_per_page']:.1f} s a page, this server's recent pace)"
    )


def _download_names(job: Job) -> dict:
    return {
        "html": downloads.html_name(job),
        "zip": downloads.zip_name(job),
        "report_json": downloads.report_json_name(job),
        "report_html": downloads.report_html_name(job),
        "epub": downloads.format_name(job, "epub"),
        "pdf": downloads.format_name(job, "pdf"),
    }


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
            "queue_position": selectors.queue_position(job=job),
            "estimate": estimate_text(selectors.job_estimate(job=job)),
            "open_findings": job.open_findings,
            "error": {"code": job.error_code, "message": job.error_message}
            if job.error_code
            else None,
        }
    )


@login_required
def batch_detail(request: HttpRequest, batch_id) -> HttpResponse:
    batch = selectors.batches_for_user(user=request.user).filter(pk=batch_id).first()
    if batch is None:
        raise Http404("No such batch.")
    jobs = list(batch.jobs.order_by("created_at"))
    finished = sum(1 for job in jobs if job.is_finished)
    context = {
        "batch": batch,
        "jobs": jobs,
        "finished": finished,
        "ended": finished == len(jobs),
        "queued_tag": BATCH_QUEUED,
        "zip_name": downloads.batch_zip_name(batch),
    }
    return render(request, "conversion/batch.html", context)


@login_required
def batch_download_zip(request: HttpRequest, batch_id) -> FileResponse:
    """Every finished job's results in one zip (a folder each) with batch.json."""
    batch = selectors.batches_for_user(user=request.user).filter(pk=batch_id).first()
    if batch is None:
        raise Http404("No such batch.")
    try:
        formats = parse_formats(request.GET.get("formats"))
    except ValueError as exc:
        return HttpResponse(str(exc), status=400, content_type="text/plain; charset=utf-8")
    return downloads.batch_zip_download(batch=batch, user=request.user, formats=formats)


def _result_html(job: Job) -> FileResponse:
    html = storage.read_html(job.id)
    if html is None:
        raise Http404(_NO_RESULT)
    report = _report_url(job)
    html = downloads.with_report_at(
        with_notice(html, downloads.job_notice(job, report_href=report)), report
    )
    response = FileResponse(
        io.BytesIO(html.encode("utf-8")), content_type="text/html; charset=utf-8"
    )
    response["Content-Security-Policy"] = RESULT_CSP
    return response


def _report_url(job: Job) -> str:
    return reverse("job-report-html", kwargs={"job_id": job.id})


def _framed(html: str, job: Job, user: AbstractBaseUser) -> HttpResponse:
    """A result for the sandboxed frame: its figures linked under the figures-only link."""
    token = figures_token(job, user=user)
    prefix = reverse("view-file", kwargs={"token": token, "name": "x"}).removesuffix("/x")
    html = downloads.with_report_at(html, _report_url(job))
    response = HttpResponse(
        downloads.html_with_files_at(html, prefix), content_type="text/html; charset=utf-8"
    )
    response["Content-Security-Policy"] = RESULT_CSP
    return response


@login_required
def job_html(request: HttpRequest, job_id) -> FileResponse:
    return _result_html(_own_job(request, job_id))


@login_required
def job_file(request: HttpRequest, job_id, name: str) -> FileResponse:
    job = _own_job(request, job_id)
    return _figure_file(job, name)


def _figure_file(job: Job, name: str) -> FileResponse:
    # Figure files are named by the pipeline (figure-3-p2.png): anything else (a NUL byte, a
    # separator, dots) names no file.
    if not _FIGURE_NAME.fullmatch(name):
        raise Http404("No such file.")
    figure = storage.open_figure(job.id, name)
    if figure is None:
        raise Http404("No such file.")
    return FileResponse(figure, filename=name)


def _download(data: bytes, *, content_type: str, filename: str, attach: bool = True):
    return FileResponse(
        io.BytesIO(data), content_type=content_type, as_attachment=attach, filename=filename
    )


@login_required
def job_report(request: HttpRequest, job_id) -> FileResponse:
    job = _own_job(request, job_id)
    report = storage.open_report(job.id)
    if report is None:
        raise Http404("The report is not ready.")
    download = request.GET.get("download") == "1"
    return FileResponse(
        report,
        content_type="application/json",
        as_attachment=download,
        filename=downloads.report_json_name(job),
    )


@login_required
def job_report_html(request: HttpRequest, job_id) -> FileResponse:
    job = _own_job(request, job_id)
    page = downloads.report_html(job)
    if page is None:
        raise Http404("The report is not ready.")
    response = _download(
        page,
        content_type="text/html; charset=utf-8",
        filename=downloads.report_html_name(job),
        attach=request.GET.get("download") == "1",
    )
    response["Content-Security-Policy"] = RESULT_CSP
    return response


@login_required
def job_download_html(request: HttpRequest, job_id) -> FileResponse:
    job = _own_job(request, job_id)
    html = downloads.document_html(job)
    if html is None:
        raise Http404(_NO_RESULT)
    return _download(
        html,
        content_type="text/html; charset=utf-8",
        filename=downloads.html_name(job),
    )


_MEDIA_TYPES = {"epub": "application/epub+zip", "pdf": "application/pdf"}


@login_required
def job_download_format(request: HttpRequest, job_id, fmt: str) -> FileResponse:
    """The EPUB or the tagged PDF, made from the document as it is now (review edits in)."""
    job = _own_job(request, job_id)
    if fmt not in _MEDIA_TYPES:
        raise Http404("No such format.")
    made = downloads.document_format(job, fmt)
    if made is None:
        raise Http404(_NO_RESULT)
    return FileResponse(
        made, content_type=_MEDIA_TYPES[fmt], as_attachment=True,
        filename=downloads.format_name(job, fmt),
    )  # fmt: skip


@login_required
def job_download_zip(request: HttpRequest, job_id) -> FileResponse:
    job = _own_job(request, job_id)
    try:
        formats = parse_formats(request.GET.get("formats"))
    except ValueError as exc:
        return HttpResponse(str(exc), status=400, content_type="text/plain; charset=utf-8")
    zipped = downloads.job_zip(job=job, formats=formats)
    if zipped is None:
        raise Http404(_NO_RESULT)
    return FileResponse(
        zipped,
        content_type="application/zip",
        as_attachment=True,
        filename=downloads.zip_name(job),
    )


@login_required
@require_http_methods(["GET", "POST"])
def job_delete(request: HttpRequest, job_id) -> HttpResponse:
    """GET asks for confirmation (the job page links here); POST deletes."""
    job = _own_job(request, job_id)
    if not can_delete(request.user, job):
        raise PermissionDenied("Only the owner of a document deletes it.")
    if request.method == "GET":
        return render(request, "conversion/job_delete.html", {"job": job})
    name = job.original_name
    services.job_delete(job=job, actor=request.user)
    messages.success(request, f"{name} and all its files are deleted.")
    return redirect("home")


# --- signed views of a result (for the sandboxed frames) -----------------------------------------


@xframe_options_sameorigin  # the site frames results; nothing else may
@require_GET
def view_html(request: HttpRequest, token: str) -> HttpResponse:
    _signed_in_as_link_user(request, token)
    job = _job_from_token(token)
    html = storage.read_html(job.id)
    if html is None:
        raise Http404(_NO_RESULT)
    # The frame is sandboxed: its links cannot reach the report (the job page links it).
    return _framed(with_notice(html, downloads.job_notice(job)), job, request.user)


@xframe_options_sameorigin  # the site frames results; nothing else may
@require_GET
def view_file(request: HttpRequest, token: str, name: str) -> FileResponse:
    # No session here: the sandboxed frame's image requests carry none (figures_token).
    return _figure_file(_job_from_token(token, kind=FIGURES_SALT), name)


@xframe_options_sameorigin  # the site frames results; nothing else may
@require_GET
def view_page(request: HttpRequest, token: str, number: int) -> HttpResponse:
    _signed_in_as_link_user(request, token)
    job = _job_from_token(token)
    try:
        # ?show=<selector>: a finding's spot, marked and scrolled to (the review page's link).
        html = review.page_document(job=job, number=number, show=request.GET.get("show", ""))
    except ConversionError as exc:
        raise Http404(exc.message) from exc
    return _framed(html, job, request.user)
