"""labeler.agreement.planning: the simulated number of items against Bloch & Kraemer's
large-sample variance of kappa and against kappaSize's published sample sizes, checked on the
sampling distribution itself; the model's agreement, the plan during labelling."""

import math

import numpy as np
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from labeler.agreement.planning import plan_before, plan_during, simulate_codes
from labeler.agreement.statistics import agreement_from_codes

# kappaSize 1.2 (Rotondi & Donner 2012, J Clin Epidemiol 65:778; Donner & Rotondi 2010, Int J
# Biostat 6:31, whose tables it computes), CIBinary and CI3Cats with kappaL = kappa0 - 0.1,
# kappaU = kappa0 + 0.1, alpha = 0.05: (raters, kappa0, shares, N it prints). The first is the
# example of CIBinary's manual page.
KAPPASIZE = [
    (2, 0.4, [0.3, 0.7], 397),
    (2, 0.6, [0.5, 0.5], 289),
    (2, 0.8, [0.3, 0.7], 233),
    (3, 0.6, [0.3, 0.7], 197),
    (3, 0.8, [0.5, 0.5], 120),
    (2, 0.6, [0.2, 0.3, 0.5], 209),
    (3, 0.8, [0.2, 0.3, 0.5], 93),
]


def bloch_kraemer_items(kappa: float, prevalence: float, half_width: float) -> float:
    """Bloch & Kraemer (1989, Biometrics 45, eq. 4.4; the variance kappaSize's CIBinary builds
    on): two raters, a binary trait of prevalence p, Var(kappa) = (1 - k) / n [(1 - k)
    (1 - 2k) + k (2 - k) / (2 p (1 - p))]; n for a 95% half-width."""
    k, p = kappa, prevalence
    variance_of_one = (1 - k) * ((1 - k) * (1 - 2 * k) + k * (2 - k) / (2 * p * (1 - p)))
    return (1.959964 * math.sqrt(variance_of_one) / half_width) ** 2


def sampled_half_width(items, shares, kappa, raters, rng, studies=2000) -> float:
    """Half the width of the 2.5-97.5% range of Fleiss' kappa over simulated studies of `items`
    items: the interval a plan aims at, without any bootstrap. All studies are drawn at once
    and Fleiss' kappa computed on each from its category counts; the first equals
    statsmodels' on the same study."""
    codes = simulate_codes(
        items=items * studies, shares=shares, expected=kappa, annotators=raters, rng=rng
    ).reshape(studies, items, raters)
    counts = np.stack([(codes == j).sum(axis=2) for j in range(len(shares))], axis=2)
    observed = (counts * (counts - 1)).sum(axis=2).mean(axis=1) / (raters * (raters - 1))
    chance = ((counts.sum(axis=1) / (items * raters)) ** 2).sum(axis=1)
    values = (observed - chance) / (1 - chance)
    assert values[0] == pytest.approx(fleiss_kappa(aggregate_raters(codes[0])[0]), abs=1e-12)
    low, high = np.quantile(values, [0.025, 0.975])
    return float(high - low) / 2


class TestBeforeLabelling:
    @pytest.mark.parametrize(
        ("kappa", "prevalence", "wanted"), [(0.6, 0.3, 0.1), (0.8, 0.5, 0.05), (0.4, 0.2, 0.1)]
    )
    def test_two_raters_binary_matches_bloch_and_kraemer(self, kappa, prevalence, wanted):
        plan = plan_before(
            expected=kappa,
            shares=[prevalence, 1 - prevalence],
            half_width_wanted=wanted,
            coefficient="mean_cohen_kappa",
            replicates=16,
            seed=1,
        )
        expected = bloch_kraemer_items(kappa, prevalence, wanted)
        assert plan["items"] == pytest.approx(expected, rel=0.15)
        assert plan["half_width"] == pytest.approx(wanted, rel=0.05)
        assert plan["seed"] == 1 and plan["draws"] == 400 and "bootstrap" in plan["method"]

    @pytest.mark.parametrize(("raters", "kappa", "shares", "kappasize_items"), KAPPASIZE)
    def test_against_kappasize_and_the_sampling_distribution(
        self, raters, kappa, shares, kappasize_items
    ):
        """kappaSize asks that both expected limits fall within kappa0 +- 0.1, with the variance
        taken at the limits (a goodness-of-fit interval): a conservative criterion. So the plan
        never asks for more items than kappaSize; and the 95% range of Fleiss' kappa over 2,000
        simulated studies (no bootstrap) shows who is on target: +-0.1 (within 10%)
        at the plan's number of items, no wider than +-0.1 at kappaSize's."""
        plan = plan_before(
            expected=kappa,
            shares=shares,
            half_width_wanted=0.1,
            annotators=raters,
            coefficient="fleiss_kappa",
            replicates=16,
            seed=1,
        )
        assert 0.6 * kappasize_items <= plan["items"] <= kappasize_items
        rng = np.random.default_rng(0)
        assert sampled_half_width(plan["items"], shares, kappa, raters, rng) == pytest.approx(
            0.1, rel=0.1
        )
        assert sampled_half_width(kappasize_items, shares, kappa, raters, rng) <= 0.1

    def test_more_annotators_need_fewer_items(self):
        common = {"expected": 0.7, "shares": [0.2, 0.3, 0.5], "half_width_wanted": 0.05}
        two = plan_before(**common, annotators=2)
        four = plan_before(**common, annotators=4)
        assert four["items"] < two["items"]
        assert plan_before(**common, annotators=2) == two

    def test_the_model_agrees_by_the_expected_amount(self):
        rng = np.random.default_rng(0)
        codes = simulate_codes(
            items=40_000, shares=[0.1, 0.3, 0.6], expected=0.7, annotators=3, rng=rng
        )
        result = agreement_from_codes(codes, ["a", "b", "c"], ["x", "y", "z"], bootstrap=0)
        assert result["krippendorff_alpha"] == pytest.approx(0.7, abs=0.01)
        assert result["fleiss_kappa"] == pytest.approx(0.7, abs=0.01)

    @pytest.mark.parametrize(
        ("argument", "value"),
        [
            ("expected", 1.2),
            ("shares", [1.0]),
            ("half_width_wanted", 0),
            ("annotators", 1),
            ("coefficient", "gwet"),
        ],
    )
    def test_arguments_are_checked(self, argument, value):
        given = {"expected": 0.7, "shares": [0.5, 0.5], "half_width_wanted": 0.05}
        with pytest.raises(ValueError, match=argument):
            plan_before(**(given | {argument: value}))


class TestDuringLabelling:
    def test_more_items_scale_with_the_square_of_the_width(self):
        plan = plan_during(items=100, ci95=[0.5, 0.7], half_width_wanted=0.05)
        assert plan["half_width"] == pytest.approx(0.1)
        assert plan["items_needed"] == 400 and plan["more_items"] == 300

    def test_already_narrow_enough(self):
        plan = plan_during(items=100, ci95=[0.6, 0.65], half_width_wanted=0.05)
        assert plan["more_items"] == 0

    def test_no_interval_no_plan(self):
        assert plan_during(items=10, ci95=None, half_width_wanted=0.05) is None

    def test_an_interval_without_width_plans_nothing(self):
        plan = plan_during(items=5, ci95=[1.0, 1.0], half_width_wanted=0.05)
        assert plan["more_items"] is None and "no width" in plan["method"]
