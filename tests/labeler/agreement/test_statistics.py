"""labeler.agreement.statistics against published worked examples, reference libraries
(krippendorff, statsmodels, scikit-learn) and plain transcriptions of the published
formulas, on data with missing ratings; every degenerate case; the bootstrap."""

import json
import math
import subprocess
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score, confusion_matrix
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

from labeler.agreement.statistics import (
    agreement,
    agreement_from_codes,
    agreement_windows,
    alpha_band,
    codes_from_ratings,
    kappa_band,
    top_level,
)

ROOT = Path(__file__).resolve().parents[3]
# Reproducible examples (derandomize), no example database written into the work tree.
RANDOMISED = settings(max_examples=60, deadline=None, derandomize=True, database=None)
STATISTICS = (
    "percent_agreement",
    "mean_cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "alpha_ci95",
    "gwet_ac1",
)


def columns(table: dict[str, list]) -> dict:
    """{annotator: [value or None per item]} -> {item: {annotator: value}}."""
    n = len(next(iter(table.values())))
    return {
        item: {name: str(values[item]) for name, values in table.items() if values[item]}
        for item in range(n)
    }


def assert_plain(value) -> None:
    """JSON-ready: only dicts, lists, str, int, finite float, bool and None."""
    if isinstance(value, dict):
        assert all(isinstance(key, str) for key in value)
        for item in value.values():
            assert_plain(item)
    elif isinstance(value, list):
        for item in value:
            assert_plain(item)
    elif isinstance(value, float):
        assert math.isfinite(value)
    else:
        assert value is None or type(value) in (str, int, bool), type(value)


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", C: nominal data, four
# observers, 12 units, missing values. Gwet's Handbook uses the same table (irrCAC's
# raw_4raters), with unit 12's single rating given by observer C instead of B.
KRIPPENDORFF_2011 = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}
GWET_4RATERS = {
    "Rater1": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "Rater2": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, None],
    "Rater3": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
    "Rater4": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}
# Fleiss (1971), Table 1: 30 patients, 6 psychiatrists each, 1 depression, 2 personality
# disorder, 3 schizophrenia, 4 neurosis, 5 other (the diagnoses, not who gave them).
FLEISS_1971 = [
    "444444", "222555", "233335", "555555", "222444", "113333", "333355", "113334",
    "114444", "555555", "144444", "124444", "222333", "144444", "224445", "333335",
    "111455", "111112", "224444", "133555", "555555", "244444", "224555", "114444",
    "144445", "222224", "111155", "224444", "133333", "555555",
]  # fmt: skip


def fleiss_1971() -> dict:
    return {item: {f"psychiatrist{j}": d for j, d in enumerate(row)} for item, row in
            enumerate(FLEISS_1971)}  # fmt: skip


def pairs_table(table: list[list[int]], labels: list[str]) -> dict:
    """A two-rater contingency table (rows: rater a) as ratings."""
    ratings, item = {}, 0
    for i, row in enumerate(table):
        for j, count in enumerate(row):
            for _ in range(count):
                ratings[item] = {"a": labels[i], "b": labels[j]}
                item += 1
    return ratings


