"""Reads. A user sees only their own jobs; staff see all."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from conversion.models import Job, JobStatus


def jobs_for_user(*, user: AbstractBaseUser, status: str | None = None) -> QuerySet[Job]:
    qs = Job.objects.all() if user.is_staff else Job.objects.filter(owner=user)
    if status:
        qs = qs.filter(status=status)
    return qs


def job_get_for_user(*, user: AbstractBaseUser, job_id) -> Job | None:
    return jobs_for_user(user=user).filter(pk=job_id).first()


def jobs_for_review() -> QuerySet[Job]:
    return Job.objects.filter(status=JobStatus.NEEDS_REVIEW)
