"""The REST API, /api/v1: thin views over conversion.services, .review and .selectors."""

from __future__ import annotations

import io
from typing import IO

from django.db import transaction
from django.http import FileResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound, Throttled, ValidationError
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from conversion import dispatch, downloads, review, selectors, services, storage
from conversion.api.exceptions import api_exception_handler, error_body
from conversion.api.parsers import JsonParser
from conversion.api.serializers import (
    BatchCreatedSerializer,
    BatchCreateSerializer,
    BatchRefusedSerializer,
    BatchSerializer,
    ErrorSerializer,
    JobCreatedSerializer,
    JobCreateSerializer,
    JobSerializer,
    job_created,
)
from conversion.api.throttles import UploadRateThrottle, charge_uploads
from conversion.languages import installed_languages
from conversion.models import Batch, Job, JobStatus
from conversion.pipeline.errors import ConversionError
from conversion.pipeline.formats import parse_formats
from conversion.runner import jobs as runner

_ERRORS = {
    401: OpenApiResponse(ErrorSerializer, description="No or a wrong token."),
    404: OpenApiResponse(ErrorSerializer, description="No such job, or not yours."),
}
_ERRORS_403 = OpenApiResponse(ErrorSerializer, description="Not yours to delete (a reviewer's).")
_UPLOAD_ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="A field is missing or invalid."),
    401: _ERRORS[401],
    413: OpenApiResponse(ErrorSerializer, description="The file or its pages are too large."),
    415: OpenApiResponse(ErrorSerializer, description="The file is not a PDF."),
    422: OpenApiResponse(ErrorSerializer, description="The PDF is damaged, empty or encrypted."),
    429: OpenApiResponse(ErrorSerializer, description="Too many uploads; see Retry-After."),
}
# No file of a batch was acceptable: each file's error in error.rejected.
_BATCH_REFUSED = {
    status_code: OpenApiResponse(BatchRefusedSerializer, description=f"{what} (each file's error)")
    for status_code, what in ((413, "Every file is too large"), (415, "No file is a PDF"),
                              (422, "No file could be accepted"))
}  # fmt: skip
_DOWNLOAD_ERRORS = {
    **_ERRORS,
    409: OpenApiResponse(ErrorSerializer, description="The job has not finished, or failed."),
}


def _download(summary: str, media_type: str, schema: object = OpenApiTypes.BINARY, **kw: str):
    """A job's download action (GET /jobs/<id>/<name>/) and its schema: one file of
    `media_type`, or a download error."""

    def wrap(fn):
        documented = extend_schema(
            summary=summary, responses={(200, media_type): schema, **_DOWNLOAD_ERRORS}
        )
        return documented(action(detail=True, methods=["get"], **kw)(fn))

    return wrap


class FirstRendererNegotiation(BaseContentNegotiation):
    """Always JSON (downloads return files directly): no 406 for a client sending Accept: */*."""

    def select_parser(self, request, parsers):
        content_type = request.content_type.split(";")[0].strip().lower()
        for parser in parsers:
            if parser.media_type == content_type:
                return parser
        return None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class PageOutOfRange(APIException):
    status_code = 404
    default_code = "PAGE_OUT_OF_RANGE"


