"""Reads of open coding: the study's board, the codes in use, saturation from the database."""

import datetime as dt

import pytest
from django.utils import timezone

from labeler.coding.selectors import study_codes_in_use, study_open_board, study_saturation
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import Assignment, Board, Code
from taxonomy.models import Codebook
from tests.labeler.factories import UserFactory

pytestmark = pytest.mark.django_db


def coded(study, user, root_causes, symptoms=("slow",)):
    held = assignment_next(study=study, user=user)
    codes = {"root-cause": list(root_causes), "symptom": list(symptoms)}
    return assignment_submit(assignment_id=held.pk, user=user, labels={}, codes=codes)


def test_the_board_of_the_codes_is_the_one_being_sorted_else_the_latest_frozen(open_study):
    first = Board.objects.get(study=open_study)
    assert study_open_board(study_id=open_study.pk) == first
    frozen = Codebook.objects.create(key="sorted", version="1", name="Sorted")
    Board.objects.filter(pk=first.pk).update(frozen_into=frozen, frozen_at=timezone.now())
    assert study_open_board(study_id=open_study.pk) == first
    later = Board.objects.create(study=open_study, kind="open", created_at=timezone.now())
    assert study_open_board(study_id=open_study.pk) == later


def test_own_codes_are_one_per_name_in_any_case_in_their_most_used_form(open_study):
    alice = UserFactory()
    coded(open_study, alice, ["Leak", "cache"])
    coded(open_study, alice, ["leak"])
    coded(open_study, alice, ["leak", "lock"])
    found = study_codes_in_use(study=open_study, user=alice, everyone=False)
    assert [(c.dimension, c.name, c.uses) for c in found] == [
        ("root-cause", "leak", 3),
        ("symptom", "slow", 3),
        ("root-cause", "cache", 1),
        ("root-cause", "lock", 1),
    ]
    assert study_codes_in_use(study=open_study, user=UserFactory(), everyone=False) == []


def test_every_code_in_use_is_a_code_of_the_board_not_merged_and_used(open_study):
    alice = UserFactory()
    coded(open_study, alice, ["leak", "cache"])
    Code.objects.create(
        board=Board.objects.get(study=open_study),
        dimension=Code.objects.get(name="leak").dimension,
        name="unused cache",
        created_at=timezone.now(),
    )
    found = study_codes_in_use(study=open_study, user=alice, everyone=True, query="A")
    assert [(c.name, c.uses) for c in found] == [("cache", 1), ("leak", 1)]


def test_saturation_counts_codes_as_the_board_resolves_them_after_merges(open_study):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    first = coded(open_study, alice, ["leak", "cache"])
    coded(open_study, bob, ["memory leak"], symptoms=["oom"])
    coded(open_study, alice, ["lock"])
    # Bob's first, then alice's: submission order is by the time of each first submission.
    Assignment.objects.filter(pk=first.pk).update(
        submitted_at=timezone.now() + dt.timedelta(hours=1)
    )

    found = study_saturation(study=open_study, pseudonyms=False).saturation
    # Reports: 1 (memory leak, oom; then leak, cache, slow), 2 (lock, slow)
    assert found.team == (5, 6)
    assert found.annotators == {"bob": (2,), "alice": (2, 4)}

    # "memory leak" merged into "leak", "leak" then into "cache": without their uses moved,
    # they still count as the code they went into.
    cache, leak = Code.objects.get(name="cache"), Code.objects.get(name="leak")
    Code.objects.filter(name="memory leak").update(merged_into=leak)
    Code.objects.filter(pk=leak.pk).update(merged_into=cache)
    found = study_saturation(study=open_study, pseudonyms=True).saturation
    assert found.team == (3, 4)
    assert found.annotators == {"A1": (2,), "A2": (2, 3)}

    symptom = Code.objects.get(name="oom").dimension
    only = study_saturation(study=open_study, dimension=symptom, pseudonyms=False).saturation
    assert only.team == (2, 2)
