"""Uploads are throttled per user, one unit per file (a batch of 20 files counts 20), for the API
and the site alike (AXIYA_UPLOAD_RATE).

The decision comes before the body is parsed (issue 17: the throttle parsed every file first):
UploadRateThrottle (the API) and the site's early check refuse a user with no budget left from
the history alone; once the request is parsed, charge_uploads() books one unit per file and
refuses the request if they do not all fit.

The history lives in the shared cache (Redis when a broker is configured). While the cache is
unreachable the throttle fails open, with a warning in the log (issue 29: every upload answered
500): an upload made during a Redis outage is accepted into the outbox and starts when Redis is
back, and the request size limits still bound it.
"""

from __future__ import annotations

import logging

from django.contrib.auth.models import AbstractBaseUser
from redis.exceptions import RedisError
from rest_framework.settings import api_settings
from rest_framework.throttling import UserRateThrottle

log = logging.getLogger(__name__)
# What an unreachable cache raises (django's RedisCache: redis-py's errors; a socket's OSError).
CACHE_ERRORS = (RedisError, OSError)


class UploadRateThrottle(UserRateThrottle):
    scope = "uploads"

    def get_rate(self) -> str | None:
        # Read at request time, so a changed setting (tests, reload) takes effect.
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def load_history(self, user: AbstractBaseUser) -> bool:
        """Read the user's history; False when uploads are not throttled (or the cache is
        unreachable)."""
        self.rate = self.get_rate()
        if self.rate is None or not user.is_authenticated:
            return False
        self.num_requests, self.duration = self.parse_rate(self.rate)
        self.key = self.cache_format % {"scope": self.scope, "ident": user.pk}
        try:
            self.history = self.cache.get(self.key, [])
        except CACHE_ERRORS as error:
            log.warning("upload throttle off: the cache is unreachable (%s)", error)
            return False
        self.now = self.timer()
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()
        return True

    def allow_request(self, request, view) -> bool:
        """Room for one more file? Decided from the history: the body is not parsed."""
        if not self.load_history(request.user):
            return True
        return len(self.history) < self.num_requests or self.throttle_failure()

    def charge(self, user: AbstractBaseUser, files: int) -> bool:
        """Book `files` units; False (nothing booked) when they do not all fit."""
        if not self.load_history(user):
            return True
        if len(self.history) + files > self.num_requests:
            return False
        self.history[:0] = [self.now] * files
        try:
            self.cache.set(self.key, self.history, self.duration)
        except CACHE_ERRORS as error:
            log.warning("upload throttle: %d files not booked, the cache is unreachable (%s)",
                        files, error)  # fmt: skip
        return True


def upload_allowed(user: AbstractBaseUser) -> bool:
    """The site's early check: room for at least one more file."""
    throttle = UploadRateThrottle()
    return not throttle.load_history(user) or len(throttle.history) < throttle.num_requests


def charge_uploads(user: AbstractBaseUser, files: int) -> int | None:
    """Book the files of a parsed request. None when booked; else seconds to wait."""
    throttle = UploadRateThrottle()
    if throttle.charge(user, files):
        return None
    return max(1, int(throttle.wait() or 1))
