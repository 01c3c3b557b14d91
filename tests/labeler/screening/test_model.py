import numpy as np
import pytest
from sklearn.metrics import (
    average_precision_score,
    precision_score,
    recall_score,
    roc_auc_score,
)

from labeler.screening import model
from tests.labeler.screening.world import SIGNAL, synthetic_reports


def test_too_few_labels_of_a_class_are_refused_saying_how_many():
    with pytest.raises(model.TrainingRefused, match="3 positive and 40 negative"):
        model.train(["a"] * 43, [1] * 3 + [0] * 40)


def test_the_model_ranks_a_known_signal_and_its_words_weigh_most():
    texts, truth = synthetic_reports(600)
    scores = model.out_of_fold_scores(texts, truth)
    quality = model.evaluation(truth, scores)
    assert quality["auc"] > 0.9
    fitted = model.train(texts, truth)
    words = {entry["word"] for entry in model.top_words(fitted)["positive"][:8]}
    assert len(words & set(SIGNAL)) >= 6
    assert all(entry["weight"] < 0 for entry in model.top_words(fitted)["negative"])


def test_the_metrics_are_scikit_learns():
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 2, 200)
    scores = np.clip(truth * 0.3 + rng.random(200) * 0.7, 0, 1)
    quality = model.evaluation(truth, scores, threshold=0.5)
    assert quality["auc"] == pytest.approx(roc_auc_score(truth, scores))
    assert quality["average_precision"] == pytest.approx(average_precision_score(truth, scores))
    assert quality["precision"] == pytest.approx(precision_score(truth, scores >= 0.5))
    assert quality["recall"] == pytest.approx(recall_score(truth, scores >= 0.5))


def test_a_rule_that_flags_nothing_has_no_precision():
    assert model.precision_recall([1, 0, 1], [False, False, False]) == {
        "precision": None,
        "recall": 0.0,
    }


def test_out_of_fold_scores_never_saw_their_own_label():
    # Pure noise: a model scoring its own training items would separate them; out-of-fold
    # scores cannot.
    rng = np.random.default_rng(5)
    texts = [" ".join(rng.choice([f"w{i}" for i in range(2000)], 20)) for _ in range(200)]
    truth = [1] * 100 + [0] * 100
    in_sample = model.score(model.train(texts, truth), texts)
    assert roc_auc_score(truth, in_sample) > 0.95
    assert abs(roc_auc_score(truth, model.out_of_fold_scores(texts, truth)) - 0.5) < 0.15


def test_the_calibration_table_counts_each_band():
    table = model.calibration_table([0, 1, 1, 0], [0.05, 0.95, 0.91, 0.5])
    assert len(table) == 10
    assert table[0] == {
        "low": 0.0,
        "high": 0.1,
        "items": 1,
        "mean_score": 0.05,
        "share_positive": 0.0,
    }
    assert table[9]["items"] == 2 and table[9]["share_positive"] == 1.0
    assert table[5]["items"] == 1
    assert table[3]["mean_score"] is None


def test_work_saved_at_95_recall():
    # Perfect ranking of 10 positives among 100: read 10 to find 10 (>= 9.5), save 90 %.
    truth = [1] * 10 + [0] * 90
    assert model.work_saved(truth, np.linspace(1, 0, 100)) == pytest.approx(0.90 - 0.05)
    # The reverse ranking reads everything.
    assert model.work_saved(truth, np.linspace(0, 1, 100)) == pytest.approx(-0.05)


def test_the_report_text_bounds_comments_and_tokenises_labels():
    text = model.report_text(
        title="Slow conv",
        body="b",
        comments=[f"c{i}" for i in range(30)],
        labels=["module: performance"],
        fixes=[],
    )
    assert "ghlabel_module_performance" in text
    assert "c9" in text and "c10" not in text
    assert "nofix" in text


def test_unlabelled_reports_meet_out_of_fold_scores_as_their_like():
    # The model fitted on every label scores unseen reports differently from the fold models
    # whose errors the out-of-fold scores measure; the fold models' mean scores them alike.
    texts, truth = synthetic_reports(2_000, prevalence=0.15, seed=1)
    labelled, unlabelled = texts[:300], texts[300:]
    oof, models = model.cross_fit(labelled, truth[:300])
    assert np.array_equal(oof, model.out_of_fold_scores(labelled, truth[:300]))
    assert len(models) == model.FOLDS
    averaged = model.fold_average(models, unlabelled)
    assert averaged == pytest.approx(np.mean([model.score(m, unlabelled) for m in models], axis=0))
    full = model.score(model.train(labelled, truth[:300]), unlabelled)
    assert abs(oof.mean() - averaged.mean()) < abs(oof.mean() - full.mean())
    assert model.fold_average(models, []).shape == (0,)


def test_scoring_with_several_models_tokenizes_once_and_gives_each_models_own_scores():
    # The fold models know different words (each was fitted on other reports); the union of
    # their vocabularies, sliced per model, must give exactly the pipeline's probabilities,
    # also for a report with no known word, an empty one, and words in other cases.
    texts, truth = synthetic_reports(600, prevalence=0.2, seed=2)
    # Words in two reports each: a fold model knows one when both are in its training folds.
    texts = [
        f"{text} rare{index // 6}" if index % 3 == 0 else text for index, text in enumerate(texts)
    ]
    _, folds = model.cross_fit(texts, truth)
    fitted = model.train(texts, truth)
    models = [fitted, *folds]
    vocabularies = [set(m.named_steps["tfidf"].vocabulary_) for m in models]
    assert any(v != vocabularies[0] for v in vocabularies[1:])
    unseen, _ = synthetic_reports(200, prevalence=0.3, seed=3)
    unseen += ["", "zzz nothing known", texts[0].upper(), "\n".join(texts[:3])]
    together = model.scores(models, unseen)
    assert together.shape == (len(models), len(unseen))
    for row, each in zip(together, models, strict=True):
        assert np.abs(row - each.predict_proba(unseen)[:, 1]).max() < 1e-12
    assert model.fold_average(folds, unseen) == pytest.approx(together[1:].mean(axis=0), abs=1e-12)
    assert model.scores(models, []).shape == (len(models), 0)


def test_models_that_tokenize_differently_are_not_scored_together():
    texts, truth = synthetic_reports(300, seed=4)
    fitted = model.train(texts, truth)
    other = model.pipeline().set_params(tfidf__lowercase=False).fit(texts, truth)
    with pytest.raises(ValueError, match="tokenize differently"):
        model.scores([fitted, other], texts[:5])
