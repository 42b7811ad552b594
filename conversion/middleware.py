"""Site-wide middleware: inline housekeeping, and no shared caching of anything dynamic."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control

from conversion.dispatch import housekeeping_due


class InlineHousekeepingMiddleware:
    """Inline mode (no broker, no beat): requests trigger the hourly housekeeping."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        housekeeping_due()
        return self.get_response(request)


class PrivateCacheMiddleware:
    """`Cache-Control: private, no-store` on every response the app itself makes (documents,
    downloads, job pages, the API): they hold someone's files, so no proxy or shared cache may
    keep them, and the browser should not write them to disk. Placed after WhiteNoise, so static
    files keep their long-lived caching."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Cache-Control" not in response:
            patch_cache_control(response, private=True, no_store=True)
        return response
