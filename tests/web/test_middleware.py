"""conversion.middleware and the site's headers: a Content-Security-Policy on every app page,
`Cache-Control: private, no-store` on documents and pages, long caching left to static files;
lockouts that every web process shares (the database)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from django.conf import settings as dj_settings

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


# Two web processes (manage.py shell, each its own cache), real requests to the API: one sends
# wrong tokens up to the lockout, then the other sends one more from the same address.
_WRONG_TOKENS = """
from django.test import Client
client = Client(REMOTE_ADDR={address!r}, HTTP_HOST="localhost")
print(*(client.get("/api/v1/jobs", HTTP_AUTHORIZATION="Token wrong").status_code
        for _ in range({count})))
"""


@pytest.mark.parametrize("shared", [True, False], ids=["broker", "no-broker"])
def test_a_lockout_counted_by_one_web_process_holds_in_another(
    shared, request, tmp_path, transactional_db
):
    """The token lockout (like django-axes) counts in the database: every web process sees it,
    with a broker or without one (issue 29: it counted in the cache, so without a broker each
    process counted alone, and with one a Redis restart forgot the counts)."""
    broker = request.getfixturevalue("redis_url") if shared else ""
    db = dj_settings.DATABASES["default"]["NAME"]  # the test database (a file): its tokens
    env = {"PATH": "/usr/bin:/bin", "AXIYA_DATA_DIR": str(tmp_path), "AXIYA_BROKER_URL": broker,
           "DJANGO_SETTINGS_MODULE": "axiya.settings", "DATABASE_URL": f"sqlite:///{db}",
           "AXIYA_LOGIN_FAILURES": "2"}  # fmt: skip
    address = "10.0.0.1" if shared else "10.0.0.2"

    def web_process(count: int) -> list[int]:
        code = _WRONG_TOKENS.format(address=address, count=count)
        shell = [sys.executable, "manage.py", "shell", "--no-imports", "-c", code]
        result = subprocess.run(shell, cwd=ROOT, env=env, capture_output=True, text=True,
                                timeout=120)  # fmt: skip
        assert result.returncode == 0, result.stderr
        return [int(status) for status in result.stdout.split()]

    assert web_process(3) == [401, 401, 429]  # locked out after 2 wrong tokens
    assert web_process(1) == [429]
