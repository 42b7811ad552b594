"""Reads. A user sees only their own jobs and batches; reviewers see all (conversion.roles)."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import F, IntegerField, Q, QuerySet, Sum
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce
from django.utils import timezone

from axiya.config import config
from conversion import storage
from conversion.models import (
    Batch,
    Job,
    JobStatus,
    Notification,
    OutboxMessage,
    Page,
    PageStatus,
    TokenFailure,
)
from conversion.roles import can_review


def jobs_for_user(*, user: AbstractBaseUser, status: str | None = None) -> QuerySet[Job]:
    qs = Job.objects.all() if can_review(user) else Job.objects.filter(owner=user)
    if status:
        qs = qs.filter(status=status)
    return qs


def batches_for_user(*, user: AbstractBaseUser) -> QuerySet[Batch]:
    return Batch.objects.all() if can_review(user) else Batch.objects.filter(owner=user)


def batch_jobs_for_user(*, user: AbstractBaseUser, batch: Batch) -> QuerySet[Job]:
    """The batch's jobs that the user may see, in upload order."""
    return jobs_for_user(user=user).filter(batch=batch).order_by("created_at")


def job_get_for_user(*, user: AbstractBaseUser, job_id) -> Job | None:
    return jobs_for_user(user=user).filter(pk=job_id).first()


def queue_position(*, job: Job) -> int | None:
    """1 for the next queued job to start, 2 for the one after it...; None once it started."""
    if job.status != JobStatus.QUEUED:
        return None
    ahead = Job.objects.filter(status=JobStatus.QUEUED, created_at__lt=job.created_at).count()
    return ahead + 1


def _count(key: str):
    return Coalesce(Cast(KT(f"summary__{key}"), IntegerField()), 0)


REVIEW_FINDINGS = ("errors", "needs_review", "warnings")


def review_queue(
    *,
    status: str | None = JobStatus.NEEDS_REVIEW,
    engine: str | None = None,
    findings: str | None = None,
    state: str | None = "",
) -> QuerySet[Job]:
    """Finished jobs for the review dashboard. `status` "all" (or None) means every finished job;
    `findings` is one of REVIEW_FINDINGS (at least one such finding) or "none"; `state` is a
    ReviewState value ("" = not reviewed yet) or None for any."""
    qs = Job.objects.exclude(status__in=[JobStatus.QUEUED, JobStatus.RUNNING])
    if status and status != "all":
        qs = qs.filter(status=status)
    if engine:
        qs = qs.filter(engine=engine)
    if findings in REVIEW_FINDINGS:
        qs = qs.filter(**{f"summary__{findings}__gt": 0})
    elif findings == "none":
        qs = qs.filter(summary__errors=0, summary__needs_review=0, summary__warnings=0)
    if state is not None:
        qs = (
            qs.filter(Q(review__isnull=True) | Q(review__state=""))
            if state == ""
            else qs.filter(review__state=state)
        )
    # Worst first: the most errors, then the most items to review, then warnings; oldest first.
    qs = qs.annotate(
        n_errors=_count("errors"), n_review=_count("needs_review"), n_warnings=_count("warnings")
    ).annotate(n_open=F("n_errors") + F("n_review"))
    return qs.select_related("owner", "review").order_by(
        "-n_errors", "-n_review", "-n_warnings", "finished_at", "created_at"
    )


def review_events(*, job: Job) -> QuerySet:
    return job.review_events.select_related("actor")


def pages_to_read(*, job_id) -> list[int]:
    """Ids of the job's pages that are not done, in page order (none once the job ended)."""
    if Job.objects.get(pk=job_id).is_finished:
        return []
    return list(
        Page.objects.filter(job_id=job_id)
        .exclude(status=PageStatus.DONE)
        .order_by("number")
        .values_list("id", flat=True)
    )


def job_all_pages_done(*, job_id) -> bool:
    total = Job.objects.values_list("pages_total", flat=True).get(pk=job_id)
    return Page.objects.filter(job_id=job_id, status=PageStatus.DONE).count() == total


def page_has_scan(*, job_id, number: int) -> bool:
    """The page exists and its rasterized image is stored (it can be read again)."""
    exists = Page.objects.filter(job_id=job_id, number=number).exists()
    return exists and storage.page_image_exists(job_id, number)


def owner_pages_ahead(*, job_id) -> int:
    """How many pages the job's owner still has to convert in its older unfinished jobs: the
    position of this job's first page in its owner's line (owner fairness,
    conversion.dispatch.tasks)."""
    job = Job.objects.filter(pk=job_id).values("owner_id", "created_at").first()
    if job is None:
        return 0
    older = Job.objects.filter(
        owner_id=job["owner_id"],  # None: anonymous jobs share one line
        status__in=(JobStatus.QUEUED, JobStatus.RUNNING),
        created_at__lt=job["created_at"],
    ).aggregate(total=Sum("pages_total"), done=Sum("pages_done"))
    return (older["total"] or 0) - (older["done"] or 0)


