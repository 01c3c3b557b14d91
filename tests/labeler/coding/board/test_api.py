"""The board API for every role, what each endpoint answers, and the query count of its
main read."""

import pytest
from rest_framework.test import APIClient

from labeler.coding.board.boards import board_revision_start
from labeler.coding.board.themes import theme_create
from labeler.models import Code, CodeUse, StudyMember, Theme
from tests.labeler.board_factories import code_uses, items_of, open_study_with_items
from tests.labeler.factories import LabellingStudyFactory, StudyMemberFactory

pytestmark = pytest.mark.django_db

ROLES = ["annotator", "other_annotator", "lead", "researcher", "outsider", "anonymous", "staff"]


@pytest.fixture
def api_board(board_people):
    """ann coded two reports, ann3 one; two themes on root cause."""
    study, board = open_study_with_items(
        members=[
            (board_people["annotator"], "annotator"),
            (board_people["other_annotator"], "annotator"),
            (board_people["lead"], "lead"),
            (board_people["researcher"], "researcher"),
        ]
    )
    items = items_of(study)
    code_uses(
        board, annotator=board_people["annotator"], item=items[0], names=["slow loop", "leak"]
    )
    code_uses(board, annotator=board_people["annotator"], item=items[1], names=["slow loop"])
    code_uses(board, annotator=board_people["other_annotator"], item=items[2], names=["Leak!"])
    lead = board_people["lead"]
    first = theme_create(board=board, dimension_key="root-cause", name="Loops", user=lead)
    second = theme_create(board=board, dimension_key="root-cause", name="Memory", user=lead)
    theme_create(board=board, dimension_key="symptom", name="Stalls", user=lead)
    return {"study": study, "board": board, "items": items, "themes": [first, second]}


def client_as(people, role):
    client = APIClient()
    if role != "anonymous":
        client.force_authenticate(people[role])
    return client


@pytest.fixture
def board_call(board_people, api_board):
    board = api_board["board"]
    loop = Code.objects.get(board=board, name="slow loop")
    ids = {
        "slug": api_board["study"].slug,
        "code": loop.pk,
        "other": Code.objects.get(board=board, name="leak").pk,
        "use": CodeUse.objects.filter(code=loop).order_by("pk").first().pk,
        "theme": api_board["themes"][0].pk,
        "second": api_board["themes"][1].pk,
    }

    def do(role, method, path, body=None):
        path = "/api/studies/{slug}/" + path
        body = {k: (v.format(**ids) if isinstance(v, str) else v) for k, v in (body or {}).items()}
        body = {k: _ids(v, ids) for k, v in body.items()}
        return getattr(client_as(board_people, role), method)(
            path.format(**ids), body, format="json"
        )

    do.ids = ids
    return do


def _ids(value, ids):
    """Body values written as "{code}" become the id they name."""
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        return ids[value[1:-1]]
    if isinstance(value, list):
        return [_ids(v, ids) for v in value]
    return value


# What each role gets; None: what the endpoint answers when it works.
ROLE_STATUS = {
    "annotator": 403,
    "other_annotator": 403,
    "lead": None,
    "researcher": 403,
    "outsider": 404,
    "anonymous": 401,
    "staff": None,
}
assert set(ROLE_STATUS) == set(ROLES)


ENDPOINTS = [
    ("get", "board/", None, 200),
    ("get", "board/history/", None, 200),
    ("get", "board/carry-over/", None, 200),
    ("get", "board/codes/{code}/", None, 200),
    ("post", "board/codes/{code}/rename/", {"name": "tight loop"}, 200),
    ("post", "board/codes/{code}/split/", {"name": "part", "uses": ["{use}"]}, 201),
    ("post", "board/codes/merge/", {"codes": ["{other}"], "into": "{code}"}, 200),
    ("post", "board/codes/group/", {"codes": ["{code}"], "theme": "{theme}"}, 200),
    ("post", "board/themes/", {"dimension": "root-cause", "name": "New"}, 201),
    ("patch", "board/themes/{theme}/", {"definition": "Loops that need not run."}, 200),
    ("post", "board/themes/{second}/move/", {"parent": None, "position": 0}, 200),
    ("delete", "board/themes/{theme}/", None, 200),
    ("post", "board/undo/", None, 200),
    (
        "post",
        "board/freeze/",
        {"key": "open-perf", "version": "1", "name": "Perf", "leave_out_ungrouped": True},
        200,
    ),
]


