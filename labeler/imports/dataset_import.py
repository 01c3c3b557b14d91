"""A study's JSON export loaded into an instance that lacks it: reports (through mining's
services), the codebook (through taxonomy's), the study, its annotators, their labels and the
final labels, so that exporting it again gives the same records.

The whole file is checked first (its shape, the codebook as a codebook file, every label
against the codebook, every reference) and every problem is reported at once; then it is
written in one transaction. Refused: a study slug, a report or a username that exists already,
a codebook version that exists with other content, and an export without the annotators'
labels (`--include-annotators`), which could not give the same records back.

Takes no lock: what it creates is new, and unique constraints stop a concurrent twin.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction

from labeler.models import (
    Annotation,
    AnnotationVersion,
    Assignment,
    FinalLabel,
    FinalLabelEvent,
    FinalMethod,
    Study,
    StudyBatch,
    StudyItem,
    StudyMember,
)
from labeler.studies.services import user_create_unusable
from mining.services.restored_reports import (
    RestoredFix,
    RestoredReport,
    reports_restore,
    reports_taken,
)
from taxonomy.codebook_file import CodebookFileError, CodebookSpec, parse_codebook
from taxonomy.models import Category, Codebook
from taxonomy.services import codebook_freeze, codebook_load, codebook_spec_hash

RECORD_FIELDS = {
    "repository": str,
    "number": int,
    "url": str,
    "title": str,
    "state": str,
    "state_reason": str,
    "github_labels": list,
    "created_at": (str, type(None)),
    "closed_at": (str, type(None)),
    "time_to_fix_hours": (int, float, type(None)),
    "fix_size": (int, type(None)),
    "time_to_first_comment_hours": (int, float, type(None)),
    "comments": int,
    "commenters": int,
    "participants": int,
    "fixes": list,
    "candidates": dict,
    "final": bool,
    "labels": dict,
    "annotators": dict,
}
CODEBOOK_FILE_FIELDS = ("key", "name", "version", "description", "source", "dimensions")
CATEGORY_FILE_FIELDS = ("key", "parent", "name", "definition", "include", "exclude", "examples")


class DatasetImportError(Exception):
    """Every problem of the file, one per line, each naming where it is."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass(frozen=True)
class ImportedDataset:
    study: Study
    reports: int
    annotators: int
    annotations: int
    final_labels: int


@dataclass
class _Plan:
    sheet: dict
    spec: CodebookSpec
    reports: list[RestoredReport]
    records: list[dict]
    annotators: list[str]


def _time(value: str | None, where: str, problems: list[str]) -> dt.datetime | None:
    if value is None:
        return None
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        problems.append(f"{where}: {value!r} is not an ISO 8601 time")
        return None
    if moment.tzinfo is None:
        problems.append(f"{where}: {value!r} has no time zone")
    return moment


def _codebook_spec(codebook, source: str, problems: list[str]) -> CodebookSpec | None:
    """The datasheet's codebook checked as a codebook file (JSON is YAML)."""
    if not isinstance(codebook, dict) or not isinstance(codebook.get("dimensions"), list):
        problems.append("datasheet.codebook: missing, or without dimensions")
        return None
    as_file = {key: codebook.get(key) for key in CODEBOOK_FILE_FIELDS if key in codebook}
    as_file["dimensions"] = [
        {
            **{k: v for k, v in dimension.items() if k != "categories"},
            "categories": [
                {k: v for k, v in c.items() if k in CATEGORY_FILE_FIELDS and v is not None}
                for c in dimension.get("categories") or []
                if isinstance(c, dict)
            ],
        }
        for dimension in codebook["dimensions"]
        if isinstance(dimension, dict)
    ]
    try:
        return parse_codebook(json.dumps(as_file), source=f"{source}: datasheet.codebook")
    except CodebookFileError as error:
        problems.append(str(error))
        return None


def _labels(labels, where: str, dimensions: dict, problems: list[str]) -> None:
    """An annotator's {dimension key: [paths]} against the codebook."""
    if not isinstance(labels, dict):
        problems.append(f"{where}: not an object")
        return
    for key, values in labels.items():
        if key not in dimensions:
            problems.append(f"{where}.{key}: not a dimension of the codebook")
            continue
        multiple, paths = dimensions[key]
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            problems.append(f"{where}.{key}: not a list of category paths")
            continue
        if len(values) > 1 and not multiple:
            problems.append(f"{where}.{key}: several values on a single-choice dimension")
        problems.extend(
            f"{where}.{key}: {value!r} is not a category of dimension {key!r}"
            for value in values
            if value not in paths
        )


