"""The site's own 403, 404 and 500 pages (issue 33): the site's frame (navigation, one main
landmark, a heading), the reason a view gave (a PermissionDenied's or an Http404's message is
written for people), and a way on. Under /api/ the API middleware answers in JSON instead.
"""

from __future__ import annotations

import logging

from django.http import HttpRequest, HttpResponse
from django.template import loader

log = logging.getLogger(__name__)
TEMPLATE = "error_page.html"
_PAGES = {
    403: ("You may not open this page", "You do not have access to this page."),
    404: ("Page not found", "There is nothing at this address, or it is not yours."),
    500: ("Something went wrong on the server", "The server failed on this request; it has been "
          "logged. Try again in a moment; if it fails again, tell your administrator."),
}  # fmt: skip
# A page that cannot even be rendered with the site's frame (the database is down): still a
# page with a main landmark and a way home.
_BARE_500 = (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width, initial-scale=1">'
    "<title>Server error – Axiya</title></head><body>"
    '<header><nav aria-label="Site"><a href="/">Axiya</a></nav></header>'
    '<main id="content"><h1>Something went wrong on the server</h1>'
    "<p>The server failed on this request; it has been logged. Try again in a moment.</p>"
    "</main></body></html>"
)


def _reason(exception: BaseException | None) -> str:
    """A view's own message (PermissionDenied("Only the owner ..."), Http404("No such file."));
    "" for Django's own (a resolver's 404 carries a dict of the routes tried)."""
    if exception is None or not exception.args or not isinstance(exception.args[0], str):
        return ""
    return exception.args[0].strip()


def _page(request: HttpRequest, status: int, reason: str = "") -> HttpResponse:
    title, default = _PAGES[status]
    context = {"status": status, "title": title, "message": reason or default}
    body = loader.render_to_string(TEMPLATE, context, request=request)
    return HttpResponse(body, status=status)


def permission_denied(request: HttpRequest, exception: BaseException | None = None):
    return _page(request, 403, _reason(exception))


def page_not_found(request: HttpRequest, exception: BaseException | None = None):
    return _page(request, 404, _reason(exception))


def server_error(request: HttpRequest) -> HttpResponse:
    try:
        return _page(request, 500)
    except Exception:  # the frame itself failed (the database, a template): the bare page
        log.exception("the 500 page could not be rendered")
        return HttpResponse(_BARE_500, status=500)
