"""The commands that only read check the models and the database before they run, not the URL
conf they never serve; a model error still stops them."""

import pytest
from django.core.checks import Error, Tags, register
from django.core.checks.registry import registry
from django.core.management import call_command
from django.core.management.base import SystemCheckError

# Each with arguments it would otherwise run with (its checks come first).
READING = {
    "export_dataset": ["no-such-study"],
    "agreement": ["no-such-study"],
    "compare_reports": ["--a", "state=open", "--b", "state=closed"],
}


@pytest.fixture
def broken_model_check():
    def check(app_configs, **kwargs):
        return [Error("a model is broken", id="tests.E001")]

    register(check, Tags.models)
    yield
    registry.registered_checks.discard(check)


@pytest.mark.parametrize("name", READING)
def test_a_reading_command_stops_on_a_model_error(name, broken_model_check):
    with pytest.raises(SystemCheckError, match="a model is broken"):
        call_command(name, *READING[name], skip_checks=False)


@pytest.mark.parametrize("name", READING)
def test_a_reading_command_does_not_check_the_url_conf(name):
    from django.core.management import load_command_class

    command = load_command_class("labeler", name)
    assert Tags.models in command.requires_system_checks
    assert Tags.urls not in command.requires_system_checks
