"""Test settings: a private data folder per run (per pytest-xdist worker: gw0, gw1, ... inside
it), and a file-backed SQLite test database so a real Celery worker process can see what the
tests write."""

import os
import tempfile
from pathlib import Path

# The folder this process made, if it made one: the run's controller removes it when the run ends
# (tests/conftest.py, pytest_unconfigure), so repeated runs don't fill /tmp.
CREATED_DATA_DIR: str | None = None
if "AXIYA_DATA_DIR" not in os.environ:
    CREATED_DATA_DIR = os.environ["AXIYA_DATA_DIR"] = tempfile.mkdtemp(prefix="axiya-test-")
# xdist's workers inherit the controller's folder: each takes a folder of its own inside it, so
# their databases, job files and worker logs never meet. A process a worker starts with these
# settings inherits the worker's folder, already named after it.
_xdist_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _xdist_worker and Path(os.environ["AXIYA_DATA_DIR"]).name != _xdist_worker:
    os.environ["AXIYA_DATA_DIR"] = str(Path(os.environ["AXIYA_DATA_DIR"]) / _xdist_worker)
os.environ.pop("AXIYA_BROKER_URL", None)
os.environ.setdefault("AXIYA_INLINE_HOUSEKEEPING", "false")

from axiya.settings import *  # noqa: E402,F403
from axiya.settings import DATA_DIR, DATABASES  # noqa: E402

TEST_DB_PATH = DATA_DIR / "test.sqlite3"
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    DATABASES["default"]["TEST"] = {"NAME": str(TEST_DB_PATH)}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# client.login() authenticates without a request, which django-axes refuses: the lockout tests
# switch it on (tests/web/test_signin_lockout.py).
AXES_ENABLED = False
# Static files are served from the app folders in tests (no collectstatic run).
WHITENOISE_USE_FINDERS = True
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # noqa: F405
