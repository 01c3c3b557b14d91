"""Freezing a board into a codebook version (and back through the codebook file), and
revision boards: their start from a version, and their freeze into the next one."""

import pytest
from django.core.exceptions import ValidationError

from config.api import CONFLICT
from labeler.coding.board.boards import board_revision_start
from labeler.coding.board.cards import code_rename, code_split, codes_merge
from labeler.coding.board.freeze import board_freeze
from labeler.coding.board.themes import (
    codes_group,
    theme_create,
    theme_delete,
    theme_update,
)
from labeler.coding.board.undo import board_undo
from labeler.common.permissions import codebook_owner_of
from labeler.models import Annotation, Board, Code, FinalLabel, Theme
from taxonomy.codebook_file import codebook_yaml, parse_codebook
from taxonomy.models import Codebook
from taxonomy.selectors import codebook_spec
from taxonomy.services import codebook_key_give, codebook_spec_hash
from tests.labeler.board_factories import code_uses, items_of, open_study_with_items
from tests.labeler.coding.board.changes import code
from tests.labeler.factories import LabellingStudyFactory, StudyMemberFactory
from tests.labeler.final_labels import decided_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def sorted_board(make_user):
    """An open board sorted into two categories with sub-categories on root cause, and one
    category on symptom; "odd one" stays ungrouped."""
    ann, lead = make_user(username="ann"), make_user(username="lead")
    study, board = open_study_with_items(members=[(ann, "annotator"), (lead, "lead")])
    items = items_of(study)
    code_uses(board, annotator=ann, item=items[0], names=["slow loop", "leaky cache"])
    code_uses(board, annotator=ann, item=items[1], names=["Slow-loop", "lock held"])
    code_uses(board, annotator=ann, item=items[2], names=["odd one"])
    code_uses(board, annotator=ann, item=items[3], dimension="symptom", names=["hangs"])
    codes_merge(
        board=board,
        code_ids=[code(board, "Slow-loop").pk],
        into_id=code(board, "slow loop").pk,
        user=lead,
    )

    def theme(name, dimension="root-cause", parent=None, **fields):
        return theme_create(
            board=board,
            dimension_key=dimension,
            name=name,
            parent_id=parent.pk if parent else None,
            user=lead,
            **fields,
        )

    computation = theme("Computation", definition="Work done that need not be.")
    loops = theme("Loops", parent=computation, include="Loops.", examples=["a loop per row"])
    memory = theme("Memory", exclude="Speed alone.")
    caches = theme("Caches", parent=memory)
    locks = theme("Locks", parent=memory)
    stalls = theme("Stalls", dimension="symptom")
    for name, where in [
        ("slow loop", loops),
        ("leaky cache", caches),
        ("lock held", locks),
        ("hangs", stalls),
    ]:
        codes_group(board=board, code_ids=[code(board, name).pk], theme_id=where.pk, user=lead)
    return {"board": board, "study": study, "lead": lead}


def test_the_freeze_refuses_ungrouped_codes_naming_them(sorted_board):
    board, lead = sorted_board["board"], sorted_board["lead"]
    with pytest.raises(ValidationError) as error:
        board_freeze(board=board, key="perf-open", version="1", name="Perf", user=lead)
    assert error.value.message_dict == {
        "ungrouped": [
            "1 code is under no category (Root cause: “odd one”): group them, or freeze "
            "leaving them out"
        ]
    }
    assert not Codebook.objects.filter(key="perf-open").exists()
    board.refresh_from_db()
    assert board.frozen_into is None


def test_the_freeze_names_every_problem_at_once(sorted_board, make_user):
    board, lead = sorted_board["board"], sorted_board["lead"]
    Theme.objects.filter(board=board, dimension__key="symptom").delete()
    study = sorted_board["study"]
    Codebook.objects.create(key="taken", version="1", name="Taken", owner=codebook_owner_of(study))
    with pytest.raises(ValidationError) as error:
        board_freeze(
            board=board, key="taken", version="1", name="", user=lead, leave_out_ungrouped=True
        )
    assert error.value.message_dict == {
        "version": ["codebook taken v1 exists already: pick a new version"],
        "name": ["a name of 1 to 200 characters"],
        "dimensions.symptom": ["Symptom has no category yet: a codebook needs at least one"],
    }
    with pytest.raises(ValidationError) as error:
        board_freeze(board=board, key="Bad Key", version="", name="X", user=lead)
    assert set(error.value.message_dict) == {"key", "version", "ungrouped", "dimensions.symptom"}


