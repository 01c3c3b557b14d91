"""The open round of an open-coding study is never adjudicated nor given final labels
(issue 24): a final item would show its annotators each other's private codes."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from labeler.adjudication.services import final_labels_import
from labeler.common.roles import Role
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import FinalLabel, Study, StudyItem
from tests.labeler.factories import (
    OpenStudyFactory,
    StudyItemFactory,
    StudyMemberFactory,
    labelling_codebook,
)

pytestmark = pytest.mark.django_db


def submit(study, user, codes):
    held = assignment_next(study=study, user=user)
    assignment_submit(assignment_id=held.pk, user=user, labels={}, codes=codes)


def api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def disputed_open_round(make_user):
    """An open-coding study pinning a codebook (so a decision would parse), with an item two
    annotators coded differently, and its lead."""
    study = OpenStudyFactory(slug="round", overlap=2, codebook=labelling_codebook())
    StudyItemFactory(study=study, position=0)
    other = make_user(Role.ANNOTATOR, username="other")
    second = make_user(Role.ANNOTATOR, username="second")
    lead = make_user(Role.LEAD, username="boss")
    for user in (other, second):
        StudyMemberFactory(study=study, user=user, role="annotator")
    StudyMemberFactory(study=study, user=lead, role="lead")
    submit(study, other, {"root-cause": ["their private code"]})
    submit(study, second, {"root-cause": ["another code"]})
    return study, lead


def test_the_open_round_is_never_adjudicated(disputed_open_round):
    study, lead = disputed_open_round
    item = study.items.get()
    decision = {"value": "threading", "rationale": "so", "reason": "codebook_ambiguity"}
    response = api(lead).post(
        f"/api/items/{item.pk}/adjudicate/", {"decisions": {"root-cause": decision}}, format="json"
    )

    assert response.status_code == 409
    assert "'round' is an open-coding round" in response.json()["message"]
    item.refresh_from_db()
    assert item.adjudicated_at is None
    assert not FinalLabel.objects.filter(item=item).exists()
    empty = api(lead).post(f"/api/items/{item.pk}/adjudicate/", {}, format="json")
    assert empty.status_code == 409


def test_the_open_rounds_adjudication_pages_refuse_and_the_study_page_offers_none(
    disputed_open_round,
):
    study, lead = disputed_open_round
    page = Client()
    page.force_login(lead)
    for path in (
        "/studies/round/adjudicate/",
        f"/studies/round/adjudicate/{study.items.get().pk}/",
    ):
        response = page.get(path)
        assert response.status_code == 403
        assert "open-coding round" in response.content.decode()
    assert 'data-testid="adjudicate-link"' not in page.get("/studies/round/").content.decode()


def test_the_open_round_takes_no_imported_final_labels(disputed_open_round):
    study, _ = disputed_open_round
    report = study.items.get().report
    item = f"{report.repository.full_name}#{report.number}"
    data = f"item,annotator,dimension,value\n{item},boss,root-cause,threading\n"
    with pytest.raises(Exception, match="open-coding round"):
        final_labels_import(study=study, data=data.encode())
    assert not StudyItem.objects.filter(study=study, adjudicated_at__isnull=False).exists()
    assert Study.objects.get(pk=study.pk).kind == Study.Kind.OPEN
