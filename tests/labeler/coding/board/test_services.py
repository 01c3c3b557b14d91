"""The board's services: every change, what it records, and its undo; the frozen board."""

import pytest
from django.core.exceptions import ValidationError

from config.api import CONFLICT
from labeler.coding.board import services
from labeler.coding.board.services import (
    board_undo,
    code_rename,
    code_split,
    codes_group,
    codes_merge,
    theme_create,
    theme_delete,
    theme_move,
    theme_update,
)
from labeler.models import Board, BoardEvent, Code, CodeUse, Theme
from tests.labeler.board_factories import (
    CodeFactory,
    ThemeFactory,
    code_uses,
    dimension_of,
    items_of,
    open_study_with_items,
)
from tests.taxonomy.factories import CodebookFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def coded(make_user):
    """Two annotators' codes on four reports of an open study.

    ann: "slow loop" on items 0, 1; "Slow-loop" on 2; "cache miss" on 1 (symptom: "hangs").
    ann2: "slow loop" on 0; "inefficient loop" on 2, 3; "lock contention" on 3.
    """
    ann, ann2 = make_user(username="ann"), make_user(username="ann2")
    lead = make_user(username="lead")
    study, board = open_study_with_items(
        members=[(ann, "annotator"), (ann2, "annotator"), (lead, "lead")]
    )
    items = items_of(study)
    code_uses(board, annotator=ann, item=items[0], names=["slow loop"])
    code_uses(board, annotator=ann, item=items[1], names=["slow loop", "cache miss"])
    code_uses(board, annotator=ann, item=items[1], dimension="symptom", names=["hangs"])
    code_uses(board, annotator=ann, item=items[2], names=["Slow-loop"])
    code_uses(board, annotator=ann2, item=items[0], names=["slow loop"])
    code_uses(board, annotator=ann2, item=items[2], names=["inefficient loop"])
    code_uses(board, annotator=ann2, item=items[3], names=["inefficient loop", "lock contention"])
    return {"board": board, "study": study, "items": items, "ann": ann, "ann2": ann2, "lead": lead}


def code(board, name) -> Code:
    return Code.objects.get(board=board, name=name)


def uses_of(board, name) -> list[tuple[int, str]]:
    """(item position, written as) of the code's uses, sorted."""
    return sorted(
        CodeUse.objects.filter(code=code(board, name)).values_list("item__position", "written_as")
    )


def snapshot(board) -> dict:
    """Everything a change may alter on the board, to compare before and after an undo."""
    return {
        "codes": list(
            Code.objects.filter(board=board)
            .order_by("pk")
            .values_list("pk", "name", "merged_into", "theme", "position")
        ),
        "themes": list(
            Theme.objects.filter(board=board)
            .order_by("pk")
            .values_list(
                "pk",
                "parent",
                "key",
                "name",
                "definition",
                "include",
                "exclude",
                "examples",
                "position",
            )
        ),
        "uses": list(
            CodeUse.objects.filter(code__board=board).order_by("pk").values_list("pk", "code")
        ),
    }


def latest(board) -> BoardEvent:
    return board.events.order_by("-created_at", "-pk").first()


def undone(board, user, before):
    """Undo the latest change and check the board is back as it was."""
    board_undo(board=board, user=user)
    assert snapshot(board) == before
    event = latest(board)
    assert event.action == "undo"
    assert event.user == user


def errors_of(error: ValidationError) -> dict:
    return error.value.message_dict


# Rename


def test_rename_records_the_old_name_and_undo_restores_it(coded):
    board, lead = coded["board"], coded["lead"]
    before = snapshot(board)
    renamed = code_rename(
        board=board, code_id=code(board, "cache miss").pk, name="  cache   thrash ", user=lead
    )

    assert renamed.name == "cache thrash"
    assert uses_of(board, "cache thrash") == [(1, "cache miss")]  # as written, still
    event = latest(board)
    assert (event.action, event.user, event.description) == (
        "rename",
        lead,
        "renamed “cache miss” to “cache thrash” (Root cause)",
    )
    assert event.undo["update"]["code"][0]["name"] == "cache miss"
    undone(board, lead, before)
    assert BoardEvent.objects.get(pk=event.pk).undone_by == lead


