"""Blindness is by person, not by role (issue 24): whoever labels in a study is blind there
whatever else they are; annotators read others' labels only on final items they labelled, by
pseudonym; researchers read pseudonyms on every route. The walk over every route is
tests/labeler/test_blindness_walk.py; these pin each finding."""

import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from labeler.common.roles import Role
from labeler.labelling.services import assignment_next, assignment_submit
from tests.labeler.factories import (
    LabellingStudyFactory,
    OpenStudyFactory,
    StudyItemFactory,
    StudyMemberFactory,
)

pytestmark = pytest.mark.django_db

THEIR_NOTE = "their note on an open item"
FINAL_NOTE = "their note on a final item"
MINE = {"root-cause": "memory/leak", "impact": ["speed"]}
THEIRS = {"root-cause": "threading", "impact": ["memory-use"]}


def submit(study, user, labels, note="", codes=None):
    held = assignment_next(study=study, user=user)
    assignment_submit(assignment_id=held.pk, user=user, labels=labels, note=note, codes=codes)
    return held.item


@pytest.fixture
def other(make_user):
    return make_user(Role.ANNOTATOR, username="other")


@pytest.fixture
def perf(other):
    """Study "perf": an open item `other` labelled (the person under test labels it too), and
    a final item only `other` labelled (needed 1)."""
    study = LabellingStudyFactory(slug="perf", overlap=2)
    StudyItemFactory(study=study, position=0)
    StudyMemberFactory(study=study, user=other, role="annotator")
    submit(study, other, THEIRS, note=THEIR_NOTE)
    final = StudyItemFactory(study=study, position=1, needed=1)
    submit(study, other, MINE, note=FINAL_NOTE)
    final.refresh_from_db()
    assert final.adjudicated_at is not None
    return study


def person(make_user, study, kind):
    """Someone who annotates in the study and is also `kind` there (or site-wide), having
    labelled its open item differently from `other`."""
    user = make_user(Role.ADMIN if kind == "superuser" else Role.LEAD, username=f"{kind}-x")
    if kind == "staff":
        user.is_staff, user.is_superuser = True, False
        user.save(update_fields=["is_staff", "is_superuser"])
    StudyMemberFactory(study=study, user=user, role="annotator")
    if kind in ("lead", "researcher"):
        StudyMemberFactory(study=study, user=user, role=kind)
    item = submit(study, user, MINE, note="my note")
    item.refresh_from_db()
    assert item.adjudicated_at is None
    return user


def api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


LABELLING_KINDS = ["lead", "researcher", "staff", "superuser"]


@pytest.mark.parametrize("kind", LABELLING_KINDS)
def test_who_labels_exports_only_final_items_whatever_else_they_are(make_user, perf, kind):
    user = person(make_user, perf, kind)
    names = "&names=real" if kind != "researcher" else ""
    response = api(user).get(f"/api/studies/perf/export/?format=jsonl&annotators=true{names}")

    assert response.status_code == 200
    body = b"".join(response.streaming_content).decode()
    assert THEIR_NOTE not in body
    records = [json.loads(line) for line in body.splitlines()]
    assert [record["final"] for record in records] == [True]
    assert FINAL_NOTE in body  # a final item is no longer blind


def test_a_lead_who_does_not_label_exports_every_item(make_user, perf, other):
    lead = make_user(Role.LEAD, username="boss")
    StudyMemberFactory(study=perf, user=lead, role="lead")
    response = api(lead).get("/api/studies/perf/export/?format=jsonl&annotators=true")
    body = b"".join(response.streaming_content).decode()
    assert THEIR_NOTE in body
    assert [json.loads(line)["final"] for line in body.splitlines()] == [False, True]


@pytest.mark.parametrize("kind", LABELLING_KINDS)
def test_who_labels_sees_figures_over_final_items_only(make_user, perf, kind):
    user = person(make_user, perf, kind)
    client = api(user)
    agreement = client.get("/api/studies/perf/agreement/").content.decode()
    datasheet = client.get("/api/studies/perf/export/datasheet/?format=json").json()
    # The datasheet lists the codebook, so only its figures are looked at.
    for body in (agreement, json.dumps(datasheet["agreement"])):
        assert "threading" not in body and "memory-use" not in body
    page = Client()
    page.force_login(user)
    assert "threading" not in page.get("/studies/perf/agreement/").content.decode()
    export_page = page.get("/studies/perf/export/")
    assert 'data-testid="blind-export"' in export_page.content.decode()


def test_a_lead_who_does_not_label_sees_figures_over_every_item(make_user, perf):
    lead = make_user(Role.LEAD, username="boss")
    StudyMemberFactory(study=perf, user=lead, role="lead")
    assert "threading" in api(lead).get("/api/studies/perf/agreement/").content.decode()


