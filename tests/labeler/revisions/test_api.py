"""The codebook migration API: plan with GET, migrate with POST, leads only."""

import pytest
from rest_framework.test import APIClient

from labeler.labelling.services import assignment_next
from labeler.models import Assignment, CodebookMigration, FinalLabel, Study
from taxonomy.models import Category
from tests.labeler.calls import client_for
from tests.labeler.factories import StudyItemFactory, StudyMemberFactory

pytestmark = pytest.mark.django_db

PATH = "/api/studies/perf/codebook-migration/{version}/"


def test_a_lead_reads_the_plan_and_nothing_is_written(labelled_with_v2, lead):
    response = client_for(lead).get(PATH.format(version="2.0"))

    assert response.status_code == 200
    plan = response.json()
    assert (plan["study"], plan["from"], plan["to"], plan["holds"]) == (
        "perf",
        {"key": "perf", "version": "1.0"},
        {"key": "perf", "version": "2.0"},
        0,
    )
    # As the command's dry run counts them (tests/labeler/revisions/test_command.py).
    assert plan["counts"]["annotations_carried"] == 11
    assert plan["counts"]["annotations_relabel"] == 3
    assert plan["counts"]["finals_reopened"] == 1
    bloat = next(move for move in plan["categories"] if move["path"] == "memory/bloat")
    assert bloat["dimension"] == "root-cause" and bloat["annotations"] == 2
    assert CodebookMigration.objects.count() == 0
    assert Study.objects.get(slug="perf").codebook.version == "1.0"


def test_a_lead_migrates_and_gets_the_record(labelled_with_v2, lead):
    finals_before = FinalLabel.objects.filter(item__study=labelled_with_v2).count()

    response = client_for(lead).post(PATH.format(version="2.0"))

    assert response.status_code == 201
    body = response.json()
    record = CodebookMigration.objects.get()
    assert body["id"] == record.pk
    assert (body["from"]["version"], body["to"]["version"], body["migrated_by"]) == (
        "1.0",
        "2.0",
        "lead",
    )
    assert body["reason"] == record.reason and body["counts"] == record.counts
    assert Study.objects.get(slug="perf").codebook.version == "2.0"
    assert Assignment.objects.exclude(relabel={}).count() == body["counts"]["assignments_flagged"]
    reopened = body["counts"]["finals_reopened"]
    assert (
        FinalLabel.objects.filter(item__study=labelled_with_v2).count() == finals_before - reopened
    )
    # Once moved, the same version again is refused, saying why.
    again = client_for(lead).post(PATH.format(version="2.0"))
    assert again.status_code == 400
    assert "on perf v2.0 already" in str(again.json())


@pytest.mark.parametrize("method", ["get", "post"])
def test_only_the_studys_leads(labelled_with_v2, annotator, make_user, method):
    researcher = make_user(username="res")
    StudyMemberFactory(study=labelled_with_v2, user=researcher, role="researcher")
    outsider = make_user(username="out")
    for user, expected in ((annotator, 403), (researcher, 403), (outsider, 404)):
        response = getattr(client_for(user), method)(PATH.format(version="2.0"))
        assert response.status_code == expected, (user.username, response.content)
    assert getattr(APIClient(), method)(PATH.format(version="2.0")).status_code == 401
    assert CodebookMigration.objects.count() == 0


def test_an_unknown_version_names_the_known_ones(labelled_with_v2, lead):
    response = client_for(lead).get(PATH.format(version="9.9"))
    assert response.status_code == 404
    assert "codebook 'perf' has no version '9.9' (it has: 1.0, 2.0)" in str(response.json())


def test_items_held_right_now_are_a_conflict_and_nothing_is_written(
    labelled_with_v2, lead, make_user
):
    StudyItemFactory(study=labelled_with_v2, position=10)
    third = make_user(username="ann3")
    StudyMemberFactory(study=labelled_with_v2, user=third, role="annotator")
    assignment_next(study=labelled_with_v2, user=third)

    plan = client_for(lead).get(PATH.format(version="2.0")).json()
    response = client_for(lead).post(PATH.format(version="2.0"))

    assert plan["holds"] == 1
    assert response.status_code == 409
    assert "1 item(s) of study 'perf' are held by annotators right now" in str(response.json())
    assert CodebookMigration.objects.count() == 0
    assert Study.objects.get(slug="perf").codebook.version == "1.0"


def test_an_item_history_names_each_version_s_labels_as_they_were_written(labelled_with_v2, lead):
    client_for(lead).post(PATH.format(version="2.0"))
    bloated = labelled_with_v2.items.order_by("position")[1]
    v1 = Category.objects.get(
        dimension__codebook__key="perf", dimension__codebook__version="1.0", path="memory/bloat"
    )
    v2 = Category.objects.get(
        dimension__codebook__key="perf", dimension__codebook__version="2.0", path="memory/overuse"
    )
    assert v1.name != v2.name

    response = client_for(lead).get(f"/api/items/{bloated.pk}/history/")

    assert response.status_code == 200
    versions = response.json()
    first = next(v for v in versions if v["number"] == 1)
    migrated = next(v for v in versions if v["changes"])
    assert first["named"][0] == {
        "dimension": "root-cause",
        "dimension_name": "Root cause",
        "categories": [{"path": "memory/bloat", "name": v1.name}],
    }
    assert migrated["named"][0]["categories"] == [{"path": "memory/overuse", "name": v2.name}]
