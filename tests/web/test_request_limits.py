"""conversion.request_limits: a request over AXIYA_MAX_REQUEST_MB is refused from its
Content-Length before its body is read, the upload handler stops a body that grows past the cap,
and the upload throttle decides before anything parses the files (issue 17)."""

from __future__ import annotations

import io
import socket
import time
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.files.uploadhandler import TemporaryFileUploadHandler
from django.http.multipartparser import MultiPartParser
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from conversion.request_limits import RequestCapUploadHandler
from tests.reliability.pdfs import text_pdf

GIB = 1 << 30
SENT_BEFORE_ANSWER = 256 * 1024  # what the client sends, then it waits for the answer


def _post_huge(base: str, path: str, headers: dict[str, str]) -> tuple[str, int]:
    """POST a body announced as 1 GiB, send 256 KiB of it, read the answer. Returns the status
    line and the bytes of body sent before the answer came."""
    url = urlsplit(base)
    sock = socket.create_connection((url.hostname, url.port), timeout=10)
    head = [f"POST {path} HTTP/1.1", f"Host: {url.hostname}", f"Content-Length: {GIB}",
            "Content-Type: multipart/form-data; boundary=xyz",
            *(f"{k}: {v}" for k, v in headers.items())]  # fmt: skip
    sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
    chunk = b"--xyz\r\n" + b"x" * (64 * 1024 - 7)
    sent = 0
    try:
        while sent < SENT_BEFORE_ANSWER:
            sock.sendall(chunk)
            sent += len(chunk)
        status = sock.makefile("rb").readline().decode().strip()  # times out if unanswered
    finally:
        sock.close()
    return status, sent


@pytest.mark.django_db(transaction=True)
def test_a_1_gib_body_is_refused_before_1_mib_of_it_is_read(live_server):
    user = get_user_model().objects.create_user("hugo", password="pw-hugo-12345")
    token = Token.objects.create(user=user)
    for path, headers in [("/api/v1/jobs", {"Authorization": f"Token {token.key}"}),
                          ("/api/v1/batches", {"Authorization": f"Token {token.key}"}),
                          ("/", {})]:  # fmt: skip
        started = time.perf_counter()
        status, sent = _post_huge(live_server.url, path, headers)
        assert status.startswith("HTTP/1.1 413"), (path, status)
        assert sent < 1 << 20 and time.perf_counter() - started < 10


def _file_part_of_8_mib() -> bytes:
    return (b"--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\n"
            b"Content-Type: application/pdf\r\n\r\n" + b"%PDF" + b"x" * (8 << 20)
            + b"\r\n--xyz--\r\n")  # fmt: skip


def _parse(rf, body: bytes, content_length: int) -> tuple[io.BytesIO, dict]:
    """Django's multipart parser behind our handler, as the site's upload handlers are set."""
    stream = io.BytesIO(body)
    request = rf.post("/")
    meta = {"CONTENT_TYPE": "multipart/form-data; boundary=xyz",
            "CONTENT_LENGTH": str(content_length)}  # fmt: skip
    handlers = [RequestCapUploadHandler(request), TemporaryFileUploadHandler(request)]
    _, files = MultiPartParser(meta, stream, handlers).parse()
    return stream, files


def test_the_upload_handler_stops_a_body_that_grows_past_the_cap(settings, rf):
    settings.AXIYA_MAX_REQUEST_MB = 1
    body = _file_part_of_8_mib()
    stream, files = _parse(rf, body, 1000)  # a length that lies
    assert not files  # the upload stopped...
    assert stream.tell() < 2 << 20  # ...after about the cap, not 8 MiB


def test_a_body_announced_over_the_cap_stops_at_its_first_chunk_without_an_error(settings, rf):
    """The handler alone (no RequestSizeLimitMiddleware in front): a Content-Length over the
    cap used to raise out of Django's parser (a 500); now the upload stops at once."""
    settings.AXIYA_MAX_REQUEST_MB = 1
    body = _file_part_of_8_mib()
    stream, files = _parse(rf, body, len(body))
    assert not files
    assert stream.tell() < 1 << 20


@pytest.mark.django_db
def test_the_throttle_decides_before_the_files_are_parsed(settings, tmp_path):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"uploads": "1/hour"},
    }
    cache.clear()
    user = get_user_model().objects.create_user("tess", password="pw-tess-12345")
    api = APIClient()
    api.force_authenticate(user)
    with open(text_pdf(tmp_path / "a.pdf"), "rb") as fh:
        assert api.post("/api/v1/jobs", {"file": fh}, format="multipart").status_code == 202
    # A body that no parser can read: refused for the budget, not for the format.
    broken = b'--xyz\r\nContent-Disposition: form-data; name="file"; filename="b.pdf"\r\n'
    for client, path in ((api, "/api/v1/jobs"), (_signed_in(user), "/")):
        response = client.generic(
            "POST", path, broken, content_type="multipart/form-data; boundary=xyz"
        )
        assert response.status_code == 429, (path, response.status_code)
    cache.clear()


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client