def test_rename_refuses_a_name_another_code_has_whatever_its_case(coded):
    board, lead = coded["board"], coded["lead"]
    target = code(board, "cache miss").pk
    with pytest.raises(ValidationError) as error:
        code_rename(board=board, code_id=target, name="SLOW LOOP", user=lead)
    assert (
        "another code is called “slow loop”: merge the two instead" in errors_of(error)["name"][0]
    )
    with pytest.raises(ValidationError) as error:
        code_rename(board=board, code_id=target, name="cache miss", user=lead)
    assert "already called" in errors_of(error)["name"][0]
    with pytest.raises(ValidationError) as error:
        code_rename(board=board, code_id=target, name="   ", user=lead)
    assert errors_of(error)["name"] == ["a code needs a name"]
    with pytest.raises(ValidationError) as error:
        code_rename(board=board, code_id=target, name="x" * 121, user=lead)
    assert errors_of(error)["name"] == ["at most 120 characters, not 121"]
    assert not board.events.exists()


def test_a_code_of_the_same_name_in_another_dimension_is_no_clash(coded):
    board, lead = coded["board"], coded["lead"]
    code_rename(board=board, code_id=code(board, "hangs").pk, name="slow loop", user=lead)
    assert Code.objects.filter(board=board, name="slow loop").count() == 2


# Merge


def test_merge_moves_the_uses_keeps_the_merged_codes_and_undo_restores_all(coded):
    board, lead = coded["board"], coded["lead"]
    theme = ThemeFactory(board=board, key="loops", name="Loops")
    codes_group(board=board, code_ids=[code(board, "Slow-loop").pk], theme_id=theme.pk, user=lead)
    before = snapshot(board)
    target = code(board, "slow loop")
    codes_merge(
        board=board,
        code_ids=[code(board, "Slow-loop").pk, code(board, "inefficient loop").pk, target.pk],
        into_id=target.pk,
        user=lead,
    )

    assert uses_of(board, "slow loop") == [
        (0, "slow loop"),
        (0, "slow loop"),
        (1, "slow loop"),
        (2, "Slow-loop"),
        (2, "inefficient loop"),
        (3, "inefficient loop"),
    ]
    merged = Code.objects.get(name="Slow-loop")
    assert (merged.merged_into, merged.theme) == (target, None)
    assert latest(board).description == (
        "merged “Slow-loop”, “inefficient loop” into “slow loop” (Root cause): 3 uses moved"
    )
    undone(board, lead, before)


def test_merging_a_code_others_were_merged_into_points_them_at_the_new_target(coded):
    board, lead = coded["board"], coded["lead"]
    loop = code(board, "slow loop")
    codes_merge(board=board, code_ids=[code(board, "Slow-loop").pk], into_id=loop.pk, user=lead)
    before = snapshot(board)
    inefficient = code(board, "inefficient loop")
    codes_merge(board=board, code_ids=[loop.pk], into_id=inefficient.pk, user=lead)

    assert set(Code.objects.filter(merged_into=inefficient).values_list("name", flat=True)) == {
        "slow loop",
        "Slow-loop",
    }
    assert len(uses_of(board, "inefficient loop")) == 6
    undone(board, lead, before)


def test_merge_refuses_codes_of_another_dimension_merged_codes_and_nothing(coded):
    board, lead = coded["board"], coded["lead"]
    loop = code(board, "slow loop")
    with pytest.raises(ValidationError) as error:
        codes_merge(board=board, code_ids=[code(board, "hangs").pk], into_id=loop.pk, user=lead)
    assert "only codes of one dimension merge" in errors_of(error)["codes"][0]
    with pytest.raises(ValidationError) as error:
        codes_merge(board=board, code_ids=[loop.pk], into_id=loop.pk, user=lead)
    assert "at least one code" in errors_of(error)["codes"][0]
    codes_merge(board=board, code_ids=[code(board, "Slow-loop").pk], into_id=loop.pk, user=lead)
    with pytest.raises(ValidationError) as error:
        codes_merge(board=board, code_ids=[code(board, "Slow-loop").pk], into_id=loop.pk, user=lead)
    assert errors_of(error)["codes"] == ["“Slow-loop” was merged into “slow loop”: use that one"]
    with pytest.raises(ValidationError) as error:
        codes_merge(board=board, code_ids=[999_999], into_id=loop.pk, user=lead)
    assert errors_of(error)["codes"] == ["no code 999999 on this board"]
    with pytest.raises(ValidationError) as error:
        codes_merge(board=board, code_ids=[loop.pk], into_id=999_999, user=lead)
    assert errors_of(error)["into"] == ["no code 999999 on this board"]