def test_the_freeze_makes_a_frozen_codebook_of_the_themes_and_records_where_codes_went(
    sorted_board,
):
    board, lead, study = sorted_board["board"], sorted_board["lead"], sorted_board["study"]
    codebook = board_freeze(
        board=board,
        key="perf-open",
        version="1",
        name="Perf causes",
        user=lead,
        leave_out_ungrouped=True,
    )

    assert (codebook.key, codebook.version, codebook.name, codebook.frozen) == (
        "perf-open",
        "1",
        "Perf causes",
        True,
    )
    spec = codebook_spec(codebook=codebook)
    root, symptom = spec.dimensions
    assert (root.key, root.name, root.multiple, root.required) == (
        "root-cause",
        "Root cause",
        False,
        True,
    )
    assert (symptom.key, symptom.help, symptom.multiple, symptom.required) == (
        "symptom",
        "What the user saw.",
        True,
        False,
    )
    assert [(c.path, c.name, c.parent) for c in root.categories] == [
        ("computation", "Computation", None),
        ("computation/loops", "Loops", "computation"),
        ("memory", "Memory", None),
        ("memory/caches", "Caches", "memory"),
        ("memory/locks", "Locks", "memory"),
    ]
    loops = root.categories[1]
    assert (loops.include, loops.examples) == ("Loops.", ("a loop per row",))
    assert root.categories[0].definition == "Work done that need not be."
    assert root.categories[2].exclude == "Speed alone."
    assert [c.path for c in symptom.categories] == ["stalls"]

    board.refresh_from_db()
    assert board.frozen_into == codebook
    assert (board.frozen_by, board.frozen_at is not None) == (lead, True)
    assert board.frozen_map == {
        "root-cause": {
            "slow loop": "computation/loops",
            "Slow-loop": "computation/loops",
            "leaky cache": "memory/caches",
            "lock held": "memory/locks",
        },
        "symptom": {"hangs": "stalls"},
    }
    event = board.events.order_by("-pk").first()
    assert (event.action, event.description) == (
        "freeze",
        "froze into codebook perf-open v1: 6 categories, 1 code left out",
    )
    # The open round's codes are a record only: no label of any study comes of them.
    assert not Annotation.objects.exists()
    assert not FinalLabel.objects.exists()
    assert study.kind == "open"


def test_the_frozen_codebook_round_trips_through_the_codebook_file(sorted_board):
    board, lead = sorted_board["board"], sorted_board["lead"]
    theme = Theme.objects.get(board=board, key="loops")
    theme_update(
        board=board,
        theme_id=theme.pk,
        definition="Several lines:\nthe first,\nthe second.",
        user=lead,
    )
    codes_group(board=board, code_ids=[code(board, "odd one").pk], theme_id=theme.pk, user=lead)
    codebook = board_freeze(board=board, key="perf-open", version="1", name="Perf", user=lead)

    spec = codebook_spec(codebook=codebook)
    text = codebook_yaml(spec)
    assert parse_codebook(text) == spec
    assert codebook_spec_hash(parse_codebook(text)) == codebook.content_hash
    assert "definition: |-\n" in text or "definition: |\n" in text


def test_a_frozen_board_stays_frozen(sorted_board):
    board, lead = sorted_board["board"], sorted_board["lead"]
    board_freeze(
        board=board, key="perf-open", version="1", name="P", user=lead, leave_out_ungrouped=True
    )
    with pytest.raises(ValidationError) as error:
        board_freeze(board=board, key="perf-open", version="2", name="P", user=lead)
    assert error.value.code == CONFLICT
    with pytest.raises(ValidationError) as error:
        board_undo(board=board, user=lead)
    assert error.value.code == CONFLICT


# Revision boards


