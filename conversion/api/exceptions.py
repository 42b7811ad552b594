"""Every API error has one shape: {"error": {"code": "...", "message": "..."}} and a 4xx/5xx."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.exceptions import (
    PermissionDenied as DjangoPermissionDenied,
)
from django.core.exceptions import (
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from conversion.api.authentication import TokenLockedOut
from conversion.pipeline.errors import DISK_FULL_ERRNOS, ConversionError, storage_error

log = logging.getLogger(__name__)

_CODES: dict[type, str] = {
    TokenLockedOut: "LOCKED_OUT",  # before Throttled, its base
    exceptions.NotAuthenticated: "NOT_AUTHENTICATED",
    exceptions.AuthenticationFailed: "AUTHENTICATION_FAILED",
    exceptions.PermissionDenied: "PERMISSION_DENIED",
    exceptions.NotFound: "NOT_FOUND",
    exceptions.MethodNotAllowed: "METHOD_NOT_ALLOWED",
    exceptions.UnsupportedMediaType: "UNSUPPORTED_MEDIA_TYPE",
    exceptions.Throttled: "THROTTLED",
    exceptions.ParseError: "PARSE_ERROR",
    exceptions.ValidationError: "INVALID_REQUEST",
    exceptions.NotAcceptable: "NOT_ACCEPTABLE",
}
_MESSAGES: dict[type, str] = {
    exceptions.NotAuthenticated: (
        "Send your API token in the header `Authorization: Token <key>` "
        "(create one with `python manage.py create_api_token USERNAME`)."
    ),
    exceptions.NotFound: "No such object, or it is not yours.",
}


def error_body(code: str, message: str) -> dict:
    return {"error": {"code": code, "message": message}}


def _flatten(detail) -> str:
    if isinstance(detail, dict):
        parts = []
        for key, value in detail.items():
            text = _flatten(value)
            parts.append(text if key == "non_field_errors" else f"{key}: {text}")
        return " ".join(parts)
    if isinstance(detail, list):
        return " ".join(_flatten(item) for item in detail)
    return str(detail)


def _refused_request(exc: Exception) -> Response | None:
    """Django's own refusals of a request body (over a limit of settings.py) in the API shape:
    they are the client's doing, never a 500."""
    if isinstance(exc, RequestDataTooBig):
        message = (
            "The request's fields are larger than this server accepts "
            f"({settings.DATA_UPLOAD_MAX_MEMORY_SIZE // 2**20} MiB without the files): send "
            "the PDF as a multipart file."
        )
        return Response(error_body("REQUEST_TOO_LARGE", message), status=413)
    if isinstance(exc, TooManyFilesSent):
        message = f"Too many files: send at most {settings.DATA_UPLOAD_MAX_NUMBER_FILES} at once."
        return Response(error_body("TOO_MANY_FILES", message), status=400)
    if isinstance(exc, TooManyFieldsSent):
        message = (
            f"Too many form fields: at most {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} are read."
        )
        return Response(error_body("TOO_MANY_FIELDS", message), status=400)
    return None


def api_exception_handler(exc: Exception, context: dict) -> Response:
    if isinstance(exc, OSError) and exc.errno in DISK_FULL_ERRNOS:
        exc = storage_error(exc)  # Django spooling a large upload to a full disk
    if isinstance(exc, ConversionError):
        return Response(error_body(exc.code, exc.message), status=exc.http_status)
    refused = _refused_request(exc)
    if refused is not None:
        return refused
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = drf_exception_handler(exc, context)
    if response is None:
        log.exception("API error", exc_info=exc)
        return Response(
            error_body("INTERNAL_ERROR", "The server failed on this request; it has been logged."),
            status=status.HTTP_500_INTERNAL_SERVER_ERROR,
        )
    code = next(
        (c for cls, c in _CODES.items() if isinstance(exc, cls)),
        str(getattr(exc, "default_code", "error")).upper(),
    )
    message = _MESSAGES.get(type(exc)) or _flatten(getattr(exc, "detail", str(exc)))
    if isinstance(exc, exceptions.Throttled) and not isinstance(exc, TokenLockedOut) and exc.wait:
        message = f"Too many uploads: wait {int(exc.wait) + 1} s and retry (see Retry-After)."
    response.data = error_body(code, message)
    return response
