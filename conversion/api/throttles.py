"""Uploads are throttled per user, one unit per file (a batch of 20 files counts 20)."""

from __future__ import annotations

from rest_framework.settings import api_settings
from rest_framework.throttling import UserRateThrottle


class UploadRateThrottle(UserRateThrottle):
    scope = "uploads"

    def get_rate(self) -> str | None:
        # Read at request time, so a changed setting (tests, reload) takes effect.
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request, view) -> bool:
        self.rate = self.get_rate()
        if self.rate is None:
            return True
        self.num_requests, self.duration = self.parse_rate(self.rate)
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        files = len(request.FILES.getlist("files")) or 1
        self.history = self.cache.get(self.key, [])
        self.now = self.timer()
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()
        if len(self.history) + files > self.num_requests:
            return self.throttle_failure()
        for _ in range(files):
            self.history.insert(0, self.now)
        self.cache.set(self.key, self.history, self.duration)
        return True