@pytest.mark.parametrize(
    ("method", "path", "body", "ok"), ENDPOINTS, ids=[f"{m} {p}" for m, p, _, _ in ENDPOINTS]
)
@pytest.mark.parametrize("role", ROLES)
def test_every_board_endpoint_for_every_role(board_call, method, path, body, ok, role):
    expected = ROLE_STATUS[role] or ok
    response = board_call(role, method, path, body)
    assert response.status_code == expected, response.json()
    if expected >= 400:
        assert set(response.json()) == {"message", "fields"}
    if role == "annotator" and expected == 403:
        assert "only the study's leads sort its board" in response.json()["message"]


@pytest.mark.parametrize("role", ROLES)
def test_starting_a_revision_board_for_every_role(board_people, role):
    expected = ROLE_STATUS[role] or 201
    study = LabellingStudyFactory(slug="closed")
    for role_name in ("annotator", "other_annotator", "lead", "researcher"):
        member_role = {"other_annotator": "annotator"}.get(role_name, role_name)
        StudyMemberFactory(study=study, user=board_people[role_name], role=member_role)
    response = client_as(board_people, role).post(
        "/api/studies/closed/board/revision/", format="json"
    )
    assert response.status_code == expected
    if expected == 201:
        body = response.json()
        assert body["board"]["kind"] == "revision"
        assert body["created"] == body["board"]["id"]
        assert len(body["codes"]) == 6


def test_a_lead_who_labels_sees_the_board_only_when_the_round_shares_codes(board_people, api_board):
    study = api_board["study"]
    StudyMemberFactory(study=study, user=board_people["lead"], role="annotator")
    client = client_as(board_people, "lead")
    assert client.get("/api/studies/open/board/").status_code == 403
    study.codes_shared = True
    study.save()
    assert client.get("/api/studies/open/board/").status_code == 200
    StudyMember.objects.filter(user=board_people["lead"], role="annotator").delete()
    study.kind = "closed"
    study.save()
    assert client.get("/api/studies/open/board/").status_code == 200


def test_the_board_answers_its_state_and_real_names_on_asking(board_call):
    body = board_call("lead", "get", "board/").json()
    assert set(body) == {
        "study",
        "board",
        "dimensions",
        "themes",
        "codes",
        "history",
        "history_total",
        "undo",
        "names",
    }
    assert body["study"]["slug"] == "open"
    assert body["board"]["kind"] == "open"
    assert [c["name"] for c in body["codes"]] == ["leak", "Leak!", "slow loop"]
    assert {c["name"]: c["annotators"] for c in body["codes"]}["slow loop"] == ["A1"]
    real = board_call("lead", "get", "board/?names=real").json()
    assert {c["name"]: c["annotators"] for c in real["codes"]}["slow loop"] == ["ann"]
    response = board_call("lead", "get", "board/?name=real")
    assert response.status_code == 400
    assert "did you mean 'names'" in response.json()["fields"]["name"][0]


def test_a_change_answers_the_new_state_and_its_errors_name_the_field(board_call):
    response = board_call("lead", "post", "board/codes/{code}/rename/", {"name": "leak"})
    assert response.status_code == 400
    assert response.json()["fields"]["name"] == [
        "another code is called “leak”: merge the two instead"
    ]
    response = board_call(
        "lead", "post", "board/codes/merge/", {"codes": ["{other}"], "into": "{code}"}
    )
    codes = {c["name"]: c for c in response.json()["codes"]}
    assert codes["slow loop"]["merged"] == ["leak"]
    assert response.json()["history"][0]["action"] == "merge"
    response = board_call(
        "lead", "post", "board/themes/", {"dimension": "root-cause", "name": "Locks"}
    )
    assert response.status_code == 201
    created = response.json()["created"]
    assert {t["id"]: t["key"] for t in response.json()["themes"]}[created] == "locks"
    response = board_call("lead", "post", "board/codes/merge/", {"codes": [], "into": "{code}"})
    assert response.status_code == 400
    assert "codes" in response.json()["fields"]
    response = board_call("lead", "post", "board/codes/group/", {"codes": ["{code}"], "them": 1})
    assert "did you mean 'theme'" in response.json()["fields"]["them"][0]


def test_unknown_ids_answer_404_or_name_the_field(board_call):
    assert board_call("lead", "get", "board/codes/99999999/").status_code == 404
    assert board_call("lead", "get", "board/codes/abc/").status_code == 404
    assert board_call("lead", "get", f"board/codes/{'9' * 30}/").status_code == 404
    response = board_call("lead", "post", "board/codes/99999999/rename/", {"name": "x"})
    assert response.json()["fields"]["code"] == ["no code 99999999 on this board"]
    response = board_call("lead", "delete", "board/themes/99999999/")
    assert response.json()["fields"]["theme"] == ["no category 99999999 on this board"]


