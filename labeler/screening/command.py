"""`python manage.py triage SLUG --dimension KEY --positive PATH [--reports QUERY] [--json]
[--output FILE.csv]`: train, evaluate and score in this process (no worker needed), recorded
as a triage run of the study like one started on its page."""

from __future__ import annotations

import csv
import json
import sys

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from labeler.models import Study, TriageRun
from labeler.screening.selectors import KEYWORD_FIELDS, triage_run_answer
from labeler.screening.services import triage_run_create, triage_run_execute

SHOWN = 20


def _number(value) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _interval(entry: dict) -> str:
    if "error" in entry:
        return entry["error"]
    return (
        f"{_number(entry['estimate'])} [{_number(entry['low'])}, {_number(entry['high'])}] "
        f"({entry['method']})"
    )


def readable(answer: dict) -> str:
    """The run's answer as text for a terminal."""
    found = answer["model"]
    cv, rule = found["cv"], found["keyword_rule"]
    prevalence = answer["estimate"]["prevalence"]
    remaining = answer["estimate"]["remaining"]
    lines = [
        f"study {answer['study']}: {answer['dimension']} = {answer['positive']}",
        f"labels {found['labels']}, positives {found['positives']}",
        f"cross-validated ({cv['folds']} folds): AUC {_number(cv['auc'])}, average precision "
        f"{_number(cv['average_precision'])}, at {cv['threshold']}: precision "
        f"{_number(cv['precision'])}, recall {_number(cv['recall'])}",
        f"keyword rule ({rule['rule']} candidates), same items: precision "
        f"{_number(rule['precision'])}, recall {_number(rule['recall'])}",
        "calibration (score band: items, mean score, share positive):",
        *(
            f"  {row['low']:.1f}-{row['high']:.1f}: {row['items']}, "
            f"{_number(row['mean_score'])}, {_number(row['share_positive'])}"
            for row in found["calibration"]
            if row["items"]
        ),
        "words for: " + ", ".join(w["word"] for w in found["top_words"]["positive"]),
        "words against: " + ", ".join(w["word"] for w in found["top_words"]["negative"]),
        f"prevalence in the frame ({prevalence['frame_reports']} reports, "
        f"{prevalence['random_labels']} random labels):",
    ]
    if "error" in prevalence:
        lines.append(f"  {prevalence['error']}")
    else:
        lines.append(f"  {_interval(prevalence['random_sample'])}")
        lines.append(f"  {_interval(prevalence['ppi'])}")
    lines.append(
        f"positives not yet labelled among {remaining['scored_not_labelled']} scored reports: "
        f"{_interval(remaining)}"
    )
    lines.append(f"scored {answer['scored']} reports; the highest:")
    lines += [
        f"  {entry['score']:.4f}  {entry['repository']}#{entry['number']}"
        for entry in answer["scores"][:SHOWN]
    ]
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Train a screening model on a study's final labels and rank reports by it."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--dimension", required=True, help="A single-select dimension's key.")
        parser.add_argument("--positive", required=True, help="Key path of the positive category.")
        parser.add_argument(
            "--reports", default="", help="The reports to score, as a /api/reports/ query."
        )
        parser.add_argument("--keyword-rule", choices=list(KEYWORD_FIELDS), default=None)
        parser.add_argument(
            "--threshold", type=float, default=0.5, help="Score from which the model says positive."
        )
        parser.add_argument("--json", action="store_true", help="The API's JSON.")
        parser.add_argument("--output", help="Write the scores to this CSV file.")

    def handle(self, *args, slug, dimension, positive, reports, keyword_rule, threshold, **options):
        study = Study.objects.filter(slug=slug).first()
        if study is None:
            raise CommandError(f"no study {slug!r}")
        try:
            run = triage_run_create(
                study=study,
                dimension=dimension,
                positive=positive,
                reports=reports,
                keyword_rule=keyword_rule,
                threshold=threshold,
            )
        except ValidationError as error:
            raise CommandError(
                "; ".join(
                    f"{name}: {' '.join(messages)}" for name, messages in error.message_dict.items()
                )
            ) from None

        def report(progress: int, stage: str) -> None:
            sys.stderr.write(f"{progress:3d}% {stage}\n")

        run = triage_run_execute(run_id=run.pk, report=report)
        if run.state == TriageRun.State.FAILED:
            raise CommandError(f"triage run {run.pk} refused: {run.error}")
        answer = triage_run_answer(run=run)
        if options["output"]:
            with open(options["output"], "w", newline="", encoding="utf-8") as file:
                writer = csv.writer(file)
                writer.writerow(["repository", "number", "score"])
                writer.writerows(
                    [entry["repository"], entry["number"], entry["score"]]
                    for entry in answer["scores"]
                )
        if options["json"]:
            self.stdout.write(json.dumps(answer, indent=2))
        else:
            self.stdout.write(readable(answer))
