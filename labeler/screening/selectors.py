"""Reads of screening: the labels a model learns from, the texts of reports, the reports to
score, and a study's triage runs."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import QueryDict

from labeler.adjudication.selectors import study_final_labels
from labeler.models import Study, StudyBatch, TriageRun
from labeler.screening.model import BODY_CHARS, COMMENT_CHARS, COMMENTS_KEPT, report_text
from labeler.studies.frames import FrameQuery, frame_reports
from mining.models import BugReport
from mining.selectors import reports_filtered, reports_text_parts

# Reports whose texts one query reads.
TEXT_CHUNK = 5_000


@dataclass(frozen=True)
class LabelledItem:
    report_id: int
    batch: int
    truth: int


def is_positive(values, positive: str) -> bool:
    """A final answer is positive when it chose the category or one under it."""
    return any(value == positive or value.startswith(positive + "/") for value in values)


def triage_labels(*, study: Study, dimension: str, positive: str) -> list[LabelledItem]:
    """The study's final items with a final label on the dimension, as positive or not."""
    batches = dict(study.items.values_list("id", "batch"))
    return [
        LabelledItem(row.report_id, batches[row.item_id], int(is_positive(row.values, positive)))
        for row in study_final_labels(study=study)
        if row.dimension == dimension
    ]


def random_batches(*, study: Study) -> set[int]:
    """Numbers of the study's batches drawn at random (recorded draws not made by a model)."""
    return set(
        StudyBatch.objects.filter(study=study, prioritised__isnull=True).values_list(
            "number", flat=True
        )
    )


def prioritised_batches(*, study: Study) -> list[StudyBatch]:
    return list(StudyBatch.objects.filter(study=study, prioritised__isnull=False))


def studies_with_prioritised_batches(*, queries: list[str]) -> list[str]:
    """The slugs of the studies named in these /api/reports/ queries (`study=SLUG`) that have a
    batch drawn by a screening model: a group of their items is no random sample."""
    slugs = {slug for query in queries for slug in QueryDict(query).getlist("study")}
    return sorted(
        StudyBatch.objects.filter(study__slug__in=slugs, prioritised__isnull=False)
        .values_list("study__slug", flat=True)
        .distinct()
    )


def report_texts(*, report_ids: list[int]) -> dict[int, str]:
    """Each report's document for the model (labeler.screening.model.report_text), a few
    thousand reports a query (read through mining.selectors.reports_text_parts)."""
    texts: dict[int, str] = {}
    for start in range(0, len(report_ids), TEXT_CHUNK):
        parts = reports_text_parts(
            report_ids=report_ids[start : start + TEXT_CHUNK],
            body_chars=BODY_CHARS,
            comment_chars=COMMENT_CHARS,
            comments_kept=COMMENTS_KEPT,
        )
        for pk, title, body, labels, comments, fixes in parts:
            texts[pk] = report_text(
                title=title, body=body, comments=comments, labels=labels, fixes=fixes
            )
    return texts


def reports_to_score(*, study: Study, query: str) -> QuerySet[BugReport]:
    """The reports a run scores: those the /api/reports/ query selects, or the study's frame.
    A ValidationError names each wrong parameter as `reports.<name>`."""
    if not query:
        return frame_reports(FrameQuery.from_dict(study.frame or {}))
    try:
        return reports_filtered(params=QueryDict(query.lstrip("?")))
    except ValidationError as error:
        raise ValidationError(
            {f"reports.{name}": messages for name, messages in error.message_dict.items()}
        ) from None


def frame_report_ids(*, study: Study) -> list[int]:
    return list(
        frame_reports(FrameQuery.from_dict(study.frame or {}))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


KEYWORD_FIELDS = {
    "performance": ("is_performance_candidate",),
    "accuracy": ("is_accuracy_candidate",),
    "any": ("is_performance_candidate", "is_accuracy_candidate"),
}


def keyword_flags(*, report_ids: list[int], rule: str) -> dict[int, bool]:
    """Whether mining's candidate flag of the kind (performance, accuracy, any) is set."""
    fields = KEYWORD_FIELDS[rule]
    rows = BugReport.objects.filter(pk__in=report_ids).values_list("pk", *fields)
    return {pk: any(flags) for pk, *flags in rows}


def report_keys(*, report_ids: list[int]) -> dict[int, tuple[str, int, str]]:
    """(OWNER/NAME, number, title) by report id."""
    rows = BugReport.objects.filter(pk__in=report_ids).values_list(
        "pk", "repository__full_name", "number", "title"
    )
    return {pk: (name, number, title) for pk, name, number, title in rows}


def study_report_ids(*, study: Study) -> set[int]:
    return set(study.items.values_list("report_id", flat=True))


def triage_runs(*, study: Study) -> QuerySet[TriageRun]:
    """The study's runs, newest first, without their scores."""
    return TriageRun.objects.filter(study=study).defer("scores").select_related("created_by")


def triage_run_get(*, study: Study, run_id: int) -> TriageRun:
    return TriageRun.objects.select_related("created_by").get(study=study, pk=run_id)


# The order the API gives a run's model in (the database's jsonb keeps its own): the issue's
# contract first, {"labels", "positives", "cv": {"auc", "average_precision", "precision",
# "recall"}, "keyword_rule": {"precision", "recall"}}, then the rest.
MODEL_ORDER = {
    "labels": None,
    "positives": None,
    "cv": ("auc", "average_precision", "precision", "recall", "threshold", "folds"),
    "keyword_rule": ("precision", "recall", "rule"),
    "calibration": None,
    "top_words": None,
    "training_seconds": None,
    "scoring_seconds": None,
}


def _in_order(model: dict | None, order: dict) -> dict | None:
    """`model` with its keys (and those of the parts `order` names) in that order; any other
    key after them."""
    if model is None:
        return None
    ordered = {}
    for key, inner in order.items():
        if key in model:
            value = model[key]
            if inner is not None and isinstance(value, dict):
                value = _first(value, inner)
            ordered[key] = value
    return ordered | {key: value for key, value in model.items() if key not in ordered}


def _first(values: dict, keys) -> dict:
    """`values` with `keys` first, in that order."""
    return {key: values[key] for key in keys if key in values} | values


def triage_run_answer(*, run: TriageRun, limit: int | None = None) -> dict:
    """A run as the API and the command give it: its request and state, and once done
    {"model", "scores" (highest first, `limit` of them if given), "estimate"}."""
    done = run.state == TriageRun.State.DONE
    ranked = run.scores[:limit] if done and limit is not None else (run.scores if done else [])
    keys = report_keys(report_ids=[pk for pk, _ in ranked])
    return {
        "id": run.pk,
        "study": run.study.slug,
        "dimension": run.dimension,
        "positive": run.positive,
        "reports": run.reports,
        "keyword_rule": run.keyword_rule,
        "threshold": run.threshold,
        "state": run.state,
        "progress": run.progress,
        "stage": run.stage,
        "error": run.error,
        "created_at": run.created_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "model": _in_order(run.result.get("model"), MODEL_ORDER) if done else None,
        "scores": [
            {"repository": keys[pk][0], "number": keys[pk][1], "score": score}
            for pk, score in ranked
            if pk in keys
        ]
        if done
        else None,
        "scored": run.result.get("scored") if done else None,
        "estimate": run.result.get("estimate") if done else None,
    }
