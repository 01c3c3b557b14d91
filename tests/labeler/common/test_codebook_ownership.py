"""Who may add a version to a codebook: the built-ins (and files an admin loads), the admins;
a key a study made (its open round, its board), that study's leads and the admins. Anyone else
is refused with a 403 naming the owner, and nothing is written."""

import re
from html import unescape

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.test import Client

from labeler.coding.board.boards import board_revision_start
from labeler.coding.board.themes import theme_create
from labeler.common.permissions import codebook_owner_of
from labeler.common.roles import Role
from labeler.models import Board, BoardEvent, Study
from labeler.studies.frames import FrameQuery
from labeler.studies.services import sample_spec_parse, study_create
from taxonomy.models import Codebook
from taxonomy.selectors import codebook_key_owner
from taxonomy.services import codebook_key_give
from tests.labeler.board_factories import BoardFactory, OpenStudyFactory
from tests.labeler.calls import client_for
from tests.labeler.factories import LabellingStudyFactory, StudyMemberFactory
from tests.mining.factories import BugReportFactory

pytestmark = pytest.mark.django_db

BUILTIN = "dl-performance-root-causes"


def sortable_board(*, slug, lead):
    """An open round with a category on each dimension of its board, led by `lead`."""
    study = OpenStudyFactory(slug=slug, name="Open round")
    StudyMemberFactory(study=study, user=lead, role="lead")
    board = BoardFactory(study=study)
    for dimension in board_dimension_keys(study):
        theme_create(board=board, dimension_key=dimension, name="Loops", user=lead)
    return study, board


def board_dimension_keys(study):
    return list(study.codebook.dimensions.order_by("position").values_list("key", flat=True))


def freeze(user, study, key, version="2.0"):
    return client_for(user).post(
        f"/api/studies/{study.slug}/board/freeze/",
        {"key": key, "version": version, "name": "Ours", "leave_out_ungrouped": True},
        format="json",
    )


def nothing_written(board, codebooks_before):
    board.refresh_from_db()
    assert board.frozen_into_id is None
    assert not BoardEvent.objects.filter(board=board, action="freeze").exists()
    assert Codebook.objects.count() == codebooks_before


@pytest.fixture
def team_a(make_user):
    """Study "team-a", whose board froze codebook "team-a-causes" v1."""
    lead = make_user(Role.LEAD, username="lead-a")
    study, _ = sortable_board(slug="team-a", lead=lead)
    response = freeze(lead, study, "team-a-causes", version="1")
    assert response.status_code == 200, response.json()
    return study, lead


def test_a_lead_cannot_add_a_version_to_a_built_in_codebook(make_user):
    call_command("load_codebook", "--builtin", "all", stdout=None)
    lead = make_user(Role.LEAD, username="lead-b")
    study, board = sortable_board(slug="team-b", lead=lead)
    before = Codebook.objects.count()

    response = freeze(lead, study, BUILTIN)

    assert response.status_code == 403
    assert response.json()["message"] == (
        f"codebook {BUILTIN!r} belongs to the admins (a built-in codebook, or one loaded from a "
        "codebook file): only the admins may add a version to it"
    )
    nothing_written(board, before)
    # What new studies pick stays the built-in.
    assert Codebook.objects.filter(key=BUILTIN).order_by("-created_at").first().version == "1.0"


def test_an_admin_may_add_a_version_to_a_built_in_codebook(make_user):
    call_command("load_codebook", "--builtin", "all", stdout=None)
    admin = make_user(Role.ADMIN, username="admin")
    study, _ = sortable_board(slug="team-b", lead=make_user(Role.LEAD, username="lead-b"))

    response = freeze(admin, study, BUILTIN)

    assert response.status_code == 200, response.json()
    assert codebook_key_owner(key=BUILTIN) == Codebook.ADMINS


def test_a_key_a_board_made_is_its_studys(team_a):
    study, _ = team_a
    assert set(Codebook.objects.filter(key="team-a-causes").values_list("owner", flat=True)) == {
        codebook_owner_of(study)
    }