@pytest.fixture
def closed_study(make_user):
    lead = make_user(username="lead")
    study = LabellingStudyFactory(slug="perf", name="Perf")
    study.codebook.description = "Causes of slowness."
    study.codebook.save()
    # Its own codebook (made on its board, say), so its leads may revise it.
    codebook_key_give(key=study.codebook.key, owner=codebook_owner_of(study))
    StudyMemberFactory(study=study, user=lead, role="lead")
    return study, lead


def test_a_revision_board_starts_from_the_version_hierarchy_with_a_card_per_category(
    closed_study,
):
    study, lead = closed_study
    base = study.codebook
    board = board_revision_start(study=study, user=lead)

    assert (board.kind, board.base, board.study, board.created_by) == (
        "revision",
        base,
        study,
        lead,
    )
    themes = {
        (t.dimension.key, t.key): t
        for t in Theme.objects.filter(board=board).select_related("parent")
    }
    assert sorted(themes) == [
        ("impact", "memory-use"),
        ("impact", "speed"),
        ("root-cause", "bloat"),
        ("root-cause", "leak"),
        ("root-cause", "memory"),
        ("root-cause", "threading"),
    ]
    assert themes[("root-cause", "leak")].parent == themes[("root-cause", "memory")]
    category = base.dimensions.get(key="root-cause").categories.get(key="leak")
    assert themes[("root-cause", "leak")].definition == category.definition
    cards = Code.objects.filter(board=board).select_related("theme")
    assert sorted((c.source_path, c.theme.key, c.name) for c in cards) == sorted(
        (c.path, c.key, c.name) for d in base.dimensions.all() for c in d.categories.all()
    )
    assert board.events.get().description == (
        f"started revising {base.name} v1.0: 6 categories as cards"
    )


def test_cards_of_categories_with_the_same_name_are_told_apart_by_path(closed_study):
    study, lead = closed_study
    root = study.codebook.dimensions.get(key="root-cause")
    root.categories.filter(key__in=["leak", "bloat"]).update(name="Other")
    board = board_revision_start(study=study, user=lead)
    names = set(Code.objects.filter(board=board).values_list("name", flat=True))
    assert {"Other (memory/leak)", "Other (memory/bloat)"} <= names


def test_a_revision_board_is_refused_on_an_open_study_or_beside_another_board(closed_study):
    study, lead = closed_study
    board_revision_start(study=study, user=lead)
    with pytest.raises(ValidationError) as error:
        board_revision_start(study=study, user=lead)
    assert error.value.code == CONFLICT
    assert "freeze it before starting another" in error.value.messages[0]
    open_study, _ = open_study_with_items(slug="open-one", count=1)
    with pytest.raises(ValidationError) as error:
        board_revision_start(study=open_study, user=lead)
    assert "revises the version a closed study labels with" in error.value.messages[0]
    assert Board.objects.filter(kind="revision").count() == 1


def test_a_revision_freezes_into_the_next_version_with_its_mapping(closed_study):
    study, lead = closed_study
    base = study.codebook
    board = board_revision_start(study=study, user=lead)
    themes = {t.key: t for t in Theme.objects.filter(board=board, dimension__key="root-cause")}
    cards = {
        c.source_path: c for c in Code.objects.filter(board=board, dimension__key="root-cause")
    }
    # threading is renamed, and split: part of it goes to a new category "deadlock".
    theme_update(
        board=board,
        theme_id=themes["threading"].pk,
        key="concurrency",
        name="Concurrency",
        user=lead,
    )
    deadlock = theme_create(board=board, dimension_key="root-cause", name="Deadlock", user=lead)
    copy = code_split(
        board=board, code_id=cards["threading"].pk, name="Threading (deadlocks)", user=lead
    )
    assert (copy.source_path, copy.theme_id) == ("threading", themes["threading"].pk)
    codes_group(board=board, code_ids=[copy.pk], theme_id=deadlock.pk, user=lead)
    # bloat is merged into leak, and its category removed.
    codes_merge(
        board=board,
        code_ids=[cards["memory/bloat"].pk],
        into_id=cards["memory/leak"].pk,
        user=lead,
    )
    theme_delete(board=board, theme_id=themes["bloat"].pk, user=lead)
    code_rename(board=board, code_id=cards["memory"].pk, name="Memory card", user=lead)

    with pytest.raises(ValidationError) as error:
        board_freeze(board=board, key="other", version="2.0", name="X", user=lead)
    assert error.value.message_dict["key"] == [
        f"a revision keeps the key of the version it revises: {base.key!r}"
    ]
    revised = board_freeze(board=board, key=base.key, version="2.0", name=base.name, user=lead)

    assert (revised.derived_from, revised.frozen, revised.description) == (
        base,
        True,
        f"Causes of slowness. Revised from version {base.version} on the revision board of "
        "the study “Perf”.",
    )
    assert revised.mapping == {
        "root-cause": {
            "memory": ["memory"],
            "memory/leak": ["memory/leak"],
            "memory/bloat": ["memory/leak"],
            "threading": ["concurrency", "deadlock"],
        },
        "impact": {"speed": ["speed"], "memory-use": ["memory-use"]},
    }
    paths = [
        c.path for c in revised.dimensions.get(key="root-cause").categories.order_by("position")
    ]
    assert paths == ["memory", "memory/leak", "concurrency", "deadlock"]
    spec = codebook_spec(codebook=revised)
    assert parse_codebook(codebook_yaml(spec)) == spec
    board.refresh_from_db()
    assert board.frozen_map["root-cause"]["Threading (deadlocks)"] == "deadlock"


