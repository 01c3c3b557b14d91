"""A decision's history says what was true when it was made: after a codebook migration, the
decisions made under the old version keep their dimension and their categories' names, on
the item's history page and in `GET /api/items/{id}/decisions/`."""

import pytest
from rest_framework.test import APIClient

from labeler.revisions.services import study_revise
from taxonomy.models import Category
from tests.labeler.codebook_revisions import labelled_study, revise_v2

pytestmark = pytest.mark.django_db


@pytest.fixture
def migrated_decision(annotator, ann2, lead):
    """Item 2 decided unanimously on memory/bloat ("Bloat, as v1 named it") under v1.0, then the
    study moved to v2.0, where memory/bloat became memory/overuse ("Overuse")."""
    study = labelled_study(annotator=annotator, second=ann2, lead=lead)
    Category.objects.filter(dimension__codebook=study.codebook, path="memory/bloat").update(
        name="Bloat, as v1 named it"
    )
    study_revise(study=study, codebook=revise_v2(study.codebook), user=lead)
    return study, study.items.order_by("position")[1]


def test_the_decisions_api_keeps_the_dimension_and_names_of_the_old_version(
    migrated_decision, lead
):
    _, item = migrated_decision
    client = APIClient()
    client.force_authenticate(lead)
    response = client.get(f"/api/items/{item.pk}/decisions/")
    assert response.status_code == 200
    history = [
        (event["kind"], event["dimension"], event["dimension_name"], event["categories"])
        for event in response.json()["history"]
        if event["dimension"] == "root-cause"
    ]
    assert history == [
        (
            "decided",
            "root-cause",
            "Root cause",
            [{"path": "memory/bloat", "name": "Bloat, as v1 named it"}],
        ),
        ("decided", "root-cause", "Root cause", [{"path": "memory/overuse", "name": "Overuse"}]),
    ]
    assert all(event["dimension"] for event in response.json()["history"])


def test_the_history_page_keeps_them_too(client, migrated_decision, lead):
    study, item = migrated_decision
    client.force_login(lead)
    response = client.get(f"/studies/{study.slug}/items/{item.pk}/history/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "decided · :" not in html
    assert (
        '<span data-testid="event-dimension">Root cause</span>: Bloat, as v1 named it '
        "<code>memory/bloat</code>"
    ) in html
    assert '<span data-testid="event-dimension">Impact</span>: ' in html


def test_the_versions_labelled_under_the_old_version_keep_its_names(
    client, migrated_decision, lead
):
    study, item = migrated_decision
    client.force_login(lead)
    html = client.get(f"/studies/{study.slug}/items/{item.pk}/history/").content.decode()
    history = html[html.index('data-testid="history"') :]
    # Both annotators' first versions, as labelled under v1.0; the migration's, under v2.0.
    assert history.count("Bloat, as v1 named it <code>memory/bloat</code>") == 2
    assert history.count("Overuse <code>memory/overuse</code>") == 2
