"""Sample sizes, allocation and draws on plain data."""

import pytest

from labeler.studies.sampling import (
    SampleMode,
    SampleSpec,
    SampleSpecError,
    allocate_proportionally,
    cochran_figures,
    cochran_sample_size,
    draw_sample,
    sample_plan,
    sample_warnings,
    z_score,
)


def test_z_score_of_common_levels():
    assert z_score(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert z_score(0.99) == pytest.approx(2.575829, abs=1e-6)


def test_cochran_figures_show_each_step():
    z, n0, n = cochran_figures(confidence=0.95, margin=0.05, population=1000)
    assert z == pytest.approx(1.959964, abs=1e-6)
    assert n0 == pytest.approx(384.1459, abs=1e-4)  # 1.96^2 * 0.25 / 0.05^2
    assert n == pytest.approx(277.7335, abs=1e-4)  # 384.15 / (1 + 383.15 / 1000)
    # The finite population correction matters less as the frame grows.
    assert cochran_figures(confidence=0.95, margin=0.05, population=10**9)[2] == pytest.approx(
        n0, rel=1e-6
    )
    # A different proportion, and an empty frame.
    assert cochran_figures(confidence=0.95, margin=0.05, population=1000, proportion=0.1)[
        1
    ] == pytest.approx(138.2925, abs=1e-4)
    assert cochran_figures(confidence=0.99, margin=0.05, population=0)[1:] == (
        pytest.approx(663.4897, abs=1e-4),
        0.0,
    )


@pytest.mark.parametrize(
    ("population", "confidence", "margin", "expected"),
    [
        # n0 = 1.96^2 * 0.25 / 0.05^2 = 384.15; with N = 1000: 384.15 / (1 + 383.15/1000) = 277.7
        (1000, 0.95, 0.05, 278),
        (100_000, 0.95, 0.05, 383),
        (10_000_000, 0.95, 0.05, 385),
        (500, 0.99, 0.05, 286),
        (200, 0.95, 0.10, 66),
        (10, 0.95, 0.05, 10),
        (1, 0.95, 0.05, 1),
        (0, 0.95, 0.05, 0),
    ],
)
def test_cochran_with_finite_population_correction(population, confidence, margin, expected):
    assert (
        cochran_sample_size(population=population, confidence=confidence, margin=margin) == expected
    )


def test_allocation_sums_exactly_and_is_proportional():
    shares = allocate_proportionally({"a": 500, "b": 300, "c": 200}, 100)
    assert shares == {"a": 50, "b": 30, "c": 20}


def test_allocation_gives_leftovers_to_largest_remainders():
    # quotas 3.33, 3.33, 3.33 -> one left over; ties go to the larger stratum, then key order
    assert allocate_proportionally({"b": 10, "a": 10, "c": 10}, 10) == {"a": 4, "b": 3, "c": 3}
    # quotas 6.67 and 3.33: the larger remainder (0.67) gets the extra item
    assert allocate_proportionally({"x": 20, "y": 10}, 10) == {"x": 7, "y": 3}


@pytest.mark.parametrize("n", [0, 1, 7, 33, 99, 150])
def test_allocation_never_exceeds_a_stratum_and_sums_to_n(n):
    strata = {"a": 97, "b": 2, "c": 1, "d": 50}
    shares = allocate_proportionally(strata, n)
    assert sum(shares.values()) == min(n, sum(strata.values()))
    assert all(shares[key] <= strata[key] for key in strata)


def test_spec_validation_names_the_field():
    with pytest.raises(SampleSpecError, match=r"^size:"):
        SampleSpec(mode=SampleMode.SIZE)
    with pytest.raises(SampleSpecError, match=r"^confidence:"):
        SampleSpec(mode=SampleMode.CONFIDENCE, confidence=95, margin=0.05)
    with pytest.raises(SampleSpecError, match=r"^margin:"):
        SampleSpec(mode=SampleMode.CONFIDENCE, confidence=0.95)
    with pytest.raises(SampleSpecError, match=r"^mode:"):
        SampleSpec.from_dict({"mode": "most"})
    with pytest.raises(SampleSpecError, match=r"^sizes:"):
        SampleSpec.from_dict({"sizes": 3})


def test_spec_round_trips_through_a_dict():
    spec = SampleSpec(mode=SampleMode.CONFIDENCE, confidence=0.9, margin=0.1, stratify="state")
    assert SampleSpec.from_dict(spec.to_dict()) == spec


UNITS = [(i, "big" if i % 4 else "small") for i in range(1, 401)]


def test_plan_shows_frame_sample_and_strata():
    plan = sample_plan(SampleSpec(mode=SampleMode.CONFIDENCE, confidence=0.95, margin=0.05), UNITS)
    assert plan.frame_size == 400
    assert plan.sample_size == 197
    assert [(s.key, s.population, s.sample) for s in plan.strata] == [
        ("big", 300, 148),
        ("small", 100, 49),
    ]


def test_draw_is_reproducible_from_the_seed_whatever_the_input_order():
    spec = SampleSpec(mode=SampleMode.SIZE, size=40, stratify="kind")
    _, first = draw_sample(spec, UNITS, seed=7)
    _, again = draw_sample(spec, list(reversed(UNITS)), seed=7)
    _, other = draw_sample(spec, UNITS, seed=8)
    assert first == again
    assert first != other
    assert len(first) == len(set(first)) == 40
    kinds = dict(UNITS)
    assert sum(kinds[i] == "small" for i in first) == 10


def test_draw_all_keeps_every_unit_in_a_seeded_order():
    plan, drawn = draw_sample(SampleSpec(), UNITS, seed=1)
    assert plan.sample_size == 400
    assert sorted(drawn) == [i for i, _ in UNITS]
    assert drawn != sorted(drawn)


def test_draw_of_an_empty_frame_is_empty():
    plan, drawn = draw_sample(SampleSpec(mode=SampleMode.SIZE, size=5), [], seed=1)
    assert (plan.frame_size, plan.sample_size, drawn) == (0, 0, [])


def test_leftover_places_among_tied_small_strata_follow_the_seed():
    strata = {f"s{i:02}": 1 for i in range(20)}
    chosen = {
        seed: sorted(k for k, v in allocate_proportionally(strata, 5, seed=seed).items() if v)
        for seed in (1, 2, 3)
    }

    assert all(len(keys) == 5 for keys in chosen.values())
    assert len({tuple(keys) for keys in chosen.values()}) > 1
    assert allocate_proportionally(strata, 5, seed=2) == allocate_proportionally(strata, 5, seed=2)


def test_the_plan_shows_the_allocation_the_draw_with_the_same_seed_takes():
    units = [(i, f"author{i}") for i in range(1, 21)]
    spec = SampleSpec(mode=SampleMode.SIZE, size=5, stratify="author_login")

    for seed in (1, 2, 3):
        plan, drawn = draw_sample(spec, units, seed)
        assert plan == sample_plan(spec, units, seed=seed)
        chosen = {key for _, key in (units[i - 1] for i in drawn)}
        assert chosen == {s.key for s in plan.strata if s.sample}


def test_sample_warnings_say_when_a_fixed_size_is_capped_at_the_frame():
    asked = SampleSpec(mode=SampleMode.SIZE, size=1000)

    assert sample_warnings(asked, 43) == ["sample capped at the frame size: 43 (asked for 1000)"]
    assert sample_warnings(asked, 1000) == []
    assert sample_warnings(asked, 0) == []
    assert sample_warnings(SampleSpec(), 43) == []
    confidence = SampleSpec(mode=SampleMode.CONFIDENCE, confidence=0.95, margin=0.05)
    assert sample_warnings(confidence, 43) == []


@pytest.mark.parametrize(
    ("confidence", "margin", "field"),
    [
        (0.9999999999999999, 0.05, "confidence"),
        (0.49, 0.05, "confidence"),
        (0.95, 1e-300, "margin"),
    ],
)
def test_a_new_draw_is_bounded_where_a_stored_spec_is_not(confidence, margin, field):
    spec = SampleSpec(mode=SampleMode.CONFIDENCE, confidence=confidence, margin=margin)

    with pytest.raises(SampleSpecError, match=rf"^{field}: must be between"):
        spec.bounds_check()
    assert SampleSpec.from_dict(spec.to_dict()) == spec
    SampleSpec(mode=SampleMode.CONFIDENCE, confidence=0.999, margin=0.005).bounds_check()
