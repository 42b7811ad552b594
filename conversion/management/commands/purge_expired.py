"""Delete jobs and every file they wrote once older than AXIYA_RETENTION_DAYS (cron-friendly)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from conversion.services import purge_expired


class Command(BaseCommand):
    help = "Delete uploads and results older than AXIYA_RETENTION_DAYS (or --days)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--days", type=int, default=None, help="override the setting")

    def handle(self, *args, days: int | None = None, **options) -> None:
        deleted = purge_expired(days=days)
        self.stdout.write(f"deleted {len(deleted)} job(s)")
