"""Every error under /api/ in the API's one shape, {"error": {"code", "message"}}, whoever
answered: Django's 404 for a path no route matches (a malformed job id), a 405 from a plain view,
a 403 from the CSRF check, a 413 or 400 from request parsing, a 500. DRF views already answer in
that shape; their responses pass through untouched."""

from __future__ import annotations

import json
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

from conversion.api.exceptions import error_body

API_PREFIX = "/api/"
_ERRORS = {
    400: ("BAD_REQUEST", "The request could not be read: check its format and try again."),
    403: ("PERMISSION_DENIED", "You may not do this."),
    404: ("NOT_FOUND", "No such API path or object: the reference is at /api/v1/docs."),
    413: ("REQUEST_TOO_LARGE", "The request is larger than this server accepts."),
    500: ("INTERNAL_ERROR", "The server failed on this request; it has been logged."),
}


def _in_api_shape(response: HttpResponse) -> bool:
    if not response.get("Content-Type", "").startswith("application/json"):
        return False
    if getattr(response, "streaming", False):
        return True
    try:
        body = json.loads(response.content)
    except ValueError:
        return False
    return isinstance(body, dict) and isinstance(body.get("error"), dict)


class ApiJsonErrorsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not request.path.startswith(API_PREFIX) or response.status_code < 400:
            return response
        if _in_api_shape(response):
            return response
        status = response.status_code
        if status == 405:
            allowed = response.get("Allow", "")
            code, message = (
                "METHOD_NOT_ALLOWED",
                (
                    f"{request.method} is not allowed here"
                    + (f"; use {allowed}." if allowed else ".")
                ),
            )
        else:
            code, message = _ERRORS.get(
                status, (f"HTTP_{status}", f"The request failed (HTTP {status}).")
            )
        replacement = JsonResponse(error_body(code, message), status=status)
        for header in ("Allow", "Retry-After", "WWW-Authenticate"):
            if header in response:
                replacement[header] = response[header]
        return replacement
