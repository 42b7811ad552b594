"""One person on one machine: create (or reset) a staff user who can convert and review, and print
how to sign in. Idempotent, so `make demo` can run it every time."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from rest_framework.authtoken.models import Token


class Command(BaseCommand):
    help = "Create or reset a local staff user (default `axiya`) and print its password and token."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", nargs="?", default="axiya")
        parser.add_argument("--password", help="Default: a new random password, printed once.")
        parser.add_argument("--keep-password", action="store_true",
                            help="Leave an existing user's password as it is.")  # fmt: skip

    def handle(self, *args, username: str, password: str | None, keep_password: bool,
               **options) -> None:  # fmt: skip
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(**{user_model.USERNAME_FIELD: username})
        user.is_staff = user.is_superuser = True
        shown = None
        if created or not keep_password or not user.has_usable_password():
            shown = password or secrets.token_urlsafe(12)
            user.set_password(shown)
        user.save()
        token, _ = Token.objects.get_or_create(user=user)
        self.stdout.write(f"User:      {username} ({'created' if created else 'updated'}, staff)")
        if shown:
            self.stdout.write(f"Password:  {shown}")
        self.stdout.write("Sign in:   http://localhost:8000/accounts/login/")
        self.stdout.write(f"API token: {token.key}")
