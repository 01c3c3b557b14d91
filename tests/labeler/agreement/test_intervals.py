"""labeler.agreement.intervals (through agreement()): Gwet's analytic variances against
irrCAC's published values, every bootstrap interval against a reference bootstrap computed
item by item with the reference libraries on the same draws, the hierarchy alpha against
the krippendorff library with a custom distance, paired differences, degenerate intervals."""

import math
from itertools import combinations

import krippendorff
import numpy as np
import pytest
from hypothesis import given
from scipy.stats import t as student_t
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from labeler.agreement import hierarchy
from labeler.agreement.intervals import draws_from_indices, make_draws, t_quantile
from labeler.agreement.statistics import (
    agreement,
    agreement_from_codes,
    agreement_windows,
    codes_from_ratings,
    run_draws,
)
from tests.labeler.agreement.test_statistics import GWET_4RATERS, RANDOMISED, columns, studies

# irrCAC's cac.raw5observers (Gwet, Handbook of Inter-Rater Reliability, 4th ed., p. 125,
# shortened; the Python port afergadis/irrCAC, irrCAC/datasets.py raw_5observers): 5
# observers, 15 units, scores 0 to 3 (nominal here), None where an observer gave none.
GWET_5OBSERVERS = {
    "Observer1": [1, 1, 2, None, 0, 0, 1, 1, 2, 2, None, 0, 1, 3, 1],
    "Observer2": [1, 1, 3, 0, 0, 0, 0, None, 2, 1, 1, 0, 2, 3, 1],
    "Observer3": [2, 0, 3, 0, 0, 0, 2, 2, 2, 1, 0, 0, 2, 2, 1],
    "Observer4": [None, 1, 3, None, None, None, None, 0, None, 1, 0, 0, 2, 2, None],
    "Observer5": [2, None, None, 0, 0, 0, 1, None, 2, None, None, None, None, 3, 1],
}


def by_item(table: dict[str, list]) -> dict:
    """{annotator: [value or None per item]} -> {item: {annotator: value}} (0 is a value)."""
    n = len(next(iter(table.values())))
    return {
        item: {
            name: str(values[item]) for name, values in table.items() if values[item] is not None
        }
        for item in range(n)
    }


def irrcac_raw(rows: list[list]) -> dict[str, tuple[float, float | None, list[float] | None]]:
    """irrCAC's pa.coeff.raw, fleiss.kappa.raw and gwet.ac1.raw (github.com/kgwet/irrCAC,
    R/agree.coeff3.raw.r; unweighted, N = Inf), transcribed step by step on the subjects'
    ratings (each row the values given, None for none; subjects with none left out, as
    irrCAC asks): (coefficient, standard error, 95% interval), the interval the
    coefficient -+ qt(0.975, n - 1) SE, the upper bound capped at 1 as irrCAC does (and the
    lower at -1, as the product does)."""
    rows = [[v for v in row if v is not None] for row in rows]
    rows = [row for row in rows if row]
    categories = sorted({v for row in rows for v in row})
    n, q = len(rows), len(categories)
    agree = [[row.count(c) for c in categories] for row in rows]  # r_ik
    r = [sum(a) for a in agree]
    n2more = sum(1 for ri in r if ri >= 2)
    sum_q = [sum(a * (a - 1) for a in counts) for counts in agree]
    den = [ri * (ri - 1) if ri >= 2 else -1 for ri in r]
    pa = sum(s / d for s, d, ri in zip(sum_q, den, r, strict=True) if ri >= 2) / n2more
    pi = [sum(agree[i][k] / r[i] for i in range(n)) / n for k in range(q)]
    t = float(student_t.ppf(0.975, n - 1))

    def interval(coefficient, terms):
        variance = sum((x - coefficient) ** 2 for x in terms) / (n * (n - 1))
        se = math.sqrt(variance)
        return coefficient, se, [max(-1.0, coefficient - t * se), min(1.0, coefficient + t * se)]

    pa_terms = [(n / n2more) * s / d for s, d in zip(sum_q, den, strict=True)]
    found = {"percent_agreement": interval(pa, pa_terms)}
    for name in ("fleiss_kappa", "gwet_ac1"):
        if name == "fleiss_kappa":
            pe = sum(p * p for p in pi)
            pe_item = [sum(agree[i][k] * pi[k] for k in range(q)) / r[i] for i in range(n)]
        else:
            pe = sum(p * (1 - p) for p in pi) / (q - 1)
            pe_item = [
                sum(agree[i][k] * (1 - pi[k]) for k in range(q)) / r[i] / (q - 1) for i in range(n)
            ]
        coefficient = (pa - pe) / (1 - pe)
        terms = [
            (n / n2more) * (s / d - pe * (ri >= 2)) / (1 - pe)
            - 2 * (1 - coefficient) * (pe_i - pe) / (1 - pe)
            for s, d, ri, pe_i in zip(sum_q, den, r, pe_item, strict=True)
        ]
        found[name] = interval(coefficient, terms)
    return found


