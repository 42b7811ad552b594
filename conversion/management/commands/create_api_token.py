"""Print an API token for a user, creating the user (and the token) when needed."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from rest_framework.authtoken.models import Token

from conversion.roles import reviewers_group


class Command(BaseCommand):
    help = (
        "Print the API token of USERNAME (creating the user if needed); --rotate makes a new one."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--rotate", action="store_true", help="Replace an existing token.")
        parser.add_argument("--reviewer", action="store_true",
                            help="Add the user to the Reviewers group.")  # fmt: skip

    def handle(self, *args, username: str, rotate: bool, reviewer: bool, **options) -> None:
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(**{user_model.USERNAME_FIELD: username})
        if created:
            user.set_unusable_password()
            user.save()
            self.stderr.write(f"Created user {username} (API only: no password; set one with "
                              f"`python manage.py changepassword {username}`).")  # fmt: skip
        if reviewer:
            user.groups.add(reviewers_group())
        if rotate:
            Token.objects.filter(user=user).delete()
        token, _ = Token.objects.get_or_create(user=user)
        self.stdout.write(token.key)