def test_a_code_of_another_board_is_not_found(coded):
    other = CodeFactory()
    with pytest.raises(ValidationError) as error:
        code_rename(board=coded["board"], code_id=other.pk, name="x", user=coded["lead"])
    assert errors_of(error)["code"] == [f"no code {other.pk} on this board"]


# Split


def test_split_by_uses_and_undo_moves_them_back(coded):
    board, lead = coded["board"], coded["lead"]
    theme = ThemeFactory(board=board, key="loops", name="Loops")
    loop = code(board, "slow loop")
    codes_group(board=board, code_ids=[loop.pk], theme_id=theme.pk, user=lead)
    before = snapshot(board)
    on_item_1 = CodeUse.objects.get(code=loop, item__position=1)
    copy = code_split(
        board=board, code_id=loop.pk, name="busy loop", use_ids=[on_item_1.pk], user=lead
    )

    assert (copy.theme, copy.dimension_id) == (theme, loop.dimension_id)
    assert uses_of(board, "busy loop") == [(1, "slow loop")]
    assert uses_of(board, "slow loop") == [(0, "slow loop"), (0, "slow loop")]
    assert latest(board).description == (
        "split “slow loop” (Root cause): “busy loop” takes 1 use on 1 report"
    )
    undone(board, lead, before)
    assert not Code.objects.filter(name="busy loop").exists()


def test_split_by_items_takes_every_use_on_them(coded):
    board, lead = coded["board"], coded["lead"]
    coded_items = coded["items"]
    loop = code(board, "slow loop")
    code_uses(board, annotator=coded["ann2"], item=coded_items[1], names=["slow loop"])
    code_split(
        board=board, code_id=loop.pk, name="hot loop", item_ids=[coded_items[1].pk], user=lead
    )
    assert uses_of(board, "hot loop") == [(1, "slow loop"), (1, "slow loop")]
    assert latest(board).description.endswith("takes 2 uses on 1 report")


def test_split_refuses_what_it_cannot_take(coded):
    board, lead, items = coded["board"], coded["lead"], coded["items"]
    loop = code(board, "slow loop")
    other_use = CodeUse.objects.get(code__name="cache miss")
    cases = [
        ({"use_ids": [other_use.pk]}, "uses", f"use {other_use.pk} is not a use of “slow loop”"),
        ({"item_ids": [items[3].pk]}, "items", f"item {items[3].pk} has no use of “slow loop”"),
        ({}, "uses", "choose the uses to split off, by use or by item"),
        (
            {"use_ids": [other_use.pk], "item_ids": [items[0].pk]},
            "uses",
            "choose the uses to split off, by use or by item",
        ),
        (
            {"item_ids": [items[0].pk, items[1].pk]},
            "uses",
            "these are all the uses of “slow loop”: rename it instead",
        ),
    ]
    for arguments, field, message in cases:
        with pytest.raises(ValidationError) as error:
            code_split(board=board, code_id=loop.pk, name="new", user=lead, **arguments)
        assert errors_of(error)[field] == [message], arguments
    with pytest.raises(ValidationError) as error:
        code_split(
            board=board, code_id=loop.pk, name="Cache Miss", item_ids=[items[0].pk], user=lead
        )
    assert "another code is called “cache miss”" in errors_of(error)["name"][0]
    assert not board.events.exists()


