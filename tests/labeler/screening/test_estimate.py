import numpy as np
import ppi_py
import pytest

from labeler.screening import estimate


def _world(seed=7, big_n=20_000, n=300):
    rng = np.random.default_rng(seed)
    truth_all = (rng.random(big_n + n) < 0.15).astype(float)
    # A biased model: overestimates every score.
    scores_all = np.clip(truth_all * 0.6 + rng.random(big_n + n) * 0.5, 0, 1)
    return truth_all[:n], scores_all[:n], scores_all[n:], truth_all


@pytest.mark.parametrize("weight", [None, 1.0, 0.0])
def test_ppi_matches_the_authors_ppi_python(weight):
    truth, scores, unlabelled, _ = _world()
    mine = estimate.ppi_share(truth, scores, unlabelled, weight=weight)
    low, high = ppi_py.ppi_mean_ci(truth, scores, unlabelled, alpha=0.05, lam=weight)
    point = ppi_py.ppi_mean_pointestimate(truth, scores, unlabelled, lam=weight)
    assert mine.estimate == pytest.approx(float(np.ravel(point)[0]))
    assert (mine.low, mine.high) == pytest.approx((float(low[0]), float(high[0])))
    assert "prediction-powered" in mine.method


def test_ppi_is_tighter_than_the_random_sample_alone_and_covers_the_truth():
    truth, scores, unlabelled, truth_all = _world()
    ppi = estimate.ppi_share(truth, scores, unlabelled)
    alone = estimate.random_sample_share(truth)
    assert ppi.high - ppi.low < alone.high - alone.low
    assert ppi.low <= truth_all.mean() <= ppi.high
    assert "random sample" in alone.method


def test_ppi_covers_the_truth_about_95_times_in_100():
    covered = 0
    for seed in range(200):
        truth, scores, unlabelled, truth_all = _world(seed=seed, big_n=5_000, n=200)
        ppi = estimate.ppi_share(truth, scores, unlabelled)
        covered += ppi.low <= truth_all[200:].mean() <= ppi.high
    assert 180 <= covered <= 200


def test_the_wilson_interval_by_hand():
    # 10 of 100: Wilson's 95 % interval is 0.0552 to 0.1744 (by hand from its formula).
    share = estimate.random_sample_share([1] * 10 + [0] * 90)
    assert share.estimate == 0.1
    assert (share.low, share.high) == pytest.approx((0.05523, 0.17437), abs=1e-4)


def test_no_random_labels_no_estimate():
    with pytest.raises(ValueError, match="random batch"):
        estimate.random_sample_share([])


def test_positives_remaining_on_a_calibrated_world():
    rng = np.random.default_rng(11)
    scores = rng.random(3_000)
    truth = (rng.random(3_000) < scores).astype(int)  # scores are the true chances
    labelled, unlabelled = slice(0, 500), slice(500, None)
    left = estimate.positives_remaining(
        truth[labelled], scores[labelled], scores[unlabelled], draws=300
    )
    actual = truth[unlabelled].sum()
    assert left.low <= actual <= left.high
    assert left.estimate == pytest.approx(scores[unlabelled].sum(), rel=0.1)
    assert "calibrated" in left.method