def table_rows(table: dict[str, list]) -> list[list]:
    return [list(values) for values in zip(*table.values(), strict=True)]


class TestGwetVariances:
    # irrCAC's README (github.com/kgwet/irrCAC, "Computing agreement coefficients from raw
    # ratings", cac.raw4raters): coefficient, SE and conf.int as printed (3 decimals).
    RAW4RATERS = {
        "percent_agreement": (0.8181818, 0.12561, (0.542, 1)),
        "gwet_ac1": (0.77544, 0.14295, (0.461, 1)),
        "fleiss_kappa": (0.76117, 0.15302, (0.424, 1)),
    }
    # The Python port's tests (github.com/afergadis/irrCAC, test/unit/irrCAC/raw/test_gwet.py
    # and test_fleiss.py, test_*_raw5observers), to 3 decimals.
    RAW5OBSERVERS = {
        "gwet_ac1": (0.497, 0.122, (0.235, 0.758)),
        "fleiss_kappa": (0.458, 0.120, (0.199, 0.716)),
    }

    def check(self, result: dict, published: dict, digits: int) -> None:
        for name, (estimate, se, (low, high)) in published.items():
            gwet = result["intervals"][name]["gwet"]
            assert round(result[name], digits) == round(estimate, digits)
            assert round(gwet["se"], digits) == round(se, digits)
            assert [round(bound, 3) for bound in gwet["ci95"]] == [low, high]

    def test_irrcac_published_values_4_raters(self):
        """The intervals use Student's t with n - 1 = 11 degrees of freedom, as irrCAC (a
        normal quantile would give AC1 0.495 to 1, not irrCAC's 0.461)."""
        self.check(agreement(columns(GWET_4RATERS), bootstrap=0), self.RAW4RATERS, 5)

    def test_irrcac_published_values_5_observers(self):
        """Both bounds inside [-1, 1]: t with 14 degrees of freedom on both sides."""
        self.check(agreement(by_item(GWET_5OBSERVERS), bootstrap=0), self.RAW5OBSERVERS, 3)

    @pytest.mark.parametrize(
        ("table", "published", "digits"),
        [(GWET_4RATERS, RAW4RATERS, 5), (GWET_5OBSERVERS, RAW5OBSERVERS, 3)],
    )
    def test_the_reference_transcription_gives_irrcacs_values(self, table, published, digits):
        found = irrcac_raw(table_rows(table))
        for name, (estimate, se, (low, high)) in published.items():
            coefficient, standard_error, ci = found[name]
            assert round(coefficient, digits) == round(estimate, digits)
            assert round(standard_error, digits) == round(se, digits)
            assert [round(bound, 3) for bound in ci] == [low, high]

    def test_no_analytic_interval_for_alpha_or_mean_kappa(self):
        result = agreement(columns(GWET_4RATERS), bootstrap=0)
        assert set(result["intervals"]["krippendorff_alpha"]) == {"bootstrap"}
        assert set(result["intervals"]["mean_cohen_kappa"]) == {"bootstrap"}
        method = result["interval_methods"]["gwet"]
        assert "not Fleiss' (1971) standard error under no agreement" in method
        assert "Student's t with n - 1 degrees of freedom" in method


