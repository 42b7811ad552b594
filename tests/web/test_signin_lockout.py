"""Sign-in (django-axes) locks out a user name at an address after repeated failures, with a
clear message; the lock holds even for the right password (issue 17: 40 wrong passwords, then
the right one signed in). API tokens: tests/api/test_token_lockout.py."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client


@pytest.fixture
def axes_on(settings, db):
    settings.AXES_ENABLED = True
    cache.clear()
    yield settings
    cache.clear()


def test_wrong_passwords_lock_the_sign_in_with_a_clear_message(axes_on):
    get_user_model().objects.create_user("lena", password="pw-lena-correct")
    client = Client()
    for _ in range(axes_on.AXES_FAILURE_LIMIT - 1):
        response = client.post("/accounts/login/", {"username": "lena", "password": "wrong"})
        assert response.status_code == 200  # the form again, with its error
    response = client.post("/accounts/login/", {"username": "lena", "password": "wrong"})
    assert response.status_code == 429
    right = client.post("/accounts/login/", {"username": "lena", "password": "pw-lena-correct"})
    assert right.status_code == 429 and b"too many wrong passwords" in right.content.lower()
    assert "_auth_user_id" not in client.session
    # Another user name from the same address is not locked.
    get_user_model().objects.create_user("omar", password="pw-omar-correct")
    ok = client.post("/accounts/login/", {"username": "omar", "password": "pw-omar-correct"})
    assert ok.status_code == 302
