"""Checks on requests before any view reads them: API bodies, and the path of every address."""

from django.core.exceptions import RequestDataTooBig

from config.api import MAX_JSON_DEPTH, json_nesting_exceeds, json_text_problems
from config.errors import api_error, body_too_large, is_api, page_error


def _is_json(content_type: str) -> bool:
    return content_type == "application/json" or content_type.endswith("+json")


class ApiBodyMiddleware:
    """Every API body within DATA_UPLOAD_MAX_MEMORY_SIZE (413), and every JSON body nested at
    most MAX_JSON_DEPTH levels and with no string a database column cannot hold (a NUL, a lone
    surrogate) (400, naming the field), in the API's error body.

    Here rather than in a parser: a view may name its own parsers, and Django applies the size
    limit only when the body is read through it (DRF's parsers read the raw stream).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if is_api(request) and request.META.get("CONTENT_LENGTH") not in (None, "", "0"):
            try:
                body = request.body
            except RequestDataTooBig:
                return body_too_large(request)
            if not _is_json(request.content_type):
                return self.get_response(request)
            if json_nesting_exceeds(body, MAX_JSON_DEPTH):
                return api_error(
                    400, f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels"
                )
            problems = json_text_problems(body)
            if problems:
                field, messages = next(iter(problems.items()))
                where = "" if field == "non_field_errors" else f"{field}: "
                return api_error(400, f"{where}{messages[0]}", problems)
        return self.get_response(request)


PATH_NUL = "the address holds a NUL character (%00): no name, key or version here contains one"


class PathNulMiddleware:
    """A NUL character in the path answers 400, on every route: PostgreSQL text cannot hold
    it, so looking a value with one up fails in the database (a 500) instead of finding
    nothing."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path_info:
            if is_api(request):
                return api_error(400, PATH_NUL)
            return page_error(400, "Bad address", PATH_NUL)
        return self.get_response(request)