def test_a_split_is_not_undone_once_its_code_has_new_uses(coded):
    board, lead, items = coded["board"], coded["lead"], coded["items"]
    loop = code(board, "slow loop")
    code_split(board=board, code_id=loop.pk, name="busy loop", item_ids=[items[1].pk], user=lead)
    code_uses(board, annotator=coded["ann2"], item=items[1], names=["busy loop"])
    with pytest.raises(ValidationError) as error:
        board_undo(board=board, user=lead)
    assert error.value.code == CONFLICT
    assert "“busy loop” has uses written since" in error.value.messages[0]
    assert latest(board).action == "split"
    assert latest(board).undone_at is None


# Themes


def test_theme_create_makes_a_key_from_the_name_and_undo_deletes_it(coded):
    board, lead = coded["board"], coded["lead"]
    before = snapshot(board)
    memory = theme_create(
        board=board,
        dimension_key="root-cause",
        name="Memory  management",
        definition=" Leaks and bloat. ",
        examples=[" a leak ", ""],
        user=lead,
    )
    assert (memory.key, memory.name, memory.definition, memory.examples, memory.position) == (
        "memory-management",
        "Memory management",
        "Leaks and bloat.",
        ["a leak"],
        0,
    )
    again = theme_create(
        board=board, dimension_key="root-cause", name="Memory management!", user=lead
    )
    assert again.key == "memory-management-2"
    unnamed = theme_create(board=board, dimension_key="symptom", name="Ça lag", user=lead)
    assert unnamed.key == "ca-lag"
    child = theme_create(
        board=board, dimension_key="root-cause", name="Leak", parent_id=memory.pk, user=lead
    )
    assert latest(board).description == (
        "created sub-category “Leak” (leak) under “Memory management” in Root cause"
    )
    for _ in range(4):
        board_undo(board=board, user=lead)
    assert snapshot(board) == before
    assert not Theme.objects.filter(pk=child.pk).exists()


def test_theme_create_at_a_position_moves_its_siblings_and_undo_puts_them_back(coded):
    board, lead = coded["board"], coded["lead"]
    first = theme_create(board=board, dimension_key="root-cause", name="First", user=lead)
    second = theme_create(board=board, dimension_key="root-cause", name="Second", user=lead)
    before = snapshot(board)
    zeroth = theme_create(
        board=board, dimension_key="root-cause", name="Zeroth", position=0, user=lead
    )
    order = Theme.objects.filter(board=board).order_by("position").values_list("pk", flat=True)
    assert list(order) == [zeroth.pk, first.pk, second.pk]
    undone(board, lead, before)


def test_theme_create_refuses_bad_keys_other_dimensions_and_no_name(coded):
    board, lead = coded["board"], coded["lead"]
    symptom = ThemeFactory(board=board, dimension=dimension_of(board, "symptom"), key="hangs")
    cases = [
        ({"name": "A", "key": "Bad_Key"}, "key", "must be lowercase letters and digits"),
        ({"name": "A", "key": "hangs", "dimension_key": "symptom"}, "key", "has the key 'hangs'"),
        ({"name": "A", "parent_id": symptom.pk}, "parent", "is a category of Symptom"),
        ({"name": " "}, "name", "a category needs a name"),
        ({"name": "A", "dimension_key": "impact"}, "dimension", "no dimension 'impact'"),
        ({"name": "A", "examples": "one"}, "examples", "a list of texts"),
    ]
    for arguments, field, message in cases:
        arguments = {"dimension_key": "root-cause", **arguments}
        with pytest.raises(ValidationError) as error:
            theme_create(board=board, user=lead, **arguments)
        assert message in errors_of(error)[field][0], arguments


def test_theme_update_changes_only_what_is_given_and_undo_restores_it(coded):
    board, lead = coded["board"], coded["lead"]
    theme = ThemeFactory(board=board, key="memory", name="Memory", definition="Old.")
    before = snapshot(board)
    theme_update(
        board=board,
        theme_id=theme.pk,
        name="Memory use",
        key="memory-use",
        include="Leaks.",
        exclude="Speed.",
        examples=["grows without end"],
        definition="Old.",
        user=lead,
    )
    theme.refresh_from_db()
    assert (theme.name, theme.key, theme.definition, theme.include, theme.examples) == (
        "Memory use",
        "memory-use",
        "Old.",
        "Leaks.",
        ["grows without end"],
    )
    assert latest(board).description == (
        "edited category “Memory”: name, key, include, exclude, examples"
    )
    undone(board, lead, before)
    with pytest.raises(ValidationError) as error:
        theme_update(board=board, theme_id=theme.pk, name="Memory", user=lead)
    assert error.value.messages == ["nothing to change on category “Memory”"]


