from django.urls import path

from conversion import account_views, review_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("jobs/<uuid:job_id>/", views.job_detail, name="job-detail"),
    path("jobs/<uuid:job_id>/status", views.job_status, name="job-status"),
    path("jobs/<uuid:job_id>/result/document.html", views.job_html, name="job-html"),
    path("jobs/<uuid:job_id>/result/document_files/<str:name>", views.job_file, name="job-file"),
    path("jobs/<uuid:job_id>/report.json", views.job_report, name="job-report"),
    path("jobs/<uuid:job_id>/report.html", views.job_report_html, name="job-report-html"),
    path("jobs/<uuid:job_id>/download.html", views.job_download_html, name="job-download-html"),
    path("jobs/<uuid:job_id>/download.zip", views.job_download_zip, name="job-download-zip"),
    path(
        "jobs/<uuid:job_id>/download.<str:fmt>",
        views.job_download_format,
        name="job-download-format",
    ),
    path("jobs/<uuid:job_id>/delete", views.job_delete, name="job-delete"),
    path("batches/<uuid:batch_id>/", views.batch_detail, name="batch-detail"),
    path(
        "batches/<uuid:batch_id>/download.zip",
        views.batch_download_zip,
        name="batch-download-zip",
    ),
    path("account/api/", account_views.account_api, name="account-api"),
    path("view/<str:token>/document.html", views.view_html, name="view-html"),
    path("view/<str:token>/document_files/<str:name>", views.view_file, name="view-file"),
    path("view/<str:token>/page-<int:number>.html", views.view_page, name="view-page"),
    path("review/", review_views.review_queue, name="review-queue"),
    path("review/<uuid:job_id>/", review_views.review_job, name="review-job"),
    path(
        "review/<uuid:job_id>/decision",
        review_views.review_job_decision,
        name="review-job-decision",
    ),
    path("review/<uuid:job_id>/pages/<int:number>/", review_views.review_page, name="review-page"),
    path(
        "review/<uuid:job_id>/pages/<int:number>/scan.png",
        review_views.review_scan,
        name="review-scan",
    ),
    path("review/<uuid:job_id>/pages/<int:number>/alt", review_views.review_alt, name="review-alt"),
    path(
        "review/<uuid:job_id>/pages/<int:number>/html", review_views.review_html, name="review-html"
    ),
    path(
        "review/<uuid:job_id>/pages/<int:number>/blocks/<int:index>",
        review_views.review_block,
        name="review-block",
    ),
    path(
        "review/<uuid:job_id>/pages/<int:number>/reread",
        review_views.review_reread_status,
        name="review-reread-status",
    ),
    path(
        "review/<uuid:job_id>/pages/<int:number>/decision",
        review_views.review_page_decision,
        name="review-page-decision",
    ),
]
