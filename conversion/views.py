"""The web pages: thin, they call services and selectors."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from conversion import selectors, services, storage
from conversion.forms import UploadForm
from conversion.pipeline.errors import ConversionError

# Results never run script in the site's origin, whatever a scan says.
RESULT_CSP = "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'"


@login_required
@require_http_methods(["GET", "POST"])
def home(request: HttpRequest) -> HttpResponse:
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            job = services.job_create(
                owner=request.user,
                upload=form.cleaned_data["file"],
                engine=form.cleaned_data["engine"] or None,
                language=form.cleaned_data["language"] or None,
            )
        except ConversionError as exc:
            form.add_error("file", f"{exc.message} (error {exc.code})")
        else:
            messages.success(request, f"{job.original_name} is queued.")
            return redirect("job-detail", job_id=job.id)
    jobs = selectors.jobs_for_user(user=request.user)[:50]
    return render(request, "conversion/home.html", {"form": form, "jobs": jobs})


def _own_job(request: HttpRequest, job_id):
    job = selectors.job_get_for_user(user=request.user, job_id=job_id)
    if job is None:
        raise Http404("No such job.")
    return job


@login_required
def job_detail(request: HttpRequest, job_id) -> HttpResponse:
    job = _own_job(request, job_id)
    return render(request, "conversion/job.html", {"job": job})


@login_required
def job_status(request: HttpRequest, job_id) -> JsonResponse:
    job = _own_job(request, job_id)
    return JsonResponse(
        {
            "status": job.status,
            "pages_done": job.pages_done,
            "pages_total": job.pages_total,
            "error": {"code": job.error_code, "message": job.error_message}
            if job.error_code
            else None,
        }
    )


@login_required
def job_html(request: HttpRequest, job_id) -> FileResponse:
    job = _own_job(request, job_id)
    path = storage.html_path(job.id)
    if not path.exists():
        raise Http404("The result is not ready.")
    response = FileResponse(path.open("rb"), content_type="text/html; charset=utf-8")
    response["Content-Security-Policy"] = (
        "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'"
    )
    return response


@login_required
def job_file(request: HttpRequest, job_id, name: str) -> FileResponse:
    job = _own_job(request, job_id)
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
    return FileResponse(path.open("rb"), content_type="application/json")
