"""Blind labelling in the read paths: whoever labels in a study sees only their own labels
until an item is adjudicated, whatever other role or staff status they have; and the final
labels the analyses count."""

import pytest
from django.utils import timezone

from labeler.adjudication.selectors import FinalLabelRow, study_final_labels
from labeler.labelling.selectors import study_items_waiting
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import Assignment, StudyItem, StudyMember
from tests.labeler.conftest import GOOD_LABELS
from tests.labeler.factories import StudyMemberFactory
from tests.labeler.final_labels import items_of

pytestmark = pytest.mark.django_db

NOTE = "secret rationale of the first annotator"


@pytest.fixture
def first_submission(study, annotator):
    assignment = assignment_next(study=study, user=annotator)
    assignment_submit(assignment_id=assignment.pk, user=annotator, labels=GOOD_LABELS, note=NOTE)
    return assignment


def texts_seen_through_the_api(client, item_id):
    return "".join(
        client.get(url).content.decode()
        for url in ("/api/annotations/", "/api/assignments/", f"/api/items/{item_id}/history/")
    )


@pytest.mark.parametrize("also", ["lead", "staff"])
def test_a_lead_or_staff_member_who_also_labels_stays_blind(
    study, first_submission, make_user, api_as, also
):
    other = make_user(username="both", is_staff=also == "staff")
    StudyMemberFactory(study=study, user=other, role=StudyMember.Role.ANNOTATOR)
    if also == "lead":
        StudyMemberFactory(study=study, user=other, role=StudyMember.Role.LEAD)

    seen = texts_seen_through_the_api(api_as(other), first_submission.item_id)

    assert NOTE not in seen
    assert "memory/leak" not in seen


def test_a_lead_who_does_not_label_sees_everything(study, first_submission, lead, api_as):
    seen = texts_seen_through_the_api(api_as(lead), first_submission.item_id)

    assert NOTE in seen
    assert "memory/leak" in seen


def test_staff_outside_the_study_sees_everything(study, first_submission, make_user, api_as):
    staff = make_user(username="staffer", is_staff=True)

    seen = texts_seen_through_the_api(api_as(staff), first_submission.item_id)

    assert NOTE in seen


def test_an_annotator_whose_role_was_taken_away_can_no_longer_submit(
    study, annotator, researcher, api_as
):
    assignment = assignment_next(study=study, user=annotator)
    StudyMember.objects.filter(study=study, user=annotator).update(role="researcher")

    response = api_as(annotator).post(
        f"/api/assignments/{assignment.pk}/submit/", {"labels": GOOD_LABELS}, format="json"
    )

    assert response.status_code == 403
    assert response.json()["message"] == "you no longer annotate in this study"
    assignment.refresh_from_db()
    assert assignment.status == "held"


def test_labels_are_final_where_the_annotators_of_a_complete_item_agree_on_every_dimension(
    decided, django_assert_max_num_queries
):
    items = items_of(decided)

    with django_assert_max_num_queries(3):
        rows = study_final_labels(study=decided)

    def row(number, dimension, values):
        item = items[number]
        return FinalLabelRow(item.pk, item.report_id, dimension, values)

    assert rows == [
        row(0, "root-cause", ("memory/leak",)),
        row(0, "impact", ("speed",)),
        # Chosen in another order, the same answer.
        row(1, "root-cause", ("memory/bloat",)),
        row(1, "impact", ("memory-use", "speed")),
        # Nothing chosen on an optional dimension by either: agreed, with an empty answer.
        row(2, "root-cause", ("threading",)),
        row(2, "impact", ()),
        # Item 3: the root cause is disputed, so nothing is final, the agreed impact neither.
        row(4, "root-cause", ("threading",)),
        row(4, "impact", ("memory-use",)),
        # Item 5 waits for its second annotation: nothing final yet.
    ]


def test_items_waiting_are_the_one_i_hold_and_those_with_room_i_have_not_taken(
    study, annotator, second_annotator, make_user, django_assert_num_queries
):
    """Four items, overlap 2: I submit one, skip one and hold one; two others fill the fourth."""
    items = list(study.items.order_by("position"))
    third = make_user(username="third")
    for item, status in zip(items[:3], ("submitted", "skipped", "held"), strict=True):
        Assignment.objects.create(
            item=item,
            study=study,
            annotator=annotator,
            status=status,
            held_at=timezone.now(),
            skip_reason="cannot_judge" if status == "skipped" else "",
        )
    StudyItem.objects.filter(pk__in=[items[0].pk, items[2].pk]).update(claimed=1)
    for user in (second_annotator, third):
        Assignment.objects.create(
            item=items[3], study=study, annotator=user, status="held", held_at=timezone.now()
        )
    StudyItem.objects.filter(pk=items[3].pk).update(claimed=2)
    other = StudyMemberFactory(role="annotator").study

    with django_assert_num_queries(1):
        waiting = study_items_waiting(user=annotator, studies=[study, other])

    # Mine held (3rd); free for me: the 1st has room but I labelled it, the 2nd I skipped.
    assert waiting == {study.pk: 1}
    # Theirs: three with room, and the one they hold.
    assert study_items_waiting(user=second_annotator, studies=[study]) == {study.pk: 4}