def test_theme_move_under_another_and_back_to_the_top(coded):
    board, lead = coded["board"], coded["lead"]
    memory = ThemeFactory(board=board, key="memory", name="Memory", position=0)
    leak = ThemeFactory(board=board, key="leak", name="Leak", position=1)
    bloat = ThemeFactory(board=board, key="bloat", name="Bloat", position=2)
    threads = ThemeFactory(board=board, key="threads", name="Threads", position=3)
    before = snapshot(board)
    theme_move(board=board, theme_id=leak.pk, parent_id=memory.pk, user=lead)
    theme_move(board=board, theme_id=bloat.pk, parent_id=memory.pk, position=0, user=lead)

    assert list(memory.children.order_by("position").values_list("key", flat=True)) == [
        "bloat",
        "leak",
    ]
    top = Theme.objects.filter(board=board, parent=None).order_by("position")
    assert [(t.key, t.position) for t in top] == [("memory", 0), ("threads", 1)]
    assert latest(board).description == "moved “Bloat” under “Memory”, position 1"

    with pytest.raises(ValidationError) as error:
        theme_move(board=board, theme_id=memory.pk, parent_id=leak.pk, user=lead)
    assert errors_of(error)["parent"] == ["“Memory” cannot go under “Leak”: it is inside it"]
    with pytest.raises(ValidationError) as error:
        theme_move(board=board, theme_id=threads.pk, parent_id=None, user=lead)
    assert errors_of(error)["position"] == ["category “Threads” is already there"]

    theme_move(board=board, theme_id=threads.pk, parent_id=None, position=0, user=lead)
    assert list(top.values_list("key", flat=True)) == ["threads", "memory"]
    for _ in range(3):
        board_undo(board=board, user=lead)
    assert snapshot(board) == before


def test_theme_delete_takes_its_subtree_ungroups_its_codes_and_undo_brings_all_back(coded):
    board, lead = coded["board"], coded["lead"]
    memory = theme_create(
        board=board, dimension_key="root-cause", name="Memory", definition="Mem.", user=lead
    )
    leak = theme_create(
        board=board, dimension_key="root-cause", name="Leak", parent_id=memory.pk, user=lead
    )
    deep = theme_create(
        board=board, dimension_key="root-cause", name="Deep", parent_id=leak.pk, user=lead
    )
    keep = theme_create(board=board, dimension_key="root-cause", name="Threads", user=lead)
    codes_group(board=board, code_ids=[code(board, "cache miss").pk], theme_id=memory.pk, user=lead)
    codes_group(board=board, code_ids=[code(board, "slow loop").pk], theme_id=deep.pk, user=lead)
    codes_group(
        board=board, code_ids=[code(board, "lock contention").pk], theme_id=keep.pk, user=lead
    )
    before = snapshot(board)
    theme_delete(board=board, theme_id=memory.pk, user=lead)

    assert list(Theme.objects.filter(board=board).values_list("key", flat=True)) == ["threads"]
    assert code(board, "cache miss").theme is None
    assert code(board, "slow loop").theme is None
    assert code(board, "lock contention").theme == keep
    assert latest(board).description == (
        "deleted category “Memory” (Root cause) and its 2 sub-categories; 2 codes back to ungrouped"
    )
    undone(board, lead, before)
    assert Theme.objects.get(pk=deep.pk).parent_id == leak.pk


