"""`python manage.py triage SLUG --dimension KEY --positive PATH [--reports QUERY] [--json]
[--output FILE.csv]`: train, evaluate and score in this process (no worker needed), recorded
as a triage run of the study like one started on its page."""

from __future__ import annotations

import csv
import json
import os
import sys
import tempfile
from pathlib import Path

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
    if "note" in prevalence:
        lines.append(f"  {prevalence['note']}")
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


def output_check(path: str) -> Path:
    """The CSV file to write, refused before any work when it cannot be written."""
    output = Path(path)
    if output.is_dir():
        raise CommandError(f"--output {path}: a folder, not a file")
    folder = output.parent
    if not folder.is_dir():
        raise CommandError(f"--output {path}: no folder {str(folder)!r}")
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise CommandError(
            f"--output {path}: cannot write in {str(folder)!r} ({error.strerror})"
        ) from None
    return output


def scores_write(output: Path, scores: list[dict]) -> None:
    """The scores as CSV (repository, number, score; highest first), written to a file beside
    the target and moved onto it: no half-written file, whatever happens on the way."""
    handle, temporary = tempfile.mkstemp(dir=output.parent, prefix=f".{output.name}.")
    try:
        with open(handle, "w", newline="", encoding="utf-8") as file:
            writer = csv.writer(file)
            writer.writerow(["repository", "number", "score"])
            writer.writerows(
                [entry["repository"], entry["number"], entry["score"]] for entry in scores
            )
        # mkstemp makes it private; the file gets the mode a plain open() would give it.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, output)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class Command(BaseCommand):
    help = (
        "Train a screening model (TF-IDF and logistic regression) on a study's final labels of "
        "one single-select dimension, the category --positive and what lies under it being the "
        "positive class; print its cross-validated quality beside the keyword rule's, the "
        "estimates and the highest scores. Runs in this process, recorded as a triage run of the "
        "study. Refused, naming what is wrong, before any work: an unknown study, dimension or "
        "category, a multi-select dimension, fewer than 10 final labels of either class, a bad "
        "--reports query or an --output that cannot be written."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", help="The study's slug.")
        parser.add_argument(
            "--dimension", required=True, help="A single-select dimension's key (root-cause)."
        )
        parser.add_argument(
            "--positive",
            required=True,
            help="Key path of the positive category (memory): it and every category under it.",
        )
        parser.add_argument(
            "--reports",
            default="",
            help="The reports to score, as a /api/reports/ query "
            "(repository=pytorch/pytorch&state=closed); default: the study's frame.",
        )
        parser.add_argument(
            "--keyword-rule",
            choices=list(KEYWORD_FIELDS),
            default=None,
            help="The candidate flag to compare with; default: the frame's, or any.",
        )
        parser.add_argument(
            "--threshold",
            type=float,
            default=0.5,
            help="Score from which the model says positive, for its precision and recall "
            "(default 0.5).",
        )
        parser.add_argument(
            "--json", action="store_true", help="Print the API's JSON instead of a summary."
        )
        parser.add_argument(
            "--output",
            metavar="FILE.csv",
            help="Also write every score to this CSV file (repository, number, score; "
            "highest first).",
        )

    def handle(self, *args, slug, dimension, positive, reports, keyword_rule, threshold, **options):
        output = output_check(options["output"]) if options["output"] else None
        study = Study.objects.filter(slug=slug).first()
        if study is None:
            raise CommandError(f"no study with the slug {slug!r}")
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
        if output is not None:
            scores_write(output, answer["scores"])
        if options["json"]:
            self.stdout.write(json.dumps(answer, indent=2))
        else:
            self.stdout.write(readable(answer))
