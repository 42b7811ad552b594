"""conversion.middleware and the site's headers: a Content-Security-Policy on every app page,
`Cache-Control: private, no-store` on documents and pages, long caching left to static files;
one shared cache (Redis) when a broker is configured."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

PAGES = ["/", "/review/", "/api/v1/docs", "/accounts/login/"]


@pytest.mark.django_db
def test_app_pages_carry_a_content_security_policy(reviewer_client, job):
    for url in [*PAGES, f"/jobs/{job.id}/", f"/review/{job.id}/pages/1/"]:
        response = reviewer_client.get(url)
        assert response.status_code == 200, url
        policy = response["Content-Security-Policy"]
        assert "default-src 'self'" in policy and "script-src 'self'" in policy, url
        assert "object-src 'none'" in policy and "base-uri 'none'" in policy, url
    # A result keeps its own sandbox policy.
    result = reviewer_client.get(f"/jobs/{job.id}/result/document.html")
    assert result["Content-Security-Policy"].startswith("sandbox")


@pytest.mark.django_db
def test_documents_are_private_and_not_stored(reviewer_client, job):
    for url in [f"/jobs/{job.id}/result/document.html", f"/jobs/{job.id}/download.html",
                f"/jobs/{job.id}/download.zip", f"/jobs/{job.id}/report.json",
                f"/jobs/{job.id}/", "/", f"/api/v1/jobs/{job.id}/html"]:  # fmt: skip
        response = reviewer_client.get(url)
        assert response.status_code == 200, url
        control = response["Cache-Control"]
        assert "private" in control and "no-store" in control, (url, control)
    static = reviewer_client.get("/static/axiya/site.css")
    assert "no-store" not in static.get("Cache-Control", "")


@pytest.mark.parametrize(
    ("broker", "backend"),
    [("redis://127.0.0.1:6390/0", "RedisCache"), ("", "LocMemCache")],
)
def test_throttles_share_redis_when_a_broker_is_configured(broker, backend, tmp_path):
    code = "from django.conf import settings; print(settings.CACHES['default']['BACKEND'])"
    env = {"PATH": "/usr/bin:/bin", "AXIYA_DATA_DIR": str(tmp_path), "AXIYA_BROKER_URL": broker,
           "DJANGO_SETTINGS_MODULE": "axiya.settings"}  # fmt: skip
    result = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.stdout.strip().endswith(backend), result.stderr
