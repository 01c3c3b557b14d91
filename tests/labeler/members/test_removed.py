"""A removed member's labels stay, marked as theirs on the items, agreement and export."""

import json

import pytest

from labeler.common.names import annotator_names
from labeler.export.dataset import ExportOptions
from labeler.export.markdown import datasheet_markdown
from labeler.export.pipeline import Export
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import StudyMember
from labeler.studies.services import study_member_remove
from tests.labeler.conftest import GOOD_LABELS

pytestmark = pytest.mark.django_db


@pytest.fixture
def removed(study, annotator, second_annotator):
    for user in (annotator, second_annotator):
        held = assignment_next(study=study, user=user)
        assignment_submit(assignment_id=held.pk, user=user, labels=GOOD_LABELS)
    study_member_remove(study=study, user=second_annotator, role="annotator")
    return second_annotator


def test_an_items_history_and_adjudication_mark_the_removed_annotator(client, study, lead, removed):
    item = study.assignments.get(annotator=removed).item
    client.force_login(lead)

    html = client.get(f"/studies/{study.slug}/items/{item.pk}/history/").content.decode()
    side_by_side = client.get(f"/api/items/{item.pk}/adjudication/").json()

    assert "ann2 (removed)" in html
    assert "ann (removed)" not in html
    names = sorted(a["annotator"] for a in side_by_side["annotators"])
    assert names == ["A1", "A2 (removed)"]


def test_agreement_names_mark_the_removed_annotator(study, removed):
    assert sorted(annotator_names(study=study, real_names=True, mark_removed=True).values()) == [
        "ann",
        "ann2 (removed)",
    ]
    assert sorted(annotator_names(study=study, real_names=False, mark_removed=True).values()) == [
        "A1",
        "A2 (removed)",
    ]


def test_the_export_lists_removed_annotators_and_keeps_their_labels(study, removed):
    export = Export(study=study, fmt="json", options=ExportOptions(include_annotators=True))

    body = json.loads("".join(export.pieces()))

    assert body["datasheet"]["removed_annotators"] == ["A2"]
    labelled_by = {name for record in body["records"] for name in record["annotators"]}
    assert labelled_by == {"A1", "A2"}
    assert "since removed from the study: A2." in datasheet_markdown(body["datasheet"])


def test_the_removed_annotator_loses_the_study(client, study, removed):
    client.force_login(removed)

    assert client.get(f"/studies/{study.slug}/").status_code == 404
    assert not StudyMember.objects.filter(study=study, user=removed).exists()
