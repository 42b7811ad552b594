"""API tokens with a lockout, like the site's sign-in (django-axes): an address that sends
AXES_FAILURE_LIMIT wrong tokens is refused for AXES_COOLOFF_TIME, with a message that says so,
whatever token it sends next (issue 17: tokens could be guessed without limit). Counts live in
the shared cache (Redis when a broker is configured), so every web process sees them."""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication


class TokenLockedOut(exceptions.Throttled):
    default_detail = "Too many wrong API tokens from this address."


class LockoutTokenAuthentication(TokenAuthentication):
    def authenticate(self, request):
        address = request.META.get("REMOTE_ADDR", "")
        key = f"axiya:token-failures:{address}"
        cooloff = int(settings.AXES_COOLOFF_TIME.total_seconds())
        if cache.get(key, 0) >= settings.AXES_FAILURE_LIMIT:
            raise TokenLockedOut(
                wait=cooloff,
                detail=(
                    f"Too many wrong API tokens from this address: try again in "
                    f"{cooloff // 60} minutes with a valid token."
                ),
            )
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed:
            cache.add(key, 0, cooloff)
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.set(key, 1, cooloff)
            raise
