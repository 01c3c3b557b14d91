"""A board's cards: rename, merge, split, what each records, and its undo; the names a card
may take."""

import pytest
from django.core.exceptions import ValidationError

from config.api import CONFLICT
from labeler.coding.board.cards import code_rename, code_split, codes_merge
from labeler.coding.board.themes import codes_group, theme_create
from labeler.coding.board.undo import board_undo
from labeler.models import BoardEvent, Code, CodeUse, Theme
from tests.labeler.board_factories import CodeFactory, ThemeFactory, code_uses
from tests.labeler.coding.board.changes import code, errors_of, latest, snapshot, undone, uses_of

pytestmark = pytest.mark.django_db


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
