"""Tokens out of upstream text, in every form an echo may carry them (plain data, no Django)."""

import base64
import logging
from urllib.parse import quote

import pytest

from mining.redaction import REDACTED, RedactingFilter, redact, redact_json

TOKEN = "ghp_R3alLooking+Token/Value=16chars"
OTHER = "github_pat_11ABCDEFG0123456789_second"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.mark.parametrize(
    "echo",
    [
        f"Authorization: token {TOKEN}",
        f"Authorization: Bearer {TOKEN}",
        f"Authorization: Basic {b64('x-access-token:' + TOKEN)}",
        f"Authorization: Basic {b64('someone:' + TOKEN)}",
        f"Authorization: Basic {b64('ab:' + TOKEN + ':x-oauth-basic')}",
        f"Authorization: Basic {b64(TOKEN + ':x-oauth-basic').replace('+', '-')}",
        f"https://proxy.example/?auth={quote(TOKEN, safe='')}",
    ],
)
def test_every_form_of_an_echoed_token_is_redacted(echo):
    text = redact(f"403 Forbidden. Request had {echo}; go away", [TOKEN])
    assert REDACTED in text and text.startswith("403 Forbidden. Request had ")
    # What is left of a base64 form is at most the few characters shared with its neighbours.
    assert TOKEN not in text and TOKEN[4:12] not in text
    for start in range(3):
        chunk = TOKEN.encode()[start:]
        core = base64.b64encode(chunk[: len(chunk) - len(chunk) % 3]).decode()
        assert core not in text


def test_every_configured_token_is_redacted_and_values_too_short_for_one_are_not():
    text = f"first {TOKEN}, second {OTHER}, nothing else"
    expected = f"first {REDACTED}, second {REDACTED}, nothing else"
    assert redact(text, ["", "e", "second", TOKEN, OTHER]) == expected
    assert redact(text, []) == text and redact("", [TOKEN]) == ""


def test_a_token_containing_another_goes_whole():
    inner = TOKEN[:20]
    assert redact(f"a {TOKEN} b {inner} c", [inner, TOKEN]) == f"a {REDACTED} b {REDACTED} c"


def test_json_texts_are_redacted_keys_and_values_alike():
    value = {"errors": [{"message": f"token {TOKEN}", TOKEN: 3, "n": 1}], "ok": True}
    assert redact_json(value, [TOKEN]) == {
        "errors": [{"message": f"token {REDACTED}", REDACTED: 3, "n": 1}],
        "ok": True,
    }


def test_the_log_filter_redacts_messages_and_tracebacks(caplog):
    logger = logging.getLogger("tests.redaction")
    logger.addFilter(RedactingFilter(lambda: [TOKEN]))
    try:
        with caplog.at_level(logging.DEBUG, logger="tests.redaction"):
            logger.debug("answer: %s", {"message": f"Bearer {TOKEN}"})
            try:
                raise ValueError(f"echoed {TOKEN}")
            except ValueError:
                logger.exception("failed")
    finally:
        logger.filters.clear()
    assert TOKEN not in caplog.text
    assert f"Bearer {REDACTED}" in caplog.text and f"ValueError: echoed {REDACTED}" in caplog.text
