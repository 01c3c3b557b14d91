"""A refused request is one line in the console log, with its reason; errors keep their
traceback."""

import io
import logging

import pytest
from django.conf import settings
from django.utils.module_loading import import_string

from tests.labeler.factories import StudyFactory, StudyMemberFactory


def console_filters():
    """The filters of the console handler, as the settings configure them."""
    named = settings.LOGGING["filters"]
    names = settings.LOGGING["handlers"]["console"]["filters"]
    return [import_string(named[name]["()"])() for name in names]


@pytest.fixture
def console():
    """The request log, written the way the console handler writes it."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter(settings.LOGGING["formatters"]["plain"]["format"]))
    for log_filter in console_filters():
        handler.addFilter(log_filter)
    logger = logging.getLogger("django.request")
    logger.addHandler(handler)
    yield out
    logger.removeHandler(handler)


@pytest.mark.django_db
def test_a_refused_page_is_one_line_naming_the_reason(client, annotator, console):
    study = StudyFactory(slug="perf")
    StudyMemberFactory(study=study, user=annotator, role="annotator")
    client.force_login(annotator)

    response = client.get("/studies/perf/import/")

    assert response.status_code == 403
    lines = console.getvalue().splitlines()
    assert len(lines) == 1, lines
    assert "Forbidden (Permission denied): /studies/perf/import/" in lines[0]
    assert "(only the study's leads may do this)" in lines[0]


def test_an_error_keeps_its_traceback(console):
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logging.getLogger("django.request").error(
            "Internal Server Error: /x/", exc_info=True, extra={"status_code": 500}
        )

    assert "Traceback" in console.getvalue()
    assert "RuntimeError: boom" in console.getvalue()
