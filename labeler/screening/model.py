"""The screening model: a TF-IDF of a report's text and a logistic regression, its
cross-validated quality and the words that weigh most. Pure: no Django.

A model's scores on the items it was trained on are optimistic, so every figure of quality
comes from out-of-fold scores (stratified folds, seeded), and so do the scores that meet
labelled items again (calibration, prediction-powered inference); unlabelled reports meet them
with the fold models' mean score (cross-prediction). The model fitted on every label ranks.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score, roc_auc_score
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import normalize

# Fewer labels of either class than this and the folds have next to nothing to learn from.
MIN_PER_CLASS = 10
FOLDS = 5
THRESHOLD = 0.5
CALIBRATION_BINS = 10
TOP_WORDS = 15
# A report's text is bounded so one long thread does not weigh like a hundred reports.
COMMENTS_KEPT = 10
COMMENT_CHARS = 2_000
BODY_CHARS = 20_000
# Seeds in the models make two runs on the same labels give the same scores.
SEED = 0


class TrainingRefused(ValueError):
    """Too few labels to train and evaluate on; the message says how many of which class."""


def report_text(
    *,
    title: str,
    body: str,
    comments: Sequence[str] = (),
    labels: Sequence[str] = (),
    fixes: Sequence[str] = (),
) -> str:
    """One document per report: title (twice: it is short and says most), body, the first
    comments, the GitHub labels as tokens of their own and the fix evidence (titles of linked
    fix commits and pull requests, and a token saying whether there is one)."""
    label_tokens = " ".join(
        "ghlabel_" + "_".join(label.lower().replace(":", " ").replace("-", " ").split())
        for label in labels
    )
    parts = [
        title,
        title,
        (body or "")[:BODY_CHARS],
        *((comment or "")[:COMMENT_CHARS] for comment in list(comments)[:COMMENTS_KEPT]),
        label_tokens,
        "hasfix" if fixes else "nofix",
        *fixes,
    ]
    return "\n".join(part for part in parts if part)


def pipeline() -> Pipeline:
    """TF-IDF of words (sub-linear counts, words in at least two reports) into a logistic
    regression weighting the classes equally: positives are often rare. Word pairs and a
    weaker regularisation ranked worse in bench/triage_bench.py with a few hundred labels."""
    return Pipeline(
        [
            (
                "tfidf",
                TfidfVectorizer(
                    lowercase=True,
                    min_df=2,
                    max_df=0.9,
                    max_features=200_000,
                    sublinear_tf=True,
                    dtype=np.float32,
                    token_pattern=r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b",  # noqa: S106 (a regex)
                ),
            ),
            (
                "classifier",
                LogisticRegression(C=1.0, class_weight="balanced", solver="liblinear"),
            ),
        ]
    )


def labels_check(truth: Sequence[int], *, minimum: int = MIN_PER_CLASS) -> None:
    """Refuse, saying why, when either class has fewer than `minimum` labels."""
    positives = int(sum(truth))
    negatives = len(truth) - positives
    if positives < minimum or negatives < minimum:
        raise TrainingRefused(
            f"too few labels to train on: {positives} positive and {negatives} negative final "
            f"labels; each class needs at least {minimum}"
        )


def train(texts: Sequence[str], truth: Sequence[int]) -> Pipeline:
    labels_check(truth)
    model = pipeline()
    model.fit(list(texts), np.asarray(truth, dtype=int))
    return model


def score(model: Pipeline, texts: Sequence[str]) -> np.ndarray:
    """The model's probability of the positive class for each text."""
    if not texts:
        return np.zeros(0)
    return model.predict_proba(list(texts))[:, 1]


def cross_fit(
    texts: Sequence[str], truth: Sequence[int], *, folds: int = FOLDS, seed: int = SEED
) -> tuple[np.ndarray, list[Pipeline]]:
    """Each labelled text's score by a model trained on the other folds, and those fold models
    (stratified folds, seeded)."""
    labels_check(truth)
    y = np.asarray(truth, dtype=int)
    documents = np.asarray(list(texts), dtype=object)
    folds = min(folds, int(y.sum()), int(len(y) - y.sum()))
    scores = np.zeros(len(y))
    models = []
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    for train_index, test_index in splitter.split(documents, y):
        fold_model = pipeline().fit(list(documents[train_index]), y[train_index])
        scores[test_index] = fold_model.predict_proba(list(documents[test_index]))[:, 1]
        models.append(fold_model)
    return scores, models


def out_of_fold_scores(
    texts: Sequence[str], truth: Sequence[int], *, folds: int = FOLDS, seed: int = SEED
) -> np.ndarray:
    """Each labelled text's score by a model trained on the other folds."""
    return cross_fit(texts, truth, folds=folds, seed=seed)[0]


def fold_average(models: Sequence[Pipeline], texts: Sequence[str]) -> np.ndarray:
    """The mean of the fold models' scores: what an unlabelled report is scored with wherever
    it meets the out-of-fold scores of labelled ones (cross-prediction, Zrnic and Candes,
    PNAS 2024). The model fitted on every label scores higher and more sharply than the fold
    models whose errors the labelled items measure, so mixing the two would bias the
    estimates."""
    if not texts:
        return np.zeros(0)
    return scores(models, texts).mean(axis=0)


