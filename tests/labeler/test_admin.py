"""Admin pages of every labeler model; what the services keep consistent is read-only."""

import pytest
from django.apps import apps
from django.contrib import admin
from django.utils import timezone

from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import Assignment, Board, BoardEvent, Code, CodeUse, Study, StudyItem, Theme
from tests.labeler.conftest import GOOD_LABELS
from tests.labeler.factories import (
    LabellingStudyFactory,
    StudyItemFactory,
    StudyMemberFactory,
    UserFactory,
)
from tests.labeler.submissions import OTHER_LABELS

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
def labelled_assignment():
    study = LabellingStudyFactory(slug="perf")
    study.batches.create(number=1, seed=1, frame_size=2, sample_size=2)
    StudyItemFactory(study=study, position=0)
    annotator = UserFactory()
    StudyMemberFactory(study=study, user=annotator, role="annotator")
    held = assignment_next(study=study, user=annotator)
    assignment_submit(assignment_id=held.pk, user=annotator, labels=GOOD_LABELS)
    return held


@pytest.mark.parametrize("model", MODELS)
def test_every_labeler_model_has_an_admin_page(admin_client, labelled_assignment, model):
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


def test_an_assignment_cannot_be_changed_by_hand(admin_client, labelled_assignment):
    response = admin_client.post(
        f"/admin/labeler/assignment/{labelled_assignment.pk}/change/",
        {"status": "held", "version": 0},
    )
    assert response.status_code == 403
    assert Assignment.objects.get(pk=labelled_assignment.pk).status == "submitted"


def test_an_item_takes_a_priority_but_keeps_its_counters(admin_client, labelled_assignment):
    item = labelled_assignment.item
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


def test_a_study_keeps_its_codebook_and_dimensions(admin_client, labelled_assignment):
    html = admin_client.get(
        f"/admin/labeler/study/{labelled_assignment.study_id}/change/"
    ).content.decode()
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
def test_final_labels_and_their_history_are_read_only_in_the_admin(
    admin_client, labelled_assignment, model
):
    second = UserFactory()
    StudyMemberFactory(study=labelled_assignment.study, user=second, role="annotator")
    held = assignment_next(study=labelled_assignment.study, user=second)
    assignment_submit(assignment_id=held.pk, user=second, labels=GOOD_LABELS)

    listing = admin_client.get(f"/admin/labeler/{model}/")

    assert listing.status_code == 200
    obj = listing.context["cl"].result_list[0]
    detail = admin_client.get(f"/admin/labeler/{model}/{obj.pk}/change/")
    assert detail.status_code == 200
    assert b'name="_save"' not in detail.content
    assert admin_client.get(f"/admin/labeler/{model}/add/").status_code == 403
    assert admin_client.post(f"/admin/labeler/{model}/{obj.pk}/delete/").status_code == 403


def test_a_studys_majority_policy_is_not_changed_in_the_admin(admin_client, labelled_assignment):
    html = admin_client.get(
        f"/admin/labeler/study/{labelled_assignment.study_id}/change/"
    ).content.decode()
    assert 'name="majority"' not in html


def change_needed(client, item, needed):
    return client.post(
        f"/admin/labeler/studyitem/{item.pk}/change/", {"priority": item.priority, "needed": needed}
    )


def test_an_item_cannot_need_fewer_annotations_than_it_has_claims(
    admin_client, labelled_assignment
):
    item = labelled_assignment.item
    second = UserFactory()
    StudyMemberFactory(study=item.study, user=second, role="annotator")
    assert assignment_next(study=item.study, user=second).item_id == item.pk

    response = change_needed(admin_client, item, 1)

    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        "needed": [
            "2 annotators hold or submitted this item: it cannot need fewer than 2 annotations"
        ]
    }
    assert StudyItem.objects.get(pk=item.pk).needed == 2


def test_an_item_needs_at_least_one_annotation(admin_client, labelled_assignment):
    response = change_needed(admin_client, labelled_assignment.item, 0)

    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        "needed": ["an item needs at least 1 annotation"]
    }
    assert StudyItem.objects.get(pk=labelled_assignment.item_id).needed == 2


def test_an_item_may_need_exactly_its_claims(admin_client, labelled_assignment):
    response = change_needed(admin_client, labelled_assignment.item, 1)

    assert response.status_code == 302
    item = StudyItem.objects.get(pk=labelled_assignment.item_id)
    assert (item.needed, item.claimed) == (1, 1)


BLIND_MODELS = ["assignment", "annotation", "annotationversion"]


