"""Too few annotators for the overlap, removed labellers, and a member's progress."""

import pytest

from labeler.common.names import study_removed_annotators
from labeler.labelling.selectors import overlap_warning, study_items_short_of_annotators
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.members.selectors import study_member_rows, user_study_roles
from labeler.models import StudyMember
from labeler.studies.services import study_member_remove
from tests.labeler.conftest import GOOD_LABELS

pytestmark = pytest.mark.django_db


def test_overlap_warning_only_when_annotators_are_fewer_than_the_overlap():
    assert overlap_warning(overlap=2, annotators=2) is None
    assert overlap_warning(overlap=1, annotators=3) is None
    one_short = overlap_warning(overlap=2, annotators=1)
    assert "overlap 2" in one_short and "only 1" in one_short and "1 more joins" in one_short
    assert "no annotator yet" in overlap_warning(overlap=3, annotators=0)


def test_items_short_of_annotators_counts_only_when_the_study_is_short(study, second_annotator):
    assert study_items_short_of_annotators(study=study) == 0
    StudyMember.objects.filter(user=second_annotator).delete()
    assert study_items_short_of_annotators(study=study) == 4


def test_removed_annotators_are_those_a_lead_removed_who_annotate_no_more(
    study, annotator, second_annotator
):
    for user in (annotator, second_annotator):
        held = assignment_next(study=study, user=user)
        assignment_submit(assignment_id=held.pk, user=user, labels=GOOD_LABELS)
    StudyMember.objects.filter(user=annotator).delete()  # not removed by a lead: unmarked
    assert study_removed_annotators(study_id=study.pk) == set()

    study_member_remove(study=study, user=second_annotator, role="annotator")

    assert study_removed_annotators(study_id=study.pk) == {second_annotator.pk}
    StudyMember.objects.create(study=study, user=second_annotator, role="annotator")
    assert study_removed_annotators(study_id=study.pk) == set()


def test_member_rows_count_submitted_of_assigned(study, annotator, django_assert_num_queries):
    held = assignment_next(study=study, user=annotator)
    assignment_submit(assignment_id=held.pk, user=annotator, labels=GOOD_LABELS)
    assignment_next(study=study, user=annotator)

    with django_assert_num_queries(2):
        rows = {(r.member.user.username, r.member.role): r for r in study_member_rows(study=study)}

    assert (rows["ann", "annotator"].submitted, rows["ann", "annotator"].assigned) == (1, 2)
    assert (rows["lead", "lead"].submitted, rows["lead", "lead"].assigned) == (0, 0)


def test_user_study_roles(study, lead):
    StudyMember.objects.create(study=study, user=lead, role="annotator")

    assert user_study_roles(user=lead) == {study.pk: ["annotator", "lead"]}
