"""The API token lockout (conversion.api.authentication): per presented token, and per address
at a much higher limit (issue 29). With Redis restarted or down: tests/reliability/
test_redis_outage.py."""

from __future__ import annotations

import time
from datetime import timedelta

from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

NAT = "203.0.113.7"  # one address: the clients behind a proxy or a NAT


def token_client(token: str, address: str = NAT) -> APIClient:
    client = APIClient(REMOTE_ADDR=address)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def good_token(name: str) -> str:
    user = get_user_model().objects.create_user(name, password=f"pw-{name}-12345")
    return Token.objects.create(user=user).key


def test_a_token_refused_too_often_is_locked_out_with_a_clear_message(db, settings):
    settings.AXES_COOLOFF_TIME = timedelta(seconds=1)
    revoked = token_client("f" * 40)
    codes = [revoked.get("/api/v1/jobs").status_code for _ in range(settings.AXES_FAILURE_LIMIT)]
    assert codes == [401] * settings.AXES_FAILURE_LIMIT
    response = revoked.get("/api/v1/jobs")
    assert response.status_code == 429
    error = response.json()["error"]
    assert error["code"] == "LOCKED_OUT" and "wrong API tokens" in error["message"]
    assert int(response["Retry-After"]) >= 1


def test_one_clients_bad_token_does_not_lock_out_another_behind_the_same_address(db, settings):
    """Issue 29: the lockout was keyed by address alone: 5 bad requests from one client behind a
    NAT locked every API client there out for 15 minutes."""
    good = token_client(good_token("nora"))
    bad = token_client("0" * 40)
    for _ in range(3 * settings.AXES_FAILURE_LIMIT):  # a client retrying a bad token in a loop
        assert bad.get("/api/v1/jobs").status_code in (401, 429)
    assert bad.get("/api/v1/jobs").status_code == 429
    assert good.get("/api/v1/jobs").status_code == 200
    # Elsewhere, too.
    assert token_client(good_token("otto"), "198.51.100.9").get("/api/v1/jobs").status_code == 200


def test_many_different_wrong_tokens_lock_out_their_address(db, settings):
    """Guessing stays throttled: AXIYA_TOKEN_ADDRESS_FAILURES different wrong tokens from one
    address lock it out, even for a valid token; another address is not affected."""
    settings.AXIYA_TOKEN_ADDRESS_FAILURES = 12
    for n in range(settings.AXIYA_TOKEN_ADDRESS_FAILURES):
        assert token_client(f"{n:040d}").get("/api/v1/jobs").status_code == 401
    token = good_token("pia")
    response = token_client(token).get("/api/v1/jobs")
    assert response.status_code == 429
    assert "from this address" in response.json()["error"]["message"]
    assert token_client(token, "198.51.100.9").get("/api/v1/jobs").status_code == 200


def test_the_lock_lifts_after_the_cooloff(db, settings):
    settings.AXES_COOLOFF_TIME = timedelta(seconds=1)
    bad = token_client("e" * 40)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        bad.get("/api/v1/jobs")
    assert bad.get("/api/v1/jobs").status_code == 429
    time.sleep(1.1)
    assert bad.get("/api/v1/jobs").status_code == 401
