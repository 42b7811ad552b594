"""Create (or reset) a user who can sign in, and print how. Idempotent, so `make demo` can run
it every time. An ordinary user by default (converts, sees their own jobs); the roles are
explicit: --reviewer (reviews every job), --staff (the admin site), --superuser (everything)."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from rest_framework.authtoken.models import Token

from conversion.roles import user_set_roles


class Command(BaseCommand):
    help = (
        "Create or reset a user (default `axiya`) and print its password and token. The user "
        "gets exactly the roles named: none (an ordinary user) unless --reviewer, --staff or "
        "--superuser."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", nargs="?", default="axiya")
        parser.add_argument("--password", help="Default: a new random password, printed once.")
        parser.add_argument("--keep-password", action="store_true",
                            help="Leave an existing user's password as it is.")  # fmt: skip
        parser.add_argument("--reviewer", action="store_true",
                            help="In the Reviewers group: sees and reviews every job.")  # fmt: skip
        parser.add_argument("--staff", action="store_true", help="May use the admin site.")
        parser.add_argument("--superuser", action="store_true", help="Every permission.")
        parser.add_argument("--site", default="http://localhost:8000",
                            help="The site's address, for the sign-in link printed.")  # fmt: skip

    def handle(self, *args, username: str, password: str | None, keep_password: bool,
               reviewer: bool, staff: bool, superuser: bool, site: str,
               **options) -> None:  # fmt: skip
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(**{user_model.USERNAME_FIELD: username})
        shown = None
        if created or not keep_password or not user.has_usable_password():
            shown = password or secrets.token_urlsafe(12)
            user.set_password(shown)
            user.save()
        roles = user_set_roles(user=user, reviewer=reviewer, staff=staff, superuser=superuser)
        token, _ = Token.objects.get_or_create(user=user)
        state = "created" if created else "updated"
        self.stdout.write(f"User:      {username} ({state}; {', '.join(roles)})")
        if shown:
            self.stdout.write(f"Password:  {shown}")
        self.stdout.write(f"Sign in:   {site.rstrip('/')}/accounts/login/")
        self.stdout.write(f"API token: {token.key}")
