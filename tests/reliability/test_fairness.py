"""Issue 17, item 6, Celery mode: one user's many jobs must not hold up another user's one job.
Each owner's oldest page goes first, owners taking turns (conversion.dispatch.tasks: message
priorities from the owner's line). The inline runner's turns are tested in tests/test_recovery.py.

All jobs are queued while no worker runs, so the broker alone decides the order: without the
priorities a single worker takes them in the order sent, and the second user's job ends last.
"""

from __future__ import annotations

import time

import pytest
from django.contrib.auth import get_user_model

from conversion import dispatch, selectors
from conversion.models import Job
from conversion.runner import jobs as runner
from tests.reliability.pdfs import text_pdf

pytestmark = pytest.mark.slow
MANY = 6


def test_each_owners_oldest_job_goes_first_in_celery_mode(workers_on, redis_url, tmp_path):
    workers = workers_on(redis_url)
    many, one = (get_user_model().objects.create_user(n, password=f"pw-{n}-12345")
                 for n in ("mara", "olu"))  # fmt: skip
    jobs_many = [
        dispatch.submit(runner.job_create(owner=many, upload=text_pdf(tmp_path / f"m{n}.pdf")))
        for n in range(MANY)
    ]
    job_one = dispatch.submit(runner.job_create(owner=one, upload=text_pdf(tmp_path / "o.pdf")))
    # The owner's line: mara's k-th job has k pages ahead of it, olu's only job none.
    assert [selectors.owner_pages_ahead(job_id=j.id) for j in jobs_many] == list(range(MANY))
    assert selectors.owner_pages_ahead(job_id=job_one.id) == 0
    workers.start()
    ids = [j.id for j in [*jobs_many, job_one]]
    deadline = time.time() + 240
    while Job.objects.filter(pk__in=ids, finished_at__isnull=True).exists():
        assert time.time() < deadline, workers.log_text()
        time.sleep(0.5)
    order = list(
        Job.objects.filter(pk__in=ids).order_by("finished_at").values_list("pk", flat=True)
    )
    # Without fairness: 6 of mara's jobs end first. With it, olu's job ends right after mara's
    # oldest (both are first in their owner's line); allow one more for a tie in the broker.
    assert order.index(job_one.id) <= 2, [str(pk) for pk in order]
    assert all(j.is_finished for j in Job.objects.filter(pk__in=ids))
