"""Queue stalled jobs again and fail jobs past their deadline (what beat runs every minute)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from conversion.dispatch import recover


class Command(BaseCommand):
    help = "Re-queue work that stalled (lost messages, dead workers); fail jobs past the deadline."

    def handle(self, *args, **options) -> None:
        for kind, ids in recover().items():
            self.stdout.write(f"{kind}: {len(ids)}")
