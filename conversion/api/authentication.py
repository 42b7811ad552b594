"""API tokens with a lockout, like the site's sign-in (django-axes), counted in the database
(conversion.models.TokenFailure): every web process sees the same counts, and a Redis outage or
restart neither breaks token requests nor resets the counts (issue 29).

Two counts, each lapsing AXES_COOLOFF_TIME after its last failure:
- per presented token (a hash of it): a token refused AXES_FAILURE_LIMIT times is locked out. A
  client with a revoked or mistyped token locks out itself, not the others behind its address
  (a proxy, a NAT): their tokens are other tokens.
- per address, at the much higher AXIYA_TOKEN_ADDRESS_FAILURES: guessing many different tokens
  stays throttled. A locked-out token's further attempts are refused unexamined and not counted,
  so a client retrying a bad token in a loop cannot exhaust its address's count.
"""

from __future__ import annotations

import hashlib

from axes.helpers import get_client_ip_address
from django.conf import settings
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication, get_authorization_header

from conversion import selectors, services


class TokenLockedOut(exceptions.Throttled):
    default_detail = "Too many wrong API tokens."


class LockoutTokenAuthentication(TokenAuthentication):
    def authenticate(self, request):
        header = get_authorization_header(request)
        scheme = header.split()[:1]
        if not scheme or scheme[0].lower() != self.keyword.lower().encode():
            return None  # no token: session authentication, or none (as DRF decides)
        token_key = "token:" + hashlib.sha256(header).hexdigest()[:40]
        address_key = f"address:{get_client_ip_address(request) or ''}"
        counts = selectors.token_failures(keys=[token_key, address_key])
        cooloff = settings.AXES_COOLOFF_TIME
        minutes = max(1, int(cooloff.total_seconds()) // 60)
        if counts.get(token_key, 0) >= settings.AXES_FAILURE_LIMIT:
            raise TokenLockedOut(
                wait=cooloff.total_seconds(),
                detail=(
                    f"Too many wrong API tokens: this token was refused "
                    f"{settings.AXES_FAILURE_LIMIT} times. Send a valid token, or try again in "
                    f"{minutes} minutes."
                ),
            )
        if counts.get(address_key, 0) >= settings.AXIYA_TOKEN_ADDRESS_FAILURES:
            raise TokenLockedOut(
                wait=cooloff.total_seconds(),
                detail=(
                    f"Too many wrong API tokens from this address: try again in {minutes} "
                    f"minutes with a valid token."
                ),
            )
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed:
            services.token_failure_add(keys=[token_key, address_key], cooloff=cooloff)
            raise
