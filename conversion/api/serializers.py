"""API shapes. Output serializers read Job/Batch rows; input serializers only validate the form."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from conversion import selectors, webhooks
from conversion.engines import ENGINES, require_available
from conversion.languages import clean_language
from conversion.models import Batch, Job, JobStatus

MAX_BATCH_FILES = 100


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


class ProgressSerializer(serializers.Serializer):
    pages_done = serializers.IntegerField()
    pages_total = serializers.IntegerField()


class LinksSerializer(serializers.Serializer):
    self = serializers.URLField()
    html = serializers.URLField()
    zip = serializers.URLField()
    epub = serializers.URLField()
    pdf = serializers.URLField()
    report = serializers.URLField()
    report_html = serializers.URLField()


ENGINE_HELP = "Reading engine: ocr (Tesseract, CPU) or gemma (vision model, GPU)."
LANGUAGE_HELP = (
    "BCP 47 code of a language this server reads (GET /api/v1/languages), e.g. en, fr, pt-BR; "
    "empty or absent: detected."
)
CALLBACK_HELP = (
    "A URL this server POSTs to when the job (or the whole batch) has ended: signed JSON, see "
    "the API page. Only hosts the administrator allowed (AXIYA_WEBHOOK_ALLOWED_HOSTS); others "
    "are refused with 400 CALLBACK_URL_REFUSED."
)


def engine_field(**kw) -> serializers.ChoiceField:
    """The engine, one enum in every schema that names it (input and output)."""
    return serializers.ChoiceField(choices=ENGINES, help_text=ENGINE_HELP, **kw)


class EstimateSerializer(serializers.Serializer):
    seconds = serializers.IntegerField(help_text="Seconds until the job should end.")
    pages_ahead = serializers.IntegerField(help_text="Pages of older unfinished jobs first.")
    pages_left = serializers.IntegerField(help_text="The job's own pages still to read.")
    seconds_per_page = serializers.FloatField(
        help_text="This site's measured pace: the mean time between two pages it finished "
        "lately with this engine (idle pauses left out)."
    )
    measured_intervals = serializers.IntegerField()


class RetentionSerializer(serializers.Serializer):
    days = serializers.IntegerField()
    deletes_at = serializers.DateTimeField()


def _abs(request, name: str, pk) -> str:
    path = reverse(name, kwargs={"pk": pk})
    return request.build_absolute_uri(path) if request is not None else path


class JobSerializer(serializers.ModelSerializer):
    name = serializers.CharField(source="original_name")
    engine = engine_field(read_only=True)
    estimate = serializers.SerializerMethodField()
    retention = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()
    error = serializers.SerializerMethodField()
    links = serializers.SerializerMethodField()
    review = serializers.SerializerMethodField()
    open_findings = serializers.IntegerField(
        read_only=True,
        help_text="Errors and items to review in the report: above 0, the status is needs_review "
        "until a reviewer approves.",
    )

    class Meta:
        model = Job
        fields = [
            "id", "name", "status", "progress", "engine", "language", "title", "error",
            "links", "summary", "open_findings", "review", "batch", "created_at", "started_at",
            "finished_at", "estimate", "retention",
        ]  # fmt: skip

    @extend_schema_field(EstimateSerializer(allow_null=True))
    def get_estimate(self, job: Job) -> dict | None:
        """Null once the job ended, or before the site has measured its pace."""
        return selectors.job_estimate(job=job)

    @extend_schema_field(RetentionSerializer(allow_null=True))
    def get_retention(self, job: Job) -> dict | None:
        """When the job and its files are deleted (AXIYA_RETENTION_DAYS after the upload);
        null when this server keeps them."""
        deletes_at = selectors.job_expires_at(job=job)
        if deletes_at is None:
            return None
        return {"days": (deletes_at - job.created_at).days, "deletes_at": deletes_at}

    @extend_schema_field(ProgressSerializer)
    def get_progress(self, job: Job) -> dict:
        return {"pages_done": job.pages_done, "pages_total": job.pages_total}

    @extend_schema_field(ErrorDetailSerializer(allow_null=True))
    def get_error(self, job: Job) -> dict | None:
        if not job.error_code:
            return None
        return {"code": job.error_code, "message": job.error_message}

    @extend_schema_field(LinksSerializer)
    def get_links(self, job: Job) -> dict:
        request = self.context.get("request")
        return {
            "self": _abs(request, "api-job-detail", job.pk),
            "html": _abs(request, "api-job-html", job.pk),
            "zip": _abs(request, "api-job-zip", job.pk),
            "epub": _abs(request, "api-job-epub", job.pk),
            "pdf": _abs(request, "api-job-pdf", job.pk),
            "report": _abs(request, "api-job-report", job.pk),
            "report_html": _abs(request, "api-job-report-html", job.pk),
        }

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_review(self, job: Job) -> str | None:
        review = getattr(job, "review", None)
        return (review.state or None) if review is not None else None


class JobCreatedSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=JobStatus.choices)
    url = serializers.URLField()


def job_created(job: Job, request) -> dict:
    return {"id": job.id, "status": job.status, "url": _abs(request, "api-job-detail", job.pk)}


class _UploadOptions(serializers.Serializer):
    """What a job and a batch upload share: engine, language, callback."""

    engine = engine_field(required=False)
    language = serializers.CharField(
        max_length=35, required=False, allow_blank=True, help_text=LANGUAGE_HELP
    )
    callback_url = serializers.CharField(
        max_length=webhooks.MAX_URL_CHARS, required=False, allow_blank=True,
        help_text=CALLBACK_HELP,
    )  # fmt: skip

    def validate_language(self, value: str) -> str:
        return _language(value)

    def validate_engine(self, value: str) -> str:
        # EngineNotOffered goes up as it is: 422 ENGINE_UNAVAILABLE, before any file is stored.
        return require_available(value).name

    def validate_callback_url(self, value: str) -> str:
        # CallbackRefused goes up as it is: 400 CALLBACK_URL_REFUSED, before any file is stored.
        return webhooks.check_url(value).url if value.strip() else ""


class JobCreateSerializer(_UploadOptions):
    file = serializers.FileField(help_text="The PDF to convert.", allow_empty_file=True)


class BatchCreateSerializer(_UploadOptions):
    files = serializers.ListField(
        child=serializers.FileField(allow_empty_file=True),  # an empty one is rejected by name
        allow_empty=False,
        max_length=MAX_BATCH_FILES,
        help_text=f"The PDFs to convert (up to {MAX_BATCH_FILES}).",
    )


def _language(value: str) -> str:
    # InvalidLanguage goes up as it is: the API answers 400 with its code, LANGUAGE_INVALID.
    return clean_language(value) or ""


class RejectedFileSerializer(serializers.Serializer):
    name = serializers.CharField()
    error = ErrorDetailSerializer()


class BatchRefusedDetailSerializer(ErrorDetailSerializer):
    rejected = RejectedFileSerializer(many=True, help_text="Each file and its own error.")


class BatchRefusedSerializer(serializers.Serializer):
    error = BatchRefusedDetailSerializer()


class BatchCreatedSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    url = serializers.URLField()
    jobs = JobCreatedSerializer(many=True)
    rejected = RejectedFileSerializer(many=True)


class BatchLinksSerializer(serializers.Serializer):
    self = serializers.URLField()
    zip = serializers.URLField(help_text="Every finished job's results in one zip.")


class BatchSerializer(serializers.ModelSerializer):
    jobs = serializers.SerializerMethodField()
    counts = serializers.SerializerMethodField()
    finished = serializers.SerializerMethodField()
    rejected = RejectedFileSerializer(many=True, read_only=True)
    links = serializers.SerializerMethodField()

    class Meta:
        model = Batch
        fields = ["id", "created_at", "finished", "counts", "jobs", "rejected", "links"]

    @extend_schema_field(BatchLinksSerializer)
    def get_links(self, batch: Batch) -> dict:
        request = self.context.get("request")
        return {
            "self": _abs(request, "api-batch-detail", batch.pk),
            "zip": _abs(request, "api-batch-zip", batch.pk),
        }

    def _jobs(self, batch: Batch) -> list[Job]:
        cache = self.context.setdefault("_batch_jobs", {})
        if batch.pk not in cache:
            cache[batch.pk] = list(batch.jobs.select_related("review").order_by("created_at"))
        return cache[batch.pk]

    @extend_schema_field(JobSerializer(many=True))
    def get_jobs(self, batch: Batch) -> list[dict]:
        return JobSerializer(self._jobs(batch), many=True, context=self.context).data

    @extend_schema_field(serializers.DictField(child=serializers.IntegerField()))
    def get_counts(self, batch: Batch) -> dict:
        counts = {s: 0 for s in JobStatus.values}
        for job in self._jobs(batch):
            counts[job.status] += 1
        return counts

    @extend_schema_field(serializers.BooleanField())
    def get_finished(self, batch: Batch) -> bool:
        return all(job.is_finished for job in self._jobs(batch))
