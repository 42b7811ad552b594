"""conversion.webhooks: which callback URLs are called (no SSRF), the signature, one POST to a
real loopback receiver (no redirect followed)."""

from __future__ import annotations

import pytest

from conversion import webhooks
from conversion.pipeline.errors import CallbackRefused
from tests.webhook_receiver import Receiver


@pytest.fixture
def receiver():
    server = Receiver()
    yield server
    server.stop()


@pytest.mark.parametrize(
    ("allowed", "url", "why"),
    [
        ([], "http://127.0.0.1:9/hook", "AXIYA_WEBHOOK_ALLOWED_HOSTS (none"),
        (["hooks.example.org"], "http://evil.example.org/hook", "does not call evil.example.org"),
        # A listed name that resolves to a loopback address: refused unless the address is listed.
        (["localhost"], "http://localhost:9/hook", "private or local address"),
        (["127.0.0.1"], "ftp://127.0.0.1/hook", "http:// or https://"),
        (["127.0.0.1"], "http://user:pw@127.0.0.1/hook", "user name or password"),
        (["127.0.0.1"], "http://127.0.0.1:99999/hook", "not a valid URL"),
        (["169.254.0.0/16"], "http://169.254.169.254/latest", "does not call 169.254.169.254"),
        (["127.0.0.1"], "http://127.0.0.1/" + "a" * 2000, "longer than"),
    ],
)
def test_check_url_refuses(settings, allowed, url, why):
    settings.AXIYA_WEBHOOK_ALLOWED_HOSTS = allowed
    with pytest.raises(CallbackRefused) as refused:
        webhooks.check_url(url)
    assert refused.value.code == "CALLBACK_URL_REFUSED" and refused.value.http_status == 400
    assert why in refused.value.message


@pytest.mark.parametrize(
    ("allowed", "url", "addresses"),
    [
        (["127.0.0.1"], "http://127.0.0.1:8123/hook?x=1", ("127.0.0.1",)),
        (["localhost", "127.0.0.0/8", "::1"], "http://LOCALHOST:8123/hook", None),
        (["::1"], "http://[::1]:8123/hook", ("::1",)),
    ],
)
def test_check_url_allows_listed_hosts_and_addresses(settings, allowed, url, addresses):
    settings.AXIYA_WEBHOOK_ALLOWED_HOSTS = allowed
    target = webhooks.check_url(url)
    assert target.port == 8123 and target.path.startswith("/hook")
    if addresses:
        assert target.addresses == addresses


def test_signature_is_hmac_sha256_of_the_exact_body():
    import hashlib
    import hmac

    body = b'{"id":"x","status":"done"}'
    expected = hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    assert webhooks.signature("s3cret", body) == f"sha256={expected}"
    assert webhooks.signature_matches("s3cret", body, f"sha256={expected}")
    assert not webhooks.signature_matches("s3cret", body + b" ", f"sha256={expected}")
    assert not webhooks.signature_matches("other", body, f"sha256={expected}")


def test_post_reaches_a_loopback_receiver(settings, receiver):
    settings.AXIYA_WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    target = webhooks.check_url(receiver.url("/hook?k=1"))
    assert webhooks.post(target, b'{"a":1}', {"X-Axiya-Event": "job.ended"}) == 200
    (got,) = receiver.requests
    assert got.path == "/hook?k=1" and got.body == b'{"a":1}'
    assert got.headers["Content-Type"] == "application/json"
    assert got.headers["X-Axiya-Event"] == "job.ended"


def test_post_follows_no_redirect(settings, receiver):
    settings.AXIYA_WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    elsewhere = Receiver()
    try:
        receiver.statuses = [302]
        receiver.redirect_to = elsewhere.url("/stolen")
        assert webhooks.post(webhooks.check_url(receiver.url()), b"{}", {}) == 302
        assert elsewhere.requests == []
    finally:
        elsewhere.stop()


def test_post_without_a_receiver_raises_oserror(settings):
    from bench.processes import free_port

    settings.AXIYA_WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    settings.AXIYA_WEBHOOK_TIMEOUT_S = 2.0
    with pytest.raises(OSError):
        webhooks.post(webhooks.check_url(f"http://127.0.0.1:{free_port()}/"), b"{}", {})