def pages_ahead(*, page_ids: list[int]) -> dict[int, int]:
    """For each page, how many pages its owner has to convert before it: those of the owner's
    older unfinished jobs, then the job's own unread pages in page order."""
    jobs = set(Page.objects.filter(pk__in=page_ids).values_list("job_id", flat=True))
    ahead: dict[int, int] = {}
    for job_id in jobs:
        before = owner_pages_ahead(job_id=job_id)
        unread = (
            Page.objects.filter(job_id=job_id)
            .exclude(status=PageStatus.DONE)
            .order_by("number")
            .values_list("pk", flat=True)
        )
        ahead.update({pk: before + position for position, pk in enumerate(unread)})
    return {pk: ahead.get(pk, 0) for pk in page_ids}


def job_owner_id(*, job_id):
    return Job.objects.values_list("owner_id", flat=True).filter(pk=job_id).first()


def jobs_unfinished() -> list[tuple]:
    """(job id, owner id) of every queued or running job, oldest first."""
    return list(
        Job.objects.filter(status__in=(JobStatus.QUEUED, JobStatus.RUNNING))
        .order_by("created_at")
        .values_list("pk", "owner_id")
    )


def outbox_messages(*, limit: int = 100) -> list[tuple[int, object]]:
    """(message id, job id) of the jobs waiting for the broker, oldest first."""
    from_db = OutboxMessage.objects.order_by("id").values_list("pk", "job_id")[:limit]
    return list(from_db)


def token_failures(*, keys: list[str]) -> dict[str, int]:
    """The live wrong-token counts of these keys (conversion/api/authentication.py)."""
    live = TokenFailure.objects.filter(key__in=keys, expires_at__gt=timezone.now())
    return dict(live.values_list("key", "count"))


def notifications_pending(*, limit: int = 200) -> list:
    """Ids of the messages written and not yet queued for delivery, oldest first."""
    from_db = Notification.objects.filter(state=Notification.State.PENDING).order_by("created_at")
    return list(from_db.values_list("pk", flat=True)[:limit])


def notification_get(*, notification_id) -> Notification | None:
    return (
        Notification.objects.select_related("job", "batch", "owner")
        .filter(pk=notification_id)
        .first()
    )


# The queue-based time estimate (job page, API): how fast this site reads pages now.
ESTIMATE_SAMPLE_PAGES = 50  # the most recent pages read with the engine
ESTIMATE_MIN_INTERVALS = 3  # fewer measured intervals: no estimate
ESTIMATE_IDLE_GAP_S = 120.0  # a longer pause between two pages read is idle time, not work


def seconds_per_page(*, engine: str) -> tuple[float, int] | None:
    """The site's measured pace with `engine`: the mean time between two consecutive pages it
    finished (any jobs, any workers: with several workers the pace is theirs together), over
    the last ESTIMATE_SAMPLE_PAGES pages, leaving out pauses over ESTIMATE_IDLE_GAP_S (nobody
    was converting). (seconds a page, intervals measured), or None without enough of them."""
    finished = list(
        Page.objects.filter(job__engine=engine, status=PageStatus.DONE)
        .order_by("-updated_at")
        .values_list("updated_at", flat=True)[:ESTIMATE_SAMPLE_PAGES]
    )
    gaps = [
        (later - earlier).total_seconds()
        for later, earlier in zip(finished, finished[1:], strict=False)
    ]
    work = [gap for gap in gaps if gap <= ESTIMATE_IDLE_GAP_S]
    if len(work) < ESTIMATE_MIN_INTERVALS:
        return None
    return sum(work) / len(work), len(work)


def job_estimate(*, job: Job) -> dict | None:
    """When an unfinished job should end: (the pages of older unfinished jobs with the same
    engine + its own pages left) x the measured seconds a page (seconds_per_page). None once
    it ended, or before the site has measured its pace."""
    if job.is_finished:
        return None
    pace = seconds_per_page(engine=job.engine)
    if pace is None:
        return None
    ahead = Job.objects.filter(
        engine=job.engine,
        status__in=(JobStatus.QUEUED, JobStatus.RUNNING),
        created_at__lt=job.created_at,
    ).aggregate(total=Sum("pages_total"), done=Sum("pages_done"))
    pages_ahead = (ahead["total"] or 0) - (ahead["done"] or 0)
    pages_left = max(0, job.pages_total - job.pages_done)
    per_page, measured = pace
    return {
        "seconds": round((pages_ahead + pages_left) * per_page),
        "pages_ahead": pages_ahead,
        "pages_left": pages_left,
        "seconds_per_page": round(per_page, 2),
        "measured_intervals": measured,
    }


def job_expires_at(*, job: Job):
    """When the retention sweep deletes the job (AXIYA_RETENTION_DAYS after its upload), or
    None when results are kept."""
    days = config().retention_days
    return job.created_at + timedelta(days=days) if days > 0 else None