def test_group_and_ungroup_codes(coded):
    board, lead = coded["board"], coded["lead"]
    theme = ThemeFactory(board=board, key="loops", name="Loops")
    loops = [code(board, "slow loop").pk, code(board, "inefficient loop").pk]
    before = snapshot(board)
    codes_group(board=board, code_ids=loops, theme_id=theme.pk, user=lead)
    assert set(Code.objects.filter(theme=theme).values_list("pk", flat=True)) == set(loops)
    assert latest(board).description == (
        "grouped “slow loop”, “inefficient loop” under “Loops” (Root cause)"
    )
    with pytest.raises(ValidationError) as error:
        codes_group(board=board, code_ids=loops, theme_id=theme.pk, user=lead)
    assert errors_of(error)["codes"] == ["already under “Loops”"]
    with pytest.raises(ValidationError) as error:
        codes_group(board=board, code_ids=[code(board, "hangs").pk], theme_id=theme.pk, user=lead)
    assert (
        "“hangs” is a code of Symptom, “Loops” a category of Root cause"
        in errors_of(error)["codes"][0]
    )
    codes_group(board=board, code_ids=loops[:1], theme_id=None, user=lead)
    assert latest(board).description == "ungrouped “slow loop”"
    board_undo(board=board, user=lead)
    undone(board, lead, before)


# Undo


def test_undo_goes_back_one_change_at_a_time_and_records_each_undo(coded):
    board, lead = coded["board"], coded["lead"]
    states = [snapshot(board)]
    theme = theme_create(board=board, dimension_key="root-cause", name="Loops", user=lead)
    states.append(snapshot(board))
    codes_group(board=board, code_ids=[code(board, "slow loop").pk], theme_id=theme.pk, user=lead)
    states.append(snapshot(board))
    code_rename(board=board, code_id=code(board, "slow loop").pk, name="loop", user=lead)

    for state in reversed(states):
        board_undo(board=board, user=lead)
        assert snapshot(board) == state
    with pytest.raises(ValidationError) as error:
        board_undo(board=board, user=lead)
    assert error.value.code == CONFLICT
    assert error.value.messages == ["nothing left to undo on this board"]
    actions = [(e.action, e.undone_at is not None) for e in board.events.order_by("pk")]
    assert actions == [
        ("theme_create", True),
        ("group", True),
        ("rename", True),
        ("undo", False),
        ("undo", False),
        ("undo", False),
    ]
    assert latest(board).description == "undid: created category “Loops” (loops) in Root cause"


def test_a_change_after_an_undo_is_the_next_one_undone(coded):
    board, lead = coded["board"], coded["lead"]
    loop = code(board, "slow loop").pk
    code_rename(board=board, code_id=loop, name="loop", user=lead)
    board_undo(board=board, user=lead)
    code_rename(board=board, code_id=loop, name="a loop", user=lead)
    before_both = snapshot(board)
    code_rename(board=board, code_id=code(board, "hangs").pk, name="freezes", user=lead)
    board_undo(board=board, user=lead)
    assert snapshot(board) == before_both
    board_undo(board=board, user=lead)
    assert code(board, "slow loop").pk == loop


def test_an_undo_records_what_it_changed_as_it_was(coded):
    board, lead = coded["board"], coded["lead"]
    loop = code(board, "slow loop")
    copy = code_split(
        board=board, code_id=loop.pk, name="busy loop", item_ids=[coded["items"][1].pk], user=lead
    )
    moved = list(CodeUse.objects.filter(code=copy).values_list("pk", flat=True))
    board_undo(board=board, user=lead)
    record = latest(board).undo
    assert [row["id"] for row in record["create"]["code"]] == [copy.pk]
    assert record["create"]["code"][0]["name"] == "busy loop"
    assert record["update"]["use"] == [{"id": pk, "code_id": copy.pk} for pk in moved]


def test_undo_of_a_rename_is_refused_when_the_old_name_was_written_since(coded):
    board, lead = coded["board"], coded["lead"]
    code_rename(board=board, code_id=code(board, "cache miss").pk, name="cache thrash", user=lead)
    code_uses(board, annotator=coded["ann2"], item=coded["items"][0], names=["cache miss"])
    with pytest.raises(ValidationError) as error:
        board_undo(board=board, user=lead)
    assert error.value.code == CONFLICT
    assert "cannot be undone" in error.value.messages[0]
    assert code(board, "cache thrash").name == "cache thrash"


# A frozen board


@pytest.fixture
def frozen(coded):
    board = coded["board"]
    board.frozen_into = CodebookFactory(key="perf", version="1")
    board.frozen_at = board.created_at
    board.save()
    return coded


