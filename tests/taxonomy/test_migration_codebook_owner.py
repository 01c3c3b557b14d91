"""Migration taxonomy 0003 on rows written before it: each key gets the owner that made its
first version, and stored keys and versions that break the rule are renamed to follow it."""

import importlib

import pytest
from django.apps import apps
from django.db import connection
from django.utils import timezone

from labeler.models import Board
from taxonomy.models import Codebook
from tests.labeler.board_factories import BoardFactory, OpenStudyFactory
from tests.taxonomy.factories import CodebookFactory

pytestmark = pytest.mark.django_db

migration = importlib.import_module("taxonomy.migrations.0003_codebook_owner_and_name_rule")


def run(step) -> None:
    with connection.schema_editor() as editor:
        step(apps, editor)


def owners() -> dict[tuple[str, str], str]:
    return {(c.key, c.version): c.owner for c in Codebook.objects.all()}


def test_each_key_goes_to_the_study_that_made_its_first_version():
    builtin = CodebookFactory(key="dl-performance-root-causes", version="1.0")
    CodebookFactory(key="dl-performance-root-causes", version="2.0")  # frozen on a board
    opened = OpenStudyFactory(slug="round", codebook=CodebookFactory(key="round", version="open"))
    frozen_first = CodebookFactory(key="round", version="1")
    BoardFactory(study=opened, frozen_into=frozen_first, frozen_at=timezone.now())
    other = OpenStudyFactory(slug="other")
    team = CodebookFactory(key="team", version="1")
    BoardFactory(study=other, frozen_into=team, frozen_at=timezone.now())
    # A later board of another study froze into the built-in's key: it stays the admins'.
    BoardFactory(
        study=other,
        frozen_into=Codebook.objects.get(key=builtin.key, version="2.0"),
        frozen_at=timezone.now(),
    )
    Codebook.objects.update(owner="")

    run(migration._owners)

    found = owners()
    assert found[(builtin.key, "1.0")] == found[(builtin.key, "2.0")] == ""
    assert found[("round", "open")] == found[("round", "1")] == f"study:{opened.pk}"
    assert found[("team", "1")] == f"study:{other.pk}"
    assert Board.objects.count() == 3


def test_stored_names_that_break_the_rule_are_renamed_to_follow_it():
    CodebookFactory(key="perf", version="1/../../x")
    CodebookFactory(key="perf", version="1-..-..-x")  # the name the first would take
    CodebookFactory(key="perf", version="..")
    CodebookFactory(key="perf", version="2.0")
    CodebookFactory(key="Bad_Key", version="1")

    run(migration._names)

    assert sorted(Codebook.objects.values_list("key", "version")) == [
        ("bad-key", "1"),
        ("perf", "1-..-..-x"),
        ("perf", "1-..-..-x-2"),
        ("perf", "2.0"),
        ("perf", "v"),
    ]
    for codebook in Codebook.objects.all():
        codebook.full_clean(exclude=["content_hash"])
