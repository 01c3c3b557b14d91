"""Reads of a board: its cards with counts, annotators and examples, its themes as a tree
with what lies under each, its history; a card's uses; the carry-over of an open round."""

import pytest

from labeler.adjudication.services import item_adjudicate
from labeler.coding.board.boards import board_revision_start
from labeler.coding.board.cards import codes_merge
from labeler.coding.board.freeze import board_freeze
from labeler.coding.board.selectors import board_carry_over, board_state, code_uses, theme_paths
from labeler.coding.board.themes import codes_group, theme_create
from labeler.coding.board.undo import board_undo
from labeler.models import Code, CodeUse, Theme
from tests.labeler.board_factories import code_uses as write_codes
from tests.labeler.board_factories import items_of, open_study_with_items
from tests.labeler.final_labels import decided_study

pytestmark = pytest.mark.django_db


def code(board, name) -> Code:
    return Code.objects.get(board=board, name=name)


@pytest.fixture
def themed_board(make_user):
    """ann2 submits first (so is A1), then ann (A2); a theme tree on root cause."""
    ann, ann2, lead = (make_user(username=name) for name in ("ann", "ann2", "lead"))
    study, board = open_study_with_items(
        members=[(ann, "annotator"), (ann2, "annotator"), (lead, "lead")]
    )
    items = items_of(study)
    write_codes(board, annotator=ann2, item=items[0], names=["slow loop"])
    write_codes(board, annotator=ann, item=items[0], names=["slow loop", "leaky cache"])
    write_codes(board, annotator=ann, item=items[1], names=["slow loop"])
    write_codes(board, annotator=ann, item=items[2], names=["Slow-Loop"])
    write_codes(board, annotator=ann2, item=items[3], names=["leaky cache", "big alloc"])
    write_codes(board, annotator=ann2, item=items[3], dimension="symptom", names=["hangs"])
    computation = theme_create(
        board=board, dimension_key="root-cause", name="Computation", user=lead
    )
    loops = theme_create(
        board=board, dimension_key="root-cause", name="Loops", parent_id=computation.pk, user=lead
    )
    memory = theme_create(board=board, dimension_key="root-cause", name="Memory", user=lead)
    codes_group(board=board, code_ids=[code(board, "slow loop").pk], theme_id=loops.pk, user=lead)
    codes_group(
        board=board,
        code_ids=[code(board, "leaky cache").pk, code(board, "big alloc").pk],
        theme_id=memory.pk,
        user=lead,
    )
    codes_merge(
        board=board,
        code_ids=[code(board, "Slow-Loop").pk],
        into_id=code(board, "slow loop").pk,
        user=lead,
    )
    return {"board": board, "study": study, "items": items, "lead": lead, "ann": ann}


def test_the_state_lists_every_card_with_its_counts_annotators_and_examples(themed_board):
    board, items = themed_board["board"], themed_board["items"]
    state = board_state(board=board)

    cards = {card["name"]: card for card in state["codes"]}
    assert list(cards) == ["big alloc", "leaky cache", "slow loop", "hangs"]
    loop = cards["slow loop"]
    assert (loop["uses"], loop["reports"], loop["annotators"], loop["merged"]) == (
        4,
        3,
        ["A1", "A2"],
        ["Slow-Loop"],
    )
    assert loop["theme_path"] == "computation/loops"
    assert [e["report"] for e in loop["examples"]] == [
        "octo/torch#1",
        "octo/torch#2",
        "octo/torch#3",
    ]
    assert loop["examples"][0] == {
        "item": items[0].pk,
        "report": "octo/torch#1",
        "title": "Slow step 1",
        "url": f"/studies/open/items/{items[0].pk}/history/",
        "html_url": "https://github.com/octo/torch/issues/1",
    }
    assert cards["leaky cache"]["annotators"] == ["A1", "A2"]
    assert cards["hangs"]["dimension"] == "symptom"
    assert cards["hangs"]["theme"] is None
    assert [(d["key"], d["ungrouped"]) for d in state["dimensions"]] == [
        ("root-cause", 0),
        ("symptom", 1),
    ]

    real = board_state(board=board, real_names=True)
    assert {c["name"]: c["annotators"] for c in real["codes"]}["slow loop"] == ["ann", "ann2"]
    assert real["names"] == "real"
    assert state["names"] == "pseudonyms"


def test_the_state_draws_the_themes_as_a_tree_with_what_lies_under_each(themed_board):
    state = board_state(board=themed_board["board"])
    rows = [
        (t["path"], t["depth"], t["codes"], t["all_codes"], t["uses"], t["reports"])
        for t in state["themes"]
    ]
    assert rows == [
        ("computation", 0, 0, 1, 4, 3),
        ("computation/loops", 1, 1, 1, 4, 3),
        ("memory", 0, 2, 2, 3, 2),
    ]


