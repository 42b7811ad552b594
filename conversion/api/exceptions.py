"""Every API error has one shape: {"error": {"code": "...", "message": "..."}} and a 4xx/5xx."""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from conversion.pipeline.errors import ConversionError

log = logging.getLogger(__name__)

_CODES: dict[type, str] = {
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


def api_exception_handler(exc: Exception, context: dict) -> Response:
    if isinstance(exc, ConversionError):
        return Response(error_body(exc.code, exc.message), status=exc.http_status)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
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
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        message = f"Too many uploads: wait {int(exc.wait) + 1} s and retry (see Retry-After)."
    response.data = error_body(code, message)
    return response
