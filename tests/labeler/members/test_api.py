"""The members and invitations API, for every kind of person: anonymous, a non-member, the
study's annotator, its lead, and a superuser who is no member."""

import pytest
from django.core import mail
from rest_framework.test import APIClient

from labeler.common.roles import Role
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.members.services import study_invitation_create
from labeler.models import StudyInvitation, StudyMember
from tests.labeler.calls import assert_error, client_for
from tests.labeler.conftest import GOOD_LABELS
from tests.labeler.factories import StudyMemberFactory

pytestmark = pytest.mark.django_db

PERSONS = ["anonymous", "outsider", "annotator", "lead", "superuser"]


@pytest.fixture
def superuser(make_user):
    return make_user(Role.ADMIN, username="root")


@pytest.fixture
def member_call(request, study):
    def do(person, method, path, body=None):
        client = APIClient()
        if person != "anonymous":
            client.force_authenticate(request.getfixturevalue(person))
        return getattr(client, method)(path.format(slug=study.slug), body, format="json")

    return do


def expect(**statuses):
    assert set(statuses) == set(PERSONS)
    return pytest.mark.parametrize(("person", "expected"), list(statuses.items()))


def member_of(study, username, role):
    return StudyMember.objects.get(study=study, user__username=username, role=role)


@expect(anonymous=401, outsider=404, annotator=200, lead=200, superuser=200)
def test_members_list_with_progress_for_those_who_see_it(
    member_call, study, annotator, person, expected
):
    held = assignment_next(study=study, user=annotator)
    assignment_submit(assignment_id=held.pk, user=annotator, labels=GOOD_LABELS)
    assignment_next(study=study, user=annotator)

    response = member_call(person, "get", "/api/studies/{slug}/members/")

    assert response.status_code == expected
    if expected == 200:
        rows = {(m["username"], m["role"]): m for m in response.json()}
        ann = rows["ann", "annotator"]
        sees_progress = person in ("lead", "superuser")
        assert (ann["submitted"], ann["assigned"]) == ((1, 2) if sees_progress else (None, None))
        assert rows["lead", "lead"]["submitted"] is None
        assert ann["id"] == member_of(study, "ann", "annotator").pk


@expect(anonymous=401, outsider=404, annotator=403, lead=200, superuser=200)
def test_member_role_change(member_call, study, person, expected):
    member = member_of(study, "res", "researcher")

    response = member_call(
        person, "patch", f"/api/studies/{{slug}}/members/{member.pk}/", {"role": "lead"}
    )

    assert response.status_code == expected
    member.refresh_from_db()
    assert member.role == ("lead" if expected == 200 else "researcher")


def test_member_role_change_refuses_the_last_lead_and_unknown_roles(member_call, study):
    lead = member_of(study, "lead", "lead")

    last = member_call(
        "lead", "patch", f"/api/studies/{{slug}}/members/{lead.pk}/", {"role": "annotator"}
    )
    unknown = member_call(
        "lead", "patch", f"/api/studies/{{slug}}/members/{lead.pk}/", {"role": "boss"}
    )

    assert last.status_code == 400 and "role" in last.json()["fields"]
    assert "at least one lead" in last.json()["fields"]["role"][0]
    assert unknown.status_code == 400 and "role" in unknown.json()["fields"]
    lead.refresh_from_db()
    assert lead.role == "lead"


def test_member_of_another_study_is_not_found(member_call, study, make_user):
    elsewhere = StudyMemberFactory(user=make_user(username="far"), role="annotator")

    response = member_call("lead", "delete", f"/api/studies/{{slug}}/members/{elsewhere.pk}/")

    assert response.status_code == 404
    assert StudyMember.objects.filter(pk=elsewhere.pk).exists()


