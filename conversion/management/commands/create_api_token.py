"""Print an API token for a user, creating the user (and the token) when needed."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from rest_framework.authtoken.models import Token


class Command(BaseCommand):
    help = (
        "Print the API token of USERNAME (creating the user if needed); --rotate makes a new one."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--rotate", action="store_true", help="Replace an existing token.")
        parser.add_argument("--staff", action="store_true", help="Make the user staff (reviewer).")

    def handle(self, *args, username: str, rotate: bool, staff: bool, **options) -> None:
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(**{user_model.USERNAME_FIELD: username})
        if created:
            user.set_unusable_password()
            user.save()
            self.stderr.write(f"Created user {username} (API only: no password; set one with "
                              f"`python manage.py changepassword {username}`).")  # fmt: skip
        if staff and not user.is_staff:
            user.is_staff = True
            user.save(update_fields=["is_staff"])
        if rotate:
            Token.objects.filter(user=user).delete()
        token, _ = Token.objects.get_or_create(user=user)
        self.stdout.write(token.key)
