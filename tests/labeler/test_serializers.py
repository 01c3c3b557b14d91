"""The plain writers of the hot answers say exactly what the documented serializers say."""

import datetime as dt
import json

import pytest
from rest_framework import serializers

from labeler.api.labelling import (
    NextItemSerializer,
    SchemeDimensionSerializer,
    SubmissionSerializer,
    next_item_json,
    submission_data,
)
from labeler.labels import study_scheme
from labeler.selectors import report_for_labelling
from labeler.services.assignment import assignment_next, assignment_skip, assignment_submit
from taxonomy.services import codebook_freeze
from tests.labeler.conftest import GOOD_LABELS
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory, UserFactory
from tests.mining.factories import BugReportFactory, CommentFactory

pytestmark = pytest.mark.django_db


class SchemeNextItemSerializer(NextItemSerializer):
    """NextItemSerializer with its dimensions filled in the ordinary way."""

    dimensions = serializers.SerializerMethodField()

    def get_dimensions(self, assignment):
        scheme = self.context["scheme"]
        return SchemeDimensionSerializer(
            scheme.dimensions, many=True, context={"scheme": scheme}
        ).data


@pytest.mark.parametrize("closed", [True, False])
def test_next_item_json_is_what_the_serializer_says(closed):
    study = LabellingStudyFactory()
    codebook_freeze(codebook=study.codebook)
    closed_at = dt.datetime(2022, 3, 1, 8, 30, 15, 123456, tzinfo=dt.UTC) if closed else None
    report = BugReportFactory(labels=["perf", "ünïcode"], closed_at=closed_at)
    later, earlier = (
        CommentFactory(
            report=report, created_at=dt.datetime(2022, 2, day, 9, 0, 0, micro, tzinfo=dt.UTC)
        )
        for day, micro in ((2, 0), (1, 654321))
    )
    StudyItemFactory(study=study, report=report)
    assignment = assignment_next(study=study, user=UserFactory())
    scheme = study_scheme(study=study)

    written = json.loads(
        next_item_json(assignment, report_for_labelling(item_id=assignment.item_id), scheme)
    )

    expected = json.loads(
        json.dumps(SchemeNextItemSerializer(assignment, context={"scheme": scheme}).data)
    )
    assert written == expected
    assert list(written) == list(expected)
    assert list(written["report"]) == list(expected["report"])
    assert [c["body"] for c in written["report"]["comments"]] == [earlier.body, later.body]
    assert (written["report"]["closed_at"] is None) == (not closed)


def test_submission_data_is_what_the_serializer_says():
    study = LabellingStudyFactory()
    for position in range(2):
        StudyItemFactory(study=study, position=position)
    user = UserFactory()
    held = assignment_next(study=study, user=user)
    submitted = assignment_submit(
        assignment_id=held.pk, user=user, labels=GOOD_LABELS, note="ok", seconds=3
    )
    skipped = assignment_skip(
        assignment_id=assignment_next(study=study, user=user).pk, user=user, reason="not_a_bug"
    )

    for assignment, labels in ((submitted, submitted.labels), (skipped, {})):
        expected = SubmissionSerializer(assignment, context={"labels": labels}).data
        assert submission_data(assignment, labels) == expected
