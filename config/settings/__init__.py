"""Project settings, read from environment variables (12-factor).

With nothing set, the app runs on a laptop: the embedded PostgreSQL under the project
(config/embedded_db.py) and Celery tasks run in-process; `make run` adds a worker on a
folder queue. Set DATABASE_URL and CELERY_BROKER_URL for another server and real workers.
`config.settings.production` tightens security on top of this module.
"""

import datetime as dt
import os
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from config.embedded_db import DATA_DIR, EmbeddedPostgres

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
    "axes",
    "taxonomy",
    "mining",
    "labeler",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # A NUL in the path: a 400 before anything looks the address up.
    "config.middleware.PathNulMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # API bodies: size and JSON nesting checked before any view reads them.
    "config.middleware.ApiBodyMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Anonymous visitors see only the sign-in page. DRF views opt out of it and answer
    # 401/403 in JSON themselves (they also accept API tokens).
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as axes asks: it turns a refused sign-in into its answer (config.auth).
    "axes.middleware.AxesMiddleware",
]

# In every mode, so the tests run under the policy production sends. Scripts, styles and
# everything else from the app's own address only: no inline script or style runs, so markup
# that slipped through cannot script the page. Images may also be data: URIs (the API docs'
# stylesheet draws its icons with them). Pages with charts relax styles only (config.csp).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

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

# Without DATABASE_URL, the database is the embedded PostgreSQL with its data in this folder
# (manage.py then says how to start it when it is not running).
EMBEDDED_DATABASE_DIR = None if os.environ.get("DATABASE_URL") else DATA_DIR
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or EmbeddedPostgres(DATA_DIR).url(),
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
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "config.staticfiles.PackageFileFinder",
]
# The chart library comes inside its pinned PyPI package (config/staticfiles.py): no CDN.
PACKAGE_STATIC_FILES = {"vendor/plotly/plotly.min.js": "plotly/package_data/plotly.min.js"}
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
    "DEFAULT_PAGINATION_CLASS": "config.api.PageNumberPagination",
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
        "DisagreementReasonEnum": "labeler.models.DisagreementReason",
        "FinalMethodEnum": "labeler.models.FinalMethod",
        # The candidate flags (labeler.studies.frames.Candidates): a study's frame and the
        # keyword rule a screening model is compared with name the same set.
        "CandidatesEnum": ["performance", "accuracy", "any"],
    },
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Celery: without a broker URL, tasks run in-process (eager) so the app works with nothing
# installed. Redis' visibility timeout must exceed the longest countdown a task may ask for
# (rate-limit waits), or the broker redelivers the task while it is still waiting.
# `filesystem://localhost/FOLDER` is a queue in a folder, which needs no broker server:
# `make run`'s worker uses one. It keeps no results; nothing reads them (progress is on the
# job itself).
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
_FOLDER_QUEUE = (
    urlsplit(CELERY_BROKER_URL).path if CELERY_BROKER_URL.startswith("filesystem:") else ""
)
if CELERY_BROKER_URL.startswith("filesystem:") and not _FOLDER_QUEUE.startswith("/"):
    raise ImproperlyConfigured(
        f"CELERY_BROKER_URL={CELERY_BROKER_URL!r}: a folder queue needs an absolute folder, "
        "e.g. filesystem://localhost/home/me/labeler/.data/queue"
    )
CELERY_RESULT_BACKEND = os.environ.get(
    "CELERY_RESULT_BACKEND", None if _FOLDER_QUEUE else CELERY_BROKER_URL or None
)
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_LONGEST_WAIT_SECONDS = 2 * 60 * 60
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_LONGEST_WAIT_SECONDS + 3600}
if _FOLDER_QUEUE:
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": _FOLDER_QUEUE,
        "data_folder_out": _FOLDER_QUEUE,
        "control_folder": f"{_FOLDER_QUEUE}/control",
    }
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
# When fix commits' per-file patches (REST only, one request per commit) come, for jobs that do
# not say (`import_github --patches` does): "lazy" (when a report enters a study or is opened),
# or during the import, "candidates" (of candidate reports) or "all".
MINING_FETCH_PATCHES = os.environ.get("MINING_FETCH_PATCHES", "lazy")
MINING_PATCH_MAX_CHARS = int(os.environ.get("MINING_PATCH_MAX_CHARS", "20000"))
MINING_FILE_PAGE_SIZE = 500
# An active import with no progress for this long is shown as stalled (its worker may have
# stopped; the broker redelivers its task only after the visibility timeout).
MINING_STALLED_MINUTES = int(os.environ.get("MINING_STALLED_MINUTES", "15"))
MINING_IMPORT_TIME_LIMIT_SECONDS = int(os.environ.get("MINING_IMPORT_TIME_LIMIT_SECONDS", "21600"))
# ---- end of mining block -------------------------------------------------------------------

# ---- Hardening: sign-in throttling, tokens, error answers — owned by config.auth/errors ----
# Failed sign-ins (pages and API token) are counted per account and per address; either one
# past the limit is refused for the cool-off, counted from its last attempt.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "10"))
AXES_COOLOFF_TIME = dt.timedelta(minutes=int(os.environ.get("LOGIN_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_LOCKOUT_CALLABLE = "config.auth.lockout_response"
AXES_CLIENT_IP_CALLABLE = "config.auth.client_address"
# Only failures are kept; successful sign-ins are not logged, nor axes' banner at every start.
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False
# Behind a reverse proxy every request comes from its address: say how many proxies append to
# X-Forwarded-For, or one person's typos lock everyone out.
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
# ---- end of hardening block ----------------------------------------------------------------

# A labels CSV uploaded on the study's import page is checked and stored within the request:
# at most this many rows (the import_annotations command has no limit).
LABEL_IMPORT_MAX_ROWS = int(os.environ.get("LABEL_IMPORT_MAX_ROWS", "100000"))
# An upload of more rows than this becomes a background job (a Celery task) with a page
# showing its progress; smaller ones are imported within the request.
LABEL_IMPORT_BACKGROUND_ROWS = int(os.environ.get("LABEL_IMPORT_BACKGROUND_ROWS", "2000"))
# A background label import running longer than this fails, having written nothing.
LABEL_IMPORT_TIME_LIMIT_SECONDS = int(os.environ.get("LABEL_IMPORT_TIME_LIMIT_SECONDS", "900"))

# A study's invitation link works once, for this many days after a lead makes it.
INVITATION_DAYS = int(os.environ.get("INVITATION_DAYS", "7"))
# Invitations are sent by e-mail only when an SMTP host is set; otherwise the lead copies the
# link from the members page.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "labeler@localhost")

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
