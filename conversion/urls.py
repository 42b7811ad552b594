from django.urls import path

from conversion import views

urlpatterns = [
    path("", views.home, name="home"),
    path("jobs/<uuid:job_id>/", views.job_detail, name="job-detail"),
    path("jobs/<uuid:job_id>/status", views.job_status, name="job-status"),
    path("jobs/<uuid:job_id>/result/document.html", views.job_html, name="job-html"),
    path("jobs/<uuid:job_id>/result/document_files/<str:name>", views.job_file, name="job-file"),
    path("jobs/<uuid:job_id>/report.json", views.job_report, name="job-report"),
]