@pytest.fixture
def annotator_of_open_item(make_user, perf):
    user = make_user(Role.ANNOTATOR, username="ann")
    StudyMemberFactory(study=perf, user=user, role="annotator")
    submit(perf, user, MINE, note="my note")
    return user


def test_an_annotator_reads_nothing_of_a_final_item_they_did_not_label(
    annotator_of_open_item, perf
):
    final = perf.items.get(position=1)
    client = api(annotator_of_open_item)

    listed = client.get("/api/annotations/?study=perf").json()["results"]
    assert {row["item"] for row in listed} == {perf.items.get(position=0).pk}
    assert {row["annotator"] for row in listed} == {"ann"}
    assert client.get(f"/api/items/{final.pk}/history/").json() == []
    assert client.get(f"/api/items/{final.pk}/decisions/").status_code == 403
    assert client.get("/api/studies/perf/final-labels/").json()["results"] == []
    page = Client()
    page.force_login(annotator_of_open_item)
    assert FINAL_NOTE not in page.get(f"/studies/perf/items/{final.pk}/history/").content.decode()


def test_an_annotator_reads_the_final_labels_and_rationale_of_their_own_items(
    annotator_of_open_item, perf, make_user
):
    lead = make_user(Role.LEAD, username="boss")
    StudyMemberFactory(study=perf, user=lead, role="lead")
    item = perf.items.get(position=0)
    reason = "codebook_ambiguity"
    decisions = {
        "root-cause": {
            "value": "threading",
            "rationale": "the lock is the cause",
            "reason": reason,
        },
        "impact": {"value": ["speed"], "rationale": "it is slower", "reason": reason},
    }
    response = api(lead).post(
        f"/api/items/{item.pk}/adjudicate/", {"decisions": decisions}, format="json"
    )
    assert response.status_code == 200, response.json()
    client = api(annotator_of_open_item)

    history = client.get(f"/api/items/{item.pk}/history/").json()
    assert {(v["annotator"], v["note"]) for v in history} == {
        ("ann", "my note"),
        ("A1", THEIR_NOTE),
    }
    listed = client.get("/api/annotations/?study=perf").json()["results"]
    assert {row["annotator"] for row in listed} == {"ann", "A1"}
    decisions = client.get(f"/api/items/{item.pk}/decisions/").json()
    assert "the lock is the cause" in json.dumps(decisions)
    finals = client.get("/api/studies/perf/final-labels/").json()["results"]
    assert {row["item"] for row in finals} == {item.pk}


def test_researchers_read_pseudonyms_on_every_route(make_user, perf, other):
    researcher = make_user(Role.RESEARCHER, username="res")
    StudyMemberFactory(study=perf, user=researcher, role="researcher")
    final = perf.items.get(position=1)
    client = api(researcher)

    listed = client.get("/api/annotations/?study=perf").json()["results"]
    assert listed and {row["annotator"] for row in listed} == {"A1"}
    history = client.get(f"/api/items/{final.pk}/history/").json()
    assert [(v["annotator"], v["note"]) for v in history] == [("A1", FINAL_NOTE)]
    # A username does not find whose labels are whose.
    assert client.get("/api/annotations/?annotator=other").json()["results"] == []
    page = Client()
    page.force_login(researcher)
    text = page.get(f"/studies/perf/items/{final.pk}/history/").content.decode()
    assert "A1" in text and ">other<" not in text
    # The study's leads read usernames.
    lead = make_user(Role.LEAD, username="boss")
    StudyMemberFactory(study=perf, user=lead, role="lead")
    listed = api(lead).get("/api/annotations/?annotator=other").json()["results"]
    assert listed and {row["annotator"] for row in listed} == {"other"}


@pytest.mark.parametrize("shared", [False, True])
def test_who_codes_sees_the_saturation_only_when_the_study_shares_codes(make_user, other, shared):
    study = OpenStudyFactory(slug="round", overlap=2, codes_shared=shared)
    StudyItemFactory(study=study, position=0)
    StudyMemberFactory(study=study, user=other, role="annotator")
    submit(study, other, {}, codes={"root-cause": ["theirs"], "symptom": ["slow"]})
    lead = make_user(Role.LEAD, username="coding-lead")
    for role in ("annotator", "lead"):
        StudyMemberFactory(study=study, user=lead, role=role)
    page = Client()
    page.force_login(lead)

    response = api(lead).get("/api/studies/round/saturation/")
    html = page.get("/studies/round/").content.decode()

    assert response.status_code == (200 if shared else 403)
    if not shared:
        assert "you code in this study" in response.json()["message"]
    assert ('data-testid="saturation"' in html) is shared
