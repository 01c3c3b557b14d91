"""Payloads to records: links shown to users are http(s) only."""

import pytest

from mining import records


@pytest.mark.parametrize(
    "url", ["https://github.com/o/r/issues/1", "http://ghe.example/o/r/issues/1", "", None]
)
def test_web_urls_keep_http_and_https(url):
    assert records.web_url(url, "html_url") == (url or "")


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)//", " JavaScript:alert(1)", "data:text/html,x", "vbscript:x"]
)
def test_web_urls_refuse_other_schemes(url):
    with pytest.raises(records.MalformedPayloadError, match="html_url: not an http"):
        records.web_url(url, "html_url")


def test_patches_are_cut_at_the_limit_and_marked_truncated():
    assert records.cap_patch("+a\n+b\n", 100) == ("+a\n+b\n", False)
    assert records.cap_patch("+" + "x" * 50, 10) == ("+xxxxxxxxx", True)
    assert records.cap_patch(None, 10) == ("", False)