def test_the_state_carries_the_history_latest_first_and_what_undo_would_take_back(themed_board):
    board, lead = themed_board["board"], themed_board["lead"]
    state = board_state(board=board)
    assert state["history_total"] == 6
    latest = state["history"][0]
    assert (latest["action"], latest["user"], latest["undone_at"]) == ("merge", "lead", None)
    assert state["undo"] == {"id": latest["id"], "description": latest["description"]}
    board_undo(board=board, user=lead)
    state = board_state(board=board)
    assert [e["action"] for e in state["history"][:2]] == ["undo", "merge"]
    assert state["history"][1]["undone_by"] == "lead"
    assert state["undo"]["description"].startswith("grouped “leaky cache”, “big alloc”")


def test_a_cards_uses_say_who_wrote_what_where(themed_board):
    board = themed_board["board"]
    found = code_uses(board=board, code=code(board, "slow loop"))
    assert [(u["report"], u["annotator"], u["written_as"]) for u in found["uses"]] == [
        ("octo/torch#1", "A1", "slow loop"),
        ("octo/torch#1", "A2", "slow loop"),
        ("octo/torch#2", "A2", "slow loop"),
        ("octo/torch#3", "A2", "Slow-Loop"),
    ]
    real = code_uses(board=board, code=code(board, "slow loop"), real_names=True)
    assert [u["annotator"] for u in real["uses"]] == ["ann2", "ann", "ann", "ann"]


def test_the_carry_over_maps_each_reports_codes_to_their_categories(themed_board):
    board = themed_board["board"]
    rows = board_carry_over(board=board)
    assert [
        (r.report, r.dimension, [(c.name, c.annotators) for c in r.codes], r.categories, r.unsorted)
        for r in rows
    ] == [
        (
            "octo/torch#1",
            "root-cause",
            [("leaky cache", 1), ("slow loop", 2)],
            ["computation/loops", "memory"],
            [],
        ),
        ("octo/torch#2", "root-cause", [("slow loop", 1)], ["computation/loops"], []),
        ("octo/torch#3", "root-cause", [("slow loop", 1)], ["computation/loops"], []),
        ("octo/torch#4", "root-cause", [("big alloc", 1), ("leaky cache", 1)], ["memory"], []),
        ("octo/torch#4", "symptom", [("hangs", 1)], [], ["hangs"]),
    ]


def test_the_carry_over_of_a_frozen_board_is_its_record(themed_board):
    board, lead = themed_board["board"], themed_board["lead"]
    stalls = theme_create(board=board, dimension_key="symptom", name="Stalls", user=lead)
    codes_group(board=board, code_ids=[code(board, "hangs").pk], theme_id=stalls.pk, user=lead)
    board_freeze(board=board, key="perf-open", version="1", name="P", user=lead)
    board.refresh_from_db()
    for row in board_carry_over(board=board):
        for carried in row.codes:
            assert board.frozen_map[row.dimension][carried.name] == carried.category


def test_theme_paths_follow_the_parents():
    class T:
        def __init__(self, pk, key, parent_id=None):
            self.pk, self.key, self.parent_id = pk, key, parent_id

    assert theme_paths([T(3, "c", 2), T(1, "a"), T(2, "b", 1)]) == {1: "a", 2: "a/b", 3: "a/b/c"}


def test_a_revision_board_shows_final_labels_and_disagreements_per_category(
    annotator, lead, researcher, make_user
):
    study = decided_study(
        annotator=annotator, lead=lead, researcher=researcher, make_user=make_user
    )

    disputed = study.items.order_by("position")[3]
    item_adjudicate(
        item_id=disputed.pk,
        user=lead,
        decisions={
            "root-cause": {
                "value": "threading",
                "rationale": "the fix adds a lock",
                "reason": "codebook_ambiguity",
            }
        },
    )
    board = board_revision_start(study=study, user=lead)
    cards = {card["source_path"]: card for card in board_state(board=board)["codes"]}
    # Item 5 is short of an annotation: no final label yet.
    assert cards["memory/leak"]["final_labels"] == 1
    assert cards["threading"]["final_labels"] == 3
    assert cards["memory/bloat"]["final_labels"] == 1
    assert cards["threading"]["reasons"] == {"codebook_ambiguity": 1}
    assert cards["memory/leak"]["reasons"] == {"codebook_ambiguity": 1}
    (entry,) = cards["threading"]["disagreements"]
    assert entry == {
        "item": disputed.pk,
        "report": str(disputed.report),
        "reason": "codebook_ambiguity",
        "rationale": "the fix adds a lock",
        "final": ["threading"],
        "answers": ["memory/leak", "threading"],
    }
    assert cards["memory/bloat"]["reasons"] == {}
    assert cards["speed"]["final_labels"] == 3
    assert CodeUse.objects.count() == 0
    assert Theme.objects.filter(board=board).count() == 6
