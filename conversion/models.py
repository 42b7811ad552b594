"""Job (one PDF), Page (one page's image, reading, state), Batch (many jobs posted together)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from conversion.engines import engine_label
from conversion.pipeline.document import open_findings


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    NEEDS_REVIEW = "needs_review", "Needs review"
    FAILED = "failed", "Failed"


class PageStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class Batch(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Files refused at upload, kept so that the batch still lists them: [{"name", "error":
    # {"code", "message"}}, ...].
    rejected = models.JSONField(default=list, blank=True)
    # Called once every job of the batch has ended (conversion/notify.py); "" for none.
    callback_url = models.URLField(max_length=2000, blank=True)
    # The site's address as the client reached it: the callback's links start with it.
    site_url = models.URLField(max_length=500, blank=True)

    class Meta:
        ordering = ["-created_at"]


class Job(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, related_name="jobs"
    )
    batch = models.ForeignKey(
        Batch, on_delete=models.SET_NULL, null=True, blank=True, related_name="jobs"
    )
    original_name = models.CharField(max_length=255)
    size_bytes = models.BigIntegerField(default=0)
    status = models.CharField(
        max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED, db_index=True
    )
    engine = models.CharField(max_length=16)
    engine_info = models.JSONField(default=dict, blank=True)  # package name, sha256, version
    language = models.CharField(max_length=35, blank=True)  # forced by the user, or detected
    # What the user asked for ("" = detect): a re-run assembles the document as the first run did.
    requested_language = models.CharField(max_length=35, blank=True)
    repaired = models.BooleanField(default=False)  # MuPDF rebuilt the upload's broken structure
    title = models.CharField(max_length=255, blank=True)
    pages_total = models.PositiveIntegerField(default=0)
    pages_done = models.PositiveIntegerField(default=0)
    error_code = models.CharField(max_length=40, blank=True)
    error_message = models.TextField(blank=True)
    timings = models.JSONField(default=dict, blank=True)
    summary = models.JSONField(default=dict, blank=True)  # counts of findings by level
    # Called when the job ends (conversion/notify.py); "" for none.
    callback_url = models.URLField(max_length=2000, blank=True)
    site_url = models.URLField(max_length=500, blank=True)  # as on Batch
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        # Reviewers (the group conversion.roles.REVIEWERS holds it) see every job and correct
        # results; staff status alone (the admin site) does not grant it.
        permissions = [("review_job", "Can review and correct any converted document")]

    def __str__(self) -> str:
        return f"{self.original_name} ({self.status})"

    @property
    def engine_label(self) -> str:
        return engine_label(self.engine)

    @property
    def open_findings(self) -> int:
        """Errors and items to review in the report: what keeps a job in NEEDS_REVIEW."""
        return open_findings(self.summary)

    @property
    def is_finished(self) -> bool:
        return self.status in (JobStatus.DONE, JobStatus.NEEDS_REVIEW, JobStatus.FAILED)


class Page(models.Model):
    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="pages")
    number = models.PositiveIntegerField()  # 1-based
    status = models.CharField(max_length=16, choices=PageStatus.choices, default=PageStatus.QUEUED)
    dpi = models.PositiveIntegerField(default=0)
    drawn = models.BooleanField(default=False)  # no raster image on it (RenderedPage.drawn)
    reading = models.JSONField(null=True, blank=True)  # models.engine.PageReading as JSON
    source = models.CharField(max_length=16, blank=True)  # ocr / text_layer / model
    attempts = models.PositiveSmallIntegerField(default=0)
    # The worker process reading it (conversion/runner/heartbeat.py), while it is RUNNING.
    claimed_by = models.CharField(max_length=100, blank=True)
    error_code = models.CharField(max_length=40, blank=True)
    error_message = models.TextField(blank=True)
    timings = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["job", "number"]
        constraints = [
            models.UniqueConstraint(fields=["job", "number"], name="unique_page_per_job")
        ]

    def __str__(self) -> str:
        return f"{self.job_id} p{self.number} ({self.status})"


class ReviewState(models.TextChoices):
    PENDING = "", "Not reviewed"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"


class JobReview(models.Model):
    """A staff reviewer's verdict on one job (one row per job, created on first review)."""

    job = models.OneToOneField(Job, on_delete=models.CASCADE, related_name="review")
    state = models.CharField(max_length=16, choices=ReviewState.choices, blank=True, default="")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    note = models.TextField(blank=True)
    page_states = models.JSONField(default=dict, blank=True)  # {"3": "approved", ...}
    updated_at = models.DateTimeField(auto_now=True)