class TestPublishedExamples:
    def test_krippendorff_2011_nominal_with_missing_values(self):
        result = agreement(columns(KRIPPENDORFF_2011))
        assert round(result["krippendorff_alpha"], 3) == 0.743
        assert result["items"] == 12
        assert result["pairable_items"] == 11
        assert result["ratings"] == 41
        assert result["interpretation"] == "tentative"

    def test_krippendorff_2011_binary_two_observers(self):
        result = agreement(
            columns(
                {
                    "A": ["0", "1", "0", "0", "0", "0", "0", "0", "1", "0"],
                    "B": ["1", "1", "1", "0", "0", "1", "0", "0", "0", "0"],
                }
            )
        )
        assert round(result["krippendorff_alpha"], 3) == 0.095

    def test_fleiss_1971(self):
        result = agreement(fleiss_1971())
        assert round(result["fleiss_kappa"], 3) == 0.430
        assert round(result["percent_agreement"], 3) == 0.556
        kappas = [round(row["kappa"], 3) for row in result["per_category"]]
        assert kappas == [0.245, 0.245, 0.520, 0.471, 0.566]
        shares = [round(row["count"] / 180, 3) for row in result["per_category"]]
        assert shares == [0.144, 0.144, 0.167, 0.306, 0.239]

    def test_gwet_handbook_four_raters(self):
        """Gwet's Handbook of Inter-Rater Reliability, 4 raters x 12 subjects: p_a 0.8182,
        Fleiss' kappa 0.7612 (p_e 0.2387), AC1 0.7754 (p_e 0.1903)."""
        result = agreement(columns(GWET_4RATERS))
        assert round(result["percent_agreement"], 4) == 0.8182
        assert round(result["fleiss_kappa"], 4) == 0.7612
        assert round(result["gwet_ac1"], 4) == 0.7754
        assert round(result["krippendorff_alpha"], 3) == 0.743

    def test_cohen_two_by_two(self):
        """The 50 grant proposals of Wikipedia's Cohen's kappa article: p_o 0.7, kappa 0.4."""
        result = agreement(pairs_table([[20, 5], [10, 15]], ["yes", "no"]))
        assert result["cohen_kappa_pairs"][0]["kappa"] == pytest.approx(0.4)
        assert result["percent_agreement"] == pytest.approx(0.7)

    def test_cohen_fleiss_levin_paik_three_diagnoses(self):
        """Fleiss, Levin & Paik, Statistical Methods for Rates and Proportions, Table 18.1:
        p_o 0.89, p_e 0.66, kappa 0.68."""
        result = agreement(
            pairs_table([[75, 1, 4], [5, 4, 1], [0, 0, 10]], ["psychotic", "neurotic", "organic"])
        )
        pair = result["cohen_kappa_pairs"][0]
        assert round(pair["kappa"], 2) == 0.68
        assert pair["kappa"] == pytest.approx(0.23 / 0.34)
        assert pair["items"] == 100

    def test_kappa_paradox_one_category_dominates(self):
        """95% agreement on a category that 95% of the ratings use: kappa near zero, AC1
        near the agreement (Gwet 2008, Feinstein & Cicchetti 1990)."""
        result = agreement(pairs_table([[95, 3], [2, 0]], ["common", "rare"]))
        assert result["percent_agreement"] == pytest.approx(0.95)
        assert result["cohen_kappa_pairs"][0]["kappa"] < 0
        assert result["gwet_ac1"] > 0.9
        assert result["bands"]["gwet_ac1"] == "almost perfect"


# Random studies: annotators who copy an item's true category with some probability.
@st.composite
def studies(draw, multiple=False, max_items=25, max_annotators=5):
    names = [f"user{i}" for i in range(draw(st.integers(1, max_annotators)))]
    paths = [f"c{i}/s{j}" for i in range(3) for j in range(2)][: draw(st.integers(1, 6))]
    value = (
        st.frozensets(st.sampled_from(paths), max_size=3) if multiple else st.sampled_from(paths)
    )
    agreeing = draw(st.floats(0, 1))
    ratings = {}
    for item in range(draw(st.integers(0, max_items))):
        truth = draw(value)
        row = {}
        for name in names:
            if draw(st.booleans()) or draw(st.booleans()):
                row[name] = truth if draw(st.floats(0, 1)) < agreeing else draw(value)
        ratings[f"item{item}"] = row
    return ratings


def rated_items(ratings: dict) -> list[list]:
    return [list(row.values()) for row in ratings.values() if row]


def gwet_formulas(ratings: dict) -> tuple:
    """Percent agreement (annotator pair by pair), and Gwet's generalised Fleiss' kappa and
    AC1 transcribed from the Handbook, item by item."""
    items = rated_items(ratings)
    pairable = [values for values in items if len(values) >= 2]
    if not pairable:
        return None, None, None
    pa = sum(
        sum(x == y for x, y in combinations(values, 2)) / math.comb(len(values), 2)
        for values in pairable
    ) / len(pairable)
    categories = {value for values in items for value in values}
    if len(categories) == 1:
        return pa, None, None
    share = {
        c: sum(Counter(values)[c] / len(values) for values in items) / len(items)
        for c in categories
    }
    pe_fleiss = sum(p * p for p in share.values())
    pe_ac1 = sum(p * (1 - p) for p in share.values()) / (len(categories) - 1)
    return pa, (pa - pe_fleiss) / (1 - pe_fleiss), (pa - pe_ac1) / (1 - pe_ac1)


def masi(a: frozenset, b: frozenset) -> float:
    """MASI distance (Passonneau 2006), from its definition."""
    if a == b:
        return 0.0
    monotonicity = 2 / 3 if a <= b or b <= a else 1 / 3 if a & b else 0.0
    return 1 - len(a & b) / len(a | b) * monotonicity