# A per-category row's key -> irrCAC's coefficient of the two-value data.
ANALYTIC_KEYS = {
    "kappa": "fleiss_kappa",
    "percent_agreement": "percent_agreement",
    "gwet_ac1": "gwet_ac1",
}


# Student's t table (two-sided 95% and 99%), as printed to three decimals in any textbook.
T_TABLE = [(0.975, 1, 12.706), (0.975, 10, 2.228), (0.975, 30, 2.042), (0.995, 5, 4.032)]


@pytest.mark.parametrize(("probability", "df", "printed"), T_TABLE)
def test_t_quantile_is_the_t_tables(probability, df, printed):
    assert round(t_quantile(probability, df), 3) == printed


@pytest.mark.parametrize(("probability", "df"), [(0.5, 10), (1.0, 10), (0.975, 0)])
def test_t_quantile_refuses_what_has_no_quantile(probability, df):
    with pytest.raises(ValueError, match="t_quantile: probability in"):
        t_quantile(probability, df)


class TestGwetPerCategory:
    """Each category against the rest has Gwet's analytic interval for its kappa, percent
    agreement and AC1: irrCAC's formulas (irrcac_raw, checked above against irrCAC's
    published values) on the two-value data "c" / anything else."""

    def compare(self, ratings: dict) -> int:
        """Checks every category's analytic intervals against the reference; how many
        categories had both values (the reference's two-category case)."""
        result = agreement(ratings, bootstrap=0)
        notes = result["notes"]
        compared = 0
        for row in result["per_category"]:
            rows = [
                [str(value == row["category"]) for value in by.values()] for by in ratings.values()
            ]
            two_values = {v for values in rows for v in values} == {"True", "False"}
            if result["pairable_items"] == 0 or not two_values:
                assert row["intervals"]["kappa"]["gwet"] is None
                continue
            compared += 1
            if len([by for by in ratings.values() if by]) < 2:
                assert all(row["intervals"][key]["gwet"] is None for key in ANALYTIC_KEYS)
                continue
            reference = irrcac_raw(rows)
            for key, name in ANALYTIC_KEYS.items():
                coefficient, se, ci = reference[name]
                gwet = row["intervals"][key]["gwet"]
                if row[key] is None:
                    # The product leaves a category used only on single-rated items without
                    # a kappa (a note says so), where irrCAC's formula gives one.
                    assert key == "kappa" and gwet is None
                    assert any("used only on items with a single rating" in n for n in notes)
                    continue
                assert row[key] == pytest.approx(coefficient, abs=1e-12)
                assert gwet["se"] == pytest.approx(se, abs=1e-12)
                assert gwet["ci95"] == pytest.approx(ci, abs=1e-12)
            assert set(row["intervals"]["krippendorff_alpha"]) == {"bootstrap"}
        return compared

    @pytest.mark.parametrize("table", [GWET_4RATERS, GWET_5OBSERVERS])
    def test_published_examples(self, table):
        ratings = by_item(table)
        assert self.compare(ratings) == len({v for vs in table.values() for v in vs} - {None})

    @RANDOMISED
    @given(studies())
    def test_random_studies(self, ratings):
        self.compare(ratings)

    def test_multi_select_paths(self):
        """Per path: a rating uses the path when its set holds it."""
        sets = [("a", "b"), ("a",), ("a", "b"), ("b",), ("a",), ("a", "c"), ("c",), ("a",)]
        ratings = {
            item: {"x": frozenset(sets[item % 8]), "y": frozenset(sets[(item * 3) % 8])}
            for item in range(24)
        }
        result = agreement(ratings, multiple=True, bootstrap=0)
        for row in result["per_category"]:
            rows = [
                [str(row["category"] in value) for value in by.values()] for by in ratings.values()
            ]
            _, se, ci = irrcac_raw(rows)["gwet_ac1"]
            assert row["intervals"]["gwet_ac1"]["gwet"] == {
                "ci95": pytest.approx(ci),
                "se": pytest.approx(se),
            }