def _record(found, where: str, dimensions: dict, problems: list[str]) -> RestoredReport | None:
    if not isinstance(found, dict):
        problems.append(f"{where}: not an object")
        return None
    before = len(problems)
    for name, kind in RECORD_FIELDS.items():
        if name not in found:
            problems.append(f"{where}.{name}: missing")
        elif not isinstance(found[name], kind) or (kind is int and isinstance(found[name], bool)):
            problems.append(f"{where}.{name}: {found[name]!r} has the wrong type")
    if len(problems) > before:
        return None
    fixes = []
    for index, fix in enumerate(found["fixes"]):
        try:
            fixes.append(RestoredFix(**fix))
        except TypeError:
            problems.append(f"{where}.fixes[{index}]: not a fix (commit, pull_request, …)")
    if set(found["labels"]) != set(dimensions):
        problems.append(
            f"{where}.labels: dimensions {sorted(found['labels'])} are not the codebook's"
        )
    for key, label in found["labels"].items():
        if not isinstance(label, dict) or not {"values", "method"} <= set(label):
            problems.append(f"{where}.labels.{key}: not a final label")
            continue
        _labels({key: label["values"]}, f"{where}.labels", dimensions, problems)
        if label["method"] not in (*FinalMethod.values, None):
            problems.append(f"{where}.labels.{key}.method: {label['method']!r} is no method")
        if found["final"] and label["method"] is None:
            problems.append(f"{where}.labels.{key}: a final item without a final label")
    for name, given in found["annotators"].items():
        if not isinstance(given, dict) or not {"labels", "note", "unsure", "seconds"} <= set(given):
            problems.append(f"{where}.annotators.{name}: not labels, note, unsure and seconds")
            continue
        _labels(given["labels"], f"{where}.annotators.{name}.labels", dimensions, problems)
    candidates = found["candidates"]
    return RestoredReport(
        repository=found["repository"],
        number=found["number"],
        url=found["url"],
        title=found["title"],
        state=found["state"],
        state_reason=found["state_reason"],
        labels=found["github_labels"],
        created_at=_time(found["created_at"], f"{where}.created_at", problems),
        closed_at=_time(found["closed_at"], f"{where}.closed_at", problems),
        fix_hours=found["time_to_fix_hours"],
        fix_size=found["fix_size"],
        first_comment_hours=found["time_to_first_comment_hours"],
        comment_count=found["comments"],
        commenter_count=found["commenters"],
        participant_count=found["participants"],
        is_performance_candidate=bool(candidates.get("performance")),
        is_accuracy_candidate=bool(candidates.get("accuracy")),
        is_non_bug=bool(candidates.get("non_bug")),
        candidate_rules=candidates.get("rules") or {},
        fixes=tuple(fixes),
    )


def _references(plan: _Plan, problems: list[str]) -> None:
    """What the instance already holds that the file would create."""
    slug = plan.sheet["study"]["slug"]
    if Study.objects.filter(slug=slug).exists():
        problems.append(f"datasheet.study.slug: a study {slug!r} exists already")
    taken = reports_taken(keys=[(r.repository, r.number) for r in plan.reports])
    problems.extend(f"records: report {name}#{number} is stored already" for name, number in taken)
    users = get_user_model().objects.filter(username__in=plan.annotators)
    problems.extend(
        f"records: annotator {username!r} is a user already"
        for username in users.values_list("username", flat=True)
    )
    codebook = Codebook.objects.filter(key=plan.spec.key, version=plan.spec.version).first()
    if codebook is not None and codebook.content_hash != codebook_spec_hash(plan.spec):
        problems.append(
            f"datasheet.codebook: codebook {plan.spec.key!r} version {plan.spec.version!r} "
            "exists with other content"
        )


PSEUDONYM = re.compile(r"A([1-9][0-9]*)")


def _in_pseudonym_order(names: list[str], sheet: dict) -> list[str]:
    """The annotators in the order their submissions are written, which gives the study's
    pseudonyms (by first submission): an export under pseudonyms by their number, so that A1
    is A1 again whatever order a record lists them in; one under usernames, in the order they
    first appear in the records."""
    if sheet["options"].get("annotator_names") != "pseudonyms" or not all(
        PSEUDONYM.fullmatch(name) for name in names
    ):
        return names
    return sorted(names, key=lambda name: int(name[1:]))


