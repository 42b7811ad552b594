"""Creates the local demo account once and prints how to sign in (the embedded default)."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from axiya.env import env_optional


class Command(BaseCommand):
    help = "Create the local 'demo' staff user if missing, and print its password once."

    def handle(self, *args, **options) -> None:
        User = get_user_model()
        user = User.objects.filter(username="demo").first()
        if user is not None:
            self.stdout.write("Sign in as 'demo' (password printed when it was created).")
            return
        password = env_optional("AXIYA_DEMO_PASSWORD") or secrets.token_urlsafe(12)
        User.objects.create_superuser("demo", email="", password=password)
        self.stdout.write(f"Created user 'demo' with password: {password}")
