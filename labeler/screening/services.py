"""Writes of screening: a triage run requested, carried out and recorded, and a prioritised
batch drawn from its scores. A run is carried out by a Celery task (labeler.screening.tasks);
the command runs the same function in its own process."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from labeler.common.scheme import dimension_get, study_scheme
from labeler.models import Study, StudyBatch, TriageRun
from labeler.screening import estimate, model
from labeler.screening.selectors import (
    KEYWORD_FIELDS,
    frame_report_ids,
    keyword_flags,
    prioritised_batches,
    random_batches,
    report_texts,
    reports_to_score,
    study_report_ids,
    triage_labels,
)
from labeler.studies.services import new_seed, study_batch_append

PRIORITY_BY = {
    "score": "the highest scores",
    "uncertainty": "the scores closest to 0.5 (the most uncertain)",
}
PRIORITISED_MAX = 10_000
QUERY_MAX = 2_000


def keyword_rule_default(study: Study) -> str:
    """The candidate flag of the study's frame, or either flag."""
    candidates = (study.frame or {}).get("candidates")
    return candidates if candidates in KEYWORD_FIELDS else "any"


def triage_request_validate(
    *,
    study: Study,
    dimension: str,
    positive: str,
    reports: str,
    keyword_rule: str | None,
    threshold: float = model.THRESHOLD,
) -> str:
    """Check a request before anything is written; errors name the field. Returns the keyword
    rule to compare with. Too few final labels of either class is refused here, before a run
    is recorded (and again by the run itself, should labels go in between)."""
    if study.kind != Study.Kind.CLOSED:
        raise ValidationError({"dimension": "only a closed-coding study has final labels to learn"})
    scheme = study_scheme(study=study)
    found = dimension_get(scheme=scheme, key=dimension)
    if found.multiple:
        raise ValidationError(
            {"dimension": f"{dimension!r} takes several categories; choose a single-select one"}
        )
    paths = list(scheme.by_path(found))
    if positive not in paths:
        raise ValidationError(
            {
                "positive": f"{positive!r} is not a category key path of {dimension!r} "
                f"(it has: {', '.join(paths)})"
            }
        )
    labelled = triage_labels(study=study, dimension=dimension, positive=positive)
    try:
        model.labels_check([item.truth for item in labelled])
    except model.TrainingRefused as refusal:
        raise ValidationError({"positive": f"{refusal} ({dimension} = {positive})"}) from None
    if not 0 < threshold < 1:
        raise ValidationError({"threshold": f"must be between 0 and 1 (not {threshold!r})"})
    if len(reports) > QUERY_MAX:
        raise ValidationError({"reports": f"at most {QUERY_MAX} characters"})
    if not reports_to_score(study=study, query=reports).exists():
        raise ValidationError(
            {
                "reports": f"the query {reports!r} selects no imported report"
                if reports
                else "the study's frame holds no imported report to score"
            }
        )
    rule = keyword_rule or keyword_rule_default(study)
    if rule not in KEYWORD_FIELDS:
        raise ValidationError(
            {"keyword_rule": f"{rule!r} is not one of {', '.join(KEYWORD_FIELDS)}"}
        )
    return rule


@transaction.atomic
def triage_run_create(
    *,
    study: Study,
    dimension: str,
    positive: str,
    reports: str = "",
    keyword_rule: str | None = None,
    threshold: float = model.THRESHOLD,
    created_by=None,
) -> TriageRun:
    """Record a run, checked first; its caller queues it (labeler.screening.tasks)."""
    rule = triage_request_validate(
        study=study,
        dimension=dimension,
        positive=positive,
        reports=reports,
        keyword_rule=keyword_rule,
        threshold=threshold,
    )
    run = TriageRun(
        study=study,
        dimension=dimension,
        positive=positive,
        reports=reports,
        keyword_rule=rule,
        threshold=threshold,
        created_by=created_by,
    )
    run.full_clean(exclude=["study"])
    run.save()
    return run