@expect(anonymous=401, outsider=404, annotator=403, lead=204, superuser=204)
def test_member_remove_keeps_their_labels(member_call, study, annotator, person, expected):
    held = assignment_next(study=study, user=annotator)
    assignment_submit(assignment_id=held.pk, user=annotator, labels=GOOD_LABELS)
    member = member_of(study, "ann", "annotator")

    response = member_call(person, "delete", f"/api/studies/{{slug}}/members/{member.pk}/")

    assert response.status_code == expected
    assert StudyMember.objects.filter(pk=member.pk).exists() == (expected != 204)
    assert study.assignments.filter(annotator=annotator, status="submitted").count() == 1
    if expected == 204:
        gone = APIClient()
        gone.force_authenticate(annotator)
        assert gone.get(f"/api/studies/{study.slug}/").status_code == 404


@expect(anonymous=401, outsider=404, annotator=403, lead=201, superuser=201)
def test_invitation_create_gives_the_link_once(member_call, study, person, expected, settings):
    settings.EMAIL_HOST = ""

    response = member_call(
        person,
        "post",
        "/api/studies/{slug}/invitations/",
        {"role": "annotator", "email": "x@y.org"},
    )

    assert response.status_code == expected
    if expected == 201:
        body = response.json()
        assert body["state"] == "open" and body["role"] == "annotator" and not body["emailed"]
        token = body["link"].rsplit("/", 2)[-2]
        stored = StudyInvitation.objects.get(pk=body["id"])
        assert token not in stored.token_hash and len(stored.token_hash) == 64
        listed = member_call(person, "get", "/api/studies/{slug}/invitations/").json()
        assert [row["id"] for row in listed] == [body["id"]]
        assert "link" not in listed[0]
        assert mail.outbox == []
    else:
        assert not StudyInvitation.objects.exists()


def test_invitation_is_mailed_when_email_is_set_up(
    member_call, settings, django_capture_on_commit_callbacks
):
    settings.EMAIL_HOST = "smtp.example.org"
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"

    with django_capture_on_commit_callbacks(execute=True):
        response = member_call(
            "lead", "post", "/api/studies/{slug}/invitations/", {"role": "lead", "email": "n@x.org"}
        )

    assert response.status_code == 201 and response.json()["emailed"]
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["n@x.org"]
    assert response.json()["link"] in mail.outbox[0].body


def test_invitation_create_names_bad_fields(member_call):
    response = member_call("lead", "post", "/api/studies/{slug}/invitations/", {"role": "chief"})
    email = member_call(
        "lead", "post", "/api/studies/{slug}/invitations/", {"role": "lead", "email": "no"}
    )

    assert response.status_code == 400 and "role" in response.json()["fields"]
    assert email.status_code == 400 and "email" in email.json()["fields"]


@expect(anonymous=401, outsider=404, annotator=403, lead=200, superuser=200)
def test_invitations_list(member_call, study, person, expected):
    study_invitation_create(study=study, role="annotator", link_for=str)

    response = member_call(person, "get", "/api/studies/{slug}/invitations/")

    assert response.status_code == expected
    if expected == 200:
        assert [row["role"] for row in response.json()] == ["annotator"]


@expect(anonymous=401, outsider=404, annotator=403, lead=204, superuser=204)
def test_invitation_revoke(member_call, study, person, expected):
    invitation, _, _ = study_invitation_create(study=study, role="annotator", link_for=str)

    response = member_call(person, "delete", f"/api/studies/{{slug}}/invitations/{invitation.pk}/")

    assert response.status_code == expected
    invitation.refresh_from_db()
    assert invitation.state() == ("revoked" if expected == 204 else "open")


def test_members_errors_name_the_request_field(study, lead):
    response = client_for(lead).post(
        "/api/studies/perf/members/",
        {"usernames": ["nobody"], "role": "annotator"},
        format="json",
    )

    assert_error(response, "usernames", "no user nobody")


def test_members_refuse_unknown_keys(study, lead):
    response = client_for(lead).post(
        "/api/studies/perf/members/", {"users": ["ann"], "role": "annotator"}, format="json"
    )

    assert_error(response, "users", "did you mean 'usernames'?")
