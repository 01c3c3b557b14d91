"""Reads of codebooks."""

import datetime as dt

import pytest

from taxonomy.builtin import builtin_names, builtin_path
from taxonomy.codebook_file import RevisesSpec, codebook_yaml, parse_codebook, read_codebook_file
from taxonomy.models import Codebook
from taxonomy.selectors import codebook_newest, codebook_spec
from taxonomy.services import codebook_load, codebook_spec_hash
from tests.taxonomy.factories import CodebookFactory
from tests.taxonomy.test_codebook_file import GOOD

pytestmark = pytest.mark.django_db


def test_codebook_newest_takes_the_version_asked_for_or_the_newest():
    older = CodebookFactory(key="perf", version="1.0")
    newer = CodebookFactory(key="perf", version="2.0")
    Codebook.objects.filter(pk=older.pk).update(created_at=dt.datetime(2024, 1, 1, tzinfo=dt.UTC))

    assert codebook_newest(key="perf") == newer
    assert codebook_newest(key="perf", version="1.0") == older
    assert codebook_newest(key="perf", version="3.0") is None
    assert codebook_newest(key="nope") is None


def test_codebook_spec_is_the_spec_the_codebook_was_loaded_from(django_assert_num_queries):
    spec = parse_codebook(GOOD)
    codebook, _ = codebook_load(spec=spec)

    with django_assert_num_queries(2):
        read = codebook_spec(codebook=codebook)

    assert read == spec
    assert codebook_spec_hash(read) == codebook.content_hash


def test_codebook_spec_of_every_builtin_writes_its_file_back():
    for name in builtin_names():
        spec = read_codebook_file(builtin_path(name))
        codebook, _ = codebook_load(spec=spec)

        assert parse_codebook(codebook_yaml(codebook_spec(codebook=codebook))) == spec, name


def test_codebook_spec_of_a_revision_says_what_it_revises(django_assert_num_queries):
    base, _ = codebook_load(spec=parse_codebook(GOOD))
    revision, _ = codebook_load(spec=parse_codebook(GOOD.replace('version: "2.1"', "version: '3'")))
    revision.derived_from = base
    revision.mapping = {"root-cause": {"memory": ["memory", "other"]}}
    revision.save()

    with django_assert_num_queries(3):
        spec = codebook_spec(codebook=revision)

    assert spec.revises == RevisesSpec(
        version="2.1", mapping={"root-cause": {"memory": ("memory", "other")}}
    )