# TfidfVectorizer's settings the models need not share to be tokenized together: the ones that
# only shaped a vocabulary when it was fitted, and the weighting each model applies on its own.
_OWN = {
    "max_df",
    "min_df",
    "max_features",
    "vocabulary",
    "norm",
    "use_idf",
    "smooth_idf",
    "sublinear_tf",
}


def scores(models: Sequence[Pipeline], texts: Sequence[str]) -> np.ndarray:
    """Each model's probability of the positive class for each text, one row per model: the
    same numbers as `score` of each, with the texts tokenized once for all the models (the
    tokenizing is most of a model's scoring time, and the fold models and the model fitted on
    every label score the same reports). The counts over the union of the models' vocabularies
    are sliced to each model's words, then weighted as its TfidfVectorizer does (sub-linear
    counts, its idf, its norm)."""
    if not models or not texts:
        return np.zeros((len(models), len(texts)))
    vectorizers = [fitted.named_steps["tfidf"] for fitted in models]
    settings = [
        {k: v for k, v in vectorizer.get_params().items() if k not in _OWN}
        for vectorizer in vectorizers
    ]
    if any(other != settings[0] for other in settings[1:]):
        raise ValueError("the models tokenize differently: score them one by one")
    union: dict[str, int] = {}
    for vectorizer in vectorizers:
        for word in vectorizer.vocabulary_:
            union.setdefault(word, len(union))
    counting = {k: v for k, v in settings[0].items() if k in CountVectorizer().get_params()}
    counts = CountVectorizer(**counting, vocabulary=union).transform(list(texts)).tocsr()
    rows = []
    for fitted, vectorizer in zip(models, vectorizers, strict=True):
        columns = np.empty(len(vectorizer.vocabulary_), dtype=np.intp)
        for word, column in vectorizer.vocabulary_.items():
            columns[column] = union[word]
        weights = counts[:, columns].tocsr()
        if vectorizer.sublinear_tf:
            np.log(weights.data, weights.data)
            weights.data += 1.0
        if vectorizer.use_idf:
            weights.data *= vectorizer.idf_[weights.indices]
        if vectorizer.norm is not None:
            weights = normalize(weights, norm=vectorizer.norm, copy=False)
        rows.append(fitted.named_steps["classifier"].predict_proba(weights)[:, 1])
    return np.vstack(rows)


def precision_recall(truth: Sequence[int], predicted: Sequence[bool]) -> dict:
    """Precision and recall of a yes/no rule (None where undefined: nothing predicted, or no
    positive to find)."""
    y = np.asarray(truth, dtype=bool)
    p = np.asarray(predicted, dtype=bool)
    hits = int((y & p).sum())
    return {
        "precision": hits / int(p.sum()) if p.any() else None,
        "recall": hits / int(y.sum()) if y.any() else None,
    }


def calibration_table(
    truth: Sequence[int], scores: Sequence[float], *, bins: int = CALIBRATION_BINS
) -> list[dict]:
    """Per score band of equal width: its items, their mean score and the share positive."""
    y = np.asarray(truth, dtype=float)
    s = np.asarray(scores, dtype=float)
    band = np.minimum((s * bins).astype(int), bins - 1)
    rows = []
    for index in range(bins):
        inside = band == index
        count = int(inside.sum())
        rows.append(
            {
                "low": index / bins,
                "high": (index + 1) / bins,
                "items": count,
                "mean_score": float(s[inside].mean()) if count else None,
                "share_positive": float(y[inside].mean()) if count else None,
            }
        )
    return rows


def evaluation(
    truth: Sequence[int], scores: Sequence[float], *, threshold: float = THRESHOLD
) -> dict:
    """AUC, average precision, precision and recall at the threshold, of out-of-fold scores."""
    y = np.asarray(truth, dtype=int)
    s = np.asarray(scores, dtype=float)
    at_threshold = precision_recall(y, s >= threshold)
    return {
        "auc": float(roc_auc_score(y, s)),
        "average_precision": float(average_precision_score(y, s)),
        "threshold": threshold,
        "precision": at_threshold["precision"],
        "recall": at_threshold["recall"],
    }


def top_words(model: Pipeline, *, count: int = TOP_WORDS) -> dict[str, list[dict]]:
    """The terms whose weights push most towards each class."""
    names = model.named_steps["tfidf"].get_feature_names_out()
    weights = model.named_steps["classifier"].coef_[0]
    order = np.argsort(weights)
    return {
        "positive": [
            {"word": str(names[i]), "weight": round(float(weights[i]), 4)}
            for i in order[::-1][:count]
            if weights[i] > 0
        ],
        "negative": [
            {"word": str(names[i]), "weight": round(float(weights[i]), 4)}
            for i in order[:count]
            if weights[i] < 0
        ],
    }


def work_saved(truth: Sequence[int], scores: Sequence[float], *, recall: float = 0.95) -> float:
    """Work saved over sampling at the recall (WSS@r): the share of items a reader need not
    read, following the ranking (highest score first), to find that share of the positives,
    minus (1 - recall)."""
    y = np.asarray(truth, dtype=int)[np.argsort(-np.asarray(scores, dtype=float), kind="stable")]
    needed = int(np.ceil(recall * y.sum()))
    read = int(np.searchsorted(np.cumsum(y), needed) + 1)
    return float((len(y) - read) / len(y) - (1 - recall))
