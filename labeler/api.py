"""API plumbing shared by every endpoint: one JSON error body for every failure.

Every error answers `{"message": "...", "fields": {"<field>": ["..."]}}`; `fields` names
what was wrong where, and is empty when the error is not about one input field.
"""

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions
from rest_framework.views import exception_handler as drf_exception_handler


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
    if isinstance(exc, DjangoValidationError):
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