@pytest.fixture
def two_studies(labelled_assignment):
    """Study "perf" (from `data`) where staff member `lead` labels too (disagreeing), with the other
    annotator's submission and the lead's own; and a study where the lead does not label."""
    perf = labelled_assignment.study
    lead = UserFactory(username="staff-lead", is_staff=True, is_superuser=True)
    StudyMemberFactory(study=perf, user=lead, role="annotator")
    StudyMemberFactory(study=perf, user=lead, role="lead")
    StudyItemFactory(study=perf, position=1)
    own = assignment_next(study=perf, user=lead)
    # Labels unlike the other annotator's, so that the item they share is not final.
    assignment_submit(assignment_id=own.pk, user=lead, labels=OTHER_LABELS)

    other = LabellingStudyFactory(slug="other")
    StudyItemFactory(study=other, position=0)
    stranger = UserFactory(username="stranger")
    StudyMemberFactory(study=other, user=stranger, role="annotator")
    theirs = assignment_next(study=other, user=stranger)
    assignment_submit(assignment_id=theirs.pk, user=stranger, labels=GOOD_LABELS)
    return lead, {"other's": labelled_assignment.annotator, "own": lead, "elsewhere": stranger}


def listed_annotators(client, model):
    listing = client.get(f"/admin/labeler/{model}/")
    assert listing.status_code == 200
    return {row.annotator.username for row in listing.context["cl"].queryset}


@pytest.mark.parametrize("model", BLIND_MODELS)
def test_a_staff_annotator_sees_only_their_own_work_in_studies_they_label(
    client, two_studies, model
):
    lead, people = two_studies
    client.force_login(lead)

    assert listed_annotators(client, model) == {"staff-lead", "stranger"}
    hidden = Assignment.objects.get(annotator=people["other's"]).item_id
    rows = apps.get_model("labeler", model).objects.filter(item_id=hidden)
    row = rows.filter(annotator=people["other's"]).first()
    detail = client.get(f"/admin/labeler/{model}/{row.pk}/change/")
    assert detail.status_code == 302


@pytest.mark.parametrize("model", BLIND_MODELS)
def test_once_adjudicated_the_others_work_shows(client, two_studies, model):
    lead, people = two_studies
    StudyItem.objects.filter(assignments__annotator=people["other's"]).update(
        adjudicated_at=timezone.now()
    )
    client.force_login(lead)

    assert listed_annotators(client, model) == {user.username for user in people.values()}


@pytest.mark.parametrize("model", BLIND_MODELS)
def test_a_staff_member_who_labels_nowhere_sees_everyone(admin_client, two_studies, model):
    _, people = two_studies

    assert listed_annotators(admin_client, model) == {user.username for user in people.values()}


BOARD_MODELS = ["board", "theme", "code", "codeuse", "boardevent"]


@pytest.fixture
def two_boards(two_studies):
    """A board with a theme, a code, its use and an event on each study of `two_studies`."""
    lead, people = two_studies
    now = timezone.now()
    for study, annotator in (
        (Study.objects.get(slug="perf"), people["other's"]),
        (Study.objects.get(slug="other"), people["elsewhere"]),
    ):
        board = Board.objects.create(study=study, kind="open", created_at=now)
        dimension = study.dimensions.first()
        theme = Theme.objects.create(board=board, dimension=dimension, key="memory", name="Memory")
        code = Code.objects.create(
            board=board, dimension=dimension, name="leak", theme=theme, created_at=now
        )
        assignment = Assignment.objects.get(study=study, annotator=annotator)
        CodeUse.objects.create(
            code=code,
            assignment=assignment,
            item=assignment.item,
            annotator=annotator,
            written_as="leak",
            created_at=now,
        )
        BoardEvent.objects.create(
            board=board, action="group", description="leak to Memory", created_at=now
        )
    return lead


def listed_studies(client, model):
    listing = client.get(f"/admin/labeler/{model}/")
    assert listing.status_code == 200
    path = {"board": "study", "codeuse": "item__study"}.get(model, "board__study")
    return set(listing.context["cl"].queryset.values_list(f"{path}__slug", flat=True))


@pytest.mark.parametrize("model", BOARD_MODELS)
def test_a_staff_annotator_sees_no_board_of_a_study_they_label(client, two_boards, model):
    client.force_login(two_boards)

    assert listed_studies(client, model) == {"other"}


@pytest.mark.parametrize("model", BOARD_MODELS)
def test_a_staff_member_who_labels_nowhere_sees_every_board(admin_client, two_boards, model):
    assert listed_studies(admin_client, model) == {"perf", "other"}