def reference_bootstrap(ratings: dict, indices: np.ndarray) -> dict[str, np.ndarray]:
    """Each coefficient on each resample, from the reference libraries item by item."""
    codes, _, names = codes_from_ratings(ratings)
    found = {"krippendorff_alpha": [], "pairs": [], "fleiss_kappa": [], "percent_agreement": []}
    for draw in indices:
        taken = codes[draw]
        reliability = np.where(taken >= 0, taken, np.nan).T.astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            alpha = krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal")
        found["krippendorff_alpha"].append(alpha)
        pairs = []
        for a, b in combinations(range(len(names)), 2):
            both = (taken[:, a] >= 0) & (taken[:, b] >= 0)
            with np.errstate(invalid="ignore", divide="ignore"):
                pairs.append(cohen_kappa_score(taken[both, a], taken[both, b]))
        found["pairs"].append(pairs)
        complete = taken[(taken >= 0).all(axis=1)]
        table, _ = aggregate_raters(complete)
        with np.errstate(invalid="ignore", divide="ignore"):
            found["fleiss_kappa"].append(fleiss_kappa(table))
        agree = [
            np.mean([row[i] == row[j] for i, j in combinations(range(len(names)), 2)])
            for row in complete
        ]
        found["percent_agreement"].append(np.mean(agree))
    return {key: np.array(value, dtype=float) for key, value in found.items()}


def percentiles(values: np.ndarray) -> list[float]:
    return list(np.percentile(values[~np.isnan(values)], [2.5, 97.5]))


class TestBootstrapAgainstAReference:
    def ratings_world(self, items: int, seed: int, complete: bool) -> dict:
        rng = np.random.default_rng(seed)
        ratings = {}
        for item in range(items):
            truth = rng.integers(0, 4)
            ratings[item] = {
                name: f"c{truth if rng.random() < 0.7 else rng.integers(0, 4)}"
                for name in ("a", "b", "c")
                if complete or rng.random() < 0.8
            }
        return ratings

    @pytest.mark.parametrize("complete", [True, False])
    def test_every_interval_equals_the_reference_bootstrap_on_the_same_draws(self, complete):
        """The same resamples of items, given item by item: our intervals (a multinomial
        over rating patterns) equal the percentiles of the reference libraries' values
        (krippendorff, scikit-learn, statsmodels on complete data) on each resample."""
        ratings = self.ratings_world(120, 4, complete)
        codes, categories, names = codes_from_ratings(ratings)
        indices = np.random.default_rng(9).integers(0, len(codes), size=(200, len(codes)))
        draws = draws_from_indices(np.arange(len(codes)), indices)
        result = agreement_from_codes(codes, categories, names, draws=draws)
        reference = reference_bootstrap(ratings, indices)
        assert result["bootstrap"]["draws"] == 200
        alpha = result["intervals"]["krippendorff_alpha"]["bootstrap"]["ci95"]
        assert alpha == pytest.approx(percentiles(reference["krippendorff_alpha"]), abs=1e-9)
        assert result["alpha_ci95"] == alpha
        for index, pair in enumerate(result["cohen_kappa_pairs"]):
            assert pair["intervals"]["bootstrap"]["ci95"] == pytest.approx(
                percentiles(reference["pairs"][:, index]), abs=1e-9
            )
        mean = result["intervals"]["mean_cohen_kappa"]["bootstrap"]["ci95"]
        assert mean == pytest.approx(percentiles(np.nanmean(reference["pairs"], axis=1)))
        if complete:
            for name in ("fleiss_kappa", "percent_agreement"):
                assert result["intervals"][name]["bootstrap"]["ci95"] == pytest.approx(
                    percentiles(reference[name]), abs=1e-9
                )

    @RANDOMISED
    @given(studies(max_items=25))
    def test_the_estimate_is_the_draw_that_takes_every_item_once(self, ratings):
        """A draw taking each item once gives back every estimate, pairs and categories too."""
        codes, categories, names = codes_from_ratings(ratings)
        once = draws_from_indices(np.arange(len(codes)), np.arange(len(codes))[np.newaxis])
        result = agreement_from_codes(codes, categories, names, draws=once)
        for name, intervals in result["intervals"].items():
            if result[name] is not None and intervals["bootstrap"]["ci95"] is not None:
                assert intervals["bootstrap"]["ci95"][0] == pytest.approx(result[name], abs=1e-9)
        for pair in result["cohen_kappa_pairs"]:
            if pair["kappa"] is not None:
                ci = pair["intervals"]["bootstrap"]["ci95"]
                assert ci[0] == pytest.approx(pair["kappa"], abs=1e-9)
        for row in result["per_category"]:
            if row["kappa"] is not None:
                ci = row["intervals"]["kappa"]["bootstrap"]["ci95"]
                assert ci[0] == pytest.approx(row["kappa"], abs=1e-9)

    def test_seed_and_draws_are_stated_and_repeatable(self):
        ratings = self.ratings_world(200, 1, False)
        first = agreement(ratings, bootstrap=300, seed=5)
        assert first["bootstrap"]["draws"] == 300 and first["bootstrap"]["seed"] == 5
        assert "percentile bootstrap over items" in first["bootstrap"]["method"]
        assert agreement(ratings, bootstrap=300, seed=5)["intervals"] == first["intervals"]
        assert agreement(ratings, bootstrap=300, seed=6)["intervals"] != first["intervals"]