def test_a_frozen_board_answers_409_to_every_change(board_call):
    response = board_call(
        "lead",
        "post",
        "board/freeze/",
        {"key": "open-perf", "version": "1", "name": "Perf", "leave_out_ungrouped": True},
    )
    frozen = response.json()["board"]
    assert frozen["frozen"] is True
    assert frozen["frozen_into"]["url"] == "/codebooks/open-perf/1/"
    assert frozen["frozen_by"] == "lead"
    for method, path, body, _ in ENDPOINTS:
        if method == "get":
            assert board_call("lead", method, path, body).status_code == 200
        else:
            response = board_call("lead", method, path, body)
            assert response.status_code == 409, path
            assert "can no longer change" in response.json()["message"]


def test_the_freeze_lists_what_blocks_it(board_call):
    response = board_call(
        "lead", "post", "board/freeze/", {"key": "open-perf", "version": "1", "name": "P"}
    )
    assert response.status_code == 400
    assert response.json()["fields"]["ungrouped"][0].startswith("3 codes are under no category")


def test_undo_with_nothing_left_answers_409(board_call, api_board):
    api_board["board"].events.all().delete()
    response = board_call("lead", "post", "board/undo/")
    assert response.status_code == 409
    assert response.json()["message"] == "nothing left to undo on this board"


def test_a_cards_uses_and_a_split_by_item(board_call, api_board):
    body = board_call("lead", "get", "board/codes/{code}/").json()
    assert [(u["report"], u["annotator"], u["written_as"]) for u in body["uses"]] == [
        ("octo/torch#1", "A1", "slow loop"),
        ("octo/torch#2", "A1", "slow loop"),
    ]
    item = api_board["items"][1].pk
    response = board_call(
        "lead", "post", "board/codes/{code}/split/", {"name": "busy", "items": [item]}
    )
    assert response.status_code == 201
    made = Code.objects.get(pk=response.json()["created"])
    assert list(made.uses.values_list("item", flat=True)) == [item]


def test_history_and_carry_over_are_paged(board_call):
    body = board_call("lead", "get", "board/history/").json()
    assert body["count"] == 3
    assert body["results"][0]["description"] == "created category “Stalls” (stalls) in Symptom"
    body = board_call("lead", "get", "board/carry-over/").json()
    assert body["count"] == 3
    first = body["results"][0]
    assert (first["report"], first["dimension"], first["categories"], first["unsorted"]) == (
        "octo/torch#1",
        "root-cause",
        [],
        ["leak", "slow loop"],
    )


def test_a_closed_study_without_a_board(board_people):
    study = LabellingStudyFactory(slug="closed")
    StudyMemberFactory(study=study, user=board_people["lead"], role="lead")
    client = client_as(board_people, "lead")
    body = client.get("/api/studies/closed/board/").json()
    assert body["board"] is None
    assert body["study"]["codebook"]["key"] == study.codebook.key
    response = client.post("/api/studies/closed/board/undo/")
    assert response.status_code == 404
    assert response.json()["message"] == "the study has no board: start a revision board first"
    assert client.get("/api/studies/closed/board/carry-over/").status_code == 404


# The study and access, the board, its dimensions, themes, cards, their counts, the reports
# they are on, the annotators' names, the latest history, the next undo, the history's count.
BOARD_QUERIES = 11
# A revision board's cards carry no uses (no reports, no names to read) but the study's final
# labels and disagreements per category.
REVISION_QUERIES = BOARD_QUERIES - 2 + 2


def test_the_main_read_takes_a_fixed_number_of_queries(
    board_people, api_board, django_assert_num_queries
):
    board, lead = api_board["board"], board_people["lead"]
    client = client_as(board_people, "lead")
    with django_assert_num_queries(BOARD_QUERIES):
        client.get("/api/studies/open/board/")
    items = items_of(api_board["study"])
    for index, item in enumerate(items):
        code_uses(
            board,
            annotator=board_people["other_annotator"],
            item=item,
            names=[f"code {index} {n}" for n in range(10)],
        )
    for index in range(5):
        theme_create(board=board, dimension_key="root-cause", name=f"Theme {index}", user=lead)
    Code.objects.filter(board=board).update(theme=Theme.objects.filter(board=board).first())
    with django_assert_num_queries(BOARD_QUERIES):
        response = client.get("/api/studies/open/board/?names=real")
    assert len(response.json()["codes"]) == 43


def test_the_main_read_of_a_revision_board_too(board_people, django_assert_num_queries):
    study = LabellingStudyFactory(slug="closed")
    StudyMemberFactory(study=study, user=board_people["lead"], role="lead")
    board_revision_start(study=study, user=board_people["lead"])
    with django_assert_num_queries(REVISION_QUERIES):
        response = client_as(board_people, "lead").get("/api/studies/closed/board/")
    assert len(response.json()["codes"]) == 6