def dataset_parse(*, data: bytes, source: str) -> _Plan:
    """The file checked whole; DatasetImportError with every problem found."""
    try:
        top = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DatasetImportError([f"{source}: not a JSON export: {error}"]) from None
    if not isinstance(top, dict) or set(top) != {"datasheet", "records"}:
        raise DatasetImportError([f"{source}: not an export (an object of datasheet and records)"])
    sheet, records = top["datasheet"], top["records"]
    problems: list[str] = []
    if not isinstance(sheet, dict) or not isinstance(records, list):
        raise DatasetImportError([f"{source}: datasheet must be an object and records a list"])
    for part in ("study", "collection", "options"):
        if not isinstance(sheet.get(part), dict):
            problems.append(f"{source}: datasheet.{part}: missing")
    if problems:
        raise DatasetImportError(problems)
    if not sheet["options"].get("include_annotators"):
        problems.append(
            f"{source}: datasheet.options.include_annotators: the export has no annotators' "
            "labels; export with --include-annotators"
        )
    spec = _codebook_spec(sheet["codebook"], source, problems)
    if spec is None:
        raise DatasetImportError(problems)
    dimensions = {d.key: (d.multiple, {c.path for c in d.categories}) for d in spec.dimensions}
    reports, seen, annotators = [], set(), {}
    for index, found in enumerate(records):
        where = f"{source}: records[{index}]"
        report = _record(found, where, dimensions, problems)
        if report is None:
            continue
        key = (report.repository, report.number)
        if key in seen:
            problems.append(f"{where}: report {key[0]}#{key[1]} appears twice")
        seen.add(key)
        reports.append(report)
        annotators.update(dict.fromkeys(found["annotators"]))
    if problems:
        raise DatasetImportError(problems)
    plan = _Plan(
        sheet=sheet,
        spec=spec,
        reports=reports,
        records=records,
        annotators=_in_pseudonym_order(list(annotators), sheet),
    )
    _references(plan, problems)
    if problems:
        raise DatasetImportError(problems)
    return plan


def dataset_import(*, data: bytes, source: str = "upload") -> ImportedDataset:
    plan = dataset_parse(data=data, source=source)
    try:
        return _write(plan)
    except ValidationError as error:
        raise DatasetImportError([f"{source}: {message}" for message in error.messages]) from None


@transaction.atomic
def _write(plan: _Plan) -> ImportedDataset:
    sheet = plan.sheet
    codebook, _ = codebook_load(spec=plan.spec)
    codebook_freeze(codebook=codebook)
    dimensions = list(codebook.dimensions.order_by("position"))
    by_key = {d.key: d for d in dimensions}
    categories = {
        (c.dimension_id, c.path): c.pk
        for c in Category.objects.filter(dimension__codebook=codebook)
    }
    report_ids = reports_restore(reports=plan.reports)
    study = _study_write(sheet, codebook, dimensions)
    users = {}
    for name in plan.annotators:
        users[name] = user_create_unusable(username=name)
        StudyMember.objects.create(study=study, user=users[name], role=StudyMember.Role.ANNOTATOR)
    exported_at = dt.datetime.fromisoformat(sheet["exported_at"])
    # Each annotator's submissions a second apart in pseudonym order (_in_pseudonym_order), so
    # the study's pseudonyms (by first submission) come out as they went in, and all before the
    # items became final, so agreement counts them.
    submitted_at = {
        name: exported_at - dt.timedelta(seconds=len(users) - n) for n, name in enumerate(users)
    }
    items = StudyItem.objects.bulk_create(
        StudyItem(
            study=study,
            report_id=report_ids[(r.repository, r.number)],
            position=position,
            needed=max(study.overlap, len(found["annotators"])),
            claimed=len(found["annotators"]),
            submitted=len(found["annotators"]),
            adjudicated_at=exported_at if found["final"] else None,
            first_final_at=exported_at if found["final"] else None,
        )
        for position, (r, found) in enumerate(zip(plan.reports, plan.records, strict=True))
    )
    annotations = _submissions_write(
        study=study,
        items=items,
        records=plan.records,
        users=users,
        submitted_at=submitted_at,
        by_key=by_key,
        categories=categories,
    )
    finals = _final_labels_write(
        items=items,
        records=plan.records,
        by_key=by_key,
        categories=categories,
        exported_at=exported_at,
    )
    return ImportedDataset(
        study=study,
        reports=len(plan.reports),
        annotators=len(users),
        annotations=annotations,
        final_labels=finals,
    )


