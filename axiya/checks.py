"""System checks that refuse to run a production deployment with development settings.

The public development key is refused whenever DEBUG is off (issue 17: a proxy forwarding
`Host: 127.0.0.1` passed a loopback-only test); without AXIYA_SECRET_KEY each installation makes
its own key. "Production" is any deployment that serves HTTPS or answers on a host other than
loopback: there a weak key or DEBUG is refused too.
"""

from __future__ import annotations

import sys

from celery.signals import worker_init
from django.conf import settings
from django.core import checks

TAG = "axiya"
_LOOPBACK = {"localhost", "127.0.0.1", "[::1]", "::1"}


def is_production() -> bool:
    hosts = set(settings.ALLOWED_HOSTS)
    return bool(getattr(settings, "AXIYA_HTTPS", False)) or bool(hosts - _LOOPBACK)


@checks.register(TAG, checks.Tags.security)
def check_secret_key(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    key = settings.SECRET_KEY
    if key == settings.DEV_SECRET_KEY and not settings.DEBUG:
        # Whatever ALLOWED_HOSTS says: a proxy forwarding `Host: 127.0.0.1` looks loopback-only.
        return [
            checks.Error(
                "AXIYA_SECRET_KEY is the public development key and AXIYA_DEBUG is off: anyone "
                "could forge sessions and signed links.",
                hint="Unset AXIYA_SECRET_KEY (this installation then makes its own key in its "
                'data folder) or set it to 50+ random characters: python -c "import secrets; '
                'print(secrets.token_urlsafe(50))".',
                id="axiya.E001",
            )
        ]
    if not is_production():
        return []
    if len(key) < 50 or len(set(key)) < 5:
        return [
            checks.Error(
                "AXIYA_SECRET_KEY is unset or weak, and this deployment is not loopback-only.",
                hint='Set AXIYA_SECRET_KEY to 50+ random characters, e.g. python -c "import '
                'secrets; print(secrets.token_urlsafe(50))".',
                id="axiya.E001",
            )
        ]
    return []


@checks.register(TAG, checks.Tags.security)
def check_debug(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    if is_production() and settings.DEBUG:
        return [
            checks.Error(
                "AXIYA_DEBUG is on in a deployment that is not loopback-only.",
                hint="Debug pages show settings and source: set AXIYA_DEBUG=false.",
                id="axiya.E002",
            )
        ]
    return []


def refuse_unsafe_start() -> None:
    """Called by wsgi/asgi/celery start-up: servers do not run system checks themselves."""
    errors = [m for m in checks.run_checks(tags=[TAG]) if m.is_serious()]
    if errors:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured("; ".join(f"{e.id}: {e.msg} {e.hint}" for e in errors))


@worker_init.connect
def refuse_unsafe_worker(**kwargs) -> None:
    """Celery's worker_init: a worker with the public development key (or another refused
    setting) exits non-zero before it takes a task (issue 29: only the web process refused it).
    SystemExit, because Celery logs and ignores an Exception a signal handler raises. Connected
    here, which every process with the apps loaded imports (conversion/apps.py)."""
    errors = [m for m in checks.run_checks(tags=[TAG]) if m.is_serious()]
    if errors:
        reasons = "; ".join(f"{e.id}: {e.msg} {e.hint}" for e in errors)
        sys.exit(f"axiya: the worker refuses to start: {reasons}")
