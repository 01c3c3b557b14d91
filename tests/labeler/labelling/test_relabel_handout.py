"""After a codebook migration, a flagged submission goes back into its annotator's queue: the
next hand-out offers it again (with the old label as context), and submitting clears it."""

import pytest

from labeler.adjudication.services import item_adjudicate
from labeler.labelling.selectors import study_items_waiting
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import Assignment, StudyItem
from labeler.revisions.services import study_revise
from taxonomy.services import codebook_freeze
from tests.labeler.calls import client_for, next_item
from tests.labeler.codebook_revisions import labelled_study, revise_v2
from tests.labeler.factories import StudyItemFactory, StudyMemberFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def migrated_with_new_item(annotator, ann2, lead):
    study = labelled_study(annotator=annotator, second=ann2, lead=lead)
    StudyItemFactory(study=study, position=10)  # a new item, still to hand out
    study_revise(study=study, codebook=revise_v2(study.codebook), user=lead)
    study.refresh_from_db()
    codebook_freeze(codebook=study.codebook)
    return study


def items(study):
    return list(study.items.order_by("position"))


def test_the_flagged_submission_comes_before_a_new_item(migrated_with_new_item, annotator):
    third = items(migrated_with_new_item)[2]
    offered = assignment_next(study=migrated_with_new_item, user=annotator)
    assert (offered.item_id, offered.status) == (third.pk, Assignment.Status.SUBMITTED)
    assert set(offered.relabel) == {"root-cause"}
    # Not held again: its place on the item is the one it had.
    assert StudyItem.objects.get(pk=third.pk).claimed == 2


def test_the_hand_out_stays_two_queries(
    migrated_with_new_item, annotator, django_assert_num_queries
):
    with django_assert_num_queries(2):
        assignment_next(study=migrated_with_new_item, user=annotator)


def test_an_item_held_comes_back_before_a_flagged_one(migrated_with_new_item, ann2):
    # ann2 has two flagged submissions (items 3 and 4): the first in the study's order first.
    first = assignment_next(study=migrated_with_new_item, user=ann2)
    assert first.item_id == items(migrated_with_new_item)[2].pk
    assignment_submit(assignment_id=first.pk, user=ann2, labels={"root-cause": "threading/race"})
    assert (
        assignment_next(study=migrated_with_new_item, user=ann2).item_id
        == items(migrated_with_new_item)[3].pk
    )


def test_submitting_clears_the_flag_and_the_queue_moves_on(migrated_with_new_item, annotator, ann2):
    third, new = items(migrated_with_new_item)[2], items(migrated_with_new_item)[4]
    offered = assignment_next(study=migrated_with_new_item, user=annotator)
    saved = assignment_submit(
        assignment_id=offered.pk,
        user=annotator,
        labels={"root-cause": "threading/lock"},
        version=offered.version,
    )
    assert saved.version == offered.version + 1
    stored = Assignment.objects.get(pk=offered.pk)
    assert stored.relabel == {}
    version = stored.versions.latest("number")
    assert version.migration is None
    assert version.changes == {"root-cause": {"from": [], "to": ["threading/lock"]}}
    # Its queue goes on to the new item.
    assert assignment_next(study=migrated_with_new_item, user=annotator).item_id == new.pk
    # The item waits for a lead: it had been final before the migration.
    assert StudyItem.objects.get(pk=third.pk).adjudicated_at is None


def test_a_flagged_submission_on_an_item_decided_since_is_not_offered(
    migrated_with_new_item, annotator, ann2, lead
):
    third = items(migrated_with_new_item)[2]
    item_adjudicate(
        item_id=third.pk,
        user=lead,
        decisions={"root-cause": {"value": "threading/lock", "rationale": "x", "reason": "other"}},
    )
    assert StudyItem.objects.get(pk=third.pk).adjudicated_at is not None
    assert (
        assignment_next(study=migrated_with_new_item, user=annotator).item_id
        == items(migrated_with_new_item)[4].pk
    )


def test_the_study_page_counts_flagged_submissions_as_waiting(migrated_with_new_item, annotator):
    # The new item and the flagged one.
    assert study_items_waiting(user=annotator, studies=[migrated_with_new_item]) == {
        migrated_with_new_item.pk: 2
    }


def test_next_answers_what_to_label_again(migrated_with_new_item, annotator):
    client = client_for(annotator)
    answer = next_item(client).json()
    assert answer["status"] == "submitted"
    assert answer["relabel"] == {
        "root-cause": {
            "was": ["threading"],
            "into": {"threading": ["threading/lock", "threading/race"]},
            "suggested": [],
        }
    }
    # Its labels now (the carried ones) from the assignment's own endpoint.
    detail = client.get(f"/api/assignments/{answer['assignment']}/").json()
    assert (detail["labels"], detail["version"]) == ({}, answer["version"])


def test_an_item_handed_out_has_nothing_to_label_again(
    migrated_with_new_item, annotator, make_user
):
    newcomer = make_user(username="ann3")
    StudyMemberFactory(study=migrated_with_new_item, user=newcomer, role="annotator")
    answer = next_item(client_for(newcomer)).json()
    assert (answer["status"], answer["relabel"]) == ("held", {})
    assert assignment_next(study=migrated_with_new_item, user=newcomer).relabel == {}
