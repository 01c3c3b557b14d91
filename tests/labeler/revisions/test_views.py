"""The codebook migration page for every role, its preview, its button, the study page's link
to it and the item history's entries."""

import pytest
from django.test import Client

from labeler.common.roles import Role
from labeler.models import CodebookMigration, Study
from tests.labeler.codebook_revisions import labelled_study, revise_v2
from tests.labeler.factories import StudyMemberFactory

pytestmark = pytest.mark.django_db

URL = "/studies/perf/codebook/2.0/"


@pytest.fixture
def revision_people(make_user):
    return {
        "annotator": make_user(Role.ANNOTATOR, username="ann"),
        "other_annotator": make_user(Role.ANNOTATOR, username="ann2"),
        "lead": make_user(Role.LEAD, username="lead"),
        "researcher": make_user(Role.RESEARCHER, username="res"),
        "outsider": make_user(Role.ANNOTATOR, username="outsider"),
        "staff": make_user(Role.ADMIN, username="admin"),
    }


@pytest.fixture
def revised_study(revision_people):
    study = labelled_study(
        annotator=revision_people["annotator"],
        second=revision_people["other_annotator"],
        lead=revision_people["lead"],
    )
    StudyMemberFactory(study=study, user=revision_people["researcher"], role="researcher")
    revise_v2(study.codebook)
    return study


def version_of(study):
    return Study.objects.get(pk=study.pk).codebook.version


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        ("annotator", 403),
        ("other_annotator", 403),
        ("lead", 200),
        ("researcher", 403),
        ("outsider", 404),
        ("staff", 200),
    ],
)
def test_the_preview_is_for_the_study_s_leads(
    client, revision_people, revised_study, role, expected
):
    client.force_login(revision_people[role])
    assert client.get(URL).status_code == expected


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        ("annotator", 403),
        ("other_annotator", 403),
        ("researcher", 403),
        ("outsider", 404),
    ],
)
def test_only_leads_may_migrate(client, revision_people, revised_study, role, expected):
    client.force_login(revision_people[role])
    assert client.post(URL).status_code == expected
    assert version_of(revised_study) == "1.0"
    assert not CodebookMigration.objects.exists()


def test_anonymous_is_sent_to_sign_in(client, revised_study):
    for response in (client.get(URL), client.post(URL)):
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=")
    assert version_of(revised_study) == "1.0"


def test_the_preview_counts_per_category_and_writes_nothing(client, revision_people, revised_study):
    client.force_login(revision_people["lead"])
    page = client.get(URL).content.decode()
    assert 'data-testid="migrate-form"' in page
    assert "<dt>Labels carried over</dt><dd>11</dd>" in page
    assert "<dt>Labels to label again</dt><dd>3</dd>" in page
    row = page.split('data-testid="move-root-cause-threading"')[1].split("</tr>")[0]
    assert "split" in row
    assert "<code>threading/lock</code>, <code>threading/race</code>" in row
    assert "<td>3</td><td>1</td>" in row  # three labels, one final label on it
    assert version_of(revised_study) == "1.0"


def test_the_button_migrates_and_the_study_page_says_so(client, revision_people, revised_study):
    client.force_login(revision_people["lead"])
    response = client.post(URL, follow=True)
    assert response.redirect_chain[-1][0] == "/studies/perf/"
    page = response.content.decode()
    assert "Study moved to perf v2.0: 11 labels carried over, 3 to label again" in page
    assert version_of(revised_study) == "2.0"
    assert CodebookMigration.objects.get().migrated_by == revision_people["lead"]


def test_the_button_needs_the_csrf_token(revision_people, revised_study):
    client = Client(enforce_csrf_checks=True)
    client.force_login(revision_people["lead"])
    assert client.post(URL).status_code == 403
    assert version_of(revised_study) == "1.0"


def test_a_refused_migration_says_why(client, revision_people, revised_study):
    client.force_login(revision_people["lead"])
    response = client.get("/studies/perf/codebook/1.0/")
    assert response.status_code == 400
    assert "on perf v1.0 already" in response.content.decode()
    assert 'data-testid="migrate-form"' not in response.content.decode()
    assert client.get("/studies/perf/codebook/7.0/").status_code == 404


def test_the_study_page_links_leads_to_a_newer_version(client, revision_people, revised_study):
    client.force_login(revision_people["lead"])
    page = client.get("/studies/perf/").content.decode()
    assert f'href="{URL}"' in page
    client.force_login(revision_people["annotator"])
    assert URL not in client.get("/studies/perf/").content.decode()
    client.force_login(revision_people["lead"])
    client.post(URL)
    assert 'data-testid="newer-codebooks"' not in client.get("/studies/perf/").content.decode()


def test_the_item_history_shows_the_migration(client, revision_people, revised_study):
    client.force_login(revision_people["lead"])
    client.post(URL)
    third = revised_study.items.order_by("position")[2]
    page = client.get(f"/studies/perf/items/{third.pk}/history/").content.decode()
    assert page.count('data-testid="migrated"') == 2
    assert "Codebook migration from v1.0 to v2.0 by lead" in page
    assert "(to label again: its category was split or removed)" in page
    assert "reopened" in page
