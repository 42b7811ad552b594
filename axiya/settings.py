"""Django settings. Every value comes from the environment, read here and only here; the
conversion reads its own (AXIYA_*) through one typed object, axiya.config.config().

The variables are listed in the README's configuration table.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url

from axiya.env import (
    env_bool,
    env_float,
    env_int,
    env_list,
    env_optional,
    env_path,
    env_str,
    install_secret,
)

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("AXIYA_DEBUG", False)
# The key of the old development default: public, so refused unless DEBUG is on (axiya/checks.py).
DEV_SECRET_KEY = "insecure-dev-key-set-AXIYA_SECRET_KEY-in-production"
ALLOWED_HOSTS = env_list("AXIYA_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("AXIYA_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "axes",
    "conversion",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "conversion.api.middleware.ApiJsonErrorsMiddleware",
    "conversion.request_limits.RequestSizeLimitMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "conversion.middleware.PrivateCacheMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "conversion.request_limits.UploadThrottleMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "conversion.middleware.InlineHousekeepingMiddleware",
    "csp.middleware.CSPMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks
]

ROOT_URLCONF = "axiya.urls"
WSGI_APPLICATION = "axiya.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATA_DIR = env_path("AXIYA_DATA_DIR", BASE_DIR / "var")
DATA_DIR.mkdir(parents=True, exist_ok=True)
# Without AXIYA_SECRET_KEY, this installation makes its own key once, in the data folder
# (several processes on one machine share it); a cluster sets one key for every host.
SECRET_KEY = env_str("AXIYA_SECRET_KEY", "") or install_secret(DATA_DIR / "secret_key")
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{DATA_DIR / 'axiya.sqlite3'}"), conn_max_age=60
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The in-process worker thread and the web requests share the file: wait instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 30
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "staticfiles"
WHITENOISE_AUTOREFRESH = DEBUG
MEDIA_ROOT = DATA_DIR / "media"
# Where job files live (conversion/storage.py): unset, MEDIA_ROOT on this host's disk (one host,
# or a shared mount); s3://bucket/prefix, an S3-compatible object store (AWS S3, MinIO, Ceph,
# R2) that web, cpu and gpu hosts share. Endpoint (empty: AWS), region and keys (empty: boto3's
# own chain, e.g. an instance role) below; AXIYA_S3_MAX_ATTEMPTS bounds botocore's retries.
AXIYA_STORAGE_URL = env_optional("AXIYA_STORAGE_URL")
AXIYA_S3_ENDPOINT_URL = env_optional("AXIYA_S3_ENDPOINT_URL")
AXIYA_S3_REGION = env_optional("AXIYA_S3_REGION")
AXIYA_S3_ACCESS_KEY_ID = env_optional("AXIYA_S3_ACCESS_KEY_ID")
AXIYA_S3_SECRET_ACCESS_KEY = env_optional("AXIYA_S3_SECRET_ACCESS_KEY")
AXIYA_S3_MAX_ATTEMPTS = env_int("AXIYA_S3_MAX_ATTEMPTS", 5, minimum=1)
AXIYA_S3_TIMEOUT_S = env_float("AXIYA_S3_TIMEOUT_S", 30.0)
# Request bodies too large for memory are spooled next to the uploads being validated
# (conversion.storage.incoming_dir), not in /tmp: a process killed mid-upload leaves them where
# the sweep removes them (services.files_sweep).
FILE_UPLOAD_TEMP_DIR = str(MEDIA_ROOT / "incoming")
Path(FILE_UPLOAD_TEMP_DIR).mkdir(parents=True, exist_ok=True)
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"

# --- Conversion -----------------------------------------------------------------------------
AXIYA_DEFAULT_ENGINE = env_str("AXIYA_ENGINE", "ocr")
# The engine a worker process builds (and warms) when it starts, not on its first page.
AXIYA_WORKER_ENGINE = env_optional("AXIYA_WORKER_ENGINE")
AXIYA_MODEL_DIR = env_optional("AXIYA_MODEL_DIR")
# The gemma engine: answer length per page, image tokens per page (70/140/280/560/1120), pages
# per generate call (an upper bound: out-of-memory halves it), an optional KV-cache budget that
# bounds it further, and the CUDA device (0 under a per-worker CUDA_VISIBLE_DEVICES).
AXIYA_GEMMA_MAX_NEW_TOKENS = env_int("AXIYA_GEMMA_MAX_NEW_TOKENS", 2048, minimum=1)
AXIYA_GEMMA_MAX_SOFT_TOKENS = env_int("AXIYA_GEMMA_MAX_SOFT_TOKENS", 1120, minimum=70)
AXIYA_GEMMA_BATCH = env_int("AXIYA_GEMMA_BATCH", 16, minimum=1)
# A GPU task claims at most one batch at a time. While it reads one it claims the next (the
# engine prepares its images while the current one decodes), for at most AXIYA_GEMMA_DRAIN_S,
# so one task keeps its GPU busy while pages are queued and several GPU workers share a long
# job batch by batch.
AXIYA_GEMMA_DRAIN_S = env_float("AXIYA_GEMMA_DRAIN_S", 300.0)
# A task's first batch (then 2x, 4x, ... up to AXIYA_GEMMA_BATCH): on the H200 the image work
# of 256 pages took ~22 s before the GPU could start decoding; 32 pages take ~3 s.
AXIYA_GEMMA_FIRST_BATCH = env_int("AXIYA_GEMMA_FIRST_BATCH", min(32, AXIYA_GEMMA_BATCH), minimum=1)
# A GPU worker waits this long for a fuller batch while a job's later pages are still being
# rasterized (the cpu workers rasterize in chunks as the first pages are read).
AXIYA_GEMMA_BATCH_WAIT_S = env_float("AXIYA_GEMMA_BATCH_WAIT_S", 3.0)
AXIYA_GEMMA_KV_BUDGET_GB = env_float("AXIYA_GEMMA_KV_BUDGET_GB", 0.0)
# Continuous batching on the GPU fast path: AXIYA_GEMMA_BATCH rows keep decoding and a row
# whose page is done takes the next page at once; the worker then claims pages
# AXIYA_GEMMA_FIRST_BATCH at a time as rows free up. On by default: on an H200 it read answers
# of mixed lengths (as real pages give) faster than whole batches at the same width (11.73 vs
# 11.41 pages/s, docs/gemma-runtime.md, seventh run); false: batches as above.
AXIYA_GEMMA_CONTINUOUS = env_bool("AXIYA_GEMMA_CONTINUOUS", True)
# Continuous batching: pages whose image work is done ahead of free rows, besides the claim
# being prepared (default: one claim, AXIYA_GEMMA_FIRST_BATCH). Rows that started together
# free together, and a row with no prepared page waits for the vision tower; more pages
# prepared ahead overlap that work with decoding, but each holds its image features on the
# GPU (~3.4 MB at 1120 image tokens) and its claim. On an H200 a batch's worth (512) did not
# read faster than one claim (docs/gemma-runtime.md, twelfth run).
AXIYA_GEMMA_PREPARED_AHEAD = env_int(
    "AXIYA_GEMMA_PREPARED_AHEAD", AXIYA_GEMMA_FIRST_BATCH, minimum=1
)
AXIYA_GEMMA_DEVICE_ID = env_int("AXIYA_GEMMA_DEVICE_ID", 0, minimum=0)
# Cascade attention on the GPU fast path (docs/gemma-runtime.md): rows of one prompt prefix
# read its keys once in the decode step. Off until measured on an H200; needs a package built
# with `--cascade`.
AXIYA_GEMMA_CASCADE = env_bool("AXIYA_GEMMA_CASCADE", False)
AXIYA_MAX_UPLOAD_MB = env_int("AXIYA_MAX_UPLOAD_MB", 100, minimum=1)
# The whole request (a site form or an API batch of several files), refused from its
# Content-Length before the body is read (conversion/request_limits.py).
AXIYA_MAX_REQUEST_MB = env_int(
    "AXIYA_MAX_REQUEST_MB", max(256, AXIYA_MAX_UPLOAD_MB + 1), minimum=AXIYA_MAX_UPLOAD_MB + 1
)
FILE_UPLOAD_HANDLERS = [
    "conversion.request_limits.RequestCapUploadHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
AXIYA_MAX_PAGES = env_int("AXIYA_MAX_PAGES", 500, minimum=1)
AXIYA_DPI = env_int("AXIYA_DPI", 300, minimum=72)
AXIYA_MAX_DPI = env_int("AXIYA_MAX_DPI", 240, minimum=72)
AXIYA_MAX_PAGE_MEGAPIXELS = env_float("AXIYA_MAX_PAGE_MEGAPIXELS", 20.0)
AXIYA_MAX_IMAGE_MEGAPIXELS = env_float("AXIYA_MAX_IMAGE_MEGAPIXELS", 300.0)
AXIYA_OCR_LANGUAGES = env_str("AXIYA_OCR_LANGUAGES", "eng")
AXIYA_RETENTION_DAYS = env_int("AXIYA_RETENTION_DAYS", 30, minimum=0)  # 0: keep forever
# Time limits: one page (rasterize or engine) and a whole job, from its start. A page over its
# limit counts a failed attempt (PAGE_TIMEOUT); a job over its deadline fails (JOB_TIMEOUT).
AXIYA_PAGE_TIMEOUT_S = env_int("AXIYA_PAGE_TIMEOUT_S", 300, minimum=1)
AXIYA_JOB_TIMEOUT_S = env_int("AXIYA_JOB_TIMEOUT_S", 6 * 3600, minimum=1)
# Memory cap (address space) of the child process that opens and rasterizes untrusted PDFs.
AXIYA_RASTER_MEMORY_MB = env_int("AXIYA_RASTER_MEMORY_MB", 4096, minimum=256)
# jobs_recover re-queues work that made no progress for this long (a lost message, a dead worker).
AXIYA_RECOVER_AFTER_S = env_int("AXIYA_RECOVER_AFTER_S", 900, minimum=1)
# Notifications when a job or batch ends (conversion/notify.py, conversion/webhooks.py). Only
# hosts named here are ever called back (no SSRF): host names or IP addresses, exactly as in the
# callback URL. A name must resolve to public addresses only; a private, loopback or link-local
# address is called only when it (or a network holding it, e.g. 10.0.0.0/8) is listed too.
# Empty: no callback URL is accepted.
AXIYA_WEBHOOK_ALLOWED_HOSTS = env_list("AXIYA_WEBHOOK_ALLOWED_HOSTS", [])
# One delivery: connect + answer within this many seconds; a non-2xx answer, a timeout or a
# refused connection is retried after AXIYA_WEBHOOK_BACKOFF_S, then twice that, four times...,
# AXIYA_WEBHOOK_ATTEMPTS tries in all (defaults: 30 s, 1, 2, 4, 8 min: about 15 minutes).
AXIYA_WEBHOOK_TIMEOUT_S = env_float("AXIYA_WEBHOOK_TIMEOUT_S", 10.0)
AXIYA_WEBHOOK_ATTEMPTS = env_int("AXIYA_WEBHOOK_ATTEMPTS", 6, minimum=1)
AXIYA_WEBHOOK_BACKOFF_S = env_float("AXIYA_WEBHOOK_BACKOFF_S", 30.0)
# The site's public address for links in notifications (https://axiya.example.org); unset: the
# address the client used when it submitted the job.
AXIYA_PUBLIC_URL = env_str("AXIYA_PUBLIC_URL", "")
# Inline mode has no beat: requests trigger the hourly purge + recovery sweep (off in tests).
AXIYA_INLINE_HOUSEKEEPING = env_bool("AXIYA_INLINE_HOUSEKEEPING", True)

# --- Celery: with no broker the conversion runs in a thread of the web process ---------------
CELERY_BROKER_URL = env_optional("AXIYA_BROKER_URL")
AXIYA_INLINE_WORKER = CELERY_BROKER_URL is None
CELERY_RESULT_BACKEND = None
# One cache for every process (the upload throttle, worker heartbeats): Redis when a broker is
# configured (keys under their own prefix), else this process's memory (one web process: make
# demo). Nothing a request needs depends on it: while Redis is down the throttle fails open and
# the lockouts and sessions are in the database (issue 29). A Redis that does not answer is
# given up on after AXIYA_CACHE_TIMEOUT_S seconds (redis-py's own default: 5 s).
AXIYA_CACHE_TIMEOUT_S = env_float("AXIYA_CACHE_TIMEOUT_S", 3.0)
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": CELERY_BROKER_URL, "KEY_PREFIX": "axiya-cache",
                "OPTIONS": {"socket_connect_timeout": AXIYA_CACHE_TIMEOUT_S,
                            "socket_timeout": AXIYA_CACHE_TIMEOUT_S}}
    if CELERY_BROKER_URL and CELERY_BROKER_URL.startswith(("redis://", "rediss://"))
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}  # fmt: skip
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "cpu"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ALWAYS_EAGER = False
# Prefork pool processes start as fresh interpreters, never as forks of the worker's main
# process (issue 29): that process has imported the tasks and with them threads (onnxruntime's
# pools in pymupdf.layout, OpenBLAS), and a fork copies only the forking thread, so a lock one
# of those threads held, or a destructor waiting on them, blocks the child forever.
CELERY_WORKER_POOL_START_METHOD = "spawn"
# Every task has time limits (the tasks name their own; these cover any other): a soft one
# that raises in the task, a hard one after which the pool process is replaced.
CELERY_TASK_SOFT_TIME_LIMIT = AXIYA_PAGE_TIMEOUT_S + 30
CELERY_TASK_TIME_LIMIT = AXIYA_PAGE_TIMEOUT_S + 90
# How long a new pool process may take to come up: a GPU worker loads, verifies (sha256) and
# warms a multi-GB model package in worker_process_init (Celery's default is 4 s).
CELERY_WORKER_PROC_ALIVE_TIMEOUT = env_float("AXIYA_WORKER_START_TIMEOUT_S", 900.0)
# acks_late: a message whose worker died (SIGKILL, OOM) is delivered again once unacknowledged
# for this long. It must exceed the longest task (a page: AXIYA_PAGE_TIMEOUT_S), or a slow page
# would be read twice; jobs_recover covers anything lost beyond that.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int(
        "AXIYA_BROKER_VISIBILITY_TIMEOUT_S",
        max(2 * AXIYA_PAGE_TIMEOUT_S + AXIYA_GEMMA_DRAIN_S, 900),
        minimum=1,
    ),
    # Redis: ten priority lists per queue, 0 taken first (owner fairness, dispatch/tasks.py).
    "priority_steps": list(range(10)),
}
if CELERY_BROKER_URL and CELERY_BROKER_URL.startswith("filesystem://"):
    # kombu's filesystem transport, for a single host without Redis: every process on the host
    # shares one message folder.
    _queue_dir = DATA_DIR / "broker"
    _queue_dir.mkdir(exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS.update(
        data_folder_in=str(_queue_dir),
        data_folder_out=str(_queue_dir),
        control_folder=str(_queue_dir / "control"),
        store_processed=False,
    )
# Housekeeping runs on its own queue and worker (`make housekeeping`: beat inside a solo worker
# that converts nothing), so a frozen or busy conversion worker can't hold up the recovery of
# its own stalled work (issue 29).
HOUSEKEEPING_QUEUE = "housekeeping"
CELERY_BEAT_SCHEDULE = {
    # Every 20 s: a dead worker's pages are queued again within a minute (heartbeats).
    "jobs-recover": {"task": "conversion.dispatch.tasks.jobs_recover_task", "schedule": 20.0,
                     "options": {"queue": HOUSEKEEPING_QUEUE, "expires": 20.0}},
    "purge-expired": {"task": "conversion.dispatch.tasks.purge_expired_task", "schedule": 3600.0,
                      "options": {"queue": HOUSEKEEPING_QUEUE, "expires": 3600.0}},
}  # fmt: skip
CELERY_TASK_ROUTES = {
    "conversion.dispatch.tasks.jobs_recover_task": {"queue": HOUSEKEEPING_QUEUE},
    # Webhooks and e-mails wait on other servers: never on a conversion worker.
    "conversion.dispatch.tasks.notification_send_task": {"queue": HOUSEKEEPING_QUEUE},
    "conversion.dispatch.tasks.purge_expired_task": {"queue": HOUSEKEEPING_QUEUE},
}

# --- API ----------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "conversion.api.authentication.LockoutTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_THROTTLE_RATES": {"uploads": env_str("AXIYA_UPLOAD_RATE", "120/hour")},
}
SPECTACULAR_SETTINGS = {"TITLE": "Axiya API", "VERSION": "1.0.0"}

# --- Security headers (production values when DEBUG is off) ------------------------------------
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"  # the /view/ links that the site frames opt in to SAMEORIGIN
# Sessions in the database (Django's default, said): a Redis outage signs nobody out (issue 29).
SESSION_ENGINE = "django.contrib.sessions.backends.db"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
AXIYA_HTTPS = env_bool("AXIYA_HTTPS", False)
if AXIYA_HTTPS:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("AXIYA_SSL_REDIRECT", True)
    # Behind a TLS-terminating proxy that sets X-Forwarded-Proto (docker-compose, nginx).
    if env_bool("AXIYA_BEHIND_PROXY", False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = 31536000
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

# Sign-in lockout (django-axes): after AXIYA_LOGIN_FAILURES wrong passwords for one user name
# from one address, that pair is refused for AXIYA_LOGIN_LOCKOUT_MIN minutes (a page says so,
# HTTP 429). The pair, not the address alone: others behind the same proxy or NAT keep signing
# in; and not the user name alone: a stranger cannot lock a user out from everywhere. Counts
# live in the database (AxesDatabaseHandler), so a Redis outage or restart neither breaks the
# sign-in nor resets them.
# API tokens (conversion/api/authentication.py): AXIYA_LOGIN_FAILURES wrong tries lock out that
# token, and AXIYA_TOKEN_ADDRESS_FAILURES wrong tokens (default 100) lock out their address, for
# AXIYA_LOGIN_LOCKOUT_MIN minutes: one client's bad token does not lock out the others behind
# its address, and guessing stays throttled. Counted in the database too.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("AXIYA_LOGIN_FAILURES", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXIYA_LOGIN_LOCKOUT_MIN", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"  # the default, said: not the cache
AXIYA_TOKEN_ADDRESS_FAILURES = env_int("AXIYA_TOKEN_ADDRESS_FAILURES", 100, minimum=1)
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"

# Content-Security-Policy of the app's own pages (django-csp). Results carry their own, stricter
# sandbox policy (conversion/views.py RESULT_CSP), which the middleware leaves in place.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "frame-src": ["'self'"],
        "frame-ancestors": ["'self'"],
        "form-action": ["'self'"],
        "base-uri": ["'none'"],
        "object-src": ["'none'"],
    }
}

# Mail: password reset, which is off (404) until AXIYA_EMAIL_HOST is set (issue 29: an
# unthrottled reset form that mails nothing), and the "job ended" e-mails a user asks for on
# their API page (conversion/notify.py), also only with AXIYA_EMAIL_HOST.
EMAIL_HOST = env_str("AXIYA_EMAIL_HOST", "")
EMAIL_PORT = env_int("AXIYA_EMAIL_PORT", 587, minimum=1)
EMAIL_HOST_USER = env_str("AXIYA_EMAIL_USER", "")
EMAIL_HOST_PASSWORD = env_str("AXIYA_EMAIL_PASSWORD", "")
EMAIL_USE_TLS = env_bool("AXIYA_EMAIL_TLS", True)
DEFAULT_FROM_EMAIL = env_str("AXIYA_EMAIL_FROM", "axiya@localhost")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("AXIYA_LOG_LEVEL", "INFO")},
}
