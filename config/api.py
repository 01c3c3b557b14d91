"""API plumbing shared by every endpoint: one JSON error body for every failure, and lists
that refuse what they do not understand.

Every error answers `{"message": "...", "fields": {"<field>": ["..."]}}`; `fields` names
what was wrong where, and is empty when the error is not about one input field. A list
refuses a query parameter it does not take, and a bad value of one it does, with a 400
naming it (StrictFilterBackend, StrictBooleanFilter).
"""

import json
import re
from collections.abc import Iterable, Mapping

import django_filters
from django import forms
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import exceptions, pagination, status
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from config.names import closest_name

# The largest id a PostgreSQL bigint holds: a larger one in a URL names nothing.
MAX_ID = 2**63 - 1

# The code of a Django ValidationError that refuses a request because of the state of what it
# would change (a revision of a final item, say), not because of its input: it answers 409.
CONFLICT = "conflict"


def _is_conflict(error: DjangoValidationError) -> bool:
    return not hasattr(error, "error_dict") and all(e.code == CONFLICT for e in error.error_list)


# No body of this API nests anywhere near this deep; far deeper would exhaust Python's recursion
# in the decoder, the serializers or the renderer.
MAX_JSON_DEPTH = 100


def json_nesting_exceeds(body: bytes, limit: int) -> bool:
    """Whether the JSON document `body` nests arrays and objects more than `limit` deep.

    Without a cheap answer (fewer brackets than `limit` at all), it is decoded and walked
    without recursion; one too deep for Python's decoder is too deep. A body that is not JSON
    is left to the parser, which names the mistake.
    """
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    try:
        value = json.loads(body)
    except RecursionError:
        return True
    except ValueError:
        return False
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


# What a JSON string may hold but PostgreSQL text cannot: the NUL character (\u0000), and a
# lone UTF-16 surrogate (\ud800), which is no character at all and cannot be encoded.
NUL_MESSAGE = "must not contain the NUL character"
_ESCAPES_TO_CHECK = re.compile(rb"\\u(0000|[dD][89a-fA-F])")


def text_problem(text: str) -> str | None:
    """Why `text` cannot be stored, or None."""
    if "\x00" in text:
        return NUL_MESSAGE
    for position, char in enumerate(text):
        if "\ud800" <= char <= "\udfff":
            return (
                f"has a lone surrogate (\\u{ord(char):04x}) at character {position + 1}, "
                "which is not Unicode text"
            )
    return None


def json_text_problems(body: bytes) -> dict[str, list[str]]:
    """The strings (and keys) of the JSON document `body` that no database column can hold,
    named as the API names a field (`codes.root-cause[2]`). Both can only be written as
    escapes, so a body without one is not decoded."""
    if not _ESCAPES_TO_CHECK.search(body):
        return {}
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return {}
    problems: dict[str, list[str]] = {}
    stack = [(value, "")]
    while stack:
        node, name = stack.pop()
        if isinstance(node, str):
            problem = text_problem(node)
            if problem:
                problems[name or "non_field_errors"] = [problem]
        elif isinstance(node, list):
            stack.extend((child, f"{name}[{index}]") for index, child in enumerate(node))
        elif isinstance(node, dict):
            for key, child in node.items():
                problem = text_problem(key)
                if problem:
                    problems[name or "non_field_errors"] = [f"a key {problem}"]
                    continue
                stack.append((child, f"{name}.{key}" if name else key))
    return dict(sorted(problems.items()))


def unknown_field_message(name: str, known: Iterable[str], what: str = "field") -> str:
    known = sorted(known)
    close = closest_name(name, known)
    if close is not None:
        return f"unknown {what} {name!r}: did you mean {close!r}?"
    return f"unknown {what} {name!r} (known: {', '.join(known) or 'none'})"


def query_params_refuse_unknown(params: Iterable[str], known: Iterable[str]) -> None:
    """A 400 naming every query parameter that is not in `known`: a misspelt filter must not
    be ignored and silently answer with everything."""
    known = set(known)
    unknown = {
        name: [unknown_field_message(name, known, what="query parameter")]
        for name in params
        if name not in known
    }
    if unknown:
        raise exceptions.ValidationError(unknown)


# The attributes naming the query parameters of DRF's paginators.
PAGINATION_PARAMS = (
    "page_query_param",
    "page_size_query_param",
    "limit_query_param",
    "offset_query_param",
    "cursor_query_param",
)


class PageNumberPagination(pagination.PageNumberPagination):
    """Pages of PAGE_SIZE, or of `page_size` (1 to MAX_PAGE_SIZE) for a script that reads a
    whole list: 34,000 reports are 34 requests, not 680. A size out of bounds is refused with
    a 400 naming it, not cut down without a word."""

    page_size_query_param = "page_size"
    max_page_size = 1000

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        try:
            size = int(raw)
        except ValueError:
            size = 0
        if not 1 <= size <= self.max_page_size:
            raise exceptions.ValidationError(
                {
                    self.page_size_query_param: [
                        f"{raw!r} is not a page size: a whole number from 1 to {self.max_page_size}"
                    ]
                }
            )
        return size

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["description"] = (
                    f"Number of results per page, from 1 to {self.max_page_size} "
                    f"(default {self.page_size})."
                )
                parameter["schema"] = {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": self.max_page_size,
                    "default": self.page_size,
                }
        return parameters