def triage_run_progress(*, run_id: int, progress: int, stage: str) -> None:
    TriageRun.objects.filter(pk=run_id).update(progress=progress, stage=stage)


def triage_run_fail(*, run_id: int, error: str) -> None:
    TriageRun.objects.filter(pk=run_id).update(
        state=TriageRun.State.FAILED, error=error[:2000], finished_at=timezone.now()
    )


def _plural(word: str, numbers: list[int]) -> str:
    return f"{word}{'es' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}"


def _prevalence(
    *,
    frame_scores: dict[int, float],
    random_truth: dict[int, int],
    oof: dict[int, float],
    left_out: list[int],
    first_prioritised: int | None,
) -> dict:
    """Both prevalence estimates over the frame, from the labels of the random batches drawn
    before any prioritised batch. A random batch drawn after one was drawn from the frame
    without the prioritised reports (the likeliest positives, by the model): it is not a
    random sample of the frame, so it is left out, and the note says so."""
    note = (
        {
            "note": f"{_plural('random batch', left_out)} left out: drawn after "
            f"prioritised batch {first_prioritised}, from the frame without its reports, "
            f"{'they are' if len(left_out) > 1 else 'it is'} not a random sample of the frame"
        }
        if left_out
        else {}
    )
    if not random_truth:
        return {
            "frame_reports": len(frame_scores),
            "random_labels": 0,
            "error": "no final label in a random batch drawn before any prioritised batch: the "
            "share in the frame cannot be estimated (prioritised batches were drawn by score, "
            "not at random)",
            **note,
        }
    # A labelled report is scored out of fold, any other by the fold models' mean.
    truth = list(random_truth.values())
    labelled = [oof[pk] for pk in random_truth]
    result = {
        "frame_reports": len(frame_scores),
        "random_labels": len(truth),
        "random_sample": estimate.random_sample_share(truth).as_dict(),
        **note,
    }
    try:
        result["ppi"] = estimate.ppi_share(truth, labelled, list(frame_scores.values())).as_dict()
    except ValueError as error:
        result["ppi"] = {"error": str(error)}
    return result


@dataclass(frozen=True)
class _Training:
    """The model fitted on a run's labels: out-of-fold scores, the fold models, the final one."""

    labelled: list
    truth: list[int]
    labelled_ids: list[int]
    oof_scores: np.ndarray
    fold_models: list
    fitted: object
    seconds: float

    @property
    def oof(self) -> dict[int, float]:
        return dict(zip(self.labelled_ids, self.oof_scores.tolist(), strict=True))


@dataclass(frozen=True)
class _Scoring:
    """The reports a run scored (`scored_ids`, the query's) and the frame's, with two scores:
    the final model's (`ranking`) and, for a report without a label, the fold models' mean
    (`held_out`), which meets the labelled items' out-of-fold scores as their like
    (labeler.screening.model.fold_average)."""

    scored_ids: list[int]
    frame_ids: list[int]
    ranking: dict[int, float]
    held_out: dict[int, float]
    seconds: float


def triage_run_execute(
    *, run_id: int, report: Callable[[int, str], None] | None = None
) -> TriageRun | None:
    """Carry out a run: read the labels, cross-validate, train, score, estimate, record.
    None when the run is gone or was finished already (a task delivered twice)."""
    run = TriageRun.objects.select_related("study").filter(pk=run_id).first()
    if run is None or run.state in (TriageRun.State.DONE, TriageRun.State.FAILED):
        return None

    def step(progress: int, stage: str) -> None:
        triage_run_progress(run_id=run_id, progress=progress, stage=stage)
        if report is not None:
            report(progress, stage)

    TriageRun.objects.filter(pk=run_id).update(
        state=TriageRun.State.RUNNING, started_at=timezone.now(), error=""
    )
    step(5, "reading the final labels")
    labelled = triage_labels(study=run.study, dimension=run.dimension, positive=run.positive)
    try:
        model.labels_check([item.truth for item in labelled])
    except model.TrainingRefused as refusal:
        triage_run_fail(run_id=run_id, error=str(refusal))
        return TriageRun.objects.get(pk=run_id)
    training = _train(labelled, step)
    scoring = _score(run, training, step)
    step(92, "estimating")
    ranked = sorted(scoring.scored_ids, key=lambda pk: (-scoring.ranking[pk], pk))
    TriageRun.objects.filter(pk=run_id).update(
        state=TriageRun.State.DONE,
        progress=100,
        stage="done",
        result=_run_result(run, training, scoring),
        scores=[[pk, round(scoring.ranking[pk], 6)] for pk in ranked],
        finished_at=timezone.now(),
    )
    return TriageRun.objects.get(pk=run_id)