@pytest.mark.parametrize(
    ("base_description", "kept"),
    [
        ("Made on the code board of the open-coding study “Pilot”.", ""),
        ("Causes. Revised from version 0.9 on the revision board of the study “Old”.", "Causes. "),
    ],
)
def test_a_revised_version_says_it_was_made_by_a_revision(closed_study, base_description, kept):
    study, lead = closed_study
    base = study.codebook
    type(base).objects.filter(pk=base.pk).update(description=base_description)
    board = board_revision_start(study=study, user=lead)

    revised = board_freeze(board=board, key=base.key, version="2.0", name=base.name, user=lead)

    assert revised.description == (
        f"{kept}Revised from version {base.version} on the revision board of the study “Perf”."
    )


def test_a_revision_can_leave_out_a_category_it_removes(closed_study):
    study, lead = closed_study
    board = board_revision_start(study=study, user=lead)
    speed = Theme.objects.get(board=board, key="speed")
    theme_delete(board=board, theme_id=speed.pk, user=lead)
    with pytest.raises(ValidationError) as error:
        board_freeze(board=board, key=study.codebook.key, version="2", name="N", user=lead)
    card = Code.objects.get(board=board, source_path="speed")
    assert f"(Impact: “{card.name}”)" in error.value.message_dict["ungrouped"][0]
    revised = board_freeze(
        board=board,
        key=study.codebook.key,
        version="2",
        name="N",
        user=lead,
        leave_out_ungrouped=True,
    )
    assert revised.mapping["impact"] == {"speed": [], "memory-use": ["memory-use"]}


def test_a_revision_merge_counts_the_final_labels_its_categories_carry(
    annotator, lead, researcher, make_user
):
    study = decided_study(
        annotator=annotator, lead=lead, researcher=researcher, make_user=make_user
    )
    codebook_key_give(key=study.codebook.key, owner=codebook_owner_of(study))
    board = board_revision_start(study=study, user=lead)
    cards = {
        c.source_path: c for c in Code.objects.filter(board=board, dimension__key="root-cause")
    }

    # Final: memory/leak on one item, memory/bloat on one, threading on two.
    codes_merge(
        board=board, code_ids=[cards["memory/bloat"].pk], into_id=cards["memory/leak"].pk, user=lead
    )
    assert board.events.latest("pk").description == (
        f"merged category “{cards['memory/bloat'].name}” into “{cards['memory/leak'].name}” "
        "(Root cause): 1 final label moved"
    )
    # Merging the merged card on: its own labels and those of the card merged into it.
    codes_merge(
        board=board, code_ids=[cards["memory/leak"].pk], into_id=cards["threading"].pk, user=lead
    )
    assert board.events.latest("pk").description.endswith("(Root cause): 2 final labels moved")
    theme = Theme.objects.get(board=board, key="threading")
    theme_delete(board=board, theme_id=theme.pk, user=lead)
    assert board.events.latest("pk").description.endswith("; 1 card back to ungrouped")