def reference_alpha(ratings: dict, multiple: bool) -> float | None:
    """The krippendorff library's alpha (MASI through its callable metric); None where it
    refuses the data or has no expected disagreement."""
    codes, categories, _ = codes_from_ratings(ratings, multiple=multiple)
    reliability = np.where(codes >= 0, codes, np.nan).T.astype(float)
    metric = "nominal"
    if multiple:
        table = np.array([[masi(a, b) for b in categories] for a in categories])

        def metric(v1, v2, i1, i2, n_v, dtype=np.float64):
            return table[v1.astype(int), v2.astype(int)].astype(dtype)

    try:
        with np.errstate(invalid="ignore", divide="ignore"):
            alpha = krippendorff.alpha(reliability_data=reliability, level_of_measurement=metric)
    except ValueError:
        return None
    return None if np.isnan(alpha) else float(alpha)


class TestAgainstReferences:
    @RANDOMISED
    @given(studies())
    def test_percent_agreement_fleiss_and_ac1_follow_gwet(self, ratings):
        result = agreement(ratings, bootstrap=0)
        expected = gwet_formulas(ratings)
        for key, value in zip(
            ("percent_agreement", "fleiss_kappa", "gwet_ac1"), expected, strict=True
        ):
            if value is None:
                assert result[key] is None
            else:
                assert result[key] == pytest.approx(value, abs=1e-12)

    @RANDOMISED
    @given(studies(), st.booleans())
    def test_alpha_equals_krippendorff_library(self, ratings, multiple):
        if multiple:
            ratings = {
                item: {name: frozenset({value, value.split("/")[0]}) for name, value in row.items()}
                for item, row in ratings.items()
            }
        expected = reference_alpha(ratings, multiple)
        alpha = agreement(ratings, multiple=multiple, bootstrap=0)["krippendorff_alpha"]
        assert (alpha is None) == (expected is None)
        if expected is not None:
            assert alpha == pytest.approx(expected, abs=1e-12)

    @RANDOMISED
    @given(studies(multiple=True))
    def test_masi_alpha_equals_krippendorff_library(self, ratings):
        expected = reference_alpha(ratings, True)
        result = agreement(ratings, multiple=True, bootstrap=0)
        assert result["alpha_distance"] == "masi"
        assert (result["krippendorff_alpha"] is None) == (expected is None)
        if expected is not None:
            assert result["krippendorff_alpha"] == pytest.approx(expected, abs=1e-12)

    @RANDOMISED
    @given(studies())
    def test_cohen_pairs_equal_scikit_learn_and_statsmodels(self, ratings):
        result = agreement(ratings, bootstrap=0)
        names = sorted({name for row in ratings.values() for name in row})
        assert [pair["annotators"] for pair in result["cohen_kappa_pairs"]] == [
            list(pair) for pair in combinations(names, 2)
        ]
        for pair, confusion in zip(result["cohen_kappa_pairs"], result["confusion"], strict=True):
            a, b = pair["annotators"]
            shared = [(row[a], row[b]) for row in ratings.values() if a in row and b in row]
            assert pair["items"] == len(shared)
            labels = sorted({value for both in shared for value in both})
            assert confusion["categories"] == labels
            if len(labels) < 2:
                assert pair["kappa"] is None and pair["ci95"] is None
                continue
            first, second = zip(*shared, strict=True)
            table = confusion_matrix(first, second, labels=labels)
            assert confusion["matrix"] == table.tolist()
            assert pair["kappa"] == pytest.approx(cohen_kappa_score(first, second), abs=1e-12)
            with np.errstate(invalid="ignore", divide="ignore"):
                reference = cohens_kappa(table)
            low, high = pair["ci95"]
            assert low == pytest.approx(max(-1.0, reference.kappa_low), abs=1e-9)
            assert high == pytest.approx(min(1.0, reference.kappa_upp), abs=1e-9)

    @RANDOMISED
    @given(st.integers(2, 6), st.integers(2, 20), st.integers(2, 5), st.integers(0, 2**32 - 1))
    def test_fleiss_on_complete_data_equals_statsmodels(self, raters, items, categories, seed):
        rng = np.random.default_rng(seed)
        data = rng.integers(0, categories, size=(items, raters))
        ratings = {i: {f"r{j}": f"c{data[i, j]}" for j in range(raters)} for i in range(items)}
        result = agreement(ratings, bootstrap=0)
        counts, _ = aggregate_raters(data)
        if counts.shape[1] < 2:
            assert result["fleiss_kappa"] is None
            return
        assert result["fleiss_kappa"] == pytest.approx(fleiss_kappa(counts), abs=1e-12)
        for column, row in enumerate(result["per_category"]):
            binary = np.stack([counts[:, column], raters - counts[:, column]], axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                expected = fleiss_kappa(binary)
            if row["kappa"] is None:
                assert np.isnan(expected)
            else:
                assert row["kappa"] == pytest.approx(expected, abs=1e-12)

    @RANDOMISED
    @given(studies(), st.booleans())
    def test_per_category_kappa_is_fleiss_of_the_category_against_the_rest(self, ratings, multiple):
        if multiple:
            ratings = {
                item: {name: frozenset({value, value.split("/")[0]}) for name, value in row.items()}
                for item, row in ratings.items()
            }
        result = agreement(ratings, multiple=multiple, bootstrap=0)
        for row in result["per_category"]:
            category = row["category"]

            def uses(value, category=category):
                return category in value if multiple else value == category

            binary = {
                item: {name: "yes" if uses(value) else "no" for name, value in by.items()}
                for item, by in ratings.items()
            }
            assert row["by_annotator"] == {
                name: sum(uses(by[name]) for by in ratings.values() if name in by)
                for name in sorted({name for by in ratings.values() for name in by})
            }
            assert row["count"] == sum(row["by_annotator"].values())
            if row["kappa"] is not None:
                expected = agreement(binary, bootstrap=0)["fleiss_kappa"]
                assert row["kappa"] == pytest.approx(expected, abs=1e-12)

    @RANDOMISED
    @given(studies(), st.integers(1, 5))
    def test_most_confused_counts_every_disagreeing_pair_once(self, ratings, most_confused):
        result = agreement(ratings, bootstrap=0, most_confused=most_confused)
        expected = Counter()
        for row in ratings.values():
            for (_, x), (_, y) in combinations(sorted(row.items()), 2):
                if x != y:
                    expected[tuple(sorted((x, y)))] += 1
        ranked = sorted(expected.items(), key=lambda kv: (-kv[1], kv[0]))[:most_confused]
        assert [
            (tuple(row["categories"]), row["count"]) for row in result["most_confused"]
        ] == ranked

    @RANDOMISED
    @given(studies(), st.booleans())
    def test_every_result_is_plain_json(self, ratings, multiple):
        if multiple:
            ratings = {
                item: {name: frozenset({value}) for name, value in row.items()}
                for item, row in ratings.items()
            }
        result = agreement(ratings, multiple=multiple, bootstrap=50)
        assert_plain(result)
        json.dumps(result, allow_nan=False)
        for key in STATISTICS:
            if result[key] is None and result["items"]:
                assert result["notes"], key


class TestFastPathAndWindows:
    @RANDOMISED
    @given(studies())
    def test_codes_with_unused_values_annotators_and_items_give_the_same_answer(self, ratings):
        ratings = {item: row for item, row in ratings.items() if row}
        codes, categories, annotators = codes_from_ratings(ratings)
        padded = np.full((len(codes) + 1, len(annotators) + 1), -1)
        padded[1:, 1:] = codes
        result = agreement_from_codes(
            padded, [*categories, "zz unused"], ["nobody", *annotators], bootstrap=30
        )
        expected = agreement(ratings, bootstrap=30)
        extra = [note for note in result["notes"] if note not in expected["notes"]]
        assert extra == ["1 item without any rating: left out"]
        assert {**result, "notes": None} == {**expected, "notes": None}

    @RANDOMISED
    @given(studies(max_items=30), st.integers(1, 12))
    def test_each_window_equals_agreement_on_its_items(self, ratings, size):
        """Estimates equal; the intervals come from the windows' shared draws (below)."""
        in_order = list(ratings.items())
        windows = agreement_windows(in_order, size=size, bootstrap=0, seed=3)
        assert len(windows) == math.ceil(len(in_order) / size)
        for number, window in enumerate(windows, start=1):
            first, last = (number - 1) * size + 1, min(number * size, len(in_order))
            assert (window["window"], window["first"], window["last"]) == (number, first, last)
            alone = agreement(dict(in_order[first - 1 : last]), bootstrap=0, seed=3)
            assert {
                k: v for k, v in window.items() if k not in ("window", "first", "last", "change")
            } == alone

    def test_windows_show_agreement_improving(self):
        careless = [(i, {"a": "x" if i % 2 else "y", "b": "x"}) for i in range(20)]
        careful = [(i, {"a": ("x", "y")[i % 2], "b": ("x", "y")[i % 2]}) for i in range(20, 40)]
        first, second = agreement_windows(careless + careful, size=20)
        assert first["krippendorff_alpha"] < 0.2 < 0.99 < second["krippendorff_alpha"]
        assert second["alpha_ci95"] is None
        assert "alpha_ci95: no bootstrap asked for (bootstrap=0)" in second["notes"]


class TestBootstrap:
    def ratings_world(self, items: int, seed: int) -> dict:
        rng = np.random.default_rng(seed)
        ratings = {}
        for item in range(items):
            truth = rng.integers(0, 4)
            row = {
                name: f"c{truth if rng.random() < 0.7 else rng.integers(0, 4)}"
                for name in ("a", "b", "c")
                if rng.random() < 0.8
            }
            ratings[item] = row
        return ratings

    def test_same_input_and_seed_same_interval_whatever_the_item_order(self):
        ratings = self.ratings_world(300, 1)
        shuffled = dict(reversed(list(ratings.items())))
        first = agreement(ratings, seed=7)["alpha_ci95"]
        assert agreement(ratings, seed=7)["alpha_ci95"] == first
        assert agreement(shuffled, seed=7)["alpha_ci95"] == first
        assert agreement(ratings, seed=8)["alpha_ci95"] != first

    def test_interval_matches_resampling_the_items_one_by_one(self):
        """Drawing profile counts from a multinomial is resampling items: a plain bootstrap
        over the items (with the reference library's alpha) gives the same percentiles, up
        to Monte Carlo error (about 0.003 here; the bound is several times that)."""
        ratings = self.ratings_world(400, 2)
        result = agreement(ratings, bootstrap=2000, seed=0)
        pairable = [row for row in ratings.values() if len(row) >= 2]
        reliability = np.array(
            [
                [float(row[name][1:]) if name in row else np.nan for name in "abc"]
                for row in pairable
            ]
        ).T
        rng = np.random.default_rng(1)
        plain = [
            krippendorff.alpha(
                reliability_data=reliability[:, rng.integers(0, len(pairable), len(pairable))],
                level_of_measurement="nominal",
            )
            for _ in range(2000)
        ]
        low, high = np.percentile(plain, [2.5, 97.5])
        assert result["alpha_ci95"][0] == pytest.approx(low, abs=0.012)
        assert result["alpha_ci95"][1] == pytest.approx(high, abs=0.012)
        assert result["alpha_ci95"][0] < result["krippendorff_alpha"] < result["alpha_ci95"][1]

    def test_draws_taken_in_many_blocks_give_the_same_interval(self, monkeypatch):
        """Memory is bounded by computing the draws in blocks; the draws are the same."""
        import labeler.agreement.intervals as module

        ratings = self.ratings_world(200, 3)
        whole = agreement(ratings, bootstrap=2000)
        monkeypatch.setattr(module, "BOOTSTRAP_BLOCK", 1000)
        blocked = agreement(ratings, bootstrap=2000)
        for name, intervals in whole["intervals"].items():
            expected = intervals["bootstrap"]["ci95"]
            assert blocked["intervals"][name]["bootstrap"]["ci95"] == pytest.approx(expected)
        assert blocked["alpha_ci95"] == pytest.approx(whole["alpha_ci95"], abs=1e-12)
        assert not any(note.startswith("alpha_ci95") for note in blocked["notes"])

    def test_draws_with_a_single_value_are_left_out_and_said(self):
        ratings = {0: {"a": "x", "b": "x"}, 1: {"a": "y", "b": "y"}}
        result = agreement(ratings, bootstrap=400)
        assert result["krippendorff_alpha"] == 1.0
        assert result["alpha_ci95"] == [1.0, 1.0]
        (note,) = [n for n in result["notes"] if n.startswith("alpha_ci95")]
        left_out = int(note.split(": ")[1].split(" of ")[0])
        assert 150 < left_out < 250  # both items the same: probability 1/2 per draw


class TestDegenerateCases:
    def test_no_ratings(self):
        for ratings in ({}, {"a": {}, "b": {}}):
            result = agreement(ratings)
            assert (result["items"], result["pairable_items"], result["ratings"]) == (0, 0, 0)
            assert all(result[key] is None for key in STATISTICS)
            assert result["cohen_kappa_pairs"] == result["per_category"] == []
            assert "no ratings: there is nothing to compute" in result["notes"]
            assert_plain(result)
        assert "2 items without any rating: left out" in agreement({"a": {}, "b": {}})["notes"]

    def test_one_annotator(self):
        result = agreement({i: {"solo": f"c{i % 3}"} for i in range(9)})
        assert result["annotators"] == 1 and result["pairable_items"] == 0
        assert all(result[key] is None for key in STATISTICS)
        assert result["cohen_kappa_pairs"] == result["confusion"] == result["most_confused"] == []
        assert [row["by_annotator"] for row in result["per_category"]] == [{"solo": 3}] * 3
        assert all(row["kappa"] is None for row in result["per_category"])
        assert "a single annotator rated: no pair to compare" in result["notes"]
        assert any(note.startswith("no item has two or more ratings") for note in result["notes"])

    def test_no_pairable_items(self):
        ratings = {i: {("a", "b")[i % 2]: f"c{i % 3}"} for i in range(12)}
        result = agreement(ratings)
        assert all(result[key] is None for key in STATISTICS)
        (pair,) = result["cohen_kappa_pairs"]
        assert pair == {
            "annotators": ["a", "b"],
            "items": 0,
            "kappa": None,
            "ci95": None,
            "intervals": {"bootstrap": None, "fleiss-cohen-everitt": None},
        }
        assert "cohen_kappa a / b: they rated no item in common" in result["notes"]
        assert "mean_cohen_kappa: no annotator pair has a defined kappa" in result["notes"]

    @pytest.mark.parametrize("multiple", [False, True])
    def test_perfect_agreement_with_one_category(self, multiple):
        value = frozenset({"bug/crash"}) if multiple else "bug/crash"
        result = agreement({i: {"a": value, "b": value, "c": value} for i in range(5)},
                           multiple=multiple)  # fmt: skip
        assert result["percent_agreement"] == 1.0
        for key in ("mean_cohen_kappa", "fleiss_kappa", "krippendorff_alpha", "gwet_ac1"):
            assert result[key] is None
        assert result["interpretation"] is None
        label = "{bug/crash}" if multiple else "bug/crash"
        assert any(
            note.startswith(f"every rating is {label}: chance-corrected coefficients")
            for note in result["notes"]
        )
        assert all(pair["kappa"] is None for pair in result["cohen_kappa_pairs"])
        assert result["per_category"][0]["kappa"] is None
        assert result["per_category"][0]["count"] == 15
        assert result["most_confused"] == []
        assert_plain(result)

    @pytest.mark.parametrize("multiple", [False, True])
    def test_no_coefficient_when_every_rating_is_empty(self, multiple):
        """Agreeing on nothing chosen is no agreement: no 1.0 computed over nothing."""
        value = frozenset() if multiple else "(none)"
        ratings = {i: {"a": value, "b": value} for i in range(12)}
        result = agreement(ratings, multiple=multiple, empty="(none)")
        assert all(result[key] is None for key in STATISTICS)
        assert result["interpretation"] is None
        assert result["ratings"] == 24
        label = "{}" if multiple else "(none)"
        said = f"every rating is {label} (no category chosen): there is no agreement to measure"
        assert any(note.startswith(said) for note in result["notes"])
        assert not any("percent agreement is 1.0" in note for note in result["notes"])
        windows = agreement_windows(
            list(ratings.items()), size=5, multiple=multiple, empty="(none)"
        )
        assert all(window["percent_agreement"] is None for window in windows)

    def test_perfect_agreement_with_several_categories(self):
        result = agreement({i: {"a": f"c{i % 3}", "b": f"c{i % 3}"} for i in range(30)})
        for key in ("percent_agreement", "mean_cohen_kappa", "fleiss_kappa", "gwet_ac1"):
            assert result[key] == pytest.approx(1.0)
        assert result["krippendorff_alpha"] == 1.0
        assert result["alpha_ci95"] == [1.0, 1.0]
        assert result["interpretation"] == "reliable"
        assert result["bands"]["fleiss_kappa"] == "almost perfect"
        assert result["most_confused"] == []

    def test_pair_that_used_one_category_on_their_shared_items(self):
        ratings = {0: {"a": "x", "b": "x"}, 1: {"a": "x", "b": "x"}, 2: {"a": "y", "c": "x"}}
        result = agreement(ratings)
        by_pair = {tuple(p["annotators"]): p for p in result["cohen_kappa_pairs"]}
        assert by_pair["a", "b"]["kappa"] is None and by_pair["a", "b"]["items"] == 2
        assert by_pair["a", "c"]["kappa"] == 0.0
        assert (
            "cohen_kappa a / b: undefined: on their 2 shared items both used only x"
            " (chance agreement is 1)" in result["notes"]
        )
        assert (
            "mean_cohen_kappa: mean over the 1 of 3 annotator pairs whose kappa is defined"
            in (result["notes"])
        )

    def test_alpha_without_expected_disagreement_among_pairable_items(self):
        ratings = {0: {"a": "x", "b": "x"}, 1: {"a": "x", "b": "x"}, 2: {"a": "y"}}
        result = agreement(ratings)
        assert result["krippendorff_alpha"] is None and result["alpha_ci95"] is None
        assert any(note.startswith("krippendorff_alpha: undefined") for note in result["notes"])
        assert result["fleiss_kappa"] == pytest.approx(gwet_formulas(ratings)[1])
        assert "1 item with a single rating: left out of" in " ".join(result["notes"])
        (y,) = [row for row in result["per_category"] if row["category"] == "y"]
        assert y["kappa"] is None
        assert (
            "per_category kappa undefined for y: used only on items with a single rating"
            in (result["notes"])
        )

    def test_multi_select_path_in_every_rating(self):
        ratings = {
            0: {"a": frozenset({"bug", "ui"}), "b": frozenset({"bug"})},
            1: {"a": frozenset({"bug"}), "b": frozenset({"bug"})},
        }
        result = agreement(ratings, multiple=True)
        bug, ui = result["per_category"]
        assert (bug["category"], bug["count"], bug["kappa"]) == ("bug", 4, None)
        assert ui["by_annotator"] == {"a": 1, "b": 0}
        assert "per_category kappa undefined for bug: every rating uses it" in result["notes"]
        assert result["confusion"][0]["categories"] == [["bug"], ["bug", "ui"]]
        assert result["most_confused"] == [{"categories": [["bug"], ["bug", "ui"]], "count": 1}]
        assert result["notes"][0].startswith("multi-select:")

    def test_multi_select_with_only_empty_sets(self):
        result = agreement({0: {"a": frozenset(), "b": frozenset()}}, multiple=True)
        # Nobody chose a category: no agreement to measure, not a percent agreement of 1.
        assert result["percent_agreement"] is None
        assert result["krippendorff_alpha"] is None
        assert result["per_category"] == []
        assert result["confusion"][0]["categories"] == [[]]
        assert_plain(result)

    def test_empty_set_is_a_value_of_its_own(self):
        ratings = {
            0: {"a": frozenset(), "b": frozenset()},
            1: {"a": frozenset({"x"}), "b": frozenset({"x", "y"})},
            2: {"a": frozenset({"y"}), "b": frozenset()},
        }
        result = agreement(ratings, multiple=True, bootstrap=0)
        assert result["krippendorff_alpha"] == pytest.approx(reference_alpha(ratings, True))


class TestBandsAndLevels:
    @pytest.mark.parametrize(
        ("x", "band"),
        [(None, None), (-0.01, "poor"), (0.0, "slight"), (0.2, "slight"), (0.21, "fair"),
         (0.4, "fair"), (0.41, "moderate"), (0.6, "moderate"), (0.61, "substantial"),
         (0.8, "substantial"), (0.81, "almost perfect"), (1.0, "almost perfect")],
    )  # fmt: skip
    def test_landis_koch(self, x, band):
        assert kappa_band(x) == band
        assert kappa_band(x, "landis_koch") == band

    @pytest.mark.parametrize(
        ("x", "band"),
        [(None, None), (-0.5, "poor"), (0.0, "poor"), (0.399, "poor"), (0.4, "fair to good"),
         (0.6, "fair to good"), (0.75, "fair to good"), (0.751, "excellent"),
         (1.0, "excellent")],
    )  # fmt: skip
    def test_fleiss_1981(self, x, band):
        assert kappa_band(x, "fleiss") == band

    @pytest.mark.parametrize(
        ("x", "band"),
        [(None, None), (-0.2, "poor"), (0.0, "poor"), (0.2, "poor"), (0.21, "fair"),
         (0.4, "fair"), (0.41, "moderate"), (0.6, "moderate"), (0.61, "good"), (0.8, "good"),
         (0.81, "very good"), (1.0, "very good")],
    )  # fmt: skip
    def test_altman_1991(self, x, band):
        assert kappa_band(x, "altman") == band

    @pytest.mark.parametrize("scale", ["", "Fleiss", "cohen", None])
    def test_an_unknown_scale_is_refused_naming_it(self, scale):
        with pytest.raises(ValueError, match="kappa_scale"):
            kappa_band(0.5, scale)
        with pytest.raises(ValueError, match="kappa_scale"):
            agreement({0: {"a": "x", "b": "x"}}, bootstrap=0, kappa_scale=scale)

    def test_the_chosen_scale_bands_the_kappas_and_ac1_and_says_so(self):
        # Two annotators agreeing on 9 of 12 items over 2 categories: kappas near 0.5.
        ratings = {i: {"a": "x" if i % 2 else "y", "b": "x" if i % 2 else "y"} for i in range(9)}
        ratings |= {9: {"a": "x", "b": "y"}, 10: {"a": "y", "b": "x"}, 11: {"a": "x", "b": "y"}}
        default = agreement(ratings, bootstrap=0)
        fleiss = agreement(ratings, bootstrap=0, kappa_scale="fleiss")
        for key in ("mean_cohen_kappa", "fleiss_kappa", "gwet_ac1"):
            assert 0.4 < fleiss[key] <= 0.6
            assert default["bands"][key] == "moderate"
            assert fleiss["bands"][key] == "fair to good"
            assert default["band_scales"][key] == "Landis and Koch (1977)"
            assert fleiss["band_scales"][key] == "Fleiss (1981)"
        # Alpha keeps Krippendorff's whatever the kappas' scale.
        assert fleiss["bands"]["krippendorff_alpha"] == default["bands"]["krippendorff_alpha"]
        assert fleiss["band_scales"]["krippendorff_alpha"] == "Krippendorff (2004)"

    @pytest.mark.parametrize(
        ("x", "band"),
        [(None, None), (-0.3, "unreliable"), (0.666, "unreliable"), (0.667, "tentative"),
         (0.799, "tentative"), (0.8, "reliable"), (1.0, "reliable")],
    )  # fmt: skip
    def test_krippendorff(self, x, band):
        assert alpha_band(x) == band

    def test_top_level(self):
        assert top_level("memory/leak/heap") == "memory"
        assert top_level("memory") == "memory"
        assert top_level(frozenset({"a/b", "a/c", "d"})) == frozenset({"a", "d"})


class TestInput:
    @pytest.mark.parametrize(
        ("value", "multiple", "message"),
        [
            (frozenset({"x"}), False, "is not a category path"),
            (["x"], False, "is not a category path"),
            (None, False, "is not a category path"),
            ("x", True, "is not a frozenset of category paths"),
            (frozenset({1}), True, "is not a frozenset of category paths"),
        ],
    )
    def test_a_bad_value_names_its_item_and_annotator(self, value, multiple, message):
        ok = frozenset({"x"}) if multiple else "x"
        ratings = {"r1": {"ann": ok, "bob": ok}, "r2": {"ann": ok, "bob": value}}
        with pytest.raises(ValueError, match=f"item 'r2', annotator 'bob': .*{message}"):
            agreement(ratings, multiple=multiple)

    def test_an_annotator_that_is_not_a_username(self):
        with pytest.raises(ValueError, match="item 'r1': annotator 7 is not a username"):
            agreement({"r1": {7: "x"}})

    @pytest.mark.parametrize("keyword", ["bootstrap", "most_confused"])
    @pytest.mark.parametrize("number", [-1, 1.5, True])
    def test_counts_are_whole_numbers(self, keyword, number):
        with pytest.raises(ValueError, match=keyword):
            agreement({"r1": {"a": "x"}}, **{keyword: number})

    def test_window_size(self):
        with pytest.raises(ValueError, match="size: a window holds at least one item, got 0"):
            agreement_windows([], size=0)

    def test_codes_are_checked(self):
        with pytest.raises(ValueError, match=r"found -2\.\.0"):
            agreement_from_codes(np.array([[0, -2]]), ["x"], ["a", "b"])
        with pytest.raises(ValueError, match="2 annotator columns but 1 annotators"):
            agreement_from_codes(np.array([[0, 0]]), ["x"], ["a"])
        with pytest.raises(ValueError, match="annotators: each username once"):
            agreement_from_codes(np.array([[0, 0]]), ["x"], ["a", "a"])
        with pytest.raises(ValueError, match="is not a frozenset"):
            agreement_from_codes(np.array([[0, 0]]), ["x"], ["a", "b"], multiple=True)


def test_importing_the_module_loads_no_django_or_celery():
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, labeler.agreement.statistics; print(sorted({m.split('.')[0] for m in"
            " sys.modules} & {'django', 'celery', 'rest_framework', 'config', 'scipy'}))",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert loaded.stdout.strip() == "[]"


def test_resampled_profile_counts_have_the_multinomial_distribution():
    """Rare profiles (thrown into by item) and frequent ones (a multinomial cell each) are
    taken as often as when the items are drawn one by one: each count is binomial(n, w/n)
    and two counts covary by -n p q. The bounds are 5 standard errors of 20,000 draws."""
    from labeler.agreement.intervals import RARE_WEIGHT
    from labeler.agreement.intervals import resample_counts as _resample_counts

    weights = np.array([1, 1, 1, 2, 2, RARE_WEIGHT, RARE_WEIGHT + 1, 60, 100])
    n, draws = int(weights.sum()), 20_000
    counts = _resample_counts(np.random.default_rng(5), weights, draws)
    assert counts.shape == (len(weights), draws)
    assert (counts.sum(axis=0) == n).all()
    p = weights / n
    variance = n * p * (1 - p)
    assert np.all(np.abs(counts.mean(axis=1) - weights) < 5 * np.sqrt(variance / draws))
    assert np.all(np.abs(counts.var(axis=1) / variance - 1) < 5 * np.sqrt(2 / draws))
    covariance = np.cov(counts)
    for i, j in [(0, 1), (3, 4), (0, 7), (7, 8)]:
        expected = -n * p[i] * p[j]
        assert abs(covariance[i, j] - expected) < 5 * np.sqrt(variance[i] * variance[j] / draws)
