"""Secrets out of upstream text: every configured GitHub token, however it was echoed.

A proxy or a GitHub Enterprise error page may echo the request's headers back in its body, so
any text that came from upstream (an error message, a GraphQL error, a logged answer) may hold
`Authorization: token X`, `Bearer X`, or `Basic base64(user:X)`. Plain Python, no Django.
"""

import base64
import logging
from collections.abc import Callable, Iterable
from functools import lru_cache
from urllib.parse import quote

REDACTED = "[redacted]"
# A value this short is no GitHub token (theirs have 40 characters or more); redacting it would
# garble every text it occurs in.
MIN_TOKEN = 8
# Base64 of a token inside a longer string depends on where it falls in the 3-byte groups;
# the part made of whole groups of the token's own bytes is the same whatever surrounds it.
# Shorter parts would be too likely to match innocent text.
MIN_ENCODED = 8


@lru_cache(maxsize=64)
def _forms(token: str) -> tuple[str, ...]:
    """The token as it may appear: raw, percent-encoded, and the parts of any base64 (standard
    or URL-safe) of a text containing it that come from the token alone, longest first."""
    forms = {token, quote(token, safe="")}
    raw = token.encode()
    for start in range(3):
        chunk = raw[start:]
        chunk = chunk[: len(chunk) - len(chunk) % 3]
        encoded = base64.b64encode(chunk).decode()
        if len(encoded) >= MIN_ENCODED:
            forms.add(encoded)
            forms.add(encoded.replace("+", "-").replace("/", "_"))
    return tuple(sorted(forms, key=len, reverse=True))


@lru_cache(maxsize=16)
def _all_forms(tokens: frozenset[str]) -> tuple[str, ...]:
    """Every form of every token, longest first: a token that contains another (or a form of
    another) goes whole, not cut around the shorter one."""
    forms = {form for token in tokens if len(token) >= MIN_TOKEN for form in _forms(token)}
    return tuple(sorted(forms, key=len, reverse=True))


def redact(text: str, tokens: Iterable[str]) -> str:
    """`text` with every form of every token (of MIN_TOKEN characters or more) replaced by
    [redacted]."""
    if not text:
        return text
    for form in _all_forms(frozenset(tokens)):
        if form in text:
            text = text.replace(form, REDACTED)
    return text


def redact_json(value, tokens: Iterable[str]):
    """A JSON-like value with every text in it (keys too) redacted."""
    tokens = frozenset(token for token in tokens if len(token) >= MIN_TOKEN)
    if not tokens:
        return value
    if isinstance(value, str):
        return redact(value, tokens)
    if isinstance(value, list):
        return [redact_json(item, tokens) for item in value]
    if isinstance(value, dict):
        return {redact_json(k, tokens): redact_json(v, tokens) for k, v in value.items()}
    return value


class RedactingFilter(logging.Filter):
    """Redacts the tokens `tokens()` names from a log record's message and traceback before
    any handler formats it."""

    def __init__(self, tokens: Callable[[], Iterable[str]]):
        super().__init__()
        self._tokens = tokens

    def filter(self, record: logging.LogRecord) -> bool:
        tokens = frozenset(token for token in self._tokens() if len(token) >= MIN_TOKEN)
        if not tokens:
            return True
        record.msg = redact(record.getMessage(), tokens)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, tokens)
        return True
