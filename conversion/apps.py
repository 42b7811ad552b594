from django.apps import AppConfig
from django.db.models.signals import post_save


class ConversionConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "conversion"

    def ready(self) -> None:
        import axiya.checks  # noqa: F401  (registers the deployment checks)

        # Signals are connected once the models exist (Django's ready()): a reviewer's verdict
        # tells the owner (webhook, e-mail, conversion/notify.py).
        from conversion import dispatch
        from conversion.models import JobReview

        post_save.connect(dispatch.on_review_saved, sender=JobReview)
