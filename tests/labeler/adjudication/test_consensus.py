"""Whether annotators agree on one dimension, and what that decides: plain data."""

import pytest

from labeler.adjudication.consensus import (
    MAJORITY,
    SPLIT,
    UNANIMOUS,
    UNANSWERED,
    automatic_method,
    consensus,
)

LEAK, BLOAT, NONE = ("memory/leak",), ("memory/bloat",), ()


def test_unanimous_answers():
    found = consensus([LEAK, LEAK, LEAK])
    assert (found.kind, found.modal, found.agreement, found.ratings) == (UNANIMOUS, LEAK, 1.0, 3)


def test_a_majority_is_more_than_half():
    found = consensus([LEAK, BLOAT, LEAK])
    assert (found.kind, found.modal, found.answers) == (MAJORITY, LEAK, ((LEAK, 2), (BLOAT, 1)))
    assert found.agreement == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    "answers", [[LEAK, BLOAT], [LEAK, BLOAT, NONE], [LEAK, LEAK, BLOAT, BLOAT]]
)
def test_half_or_less_is_a_split_with_no_modal_answer_on_a_tie(answers):
    found = consensus(answers)
    assert found.kind == SPLIT
    assert found.modal is None


def test_a_split_with_a_most_given_answer_keeps_it():
    found = consensus([LEAK, LEAK, BLOAT, NONE, ("threading",)])
    assert (found.kind, found.modal, found.agreement) == (SPLIT, LEAK, 0.4)


def test_sets_are_compared_whole_and_an_empty_answer_counts():
    both = ("memory-use", "speed")
    found = consensus([both, both, ("speed",), NONE])
    assert found.answers == ((both, 2), (NONE, 1), (("speed",), 1))
    assert found.kind == SPLIT
    assert consensus([NONE, NONE]).kind == UNANIMOUS


def test_a_single_annotation_is_unanimous():
    assert automatic_method(consensus([LEAK]), majority_auto=False) == UNANIMOUS


@pytest.mark.parametrize(
    ("answers", "majority_auto", "method"),
    [
        ([LEAK, LEAK], False, UNANIMOUS),
        ([LEAK, LEAK, BLOAT], False, None),
        ([LEAK, LEAK, BLOAT], True, MAJORITY),
        ([LEAK, BLOAT], True, None),
    ],
)
def test_what_is_decided_without_a_lead(answers, majority_auto, method):
    assert automatic_method(consensus(answers), majority_auto=majority_auto) == method


def test_an_item_nobody_answered_has_a_kind_and_no_agreement():
    """`/api/items/{id}/decisions/` of an item nobody submitted answered 500 (IndexError)."""
    found = consensus([])

    assert found.kind == UNANSWERED
    assert found.agreement == 0.0
    assert found.modal is None
    assert automatic_method(found, majority_auto=True) is None
