"""Project settings, read from environment variables (12-factor).

With nothing set, the app runs on a laptop: a SQLite file database and Celery tasks run
in-process. Set DATABASE_URL and CELERY_BROKER_URL for PostgreSQL and real workers.
`config.settings.production` tightens security on top of this module.
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={value!r}: expected one of 1/0, true/false, yes/no, on/off")


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY") or "dev-only-insecure-key-set-SECRET_KEY-in-production"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "taxonomy",
    "mining",
    "labeler",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Anonymous visitors see only the sign-in page. DRF views opt out of it and answer
    # 401/403 in JSON themselves (they also accept API tokens).
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

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
                "labeler.context_processors.roles",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_FILTER_BACKENDS": ["config.api.StrictFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "config.api.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Bug labeler API",
    "DESCRIPTION": "Codebooks, imported bug reports, studies and labels.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "ENUM_NAME_OVERRIDES": {
        "ReportStateEnum": "mining.models.BugReport.State",
        "PullRequestStateEnum": "mining.models.PullRequest.State",
        "AssignmentStatusEnum": "labeler.models.Assignment.Status",
    },
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Celery: without a broker URL, tasks run in-process (eager) so the app works with nothing
# installed. Redis' visibility timeout must exceed the longest countdown a task may ask for
# (rate-limit waits), or the broker redelivers the task while it is still waiting.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", CELERY_BROKER_URL or None)
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_LONGEST_WAIT_SECONDS = 2 * 60 * 60
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_LONGEST_WAIT_SECONDS + 3600}
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = CELERY_BROKER_TRANSPORT_OPTIONS
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# GitHub: tokens come from the environment only and are never rendered or logged.
GITHUB_API_URL = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
GITHUB_TOKENS = env_list("GITHUB_TOKENS") or env_list("GITHUB_TOKEN")

# ---- Mining (GitHub import) — owned by the mining app -------------------------------------
# PyGithub spaces requests per client (GitHub asks for one request at a time); 0 disables it,
# as the tests and the benchmark do against the local fake server.
GITHUB_SECONDS_BETWEEN_REQUESTS = float(os.environ.get("GITHUB_SECONDS_BETWEEN_REQUESTS", "0.25"))
GITHUB_SECONDS_BETWEEN_WRITES = float(os.environ.get("GITHUB_SECONDS_BETWEEN_WRITES", "1.0"))
GITHUB_TIMEOUT_SECONDS = int(os.environ.get("GITHUB_TIMEOUT_SECONDS", "30"))
# Requests on one token are serialised across workers by a Redis lock; a worker killed
# mid-request holds it this long at most.
GITHUB_TOKEN_LOCK_SECONDS = int(
    os.environ.get("GITHUB_TOKEN_LOCK_SECONDS", str(GITHUB_TIMEOUT_SECONDS + 30))
)
# Rate-limit waits up to this long sleep in the worker; longer ones reschedule the task.
GITHUB_INLINE_WAIT_SECONDS = int(os.environ.get("GITHUB_INLINE_WAIT_SECONDS", "60"))
# A secondary rate limit without Retry-After waits this long (GitHub: at least a minute),
# doubling while such limits come in a row.
GITHUB_SECONDARY_WAIT_SECONDS = float(os.environ.get("GITHUB_SECONDARY_WAIT_SECONDS", "60"))
# 5xx answers: retries (with exponential backoff from GITHUB_RETRY_BACKOFF_SECONDS) per request.
GITHUB_SERVER_ERROR_RETRIES = int(os.environ.get("GITHUB_SERVER_ERROR_RETRIES", "5"))
GITHUB_RETRY_BACKOFF_SECONDS = float(os.environ.get("GITHUB_RETRY_BACKOFF_SECONDS", "2"))
GITHUB_GRAPHQL_PAGE_SIZE = int(os.environ.get("GITHUB_GRAPHQL_PAGE_SIZE", "100"))
# Per-file patches (REST only, one request per commit): "candidates", "all" or "none".
MINING_FETCH_PATCHES = os.environ.get("MINING_FETCH_PATCHES", "candidates")
MINING_PATCH_MAX_CHARS = int(os.environ.get("MINING_PATCH_MAX_CHARS", "20000"))
MINING_FILE_PAGE_SIZE = 500
MINING_IMPORT_TIME_LIMIT_SECONDS = int(os.environ.get("MINING_IMPORT_TIME_LIMIT_SECONDS", "21600"))
# ---- end of mining block -------------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "filters": {"refusal_on_one_line": {"()": "config.logs.RefusalOnOneLine"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["refusal_on_one_line"],
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
