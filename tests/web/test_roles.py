"""conversion.roles: ordinary users by default; reviewer, staff and superuser only when named;
reviewing is the Reviewers group's permission, not staff status (issue 17)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command

from conversion.roles import REVIEW_PERMISSION, REVIEWERS, can_review
from conversion.runner import jobs as runner
from tests.reliability.pdfs import text_pdf


def _user(name: str):
    return get_user_model().objects.get(username=name)  # fresh: no cached permissions


@pytest.mark.django_db
def test_create_local_user_makes_an_ordinary_user_by_default(client, capsys):
    call_command("create_local_user", "olga", "--password", "pw-olga-12345",
                 "--site", "http://127.0.0.1:18999")  # fmt: skip
    out = capsys.readouterr().out
    assert "(created; ordinary user)" in out
    assert "Sign in:   http://127.0.0.1:18999/accounts/login/" in out  # make demo PORT=18999
    olga = _user("olga")
    assert not (olga.is_staff or olga.is_superuser or can_review(olga))
    client.force_login(olga)
    assert client.get("/review/").status_code == 403
    assert client.get("/admin/").status_code == 302  # to the admin sign-in: no admin access


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("flags", "staff", "superuser", "reviewer"),
    [
        (["--reviewer"], False, False, True),
        (["--staff"], True, False, False),
        (["--superuser"], True, True, True),  # a superuser holds every permission
        (["--reviewer", "--staff"], True, False, True),
    ],
)
def test_roles_are_exactly_those_named(flags, staff, superuser, reviewer):
    call_command("create_local_user", "pat", "--password", "pw-pat-123456", *flags)
    pat = _user("pat")
    assert (pat.is_staff, pat.is_superuser, can_review(pat)) == (staff, superuser, reviewer)
    # Run again without flags: the roles go (the command resets the user).
    call_command("create_local_user", "pat", "--keep-password")
    pat = _user("pat")
    assert not (pat.is_staff or pat.is_superuser or can_review(pat))


@pytest.mark.django_db
def test_reviewers_are_a_group_with_the_permission_and_see_every_job(client, tmp_path):
    group = Group.objects.get(name=REVIEWERS)  # made by the migration
    assert REVIEW_PERMISSION.split(".")[1] in group.permissions.values_list("codename", flat=True)
    owner = get_user_model().objects.create_user("owen", password="pw-owen-12345")
    job = runner.job_create(owner=owner, upload=text_pdf(tmp_path / "a.pdf"))
    call_command("create_api_token", "rae", "--reviewer")
    rae = _user("rae")
    assert rae.groups.filter(name=REVIEWERS).exists() and not rae.is_staff
    client.force_login(rae)
    assert client.get(f"/jobs/{job.id}/").status_code == 200
    staff_only = get_user_model().objects.create_user("stan", password="x", is_staff=True)
    client.force_login(staff_only)
    assert client.get(f"/jobs/{job.id}/").status_code == 404  # staff status sees nothing more
