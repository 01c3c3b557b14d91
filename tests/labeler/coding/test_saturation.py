"""Saturation on a known sequence of codes, worked out by hand."""

from labeler.coding.saturation import Coding, saturation


def coding(annotator, item, *codes):
    return Coding(annotator=annotator, item=item, codes=frozenset(codes))


# In submission order. By hand: the team's reports in the order first coded are r1 (leak,
# cache; lock from B), r2 (cache; lock, cache from B), r3 (slow-io; leak from A) and r4
# (nothing): 3, 3, 4, 4 distinct codes. A coded r1 r2 r3 r4: {leak, cache} throughout, 2 each
# time. B coded r1 r3 r2: leak lock, + slow-io, + cache: 2, 3, 4.
SEQUENCE = [
    coding("A", "r1", "leak", "cache"),
    coding("B", "r1", "leak", "lock"),
    coding("A", "r2", "cache"),
    coding("B", "r3", "slow-io"),
    coding("A", "r3", "leak"),
    coding("A", "r4"),
    coding("B", "r2", "lock", "cache"),
]


def test_the_team_and_each_annotator_on_a_known_sequence():
    found = saturation(SEQUENCE)
    assert found.team == (3, 3, 4, 4)
    assert found.annotators == {"A": (2, 2, 2, 2), "B": (2, 3, 4)}
    assert list(found.annotators) == ["A", "B"]
    assert (found.reports, found.codes) == (4, 4)


def test_the_team_counts_a_report_where_it_was_first_coded():
    # B's late codes on r1 count at r1's place, not after r2.
    found = saturation([coding("A", "r1", "x"), coding("A", "r2", "y"), coding("B", "r1", "z")])
    assert found.team == (2, 3)
    assert found.annotators == {"A": (1, 2), "B": (1,)}


def test_a_report_coded_twice_by_one_annotator_counts_once_with_both_codings():
    found = saturation([coding("A", "r1", "x"), coding("A", "r1", "y"), coding("A", "r2", "x")])
    assert found.team == (2, 2)
    assert found.annotators == {"A": (2, 2)}


def test_nothing_coded_is_an_empty_curve():
    found = saturation([])
    assert found.team == ()
    assert found.annotators == {}
    assert (found.reports, found.codes) == (0, 0)