def _train(labelled: list, step: Callable[[int, str], None]) -> _Training:
    truth = [item.truth for item in labelled]
    labelled_ids = [item.report_id for item in labelled]
    texts = report_texts(report_ids=labelled_ids)
    documents = [texts[pk] for pk in labelled_ids]
    step(15, "cross-validating")
    started = time.perf_counter()
    oof_scores, fold_models = model.cross_fit(documents, truth)
    step(50, "training on every label")
    fitted = model.train(documents, truth)
    return _Training(
        labelled=labelled,
        truth=truth,
        labelled_ids=labelled_ids,
        oof_scores=oof_scores,
        fold_models=fold_models,
        fitted=fitted,
        seconds=time.perf_counter() - started,
    )


# Reports scored at a time: their texts are read in one query.
SCORE_CHUNK = 10_000


def _score(run: TriageRun, training: _Training, step: Callable[[int, str], None]) -> _Scoring:
    step(60, "reading the reports to score")
    started = time.perf_counter()
    study = run.study
    scored_ids = list(
        reports_to_score(study=study, query=run.reports).order_by("pk").values_list("pk", flat=True)
    )
    frame_ids = scored_ids if not run.reports else frame_report_ids(study=study)
    wanted = sorted(set(scored_ids) | set(frame_ids))
    labelled_set = set(training.labelled_ids)
    ranking: dict[int, float] = {}
    held_out: dict[int, float] = {}
    for start in range(0, len(wanted), SCORE_CHUNK):
        ids = wanted[start : start + SCORE_CHUNK]
        chunk_texts = report_texts(report_ids=ids)
        # One tokenizing of the chunk for the final model and the fold models alike.
        by_model = model.scores(
            [training.fitted, *training.fold_models], [chunk_texts[pk] for pk in ids]
        )
        ranking.update(zip(ids, by_model[0].tolist(), strict=True))
        averaged = by_model[1:].mean(axis=0)
        held_out.update(
            (pk, float(value))
            for pk, value in zip(ids, averaged, strict=True)
            if pk not in labelled_set
        )
        step(60 + int(30 * (start + len(ids)) / max(1, len(wanted))), "scoring")
    return _Scoring(
        scored_ids=scored_ids,
        frame_ids=frame_ids,
        ranking=ranking,
        held_out=held_out,
        seconds=time.perf_counter() - started,
    )