class ReviewEvent(models.Model):
    """The audit trail: who changed what, when, with the value before and after."""

    class Action(models.TextChoices):
        EDIT_ALT = "edit_alt", "Edited alt text"
        EDIT_HTML = "edit_html", "Edited page HTML"
        EDIT_STRUCTURE = "edit_structure", "Edited structure"
        APPROVE_PAGE = "approve_page", "Approved page"
        REJECT_PAGE = "reject_page", "Rejected page"
        RERUN_PAGE = "rerun_page", "Re-ran page"
        APPROVE = "approve", "Approved document"
        REJECT = "reject", "Rejected document"
        DELETE = "delete", "Deleted document"

    # The trail outlives its job: deleting the job leaves job empty, job_ref and job_name say
    # which document it was.
    job = models.ForeignKey(
        Job, on_delete=models.SET_NULL, null=True, blank=True, related_name="review_events"
    )
    job_ref = models.UUIDField(null=True, db_index=True)
    job_name = models.CharField(max_length=255, blank=True)
    page = models.PositiveIntegerField(null=True, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    action = models.CharField(max_length=16, choices=Action.choices)
    target = models.CharField(max_length=120, blank=True)  # e.g. "#figure-2"
    before = models.TextField(blank=True)
    after = models.TextField(blank=True)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_action_display()} on {self.job_ref} by {self.actor_id}"


class OutboxMessage(models.Model):
    """A job that could not be queued because the broker was down: sent again every few seconds
    until the broker takes it (conversion/dispatch/outbox.py)."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    attempts = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["id"]


class TokenFailure(models.Model):
    """Wrong API tokens counted for the token lockout (conversion/api/authentication.py), one row
    per presented token (a hash) and per address. In the database, not the cache: every web
    process sees the same counts, and a Redis restart or outage neither resets nor breaks them."""

    key = models.CharField(max_length=100, unique=True)
    count = models.PositiveIntegerField(default=0)
    # A count lapses AXES_COOLOFF_TIME after its last failure (django-axes does the same).
    expires_at = models.DateTimeField(db_index=True)


class Account(models.Model):
    """A user's notification settings: the secret that signs their webhooks and whether they
    want an e-mail when a job or batch ends (conversion/notify.py). One row per user, made on
    first use."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="axiya_account"
    )
    webhook_secret = models.CharField(max_length=100)
    notify_email = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)


class Notification(models.Model):
    """One message that a job or a batch ended, to one destination (a webhook or an e-mail),
    written in the same transaction as the end itself and delivered by a task on the
    housekeeping queue with retries (conversion/notify.py). A job or batch gets at most one
    per kind and event."""

    class Kind(models.TextChoices):
        WEBHOOK = "webhook", "Webhook"
        EMAIL = "email", "E-mail"

    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        QUEUED = "queued", "Queued"
        SENT = "sent", "Sent"
        FAILED = "failed", "Failed"  # retries exhausted, or refused (host not allowed)

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    event = models.CharField(max_length=40)  # job.ended, batch.ended
    job = models.ForeignKey(Job, on_delete=models.CASCADE, null=True, related_name="+")
    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, null=True, related_name="+")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    target = models.CharField(max_length=2000)  # the URL, or the e-mail address
    state = models.CharField(
        max_length=8, choices=State.choices, default=State.PENDING, db_index=True
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "event", "job"], name="one_notification_per_job_event"
            ),
            models.UniqueConstraint(
                fields=["kind", "event", "batch"], name="one_notification_per_batch_event"
            ),
        ]