def test_another_teams_lead_is_refused_naming_the_study(team_a, make_user):
    lead = make_user(Role.LEAD, username="lead-b")
    study, board = sortable_board(slug="team-b", lead=lead)
    before = Codebook.objects.count()

    response = freeze(lead, study, "team-a-causes")

    assert response.status_code == 403
    assert response.json()["message"] == (
        "codebook 'team-a-causes' belongs to study 'team-a' (Open round), whose board made it: "
        "only its leads and the admins may add a version to it"
    )
    nothing_written(board, before)


def test_the_owning_studys_leads_may_add_a_version_from_another_board(team_a, make_user):
    study_a, lead_a = team_a
    # lead-a also leads a later round, whose board freezes the key's next version.
    study, _ = sortable_board(slug="team-a-again", lead=lead_a)

    response = freeze(lead_a, study, "team-a-causes")

    assert response.status_code == 200, response.json()
    assert Codebook.objects.get(key="team-a-causes", version="2.0").owner == codebook_owner_of(
        study_a
    )


@pytest.mark.usefixtures("team_a")
def test_a_revision_board_of_another_team_is_refused(make_user):
    lead = make_user(Role.LEAD, username="lead-b")
    closed = LabellingStudyFactory(
        slug="team-b", codebook=Codebook.objects.get(key="team-a-causes", version="1")
    )
    StudyMemberFactory(study=closed, user=lead, role="lead")
    board = board_revision_start(study=closed, user=lead)
    before = Codebook.objects.count()

    # The board page says so before the freeze; the freeze is refused all the same.
    page = Client()
    page.force_login(lead)
    said = re.search(
        r'data-testid="freeze-refused">([^<]*)<',
        page.get("/studies/team-b/board/").content.decode(),
    )
    assert unescape(said.group(1)) == (
        "Codebook 'team-a-causes' belongs to study 'team-a' (Open round), whose board made it: "
        "only its leads and the admins may add a version to it: ask them to freeze it."
    )
    response = freeze(lead, closed, "team-a-causes")

    assert response.status_code == 403
    assert "belongs to study 'team-a'" in response.json()["message"]
    nothing_written(board, before)
    # So team a is offered no migration to a version it did not make.
    assert not Codebook.objects.filter(derived_from__key="team-a-causes").exists()
    assert Board.objects.get(pk=board.pk).frozen_into is None


def test_a_revision_of_a_studys_own_codebook_by_its_lead(make_user):
    lead = make_user(Role.LEAD, username="lead-b")
    closed = LabellingStudyFactory(slug="team-b")
    codebook_key_give(key=closed.codebook.key, owner=codebook_owner_of(closed))
    StudyMemberFactory(study=closed, user=lead, role="lead")
    board_revision_start(study=closed, user=lead)
    page = Client()
    page.force_login(lead)
    assert 'data-testid="freeze-refused"' not in page.get("/studies/team-b/board/").content.decode()

    response = freeze(lead, closed, closed.codebook.key)

    assert response.status_code == 200, response.json()


def open_round(slug, lead):
    BugReportFactory()
    return study_create(
        name="Roots again",
        slug=slug,
        kind="open",
        dimension_names=["Root cause"],
        frame=FrameQuery.from_dict({}),
        sample=sample_spec_parse({}),
        created_by=lead,
    )[0]


def test_an_open_study_makes_no_version_of_anothers_key(make_user):
    call_command("load_codebook", "--builtin", "all", stdout=None)
    before = Codebook.objects.count()

    with pytest.raises(ValidationError) as error:
        open_round(BUILTIN, make_user(Role.LEAD, username="lead-b"))

    assert error.value.message_dict == {
        "slug": [
            f"codebook {BUILTIN!r} exists already and belongs to the admins (a built-in "
            "codebook, or one loaded from a codebook file): give this study another slug, or "
            "pin that codebook"
        ]
    }
    assert Codebook.objects.count() == before
    assert not Study.objects.filter(slug=BUILTIN).exists()


def test_an_open_study_owns_the_key_it_makes(make_user):
    study = open_round("own-round", make_user(Role.LEAD, username="lead-b"))

    assert codebook_key_owner(key="own-round") == codebook_owner_of(study)