class Pages(PageNumberPagination):
    """DRF's paging, with its own error: a page past the end says how many there are (DRF's
    NotFound read "No such object, or it is not yours.")."""

    def paginate_queryset(self, queryset, request, view=None):
        try:
            return super().paginate_queryset(queryset, request, view)
        except NotFound:
            count = queryset.count()
            pages = max(1, -(-count // self.get_page_size(request)))
            asked = request.query_params.get(self.page_query_param, "")[:20]
            raise PageOutOfRange(
                f"There is no page {asked!r}: pages run from 1 to {pages} "
                f"({count} item{'s' if count != 1 else ''}, {self.get_page_size(request)} a page)."
            ) from None


class ApiMixin:
    renderer_classes = [JSONRenderer]
    pagination_class = Pages
    parser_classes = [MultiPartParser, FormParser, JsonParser]
    content_negotiation_class = FirstRendererNegotiation

    def get_exception_handler(self):
        return api_exception_handler

    def get_throttles(self):
        if getattr(self, "action", None) == "create":
            return [UploadRateThrottle()]
        return []


def _upload(request: Request, *, serializer: type[serializers.Serializer], files: str = "") -> dict:
    """The upload's validated data, booked against the upload throttle: the throttle let the
    request in (room for one file), every file it holds is counted (`files`: the field that
    lists them, else one file)."""
    form = serializer(data=request.data)
    form.is_valid(raise_exception=True)
    data = form.validated_data
    wait = charge_uploads(request.user, len(data[files]) if files else 1)
    if wait is not None:
        raise Throttled(wait=wait)
    return data


@extend_schema(tags=["jobs"])
class JobViewSet(
    ApiMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = JobSerializer

    def get_queryset(self):
        status_filter = self.request.query_params.get("status") or None
        if status_filter and status_filter not in JobStatus.values:
            raise ValidationError({"status": f"Use one of: {', '.join(JobStatus.values)}."})
        return selectors.jobs_for_user(user=self.request.user, status=status_filter).select_related(
            "review"
        )

    def get_object(self) -> Job:
        job = selectors.job_get_for_user(user=self.request.user, job_id=self.kwargs["pk"])
        if job is None:
            raise NotFound()
        return job

    @extend_schema(
        summary="Your jobs, newest first",
        parameters=[
            OpenApiParameter("status", str, enum=JobStatus.values, description="Only this status.")
        ],
        responses={200: JobSerializer(many=True), 401: _ERRORS[401]},
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(
        summary="Convert one PDF",
        request={"multipart/form-data": JobCreateSerializer},
        responses={202: JobCreatedSerializer, **_UPLOAD_ERRORS},
    )
    def create(self, request: Request) -> Response:
        data = _upload(request, serializer=JobCreateSerializer)
        with transaction.atomic():
            job = dispatch.submit(
                runner.job_create(
                    owner=request.user,
                    upload=data["file"],
                    engine=data.get("engine"),
                    language=data.get("language") or None,
                    callback_url=data.get("callback_url") or "",
                    site_url=_site_url(request),
                )
            )
        return Response(job_created(job, request), status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        summary="A job: status, progress, error, links", responses={200: JobSerializer, **_ERRORS}
    )
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(
        summary="Delete a job and every file it wrote (its owner or a superuser only)",
        responses={204: None, 403: _ERRORS_403, **_ERRORS},
    )
    def destroy(self, request, *args, **kwargs):
        services.job_delete(job=self.get_object(), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @_download("The accessible HTML (its images are in the zip, under <name>_files/)", "text/html")
    def html(self, request: Request, pk=None) -> FileResponse:
        job = self.get_object()
        html = downloads.document_html(job)
        if html is None:
            raise review.not_ready(job)
        return _attachment(html, "text/html; charset=utf-8", downloads.html_name(job))

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "formats", str, description="html (default), or with epub and pdf: html,epub,pdf"
            )
        ]
    )
    @_download(
        "A zip: HTML, its images, the report (JSON and HTML), [EPUB, PDF]", "application/zip"
    )
    def zip(self, request: Request, pk=None) -> FileResponse:
        job = self.get_object()
        formats = parse_formats(request.query_params.get("formats"))  # UnknownFormat: 400
        zipped = downloads.job_zip(job=job, formats=formats)
        if zipped is None:
            raise review.not_ready(job)
        return FileResponse(
            zipped,
            content_type="application/zip",
            as_attachment=True,
            filename=downloads.zip_name(job),
        )

    @_download("EPUB 3 of the document as it is now (review edits in)", "application/epub+zip")
    def epub(self, request: Request, pk=None) -> FileResponse:
        return self._format("epub", "application/epub+zip")

    @_download("Tagged PDF (PDF/UA-1) of the document as it is now", "application/pdf")
    def pdf(self, request: Request, pk=None) -> FileResponse:
        return self._format("pdf", "application/pdf")

    def _format(self, fmt: str, media_type: str) -> FileResponse:
        job = self.get_object()
        made = downloads.document_format(job, fmt)
        if made is None:
            raise review.not_ready(job)
        return FileResponse(
            made, content_type=media_type, as_attachment=True,
            filename=downloads.format_name(job, fmt),
        )  # fmt: skip

    @_download("The accessibility report (JSON)", "application/json", OpenApiTypes.OBJECT)
    def report(self, request: Request, pk=None) -> FileResponse:
        job = self.get_object()
        return FileResponse(
            _open_report(job),
            content_type="application/json",
            as_attachment=True,
            filename=downloads.report_json_name(job),
        )

    @_download("The accessibility report as a readable page (HTML)", "text/html",
               url_path="report.html")  # fmt: skip
    def report_html(self, request: Request, pk=None) -> FileResponse:
        job = self.get_object()
        review.require_output(job)
        page = downloads.report_html(job)
        if page is None:
            raise review.NotReady(_NO_REPORT)
        return _attachment(page, "text/html; charset=utf-8", downloads.report_html_name(job))


_NO_REPORT = "The report is not ready yet."


def _open_report(job: Job) -> IO[bytes]:
    review.require_output(job)
    report = storage.open_report(job.id)
    if report is None:
        raise review.NotReady(_NO_REPORT)
    return report


def _attachment(data: bytes, content_type: str, filename: str) -> FileResponse:
    return FileResponse(
        io.BytesIO(data), content_type=content_type, as_attachment=True, filename=filename
    )


@extend_schema(tags=["batches"])
class BatchViewSet(
    ApiMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    serializer_class = BatchSerializer

    def get_queryset(self):
        return selectors.batches_for_user(user=self.request.user)

    def get_object(self) -> Batch:
        batch = self.get_queryset().filter(pk=self.kwargs["pk"]).first()
        if batch is None:
            raise NotFound()
        return batch

    @extend_schema(
        summary="Your batches, newest first",
        responses={200: BatchSerializer(many=True), 401: _ERRORS[401]},
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(summary="A batch and its jobs", responses={200: BatchSerializer, **_ERRORS})
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(
        summary="Convert many PDFs",
        description=(
            "Every acceptable file becomes a job; files refused (not a PDF, damaged, too large) "
            "are listed in `rejected` with their error (kept: GET of the batch lists them too). "
            "When no file is acceptable the request fails, with each file's error in "
            "`error.rejected` and the message (the files' own code and status when they share "
            "one, else FILES_REFUSED, 422)."
        ),
        request={"multipart/form-data": BatchCreateSerializer},
        responses={202: BatchCreatedSerializer, **_UPLOAD_ERRORS, **_BATCH_REFUSED},
    )
    def create(self, request: Request) -> Response:
        data = _upload(request, serializer=BatchCreateSerializer, files="files")
        jobs, rejected, errors = [], [], []
        with transaction.atomic():
            batch = services.batch_create(
                owner=request.user,
                callback_url=data.get("callback_url") or "",
                site_url=_site_url(request),
            )
            for upload in data["files"]:
                try:
                    with transaction.atomic():
                        job = dispatch.submit(
                            runner.job_create(
                                owner=request.user,
                                upload=upload,
                                engine=data.get("engine"),
                                language=data.get("language") or None,
                                batch=batch,
                                site_url=_site_url(request),
                            )
                        )
                except ConversionError as exc:
                    errors.append(exc)
                    rejected.append(
                        {"name": upload.name, "error": {"code": exc.code, "message": exc.message}}
                    )
                else:
                    jobs.append(job_created(job, request))
            if jobs:
                services.batch_set_rejected(batch=batch, rejected=rejected)
            else:
                transaction.set_rollback(True)
        if not jobs and errors:
            return _all_refused(errors, rejected)
        body = {
            "id": batch.id,
            "url": request.build_absolute_uri(reverse("api-batch-detail", kwargs={"pk": batch.id})),
            "jobs": jobs,
            "rejected": rejected,
        }
        return Response(body, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        summary="Every finished job's results in one zip (a folder each, and batch.json)",
        parameters=[
            OpenApiParameter(
                "formats", str, description="html (default), or with epub and pdf: html,epub,pdf"
            )
        ],
        responses={(200, "application/zip"): OpenApiTypes.BINARY, **_ERRORS},
    )
    @action(detail=True, methods=["get"])
    def zip(self, request: Request, pk=None) -> FileResponse:
        batch = self.get_object()
        formats = parse_formats(request.query_params.get("formats"))  # UnknownFormat: 400
        return downloads.batch_zip_download(batch=batch, user=request.user, formats=formats)


def _site_url(request: Request) -> str:
    """The address the client reached this site at: the links of its notifications."""
    return request.build_absolute_uri("/").rstrip("/")


def _all_refused(errors: list[ConversionError], rejected: list[dict]) -> Response:
    """No file of a batch was acceptable: each file's error, not only the first. The code and
    status are the files' own when they share one, else FILES_REFUSED (422)."""
    codes = {exc.code for exc in errors}
    statuses = {exc.http_status for exc in errors}
    code = codes.pop() if len(codes) == 1 else "FILES_REFUSED"
    http_status = statuses.pop() if len(statuses) == 1 else 422
    each = "; ".join(f"{r['name']}: {r['error']['message']} ({r['error']['code']})"
                     for r in rejected)  # fmt: skip
    body = error_body(code, f"No file was accepted. {each}")
    body["error"]["rejected"] = rejected
    return Response(body, status=http_status)


class LanguageSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="BCP 47")
    name = serializers.CharField()


class LanguagesView(ApiMixin, APIView):
    @extend_schema(
        tags=["languages"],
        summary="The languages this server reads (its installed Tesseract packs), by name",
        responses={200: LanguageSerializer(many=True), 401: _ERRORS[401]},
    )
    def get(self, request: Request) -> Response:
        return Response([{"code": code, "name": name} for code, name in installed_languages()])
