"""The members page (invite, change a role, revoke, progress, too few annotators), the
invitation page, the home page's studies and roles, and the set-up and study pages' warning."""

import re

import pytest
from django.contrib.auth import get_user_model

from labeler.labelling.services import assignment_next, assignment_submit
from labeler.members.services import study_invitation_create
from labeler.models import StudyInvitation, StudyMember
from tests.labeler.conftest import GOOD_LABELS
from tests.labeler.factories import labelling_codebook
from tests.labeler.studies.test_views import setup_data

pytestmark = pytest.mark.django_db

GOOD_PASSWORD = "a-long-enough-pass-29"


def invitation_link(html: str) -> str:
    return re.search(r'value="(http[^"]+/invitations/[^"]+/)"', html).group(1)


def test_lead_makes_an_invitation_link_shown_once(client, study, lead):
    client.force_login(lead)

    response = client.post(
        "/studies/perf/members/", {"action": "invite", "role": "annotator", "email": ""}
    )

    html = response.content.decode()
    link = invitation_link(html)
    token = link.rstrip("/").rsplit("/", 1)[1]
    assert response["Cache-Control"] == "no-store"
    assert StudyInvitation.objects.get().state() == "open"
    again = client.get("/studies/perf/members/").content.decode()
    assert token not in again
    assert 'data-testid="invitations"' in again


def test_invitee_chooses_username_and_password_and_lands_in_the_study(client, study):
    _, token, _ = study_invitation_create(study=study, role="annotator", link_for=str)

    opened = client.get(f"/invitations/{token}/")
    page = client.get("/invitations/join/")
    response = client.post(
        "/invitations/join/",
        {"username": "newbie", "password": GOOD_PASSWORD, "password_again": GOOD_PASSWORD},
    )

    assert opened.status_code == 302 and opened["Location"] == "/invitations/join/"
    assert "Join " + study.name in page.content.decode()
    assert response.status_code == 302 and response["Location"] == "/studies/perf/"
    user = get_user_model().objects.get(username="newbie")
    assert StudyMember.objects.filter(study=study, user=user, role="annotator").exists()
    assert client.get("/studies/perf/label/").status_code == 200
    for address in (f"/invitations/{token}/", "/invitations/join/"):
        gone = client.get(address)
        assert gone.status_code == 200 and 'data-testid="invitation-gone"' in gone.content.decode()


def test_an_unknown_link_or_a_form_without_an_opened_link_says_it_no_longer_works(client):
    for address in ("/invitations/no-such-token/", "/invitations/join/"):
        response = client.get(address)
        assert 'data-testid="invitation-gone"' in response.content.decode()
    posted = client.post("/invitations/join/", {"username": "x", "password": GOOD_PASSWORD})
    assert 'data-testid="invitation-gone"' in posted.content.decode()
    assert not get_user_model().objects.filter(username="x").exists()


def test_a_weak_password_is_refused_on_its_field(client, study, annotator):
    _, token, _ = study_invitation_create(study=study, role="annotator", link_for=str)

    client.get(f"/invitations/{token}/")
    response = client.post(
        "/invitations/join/",
        {"username": "ann", "password": "12345678", "password_again": "12345678"},
    )

    html = response.content.decode()
    assert response.status_code == 200
    assert re.search(r'data-testid="error-username">[^<]*already exists', html)
    assert re.search(r'data-testid="error-password">[^<]*too common', html)
    assert StudyInvitation.objects.get().state() == "open"


def test_passwords_that_differ_are_refused(client, study):
    _, token, _ = study_invitation_create(study=study, role="annotator", link_for=str)

    client.get(f"/invitations/{token}/")
    response = client.post(
        "/invitations/join/",
        {"username": "newbie", "password": GOOD_PASSWORD, "password_again": "other"},
    )

    assert (
        'data-testid="error-password_again">the two passwords differ' in response.content.decode()
    )
    assert not get_user_model().objects.filter(username="newbie").exists()


def test_lead_changes_a_role_and_revokes_an_invitation(client, study, lead, researcher):
    invitation, _, _ = study_invitation_create(study=study, role="lead", link_for=str)
    member = StudyMember.objects.get(study=study, user=researcher)
    client.force_login(lead)

    client.post("/studies/perf/members/", {"action": "role", "member": member.pk, "role": "lead"})
    client.post("/studies/perf/members/", {"action": "revoke", "invitation": invitation.pk})

    member.refresh_from_db()
    invitation.refresh_from_db()
    assert member.role == "lead"
    assert invitation.state() == "revoked"


