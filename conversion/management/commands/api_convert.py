"""`python manage.py api_convert DIR --url ... --token ...`: the same client as bin/axiya-batch."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Convert every PDF in a folder through an Axiya server's REST API (see bin/axiya-batch)."

    def run_from_argv(self, argv: list[str]) -> None:
        from conversion.api.client import main

        code = main(argv[2:])
        if code:
            raise SystemExit(code)

    def handle(self, *args, **options) -> None:  # pragma: no cover - run_from_argv handles it
        raise CommandError("Run it from the command line: manage.py api_convert DIR --url --token")