@pytest.mark.parametrize(
    "change",
    [
        lambda b, c, t: code_rename(board=b, code_id=c, name="other", user=None),
        lambda b, c, t: codes_merge(board=b, code_ids=[c], into_id=c + 1, user=None),
        lambda b, c, t: code_split(board=b, code_id=c, name="other", use_ids=[1], user=None),
        lambda b, c, t: theme_create(board=b, dimension_key="root-cause", name="A", user=None),
        lambda b, c, t: theme_update(board=b, theme_id=t, name="B", user=None),
        lambda b, c, t: theme_move(board=b, theme_id=t, parent_id=None, position=5, user=None),
        lambda b, c, t: theme_delete(board=b, theme_id=t, user=None),
        lambda b, c, t: codes_group(board=b, code_ids=[c], theme_id=t, user=None),
        lambda b, c, t: board_undo(board=b, user=None),
        lambda b, c, t: services.board_freeze(
            board=b, key="perf", version="2", name="P", user=None
        ),
    ],
)
def test_a_frozen_board_refuses_every_change(frozen, change):
    board = frozen["board"]
    theme = ThemeFactory(board=board)
    before = snapshot(board)
    with pytest.raises(ValidationError) as error:
        change(board, code(board, "slow loop").pk, theme.pk)
    assert error.value.code == CONFLICT
    assert error.value.messages == [
        f"the board was frozen into codebook perf v1 on {board.frozen_at:%Y-%m-%d %H:%M} UTC: "
        "it can no longer change"
    ]
    assert snapshot(board) == before


# Which board


def test_an_open_study_gets_its_board_when_it_has_none(make_user):
    study, board = open_study_with_items(count=1)
    assert services.study_board_current(study=study) == board
    board.delete()
    made = services.study_board_current(study=study)
    assert (made.kind, made.study, made.frozen_into) == (Board.Kind.OPEN, study, None)
    assert services.study_board_current(study=study) == made


def test_the_current_board_is_the_one_being_sorted_else_the_latest_frozen(make_user):
    study, first = open_study_with_items(count=1)
    first.frozen_into = CodebookFactory()
    first.frozen_at = first.created_at
    first.save()
    assert services.study_board_current(study=study) == first
    second = Board.objects.create(study=study, kind="open", created_at=first.created_at)
    assert services.study_board_current(study=study) == second


@pytest.mark.parametrize("invisible", ["\u200b\u200b\u200b", "\u202e \u202c", "\u200d"])
def test_a_name_of_invisible_characters_only_is_no_name(coded, invisible):
    board, lead = coded["board"], coded["lead"]
    target = code(board, "cache miss").pk

    with pytest.raises(ValidationError) as error:
        theme_create(board=board, user=lead, dimension_key="root-cause", name=invisible)
    assert errors_of(error)["name"] == ["a category needs a name"]
    with pytest.raises(ValidationError) as error:
        code_rename(board=board, code_id=target, name=invisible, user=lead)
    assert errors_of(error)["name"] == ["a code needs a name"]
    assert not Theme.objects.filter(board=board).exists()
    assert not board.events.exists()


@pytest.mark.parametrize(
    "lookalike",
    [
        "\uff33\uff2c\uff2f\uff37 \uff2c\uff2f\uff2f\uff30",
        "slow\u200b loop",
        "\u2067slow loop\u2069",
    ],
)
def test_a_card_renamed_to_a_lookalike_of_another_is_refused(coded, lookalike):
    board, lead = coded["board"], coded["lead"]
    target = code(board, "cache miss").pk

    with pytest.raises(ValidationError) as error:
        code_rename(board=board, code_id=target, name=lookalike, user=lead)

    assert "another code is called “slow loop”" in errors_of(error)["name"][0]
    assert not board.events.exists()


def test_theme_names_are_stored_as_they_read(coded):
    board, lead = coded["board"], coded["lead"]

    theme_create(
        board=board,
        user=lead,
        dimension_key="root-cause",
        name="\u200b\uff2d\uff45\uff4d\uff4f\uff52\uff59\u200e leaks",
    )

    assert Theme.objects.get(board=board).name == "Memory leaks"
