"""The API page of a signed-in user: their API token, their webhook secret and whether they want
an e-mail when a job or batch ends (issue 33).

A token or a secret is shown in full once, on the page that follows its creation (kept in the
session for that one page), and masked afterwards (its first characters): a page left open, a
screen shared or a cached copy shows no usable key. Lost: make a new one (the old one stops
working at once)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from rest_framework.authtoken.models import Token

from axiya.config import config
from conversion import services

_FRESH = "axiya.fresh-secret"  # the session key of a key shown once
SHOWN_CHARS = 4  # of a masked key


def _masked(key: str) -> str:
    return f"{key[:SHOWN_CHARS]}{'•' * 8}"


@login_required
@require_http_methods(["GET", "POST"])
def account_api(request: HttpRequest) -> HttpResponse:
    user = request.user
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "token":
            Token.objects.filter(user=user).delete()
            key = Token.objects.create(user=user).key
            request.session[_FRESH] = {"what": "token", "key": key}
        elif action == "secret":
            key = services.account_rotate_secret(user=user)
            request.session[_FRESH] = {"what": "secret", "key": key}
        elif action == "email":
            wanted = request.POST.get("notify_email") == "on"
            services.account_set_notify_email(user=user, notify_email=wanted)
            messages.success(
                request,
                "You get an e-mail when a job or batch ends."
                if wanted
                else "You get no e-mail when a job or batch ends.",
            )
        return redirect("account-api")
    fresh = request.session.pop(_FRESH, None) or {}
    token = Token.objects.filter(user=user).first()
    account = services.account_get(user=user)
    context = {
        "token": token,
        "token_masked": _masked(token.key) if token else "",
        "secret_masked": _masked(account.webhook_secret),
        "fresh": fresh,
        "account": account,
        "mail_on": bool(config().webhooks.mail_host),
        "allowed_hosts": config().webhooks.allowed_hosts,
    }
    return render(request, "conversion/account_api.html", context)
