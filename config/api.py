"""API plumbing shared by every endpoint: one JSON error body for every failure.

Every error answers `{"message": "...", "fields": {"<field>": ["..."]}}`; `fields` names
what was wrong where, and is empty when the error is not about one input field.
"""

import difflib
import json
from collections.abc import Iterable, Mapping

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions
from rest_framework.views import exception_handler as drf_exception_handler


def closest_name(name: str, known) -> str | None:
    """The known name `name` most likely misspells or abbreviates, if any is close."""
    known = sorted(known)
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if close:
        return close[0]
    return next((k for k in known if k.startswith(name) or name.startswith(k)), None)


# The largest id a PostgreSQL bigint holds: a larger one in a URL names nothing.
MAX_ID = 2**63 - 1

# The code of a Django ValidationError that refuses a request because of the state of what it
# would change (a revision of a final item, say), not because of its input: it answers 409.
CONFLICT = "conflict"


class Conflict(exceptions.APIException):
    status_code = 409
    default_detail = "the request conflicts with the current state of what it changes"
    default_code = CONFLICT


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


def unknown_field_message(name: str, known: Iterable[str]) -> str:
    known = sorted(known)
    close = closest_name(name, known)
    if close is not None:
        return f"unknown field {name!r}: did you mean {close!r}?"
    return f"unknown field {name!r} (known: {', '.join(known)})"


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
