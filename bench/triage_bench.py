"""Screening benchmark: the product's model against a plain TF-IDF and logistic regression
and against the keyword rule, on a synthetic corpus whose words carry a known signal.

    .venv/bin/python bench/triage_bench.py [--reports 50000] [--labels 1000] [--seed 1]

The corpus: --reports reports, 15% of them positive. Every report has a title of 10 words
and a body of 120 drawn from a Zipf-like vocabulary of 20,000 words, the first comment of
40, and GitHub labels; a positive report draws each word from 60 signal words with
probability 0.05 (a negative with 0.01), and carries the label "module: performance" with
probability 0.3 (a negative 0.03). The keyword rule is mining's (mining.candidates): six of
the signal words and "slow", or the label. A random --labels of the reports are labelled;
both models learn from those labels alone, on the same documents (labeler.screening.model's
report_text), and are measured on every other report: AUC and the work saved at 95% recall
(WSS@95: the share of reports a team need not read, following the ranking, to find 95% of
the positives, minus 5%). The keyword rule ranks flagged reports first, in random order
within each group (its flags are set at import: no training or scoring time). Times, on one
core: each model's training (one fit on the labels) and its scoring of every report, and the
product's 5-fold cross-validation and the fold models' scoring of every report (a triage run
does both, for its quality figures and its estimates).

Goal: the product's ranking at least as good as the plain baseline's, training under 30 s.
"""

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402

from labeler.screening import model  # noqa: E402
from mining.candidates import Rules, classify  # noqa: E402

PREVALENCE = 0.15
VOCABULARY = 20_000
SIGNAL = 60
KEYWORDS = 6
LABEL = "module: performance"


def corpus(count: int, seed: int):
    """(documents, truth, keyword flags) of `count` synthetic reports."""
    rng = np.random.default_rng(seed)
    words = np.array([f"w{index}" for index in range(VOCABULARY)])
    signal = np.array([f"perf{index}" for index in range(SIGNAL)])
    weights = 1 / np.arange(1, VOCABULARY + 1) ** 1.05
    weights /= weights.sum()
    truth = (rng.random(count) < PREVALENCE).astype(int)
    rules = Rules(
        performance_labels=(LABEL,),
        performance_keywords=(*signal[:KEYWORDS], "slow"),
    )
    lengths = (10, 120, 40)
    # Every token of every report in one draw; then the signal words and "slow" put in.
    tokens = words[rng.choice(VOCABULARY, (count, sum(lengths)), p=weights)]
    share = np.where(truth == 1, 0.05, 0.01)[:, None]
    swap = rng.random(tokens.shape) < share
    tokens[swap] = signal[rng.integers(0, SIGNAL, swap.sum())]
    slow = rng.random((count, len(lengths))) < 0.05  # "slow" is said of many reports
    starts = np.cumsum((0, *lengths[:-1]))
    for part, start in enumerate(starts):
        tokens[slow[:, part], start] = "slow"
    has_label = rng.random(count) < np.where(truth == 1, 0.3, 0.03)
    documents, flags = [], []
    for index in range(count):
        title, body, comment = (
            " ".join(tokens[index, start : start + length])
            for start, length in zip(starts, lengths, strict=True)
        )
        labels = [LABEL] if has_label[index] else ["type: bug"]
        documents.append(
            model.report_text(title=title, body=body, comments=[comment], labels=labels)
        )
        flags.append(classify(title=title, body=body, labels=labels, rules=rules).is_performance)
    return documents, truth, np.array(flags)


def plain() -> object:
    return make_pipeline(TfidfVectorizer(), LogisticRegression())


def timed(function, *args):
    started = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=50_000)
    parser.add_argument("--labels", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

    (documents, truth, flags), built = timed(corpus, options.reports, options.seed)
    rng = np.random.default_rng(options.seed + 1)
    labelled = rng.choice(options.reports, options.labels, replace=False)
    rest = np.setdiff1d(np.arange(options.reports), labelled)
    train_docs = [documents[i] for i in labelled]
    train_truth = truth[labelled]
    test_truth = truth[rest]
    print(
        f"corpus: {options.reports} reports ({truth.mean():.1%} positive), built in {built:.1f} s;"
        f" {options.labels} labelled ({train_truth.sum()} positive), measured on the other "
        f"{len(rest)}; one core; load {os.getloadavg()[0]:.2f}"
    )

    fitted, training = timed(model.train, train_docs, train_truth)
    (_, fold_models), cross_validation = timed(model.cross_fit, train_docs, train_truth)
    _, fold_scoring = timed(model.fold_average, fold_models, documents)
    scores, scoring = timed(model.score, fitted, documents)
    # What a run does: the final model and the fold models over one tokenizing of the reports.
    together, run_scoring = timed(model.scores, [fitted, *fold_models], documents)
    same = np.abs(together[0] - scores).max() < 1e-9
    product = scores[rest]
    baseline = plain()
    _, baseline_training = timed(baseline.fit, train_docs, train_truth)
    baseline_all, baseline_scoring = timed(lambda: baseline.predict_proba(documents)[:, 1])
    baseline_scores = baseline_all[rest]
    keyword = flags[rest] + rng.random(len(rest)) * 0.5  # flagged first, random within

    print(
        f"product model: 5-fold cross-validation {cross_validation:.2f} s (the run's quality "
        f"figures); the fold models' mean score of all {options.reports} reports "
        f"{fold_scoring:.2f} s (the run's estimates); a run scores with the final model and "
        f"the fold models together over one tokenizing: {run_scoring:.2f} s "
        f"(same scores as apart: {'yes' if same else 'NO'})"
    )
    print(
        f"{'ranking':<34} {'training s':>10} {'scoring s':>10} {'AUC':>6} {'WSS@95':>7}"
        f"  (scoring: all {options.reports} reports)"
    )
    for name, ranking, fit, score in (
        ("product (labeler.screening.model)", product, training, scoring),
        (
            "plain TF-IDF + logistic regression",
            baseline_scores,
            baseline_training,
            baseline_scoring,
        ),
        ("keyword rule (mining.candidates)", keyword, None, None),
    ):
        times = "".join(
            f" {'-' if value is None else f'{value:.2f}':>10}" for value in (fit, score)
        )
        print(
            f"{name:<34}{times} {roc_auc_score(test_truth, ranking):>6.3f} "
            f"{model.work_saved(test_truth, ranking, recall=0.95):>7.3f}"
        )
    auc = roc_auc_score(test_truth, product) >= roc_auc_score(test_truth, baseline_scores)
    saved = model.work_saved(test_truth, product) >= model.work_saved(test_truth, baseline_scores)
    print(
        f"goal: product ranking >= plain baseline: AUC {'met' if auc else 'NOT met'}, WSS@95 "
        f"{'met' if saved else 'NOT met'}; training under 30 s: "
        f"{'met' if training < 30 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