class TestDegenerateIntervals:
    def test_a_rare_category_is_flagged(self):
        """A category on 2 of 200 items: many draws hold none of it and have no kappa."""
        ratings = {i: {"a": "common", "b": "common"} for i in range(198)}
        ratings |= {198: {"a": "rare", "b": "rare"}, 199: {"a": "rare", "b": "common"}}
        result = agreement(ratings, bootstrap=500)
        (rare,) = [row for row in result["per_category"] if row["category"] == "rare"]
        flagged = rare["intervals"]["kappa"]["bootstrap"]
        assert flagged["undefined_draws"] > 50
        assert "draws have no value" in flagged["degenerate"]

    def test_perfect_agreement_has_an_interval_without_width(self):
        ratings = {i: {"a": f"c{i % 3}", "b": f"c{i % 3}"} for i in range(30)}
        interval = agreement(ratings, bootstrap=200)["intervals"]["krippendorff_alpha"]["bootstrap"]
        assert interval["ci95"] == [1.0, 1.0]
        assert "no width" in interval["degenerate"]


class TestHierarchyAlpha:
    @RANDOMISED
    @given(studies())
    def test_equals_krippendorff_with_the_path_distance(self, ratings):
        codes, categories, _ = codes_from_ratings(ratings)
        result = agreement(ratings, bootstrap=0, parent_distance=0.4)
        if not hierarchy.nested(categories) or result["krippendorff_alpha"] is None:
            assert result["hierarchy_alpha"] is None
            return
        table = hierarchy.path_distances(categories, 0.4)

        def metric(v1, v2, i1, i2, n_v, dtype=np.float64):
            return table[v1.astype(int), v2.astype(int)].astype(dtype)

        reliability = np.where(codes >= 0, codes, np.nan).T.astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = krippendorff.alpha(reliability_data=reliability, level_of_measurement=metric)
        found = result["hierarchy_alpha"]
        assert found["estimate"] == pytest.approx(expected, abs=1e-12)
        assert found["distances"] == {
            "same_path": 0.0,
            "same_top_category": 0.4,
            "otherwise": 1.0,
        }

    def test_parent_agreement_earns_partial_credit(self):
        ratings = {
            i: {"a": f"t{i % 4}/x", "b": f"t{i % 4}/{'x' if i % 3 else 'y'}"} for i in range(60)
        }
        result = agreement(ratings, bootstrap=200, parent_distance=0.5)
        full = agreement(ratings, bootstrap=0, parent_distance=1.0)["hierarchy_alpha"]
        assert full["estimate"] == pytest.approx(result["krippendorff_alpha"])
        found = result["hierarchy_alpha"]
        assert result["krippendorff_alpha"] < found["estimate"] < 1
        low, high = found["intervals"]["bootstrap"]["ci95"]
        assert low <= found["estimate"] <= high

    @pytest.mark.parametrize("value", [-0.1, 1.5, "half", True])
    def test_the_distance_is_checked(self, value):
        with pytest.raises(ValueError, match="parent_distance"):
            agreement({0: {"a": "x/y", "b": "x/z"}}, parent_distance=value)


