"""Inline mode (no broker, no beat): requests trigger the hourly housekeeping."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from conversion.dispatch import housekeeping_due


class InlineHousekeepingMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        housekeeping_due()
        return self.get_response(request)