def _run_result(run: TriageRun, training: _Training, scoring: _Scoring) -> dict:
    """The run's result: the model's quality on the labels, beside the keyword rule's, and the
    estimates (prevalence, positives remaining)."""
    study, truth, labelled = run.study, training.truth, training.labelled
    flags = keyword_flags(report_ids=training.labelled_ids, rule=run.keyword_rule)
    randoms = random_batches(study=study)
    prioritised = {batch.number for batch in prioritised_batches(study=study)}
    first_prioritised = min(prioritised, default=None)
    late = {n for n in randoms if first_prioritised is not None and n > first_prioritised}
    random_truth = {
        item.report_id: item.truth
        for item in labelled
        if item.batch in randoms and item.batch not in late
    }
    oof = training.oof
    frame_scores = {pk: oof[pk] if pk in oof else scoring.held_out[pk] for pk in scoring.frame_ids}
    not_labelled = [scoring.held_out[pk] for pk in scoring.scored_ids if pk not in oof]
    in_study = study_report_ids(study=study)
    return {
        "model": {
            "labels": len(truth),
            "positives": int(sum(truth)),
            "cv": {
                **model.evaluation(truth, training.oof_scores, threshold=run.threshold),
                "folds": model.FOLDS,
            },
            "keyword_rule": {
                "rule": run.keyword_rule,
                **model.precision_recall(
                    truth, [flags.get(pk, False) for pk in training.labelled_ids]
                ),
            },
            "calibration": model.calibration_table(truth, training.oof_scores),
            "top_words": model.top_words(training.fitted),
            "training_seconds": round(training.seconds, 2),
            "scoring_seconds": round(scoring.seconds, 2),
        },
        "estimate": {
            "prevalence": _prevalence(
                frame_scores=frame_scores,
                random_truth=random_truth,
                oof=oof,
                left_out=sorted(late),
                first_prioritised=first_prioritised,
            ),
            "remaining": {
                "scored_not_labelled": len(not_labelled),
                **(
                    estimate.positives_remaining(truth, training.oof_scores, not_labelled).as_dict()
                    if not_labelled
                    else {"estimate": 0.0, "low": 0.0, "high": 0.0, "method": "nothing left"}
                ),
            },
            "labels_from_prioritised_batches": sum(
                1 for item in labelled if item.batch in prioritised
            ),
            "labels_from_random_batches_after_prioritised": sum(
                1 for item in labelled if item.batch in late
            ),
        },
        "scored": len(scoring.scored_ids),
        "scored_in_study": sum(1 for pk in scoring.scored_ids if pk in in_study),
    }


@transaction.atomic
def prioritised_batch_add(
    *, study: Study, run: TriageRun, count: int, by: str = "score", created_by=None
) -> StudyBatch:
    """Add the `count` reports of the run's scores that are not in the study yet, by the
    highest score or the most uncertain, as a batch marked non-random. Its items are handed
    out in a seeded random order, never by score: an annotator cannot read a rank from it."""
    if run.study_id != study.pk or run.state != TriageRun.State.DONE:
        raise ValidationError({"run": "a finished triage run of this study"})
    if by not in PRIORITY_BY:
        raise ValidationError({"by": f"{by!r} is not one of {', '.join(PRIORITY_BY)}"})
    if not 1 <= count <= PRIORITISED_MAX:
        raise ValidationError({"count": f"must be between 1 and {PRIORITISED_MAX}"})
    # As for a random batch: one batch at a time per study, so no report is drawn twice.
    Study.objects.select_for_update().filter(pk=study.pk).first()
    in_study = study_report_ids(study=study)
    candidates = [(pk, score) for pk, score in run.scores if pk not in in_study]
    if not candidates:
        raise ValidationError({"count": "every scored report is in the study already"})
    if by == "uncertainty":
        candidates.sort(key=lambda pair: (abs(pair[1] - 0.5), pair[0]))
    chosen = [pk for pk, _ in candidates[:count]]
    seed = new_seed()
    random.Random(seed).shuffle(chosen)
    batch, _ = study_batch_append(
        study=study,
        report_ids=chosen,
        frame={"triage_run": run.pk, "reports": run.reports},
        sampling={"mode": "size", "size": len(chosen)},
        seed=seed,
        frame_size=len(candidates),
        created_by=created_by,
    )
    batch.prioritised = {
        "triage_run": run.pk,
        "by": by,
        "count": len(chosen),
        "dimension": run.dimension,
        "positive": run.positive,
        "drawn": f"the {len(chosen)} reports not yet in the study with {PRIORITY_BY[by]} of "
        f"triage run {run.pk} ({run.dimension} = {run.positive}); handed out in a seeded "
        "random order",
    }
    batch.save(update_fields=["prioritised"])
    return batch
