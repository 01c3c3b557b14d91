"""Reads of codebooks."""

import datetime as dt

import pytest

from taxonomy.models import Codebook
from taxonomy.selectors import codebook_newest
from tests.taxonomy.factories import CodebookFactory

pytestmark = pytest.mark.django_db


def test_codebook_newest_takes_the_version_asked_for_or_the_newest():
    older = CodebookFactory(key="perf", version="1.0")
    newer = CodebookFactory(key="perf", version="2.0")
    Codebook.objects.filter(pk=older.pk).update(created_at=dt.datetime(2024, 1, 1, tzinfo=dt.UTC))

    assert codebook_newest(key="perf") == newer
    assert codebook_newest(key="perf", version="1.0") == older
    assert codebook_newest(key="perf", version="3.0") is None
    assert codebook_newest(key="nope") is None