@pytest.mark.parametrize("person", ["annotator", "researcher"])
def test_only_leads_manage_members(client, study, person, request):
    member = StudyMember.objects.get(study=study, role="lead")
    client.force_login(request.getfixturevalue(person))

    changed = client.post(
        "/studies/perf/members/", {"action": "role", "member": member.pk, "role": "annotator"}
    )
    invited = client.post("/studies/perf/members/", {"action": "invite", "role": "lead"})

    assert changed.status_code == invited.status_code == 403
    assert not StudyInvitation.objects.exists()
    member.refresh_from_db()
    assert member.role == "lead"


def test_members_page_shows_progress_and_too_few_annotators(client, study, lead, annotator):
    held = assignment_next(study=study, user=annotator)
    assignment_submit(assignment_id=held.pk, user=annotator, labels=GOOD_LABELS)
    assignment_next(study=study, user=annotator)
    client.force_login(lead)

    html = client.get("/studies/perf/members/").content.decode()

    row = re.search(r'data-testid="member-ann-annotator">(.*?)</tr>', html, re.S).group(1)
    assert re.search(r'data-testid="progress">1 / 2<', row)
    assert 'data-testid="overlap-warning"' in html
    assert "overlap 2" in html and "only 1" in html


def test_study_page_warns_of_too_few_annotators_until_there_are_enough(
    client, study, lead, make_user
):
    client.force_login(lead)
    assert "overlap 2) and the study has only 1" in client.get("/studies/perf/").content.decode()

    StudyMember.objects.create(study=study, user=make_user(username="ann9"), role="annotator")

    assert 'data-testid="overlap-warning"' not in client.get("/studies/perf/").content.decode()


def test_set_up_warns_in_the_preview_and_after_create(client, researcher, frame_reports):
    codebook = labelling_codebook()
    client.force_login(researcher)
    data = setup_data(codebook, overlap="3")
    html = client.post("/studies/new/", {**data, "action": "preview"}).content.decode()
    previewed = re.search(r'name="previewed" value="([0-9a-f]+)"', html).group(1)

    created = client.post(
        "/studies/new/", {**data, "action": "create", "previewed": previewed}, follow=True
    )

    assert re.search(r'data-testid="overlap-warning">.*overlap 3.*no annotator yet', html)
    assert re.search(r'data-testid="overlap-warning">.*overlap 3', created.content.decode())


def test_home_lists_my_studies_with_my_roles_in_each(client, study, make_user):
    newcomer = make_user(username="newcomer")  # no site-wide role, as an invitee has
    StudyMember.objects.create(study=study, user=newcomer, role="annotator")
    client.force_login(newcomer)

    html = client.get("/").content.decode()

    assert "none yet" not in html
    assert "You are in 1 study" in html
    entry = re.search(r'data-testid="study-perf">(.*?)</li>', html, re.S).group(1)
    assert '<span class="badge">annotator</span>' in entry


def test_the_api_preview_and_create_warn_of_too_few_annotators(api_as, lead, frame_reports):
    labelling_codebook(key="perf-codebook")
    client = api_as(lead)
    body = {"slug": "s", "name": "S", "codebook": "perf-codebook", "overlap": 2}

    preview = client.post("/api/studies/preview/", body, format="json")
    created = client.post("/api/studies/", body, format="json")

    assert "overlap 2" in preview.json()["overlap_warning"]
    assert "no annotator yet" in created.json()["overlap_warning"]
    single = client.post("/api/studies/preview/", {**body, "overlap": 0}, format="json")
    assert single.status_code == 400 and "overlap" in single.json()["fields"]


def test_someone_signed_in_is_told_joining_makes_a_new_account(client, study, annotator):
    _, token, _ = study_invitation_create(study=study, role="lead", link_for=str)
    client.force_login(annotator)

    html = client.get(f"/invitations/{token}/", follow=True).content.decode()

    assert re.search(r'data-testid="signed-in-as">You are signed in as ann: joining makes', html)