def _study_write(sheet: dict, codebook, dimensions: list) -> Study:
    """The study the sheet describes, on the codebook, with its batches."""
    about, collection = sheet["study"], sheet["collection"]
    study = Study(
        name=about["name"],
        slug=about["slug"],
        codebook=codebook,
        guidelines=about.get("guidelines", ""),
        item_order=about.get("item_order", Study.ItemOrder.RANDOM),
        hold_timeout=dt.timedelta(minutes=about.get("hold_minutes", 30)),
        frame=collection.get("frame") or {},
        sampling=collection.get("sampling") or {},
        seed=collection.get("seed") or 0,
        overlap=collection.get("overlap") or 2,
        majority=collection.get("majority") or Study.Majority.LEAD,
    )
    study.full_clean()
    study.save()
    study.dimensions.set(dimensions)
    for batch in collection.get("batches") or []:
        StudyBatch.objects.create(
            study=study,
            **{
                k: batch[k]
                for k in (
                    "number",
                    "frame",
                    "sampling",
                    "seed",
                    "frame_size",
                    "sample_size",
                    "strata",
                )
            },
            prioritised=batch.get("prioritised"),
        )
    return study


def _submissions_write(*, study, items, records, users, submitted_at, by_key, categories) -> int:
    """Each annotator's submission of each item: its assignment, first version and
    annotations with their categories. Returns how many annotations."""
    assignments, versions, annotations = [], [], []
    for item, found in zip(items, records, strict=True):
        for name, given in found["annotators"].items():
            assignment = Assignment(
                item=item,
                study=study,
                annotator=users[name],
                status=Assignment.Status.SUBMITTED,
                held_at=submitted_at[name],
                submitted_at=submitted_at[name],
                note=given["note"],
                unsure=given["unsure"],
                seconds=given["seconds"],
                version=1,
            )
            assignments.append((assignment, given))
    Assignment.objects.bulk_create([a for a, _ in assignments])
    for assignment, given in assignments:
        versions.append(
            AnnotationVersion(
                assignment=assignment,
                item=assignment.item,
                annotator=assignment.annotator,
                number=1,
                labels=given["labels"],
                note=given["note"],
                unsure=given["unsure"],
                seconds=given["seconds"],
                created_at=assignment.submitted_at,
            )
        )
        for key, values in given["labels"].items():
            annotations.append(
                (
                    Annotation(
                        assignment=assignment,
                        item=assignment.item,
                        annotator=assignment.annotator,
                        dimension=by_key[key],
                        values=values,
                        updated_at=assignment.submitted_at,
                    ),
                    [categories[(by_key[key].pk, v)] for v in values],
                )
            )
    AnnotationVersion.objects.bulk_create(versions)
    Annotation.objects.bulk_create([a for a, _ in annotations])
    through = Annotation.categories.through
    category_links = [
        through(annotation_id=a.pk, category_id=c) for a, ids in annotations for c in ids
    ]
    through.objects.bulk_create(category_links)
    return len(annotations)


def _final_labels_write(*, items, records, by_key, categories, exported_at) -> int:
    """The items' final labels with their categories, each with the event that decided it.
    Returns how many final labels."""
    finals, events = [], []
    for item, found in zip(items, records, strict=True):
        for key, label in found["labels"].items():
            if label["method"] is None:
                continue
            common = {
                "item": item,
                "dimension": by_key[key],
                "values": label["values"],
                "method": label["method"],
                "rationale": label.get("rationale", ""),
                "reason": label.get("reason", ""),
            }
            finals.append(
                (
                    FinalLabel(**common, decided_at=exported_at),
                    [categories[(by_key[key].pk, v)] for v in label["values"]],
                )
            )
            events.append(
                FinalLabelEvent(**common, kind=FinalLabelEvent.Kind.DECIDED, created_at=exported_at)
            )
    FinalLabel.objects.bulk_create([f for f, _ in finals])
    FinalLabelEvent.objects.bulk_create(events)
    final_through = FinalLabel.categories.through
    final_links = [
        final_through(finallabel_id=f.pk, category_id=c) for f, ids in finals for c in ids
    ]
    final_through.objects.bulk_create(final_links)
    return len(finals)
