from django.urls import path
from drf_spectacular.views import SpectacularAPIView

from conversion.api import docs
from conversion.api.views import BatchViewSet, JobViewSet, LanguagesView

jobs = JobViewSet.as_view({"get": "list", "post": "create"})
job = JobViewSet.as_view({"get": "retrieve", "delete": "destroy"})
batches = BatchViewSet.as_view({"get": "list", "post": "create"})
batch = BatchViewSet.as_view({"get": "retrieve"})

urlpatterns = [
    path("jobs", jobs, name="api-jobs"),
    path("jobs/<uuid:pk>", job, name="api-job-detail"),
    path("jobs/<uuid:pk>/html", JobViewSet.as_view({"get": "html"}), name="api-job-html"),
    path("jobs/<uuid:pk>/zip", JobViewSet.as_view({"get": "zip"}), name="api-job-zip"),
    path("jobs/<uuid:pk>/epub", JobViewSet.as_view({"get": "epub"}), name="api-job-epub"),
    path("jobs/<uuid:pk>/pdf", JobViewSet.as_view({"get": "pdf"}), name="api-job-pdf"),
    path("jobs/<uuid:pk>/report", JobViewSet.as_view({"get": "report"}), name="api-job-report"),
    path(
        "jobs/<uuid:pk>/report.html",
        JobViewSet.as_view({"get": "report_html"}),
        name="api-job-report-html",
    ),
    path("batches", batches, name="api-batches"),
    path("batches/<uuid:pk>", batch, name="api-batch-detail"),
    path("batches/<uuid:pk>/zip", BatchViewSet.as_view({"get": "zip"}), name="api-batch-zip"),
    path("languages", LanguagesView.as_view(), name="api-languages"),
    path("schema", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs", docs.api_docs, name="api-docs"),
]
