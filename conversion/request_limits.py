"""Limits a request meets before its body is read (issue 17: the site streamed a 1 GiB body to a
temp file before refusing it, the API batch pre-check allowed ~9.8 GiB, and the upload throttle
parsed every file before it decided).

- RequestSizeLimitMiddleware answers 413 from the declared Content-Length alone, before any
  other middleware (sessions, CSRF) or view touches the body, and closes the connection.
- RequestCapUploadHandler, the first upload handler, counts what the multipart parser really
  reads and stops at the same cap: the streaming guard for a body whose length was not checked
  above (a test client, another server in front).

The cap is AXIYA_MAX_REQUEST_MB: one setting for every request (a site form of several files,
an API batch). Fields other than files stay under Django's DATA_UPLOAD_MAX_MEMORY_SIZE.

- UploadThrottleMiddleware refuses a site upload (429) when the user has no upload left, from the
  throttle's history alone, before the CSRF check parses the form; the API's throttle does the
  same in DRF (conversion/api/throttles.py).
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.urls import Resolver404, resolve

from axiya.config import config
from conversion.api.exceptions import error_body
from conversion.api.throttles import upload_allowed

SITE_UPLOAD_VIEWS = {"home"}  # url names whose POST is an upload


def max_request_bytes() -> int:
    return config().limits.max_request_mb * 1024 * 1024


def too_large_message() -> str:
    return (
        f"The request is larger than this server accepts ({config().limits.max_request_mb} MiB "
        f"in all; each PDF at most {config().limits.max_upload_mb} MiB). Send fewer or smaller "
        "files at a time."
    )


def too_large_response(request: HttpRequest) -> HttpResponse:
    """413, as JSON under /api/ and as a page on the site; the unread body ends the connection."""
    if request.path.startswith("/api/"):
        response = JsonResponse(error_body("REQUEST_TOO_LARGE", too_large_message()), status=413)
    else:
        html = render_to_string(
            "conversion/error.html",
            {"title": "Upload too large", "message": too_large_message()},
            request=None,
        )
        response = HttpResponse(html, status=413)
    return _closing(request, response)


def _closing(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """Ask the server to close the connection instead of reading the rest of the unread body
    before the next request. Gunicorn honours `Connection: close` from the application; the
    standard library's server (runserver, the test server) forbids that header, and closes
    anyway."""
    if request.META.get("SERVER_SOFTWARE", "").startswith("gunicorn"):
        response["Connection"] = "close"
    return response


class RequestSizeLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = -1
        if length < 0:
            return HttpResponse("Bad Content-Length.", status=400, content_type="text/plain")
        if length > max_request_bytes():
            return too_large_response(request)
        return self.get_response(request)


class RequestCapUploadHandler(FileUploadHandler):
    """Passes every chunk on to the next handler, counting them; past the cap the upload stops
    and the connection is reset (nothing more is read)."""

    def handle_raw_input(self, input_data, META, content_length, boundary, encoding=None):
        # Announced over the cap (nothing above refused it): stop at the first chunk. Raising
        # StopUpload here would escape Django's parser, which catches it only around the chunks
        # (a 500, seen with RequestSizeLimitMiddleware left out).
        self.received = max_request_bytes() if content_length > max_request_bytes() else 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        self.received += len(raw_data)
        if self.received > max_request_bytes():
            raise StopUpload(connection_reset=True)
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None


def throttled_response(request: HttpRequest) -> HttpResponse:
    message = "Too many uploads in a short time: wait a while and try again (THROTTLED)."
    if request.headers.get("x-requested-with") == "XMLHttpRequest":
        return JsonResponse({"errors": [message]}, status=429)
    html = render_to_string(
        "conversion/error.html", {"title": "Too many uploads", "message": message}, request=None
    )
    return _closing(request, HttpResponse(html, status=429))


class UploadThrottleMiddleware:
    """After AuthenticationMiddleware: a site upload from a user with no upload left is refused
    before anything reads its body."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "POST" and request.user.is_authenticated:
            try:
                name = resolve(request.path_info).url_name
            except Resolver404:
                name = None
            if name in SITE_UPLOAD_VIEWS and not upload_allowed(request.user):
                return throttled_response(request)
        return self.get_response(request)
