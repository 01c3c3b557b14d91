"""Answers for what no view answers: a body too large, an unknown address, a database that
dropped the connection, an uncaught error. Under /api/ they are the API's JSON error body
(`{"message": ..., "fields": {}}`); elsewhere HTML pages.

The database pages are plain HTML from here, not templates: rendering one would ask the
database for the signed-in user.
"""

import sys

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.urls import resolve
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt

API_PREFIX = "/api/"
# PostgreSQL closing connections under load (or restarting) passes within seconds; the next
# request gets a new connection.
DATABASE_RETRY_AFTER_SECONDS = 5

DATABASE_UNAVAILABLE = "the database is busy or restarting: try again in a few seconds"

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>
<body><h1>{title}</h1><p>{text}</p></body></html>
"""


def is_api(request) -> bool:
    return request.path_info.startswith(API_PREFIX)


def api_error(
    status: int, message: str, fields: dict[str, list[str]] | None = None, **headers: str
) -> JsonResponse:
    body = {"message": message, "fields": fields or {}}
    return JsonResponse(body, status=status, headers=headers)


def sentence(message: str) -> str:
    """An API message (lowercase, no full stop) as a sentence on a page."""
    return f"{message[:1].upper()}{message[1:]}."


def _page(status: int, title: str, message: str, **headers: str) -> HttpResponse:
    page = _PAGE.format(title=title, text=sentence(message))
    return HttpResponse(page, status=status, headers=headers)


def page_error(status: int, title: str, message: str) -> HttpResponse:
    """A plain page saying `message`, for what is refused before any view runs."""
    return _page(status, title, message)


def body_too_large_message() -> str:
    return f"the request body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes"


def body_too_large(request) -> HttpResponse:
    if is_api(request):
        return api_error(413, body_too_large_message())
    return _page(413, "Request too large", body_too_large_message())


def bad_request(request, exception):
    if isinstance(exception, RequestDataTooBig):
        return body_too_large(request)
    if is_api(request):
        return api_error(400, "Bad request.")
    return defaults.bad_request(request, exception)


def page_not_found(request, exception):
    if is_api(request):
        return api_error(404, "Not found.")
    return defaults.page_not_found(request, exception)


@csrf_exempt
@login_not_required
def api_not_found(request, path: str = ""):
    """Every address under /api/ that no endpoint takes, in every mode: with DEBUG on, Django
    answers an unknown address with its page listing every route, not with handler404. A GET
    that lacks only its final slash is sent on, as CommonMiddleware would."""
    if (
        settings.APPEND_SLASH
        and request.method in ("GET", "HEAD")
        and not request.path_info.endswith("/")
        and resolve(f"{request.path_info}/").func is not api_not_found
    ):
        return HttpResponsePermanentRedirect(request.get_full_path(force_append_slash=True))
    return api_error(404, "Not found.")


def server_error(request):
    """Django calls this while the uncaught exception is being handled, so it can tell a lost
    database connection (503 with Retry-After: the client may simply try again) from a bug."""
    error = sys.exc_info()[1]
    if isinstance(error, OperationalError | InterfaceError):
        retry = {"Retry-After": str(DATABASE_RETRY_AFTER_SECONDS)}
        if is_api(request):
            return api_error(503, DATABASE_UNAVAILABLE, **retry)
        return _page(503, "Try again in a few seconds", DATABASE_UNAVAILABLE, **retry)
    if is_api(request):
        return api_error(500, "Server error.")
    return defaults.server_error(request)
