"""Filters for templates that show what an API serializer wrote."""

import datetime as dt

from django import template
from django.utils.dateparse import parse_datetime

register = template.Library()


@register.filter
def api_datetime(value: str | None) -> dt.datetime | None:
    """An ISO 8601 date and time as the API writes it, back to a datetime for `date`."""
    return parse_datetime(value) if value else None