class TestPairedDifferences:
    def test_windows_share_draws_and_report_the_change(self):
        careless = [(i, {"a": ("x", "y")[i % 2], "b": ("x", "y")[i % 3 == 0]}) for i in range(60)]
        careful = [(i, {"a": ("x", "y")[i % 2], "b": ("x", "y")[i % 2]}) for i in range(60, 120)]
        first, second = agreement_windows(careless + careful, size=60, bootstrap=400, seed=2)
        assert "change" not in first
        assert first["bootstrap"]["strata"] == "window"
        change = second["change"]["krippendorff_alpha"]
        expected = second["krippendorff_alpha"] - first["krippendorff_alpha"]
        assert change["estimate"] == pytest.approx(expected)
        low, high = change["bootstrap"]["ci95"]
        assert 0 < low < change["estimate"] <= high

    def test_stratified_draws_keep_each_stratum_size(self):
        keys = np.arange(30)[:, np.newaxis] % 4
        strata = np.repeat([0, 1, 2], [5, 10, 15])
        draws = make_draws(keys, draws=50, seed=1, strata=strata, strata_name="batch")
        for label, size in ((0, 5), (1, 10), (2, 15)):
            groups = np.unique(draws.group[strata == label])
            assert (draws.counts[groups].sum(axis=0) == size).all()

    def test_a_figure_must_take_whole_groups(self):
        draws = run_draws(np.zeros((10, 1), dtype=int), draws=5, seed=0)
        with pytest.raises(ValueError, match="whole groups"):
            draws.subset(np.arange(10) < 4)


class TestPerCategory:
    @RANDOMISED
    @given(studies())
    def test_each_category_against_the_rest_equals_the_references(self, ratings):
        """Alpha of the two-value data "c" / "anything else" equals the krippendorff library's;
        percent agreement and AC1 equal Gwet's formulas on that data (test_agreement)."""
        result = agreement(ratings, bootstrap=0)
        for row in result["per_category"]:
            binary = {
                item: {name: str(value == row["category"]) for name, value in by.items()}
                for item, by in ratings.items()
            }
            expected = agreement(binary, bootstrap=0)
            for key in ("percent_agreement", "gwet_ac1", "krippendorff_alpha"):
                if expected[key] is None or result["pairable_items"] == 0:
                    assert row[key] is None or expected[key] is None
                else:
                    assert row[key] == pytest.approx(expected[key], abs=1e-9)
            codes, _, _ = codes_from_ratings(binary)
            reliability = np.where(codes >= 0, codes, np.nan).T.astype(float)
            if row["krippendorff_alpha"] is not None:
                alpha = krippendorff.alpha(
                    reliability_data=reliability, level_of_measurement="nominal"
                )
                assert row["krippendorff_alpha"] == pytest.approx(alpha, abs=1e-9)

    def test_each_has_its_bootstrap_interval(self):
        ratings = {i: {"a": f"c{i % 3}", "b": f"c{(i + (i % 4 == 0)) % 3}"} for i in range(90)}
        row = agreement(ratings, bootstrap=200)["per_category"][0]
        assert set(row["intervals"]) == {
            "kappa",
            "percent_agreement",
            "gwet_ac1",
            "krippendorff_alpha",
        }
        for name, interval in row["intervals"].items():
            low, high = interval["bootstrap"]["ci95"]
            assert low <= row[name] <= high


@pytest.mark.parametrize("df", [1, 2, 11, 1000, 10**6])
def test_t_quantile_is_scipy_stats_t_ppf(df):
    assert t_quantile(0.975, df) == pytest.approx(student_t.ppf(0.975, df), rel=1e-12)
