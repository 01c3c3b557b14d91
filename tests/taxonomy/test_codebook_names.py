"""One rule for a codebook's key and its version names, at every door: the codebook file (and
so `load_codebook`), the models (and so the admin's forms), the board's freeze (tests/labeler/
test_codebook_stored_names.py). A refusal names the field; nothing is written."""

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from taxonomy.codebook_file import (
    VERSION_RULE,
    CodebookFileError,
    codebook_key_problem,
    parse_codebook,
    version_problem,
)
from taxonomy.models import Codebook
from tests.taxonomy.test_codebook_file import GOOD, REVISION

BAD_VERSIONS = ["1/../../x", "../x", ".1", "1 beta", "1\n", "v1\x00", "", "a" * 41, "2.0/"]
GOOD_VERSIONS = ["1", "2.0", "open", "2024-05_rc.1", "a" * 40, "-1"]
BAD_KEYS = ["Perf", "perf_2", "perf/x", "perf\n", "-perf", "perf--x", "a" * 101, ""]


@pytest.mark.parametrize("version", BAD_VERSIONS)
def test_a_bad_version_is_refused_naming_the_rule(version):
    assert version_problem(version) == f"version {version!r} must be {VERSION_RULE}"


@pytest.mark.parametrize("version", GOOD_VERSIONS)
def test_a_good_version_passes(version):
    assert version_problem(version) is None


@pytest.mark.parametrize("key", BAD_KEYS)
def test_a_bad_key_is_refused(key):
    assert codebook_key_problem(key).startswith(f"key {key!r} must be lowercase letters")


@pytest.mark.parametrize("version", ["1/../../x", ".hidden", "1 beta"])
def test_a_codebook_file_with_a_bad_version_names_its_line(version):
    text = GOOD.replace('version: "2.1"', f'version: "{version}"')
    with pytest.raises(CodebookFileError) as error:
        parse_codebook(text, "perf.yaml")
    assert [str(problem) for problem in error.value.problems] == [
        f"perf.yaml:3: version: version {version!r} must be {VERSION_RULE}"
    ]


def test_a_revision_naming_a_bad_version_it_revises_is_refused():
    text = REVISION.replace('  version: "2.1"', '  version: "../2.1"')
    with pytest.raises(CodebookFileError) as error:
        parse_codebook(text, "perf-3.yaml")
    assert [problem.path for problem in error.value.problems] == ["revises.version"]


def test_a_key_too_long_for_the_database_is_refused_in_the_file():
    text = GOOD.replace("key: perf", f"key: {'p' * 101}")
    with pytest.raises(CodebookFileError) as error:
        parse_codebook(text, "perf.yaml")
    assert [problem.path for problem in error.value.problems] == ["key"]


@pytest.mark.django_db
def test_load_codebook_refuses_a_bad_version_and_writes_nothing(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text(GOOD)
    bad = tmp_path / "bad.yaml"
    bad.write_text(GOOD.replace("key: perf", "key: other").replace('"2.1"', '"1/../../x"'))

    with pytest.raises(CommandError) as error:
        call_command("load_codebook", str(good), str(bad), stdout=io.StringIO())

    assert str(error.value) == (
        f"codebook file refused:\n{bad}:3: version: version '1/../../x' must be {VERSION_RULE}"
    )
    assert not Codebook.objects.exists()


@pytest.mark.django_db
def test_the_model_refuses_a_bad_key_and_version_as_the_admins_forms_would():
    codebook = Codebook(key="Perf", version="1/../../x", name="P", content_hash="0")
    with pytest.raises(ValidationError) as error:
        codebook.full_clean()
    assert error.value.message_dict["version"] == [f"version '1/../../x' must be {VERSION_RULE}"]
    assert error.value.message_dict["key"][0].startswith("key 'Perf' must be lowercase")
