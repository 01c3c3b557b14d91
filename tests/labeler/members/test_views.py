"""The members page of a study: its leads add (and create) members and remove them."""

import re

import pytest
from django.contrib.auth import get_user_model

from labeler.common.roles import Role
from labeler.models import StudyMember

User = get_user_model()

pytestmark = pytest.mark.django_db


def test_lead_adds_and_removes_members(client, study, lead, make_user):
    newcomer = make_user(Role.ANNOTATOR, username="newcomer")
    client.force_login(lead)

    response = client.post(
        "/studies/perf/members/", {"action": "add", "usernames": "newcomer", "role": "annotator"}
    )

    assert response.status_code == 302
    member = StudyMember.objects.get(study=study, user=newcomer)
    assert member.role == "annotator"
    html = client.get("/studies/perf/members/").content.decode()
    assert "newcomer" in html

    client.post("/studies/perf/members/", {"action": "remove", "member": member.pk})
    assert not StudyMember.objects.filter(study=study, user=newcomer).exists()


def test_lead_adds_several_users_at_once(client, study, lead, make_user):
    for name in ("amy", "bob", "cy"):
        make_user(Role.ANNOTATOR, username=name)
    client.force_login(lead)

    response = client.post(
        "/studies/perf/members/",
        {"action": "add", "usernames": "amy, bob\ncy  amy", "role": "researcher"},
        follow=True,
    )

    added = study.members.filter(role="researcher", user__username__in=["amy", "bob", "cy"])
    assert sorted(added.values_list("user__username", flat=True)) == ["amy", "bob", "cy"]
    assert "amy, bob, cy: now researcher of the study." in response.content.decode()


def test_unknown_users_without_the_box_are_named_and_nobody_is_added(
    client, study, lead, make_user
):
    make_user(Role.ANNOTATOR, username="amy")
    client.force_login(lead)

    response = client.post(
        "/studies/perf/members/",
        {"action": "add", "usernames": "amy ghost phantom", "role": "annotator"},
    )

    assert response.status_code == 200
    html = response.content.decode()
    error = re.search(r'data-testid="error-usernames">([^<]*)<', html).group(1)
    assert "ghost, phantom" in error
    assert study.members.count() == 3
    assert not User.objects.filter(username__in=["ghost", "phantom"]).exists()


def test_unknown_users_with_the_box_are_created_without_a_usable_password(
    client, study, lead, make_user
):
    make_user(Role.ANNOTATOR, username="amy")
    client.force_login(lead)

    response = client.post(
        "/studies/perf/members/",
        {"action": "add", "usernames": "amy,ghost", "role": "annotator", "create_users": "on"},
    )

    assert response.status_code == 302
    ghost = User.objects.get(username="ghost")
    assert not ghost.has_usable_password()
    members = study.members.filter(role="annotator", user__username__in=["amy", "ghost"])
    assert members.count() == 2


@pytest.mark.parametrize(
    ("usernames", "message"),
    [
        ("  , ", "enter at least one username"),
        ("amy bad/name", "not a valid username: bad/name"),
        ("x" * 151, "not a valid username: " + "x" * 151),
    ],
)
def test_wrong_usernames_are_refused_before_anything_is_written(
    client, study, lead, usernames, message
):
    client.force_login(lead)

    response = client.post(
        "/studies/perf/members/",
        {"action": "add", "usernames": usernames, "role": "annotator", "create_users": "on"},
    )

    assert response.status_code == 200
    assert message in response.content.decode()
    assert study.members.count() == 3
    assert not User.objects.filter(username="amy").exists()


def test_the_last_lead_cannot_be_removed(client, study, lead):
    client.force_login(lead)
    member = StudyMember.objects.get(study=study, user=lead)

    response = client.post(
        "/studies/perf/members/", {"action": "remove", "member": member.pk}, follow=True
    )

    assert "A study keeps at least one lead" in response.content.decode()
    assert StudyMember.objects.filter(pk=member.pk).exists()


def test_annotator_cannot_manage_members(client, study, annotator, outsider):
    client.force_login(annotator)

    response = client.post(
        "/studies/perf/members/", {"action": "add", "usernames": "outsider", "role": "lead"}
    )

    assert response.status_code == 403
    assert not StudyMember.objects.filter(user=outsider).exists()


def test_removing_a_member_with_a_malformed_id_is_a_404(client, study, lead):
    client.force_login(lead)

    response = client.post("/studies/perf/members/", {"action": "remove", "member": "abc"})

    assert response.status_code == 404
