"""Admin pages of every labeler model; what the services keep consistent is read-only."""

import pytest
from django.apps import apps
from django.contrib import admin

from labeler.models import Assignment, StudyItem
from labeler.services.assignment import assignment_next, assignment_submit
from tests.labeler.conftest import GOOD_LABELS
from tests.labeler.factories import (
    LabellingStudyFactory,
    StudyItemFactory,
    StudyMemberFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

MODELS = [
    "study",
    "studymember",
    "studybatch",
    "studyitem",
    "assignment",
    "annotation",
    "annotationversion",
]
READ_ONLY = ["studybatch", "assignment", "annotation", "annotationversion"]
NO_ADD = [*READ_ONLY, "studyitem"]


@pytest.fixture
def data():
    study = LabellingStudyFactory(slug="perf")
    study.batches.create(number=1, seed=1, frame_size=2, sample_size=2)
    StudyItemFactory(study=study, position=0)
    annotator = UserFactory()
    StudyMemberFactory(study=study, user=annotator, role="annotator")
    held = assignment_next(study=study, user=annotator)
    assignment_submit(assignment_id=held.pk, user=annotator, labels=GOOD_LABELS)
    return held


@pytest.mark.parametrize("model", MODELS)
def test_every_labeler_model_has_an_admin_page(admin_client, data, model):
    listing = admin_client.get(f"/admin/labeler/{model}/")
    assert listing.status_code == 200
    obj = listing.context["cl"].result_list[0]
    detail = admin_client.get(f"/admin/labeler/{model}/{obj.pk}/change/")
    assert detail.status_code == 200
    can_add = admin_client.get(f"/admin/labeler/{model}/add/").status_code == 200
    assert can_add == (model not in NO_ADD)
    if model in READ_ONLY:
        assert b'name="_save"' not in detail.content
        assert admin_client.post(f"/admin/labeler/{model}/{obj.pk}/delete/").status_code == 403


def test_an_assignment_cannot_be_changed_by_hand(admin_client, data):
    response = admin_client.post(
        f"/admin/labeler/assignment/{data.pk}/change/", {"status": "held", "version": 0}
    )
    assert response.status_code == 403
    assert Assignment.objects.get(pk=data.pk).status == "submitted"


def test_an_item_takes_a_priority_but_keeps_its_counters(admin_client, data):
    item = data.item
    response = admin_client.post(
        f"/admin/labeler/studyitem/{item.pk}/change/",
        {"priority": 7, "needed": 3, "claimed": 0, "submitted": 0, "position": 99},
    )
    assert response.status_code == 302
    item = StudyItem.objects.get(pk=item.pk)
    assert (item.priority, item.needed, item.claimed, item.submitted, item.position) == (
        7,
        3,
        1,
        1,
        0,
    )


def test_a_study_keeps_its_codebook_and_dimensions(admin_client, data):
    html = admin_client.get(f"/admin/labeler/study/{data.study_id}/change/").content.decode()
    assert 'name="slug"' in html
    assert 'name="codebook"' not in html
    assert 'name="dimensions"' not in html


def test_every_model_of_the_three_apps_is_in_the_admin():
    missing = [
        model.__name__
        for model in apps.get_models()
        if model._meta.app_label in {"taxonomy", "mining", "labeler"}
        and not admin.site.is_registered(model)
    ]
    assert missing == []


@pytest.mark.parametrize("model", ["finallabel", "finallabelevent"])
def test_final_labels_and_their_history_are_read_only_in_the_admin(admin_client, data, model):
    second = UserFactory()
    StudyMemberFactory(study=data.study, user=second, role="annotator")
    held = assignment_next(study=data.study, user=second)
    assignment_submit(assignment_id=held.pk, user=second, labels=GOOD_LABELS)

    listing = admin_client.get(f"/admin/labeler/{model}/")

    assert listing.status_code == 200
    obj = listing.context["cl"].result_list[0]
    detail = admin_client.get(f"/admin/labeler/{model}/{obj.pk}/change/")
    assert detail.status_code == 200
    assert b'name="_save"' not in detail.content
    assert admin_client.get(f"/admin/labeler/{model}/add/").status_code == 403
    assert admin_client.post(f"/admin/labeler/{model}/{obj.pk}/delete/").status_code == 403


def test_a_studys_majority_policy_is_not_changed_in_the_admin(admin_client, data):
    html = admin_client.get(f"/admin/labeler/study/{data.study_id}/change/").content.decode()
    assert 'name="majority"' not in html
