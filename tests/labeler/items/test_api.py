"""The items API: filters, and a priority change that names what is missing."""

import pytest

from labeler.models import StudyItem
from tests.labeler.calls import client_for, next_item
from tests.labeler.conftest import GOOD_LABELS

pytestmark = pytest.mark.django_db


def test_items_filters(study, annotator, lead):
    client = client_for(annotator)
    assignment = next_item(client).json()["assignment"]
    client.post(f"/api/assignments/{assignment}/submit/", {"labels": GOOD_LABELS}, format="json")
    lead_client = client_for(lead)
    assert lead_client.get("/api/items/?study=perf&complete=false").json()["count"] == 4
    StudyItem.objects.filter(study=study, position=0).update(needed=1, claimed=1, submitted=1)
    assert lead_client.get("/api/items/?study=perf&complete=true").json()["count"] == 1
    assert lead_client.get("/api/items/?study=perf&adjudicated=true").json()["count"] == 0


def test_item_patch_without_a_priority_names_the_field(api_as, lead, study):
    item = study.items.first()

    response = api_as(lead).patch(f"/api/items/{item.pk}/", {}, format="json")

    assert response.status_code == 400
    assert response.json()["fields"] == {"priority": ["give the item's new priority"]}
