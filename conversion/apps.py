from django.apps import AppConfig


class ConversionConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "conversion"

    def ready(self) -> None:
        import axiya.checks  # noqa: F401  (registers the deployment checks)