class StrictFilterBackend(DjangoFilterBackend):
    """django-filter's backend, whose lists also refuse query parameters they do not take
    (their filters, the paginator's and `format`), and answer a bad value with a 400 naming
    its parameter (as django-filter does)."""

    def filter_queryset(self, request, queryset, view):
        if getattr(view, "action", None) == "list":
            query_params_refuse_unknown(request.query_params, self.known_params(view, queryset))
        return super().filter_queryset(request, queryset, view)

    def known_params(self, view, queryset) -> set[str]:
        known = {api_settings.URL_FORMAT_OVERRIDE}
        filterset_class = self.get_filterset_class(view, queryset)
        if filterset_class is not None:
            known.update(filterset_class.base_filters)
        paginator = getattr(view, "paginator", None)
        known.update(getattr(paginator, name, None) for name in PAGINATION_PARAMS)
        known.discard(None)
        return known


class BooleanChoiceSelect(forms.Select):
    """A yes/no/either choice in the words of the page, that hands its raw value on: a value
    that is none of them reaches the field, which refuses it (Django's NullBooleanSelect
    turns it into "either" without a word)."""

    def __init__(self, either: str = "either", yes: str = "yes", no: str = "no", attrs=None):
        super().__init__(attrs, choices=[("", either), ("true", yes), ("false", no)])

    def format_value(self, value):
        return [{True: "true", False: "false"}.get(value, "" if value is None else str(value))]


class StrictNullBooleanField(forms.NullBooleanField):
    """true/false (also 1/0, yes/no), or empty for either; anything else is refused."""

    def to_python(self, value):
        text = str(value).strip().lower() if value is not None else ""
        if text in {"", "unknown"}:
            return None
        if text in {"true", "1", "yes"}:
            return True
        if text in {"false", "0", "no"}:
            return False
        raise DjangoValidationError(f"{value!r} is not true or false", code="invalid")

    def validate(self, value):
        pass


class StrictBooleanFilter(django_filters.BooleanFilter):
    field_class = StrictNullBooleanField

    def __init__(self, *args, widget=None, **kwargs):
        super().__init__(*args, widget=widget or BooleanChoiceSelect(), **kwargs)


DATE_OR_TIME = "not a date (YYYY-MM-DD) or an ISO 8601 date and time"


class DateOrTimeFilter(django_filters.IsoDateTimeFilter):
    """A date (its midnight, UTC) or an ISO 8601 date and time; the pages offer a date
    picker."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", forms.DateInput(attrs={"type": "date"}))
        kwargs.setdefault("error_messages", {"invalid": DATE_OR_TIME})
        super().__init__(*args, **kwargs)


class Conflict(exceptions.APIException):
    """409: the request was based on a state that changed since. `extra` goes into the error
    body beside `message` and `fields` (e.g. the current state, for the client to offer)."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = "the request conflicts with the current state of what it changes"
    default_code = CONFLICT

    def __init__(self, message: str, *, fields: dict | None = None, extra: dict | None = None):
        super().__init__(message)
        self.fields = fields or {}
        self.extra = extra or {}


class RejectUnknownFieldsMixin:
    """A serializer that refuses keys it does not define, naming each and the closest known
    one: a misspelt filter must not be ignored and silently widen a study's frame.
    `ignored_fields` names keys taken without effect (a create body sent to preview)."""

    ignored_fields: tuple[str, ...] = ()

    def to_internal_value(self, data):
        unknown = {}
        if isinstance(data, Mapping):
            known = [name for name, field in self.fields.items() if not field.read_only]
            known += [name for name in self.ignored_fields if name not in known]
            unknown = {
                key: [unknown_field_message(str(key), known)] for key in data if key not in known
            }
        try:
            value = super().to_internal_value(data)
        except exceptions.ValidationError as error:
            if unknown and isinstance(error.detail, dict):
                raise exceptions.ValidationError({**unknown, **error.detail}) from None
            raise
        if unknown:
            raise exceptions.ValidationError(unknown)
        return value


class IdLookupMixin:
    """Viewsets looked up by a numeric id: anything but ASCII digits, or a number too large for
    the database, answers this API's 404 before any query sees it (PostgreSQL would refuse it
    with an error)."""

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        value = kwargs.get(self.lookup_url_kwarg or self.lookup_field)
        # The length first: Python refuses to turn more than 4,300 digits into an int.
        too_long = value is not None and len(value) > len(str(MAX_ID))
        if value is not None and (
            too_long or not (value.isascii() and value.isdigit() and int(value) <= MAX_ID)
        ):
            raise exceptions.NotFound()


def _flatten(detail, prefix: str = "") -> dict[str, list[str]]:
    if isinstance(detail, dict):
        fields: dict[str, list[str]] = {}
        for key, value in detail.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            fields.update(_flatten(value, name))
        return fields
    if isinstance(detail, list) and detail and all(isinstance(d, dict) for d in detail):
        fields = {}
        for index, value in enumerate(detail):
            fields.update(_flatten(value, f"{prefix}[{index}]"))
        return fields
    items = detail if isinstance(detail, list) else [detail]
    return {prefix or "non_field_errors": [str(item) for item in items]}


def exception_handler(exc, context):
    if isinstance(exc, DjangoValidationError) and _is_conflict(exc):
        exc = Conflict(" ".join(exc.messages))
    elif isinstance(exc, DjangoValidationError):
        detail = (
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
        exc = exceptions.ValidationError(detail=detail)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)

    response = drf_exception_handler(exc, context)
    if response is None:
        return None

    if isinstance(exc, Conflict):
        response.data = {"message": str(exc.detail), "fields": exc.fields, **exc.extra}
        return response
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        first_field, first_messages = next(iter(fields.items()), ("", ["Invalid input."]))
        where = "" if first_field == "non_field_errors" else f"{first_field}: "
        message = f"{where}{first_messages[0]}"
    else:
        fields = {}
        message = str(exc.detail) if hasattr(exc, "detail") else str(exc)
    response.data = {"message": message, "fields": fields}
    return response
