"""The site's own 403, 404 and 500 pages (conversion/error_views.py): the site's navigation, one
main landmark, the reason a view gave; JSON under /api/ as before."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from django.contrib.auth import get_user_model
from django.test import RequestFactory

from conversion import error_views

pytestmark = pytest.mark.django_db


def _frame(response) -> BeautifulSoup:
    soup = BeautifulSoup(response.content, "html.parser")
    assert len(soup.find_all("main")) == 1
    assert soup.find("nav", attrs={"aria-label": "Site"}) is not None
    assert len(soup.find_all("h1")) == 1
    return soup


def test_a_404_is_the_sites_page(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    soup = _frame(response)
    assert soup.h1.get_text() == "Page not found"
    assert soup.find("a", string="Go to the conversion page") is not None


def test_a_404_says_the_views_reason(client):
    get_user_model().objects.create_user("zoe", password="pw-zoe-12345")
    client.login(username="zoe", password="pw-zoe-12345")
    response = client.get("/jobs/00000000-0000-0000-0000-000000000000/")
    assert response.status_code == 404
    assert "No such job." in _frame(response).main.get_text()


def test_a_403_keeps_its_reason(client):
    get_user_model().objects.create_user("zoe", password="pw-zoe-12345")
    client.login(username="zoe", password="pw-zoe-12345")
    response = client.get("/review/")
    assert response.status_code == 403
    soup = _frame(response)
    assert "The review dashboard is for reviewers." in soup.main.get_text()
    assert "Signed in as" in soup.header.get_text()  # the site's frame, for the signed-in user


def test_a_500_is_the_sites_page():
    request = RequestFactory().get("/")
    response = error_views.server_error(request)
    assert response.status_code == 500
    soup = BeautifulSoup(response.content, "html.parser")
    assert soup.find("main") is not None and "server" in soup.h1.get_text()


def test_the_api_still_answers_in_json(client):
    response = client.get("/api/v1/no-such-thing/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"
