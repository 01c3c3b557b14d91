"""Final labels: decided on their own when the annotators agree, by a lead when they do not,
or imported from a file; withdrawn when a lead reopens them. Every step is kept in FinalLabelEvent.

An item is final (StudyItem.adjudicated_at) when every dimension of its study has a final
label: its annotations are then locked (a revision is refused as a conflict) and its
annotators may see the final labels. Every writer here holds the item's row lock (a
submission's counter update takes it; the other entry points lock the item first), so two
decisions on one item never interleave.

Automatic decisions (unanimous, and majority when the study accepts it) are taken when an
item becomes complete, and taken again when an annotator revises a complete item that is not
final yet; an item that was final once waits for a lead after it is reopened.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from config.api import CONFLICT
from labeler.adjudication.consensus import automatic_method
from labeler.adjudication.selectors import items_answers
from labeler.common.label_csv import AnnotationFileError, Problem, read_label_file
from labeler.common.names import study_pseudonyms
from labeler.common.scheme import (
    Scheme,
    dimension_get,
    label_validate,
    labels_validate,
    study_scheme,
)
from labeler.models import (
    AUTOMATIC_METHODS,
    AnnotationVersion,
    Assignment,
    DisagreementReason,
    FinalLabel,
    FinalMethod,
    Study,
    StudyItem,
)
from taxonomy.models import Category

RATIONALE_MAX = 10_000
# Items settled per round trip when a policy change reaches every pending item of a study.
SETTLE_CHUNK = 1000
REVISED = "an annotator revised their labels before the item was final"
REPLACED = "replaced by a lead's decision"


@dataclass(frozen=True)
class Decision:
    """A final label to write: the item, the dimension, the chosen categories and how."""

    item_id: int
    dimension_id: int
    categories: tuple[Category, ...]
    method: str
    rationale: str = ""
    reason: str = ""


def _when(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def final_how(label: FinalLabel) -> str:
    if label.method == FinalMethod.ADJUDICATED and label.decided_by is not None:
        return f"adjudicated by {label.decided_by.username}"
    return label.method


def item_final_conflict(*, item_id: int) -> ValidationError:
    """The refusal of a change to a final item, saying since when and how it became final."""
    item = StudyItem.objects.filter(pk=item_id).values_list("adjudicated_at", flat=True).first()
    labels = (
        FinalLabel.objects.filter(item_id=item_id)
        .select_related("dimension", "decided_by")
        .order_by("dimension__position")
    )
    how = "; ".join(f"{label.dimension.key}: {final_how(label)}" for label in labels)
    since = f" since {_when(item)}" if item else ""
    return ValidationError(
        f"item {item_id} is final{since} ({how or 'no final label recorded'}): its labels can "
        "no longer change unless a lead reopens it",
        code=CONFLICT,
    )


# Plain SQL: it runs on the submission that completes an item. Every decision, its categories
# and its history entry, and the items that became final, in one statement.
DECIDE_SQL = """
WITH decided AS (
    SELECT * FROM unnest(
        %(items)s::bigint[], %(dimensions)s::bigint[], %(values)s::text[], %(methods)s::text[],
        %(rationales)s::text[], %(reasons)s::text[]
    ) AS decision(item_id, dimension_id, paths, method, rationale, reason)
), added AS (
    INSERT INTO labeler_finallabel
        (item_id, dimension_id, "values", method, decided_by_id, rationale, reason, decided_at)
    SELECT item_id, dimension_id, paths::jsonb, method, %(user)s, rationale, reason, %(now)s
    FROM decided
    RETURNING id, item_id, dimension_id
), categorised AS (
    INSERT INTO labeler_finallabel_categories (finallabel_id, category_id)
    SELECT added.id, chosen.category_id
    FROM added
    JOIN unnest(%(category_items)s::bigint[], %(category_dimensions)s::bigint[],
                %(categories)s::bigint[]) AS chosen(item_id, dimension_id, category_id)
        USING (item_id, dimension_id)
), logged AS (
    INSERT INTO labeler_finallabelevent
        (item_id, dimension_id, kind, "values", method, user_id, rationale, reason, created_at)
    SELECT item_id, dimension_id, 'decided', paths::jsonb, method, %(user)s, rationale, reason,
           %(now)s
    FROM decided
), finalised AS (
    UPDATE labeler_studyitem item
    SET adjudicated_at = %(now)s, first_final_at = COALESCE(item.first_final_at, %(now)s)
    WHERE item.id = ANY(%(final)s::bigint[])
)
SELECT count(*) FROM added
"""


def _decide(*, decisions: list[Decision], final: list[int], user, now: dt.datetime) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            DECIDE_SQL,
            {
                "items": [d.item_id for d in decisions],
                "dimensions": [d.dimension_id for d in decisions],
                "values": [json.dumps([c.path for c in d.categories]) for d in decisions],
                "methods": [d.method for d in decisions],
                "rationales": [d.rationale for d in decisions],
                "reasons": [d.reason for d in decisions],
                "category_items": [d.item_id for d in decisions for _ in d.categories],
                "category_dimensions": [d.dimension_id for d in decisions for _ in d.categories],
                "categories": [c.pk for d in decisions for c in d.categories],
                "user": user.pk if user is not None else None,
                "now": now,
                "final": final,
            },
        )


# The withdrawn labels go, with their categories, each leaving a "reopened" entry behind.
WITHDRAW_SQL = """
WITH withdrawn AS (
    DELETE FROM labeler_finallabel WHERE id = ANY(%(labels)s::bigint[])
    RETURNING item_id, dimension_id, "values", method
), uncategorised AS (
    DELETE FROM labeler_finallabel_categories WHERE finallabel_id = ANY(%(labels)s::bigint[])
)
INSERT INTO labeler_finallabelevent
    (item_id, dimension_id, kind, "values", method, user_id, rationale, reason, created_at)
SELECT item_id, dimension_id, 'reopened', "values", method, %(user)s, %(rationale)s, '', %(now)s
FROM withdrawn
"""


def _withdraw(*, label_ids: list[int], user, rationale: str, now: dt.datetime) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            WITHDRAW_SQL,
            {
                "labels": label_ids,
                "user": user.pk if user is not None else None,
                "rationale": rationale,
                "now": now,
            },
        )


def final_labels_settle(
    *, item_ids, scheme: Scheme, majority: str, now: dt.datetime | None = None
) -> list[int]:
    """Take the automatic decisions on the complete items among `item_ids` that were never
    final: a unanimous dimension, and a majority one when `majority` is auto, gets its final
    label; an automatic label an annotator's revision no longer supports is withdrawn. The
    caller holds the items' row locks. Returns the items that became final.

    One query when nothing changes, two when labels are decided, one more for withdrawals.
    """
    now = now or timezone.now()
    majority_auto = majority == Study.Majority.AUTO
    withdrawn: list[int] = []
    decisions: list[Decision] = []
    final: list[int] = []
    for state in items_answers(item_ids=item_ids).values():
        if not state.complete or state.final or state.was_final:
            continue
        labelled = 0
        for dimension in scheme.dimensions:
            current = state.finals.get(dimension.pk)
            if current is not None and current.method not in AUTOMATIC_METHODS:
                labelled += 1
                continue
            found = state.consensus(dimension.pk)
            method = automatic_method(found, majority_auto=majority_auto)
            values = list(found.modal) if method is not None else None
            if current is not None and (current.values, current.method) == (values, method):
                labelled += 1
                continue
            if current is not None:
                withdrawn.append(current.id)
            if method is not None:
                by_path = scheme.by_path(dimension)
                categories = tuple(by_path[path] for path in values)
                decisions.append(Decision(state.item_id, dimension.pk, categories, method))
                labelled += 1
        if labelled == len(scheme.dimensions):
            final.append(state.item_id)
    if withdrawn:
        _withdraw(label_ids=withdrawn, user=None, rationale=REVISED, now=now)
    if decisions or final:
        _decide(decisions=decisions, final=final, user=None, now=now)
    return final


def _item_locked(item_id: int) -> StudyItem:
    item = (
        StudyItem.objects.select_for_update(of=("self",))
        .select_related("study__codebook", "report__repository")
        .filter(pk=item_id)
        .first()
    )
    if item is None:
        raise StudyItem.DoesNotExist(f"no item {item_id}")
    return item


def open_round_refused(study: Study) -> None:
    """The open round of an open-coding study is never adjudicated, nor given final labels by
    any other way: its result is the code board, and a final item would show its annotators
    each other's codes. A conflict (409) that names the study."""
    if study.kind == Study.Kind.OPEN:
        raise ValidationError(
            f"study {study.slug!r} is an open-coding round: its items are never adjudicated "
            "nor given final labels; its result is the code board",
            code=CONFLICT,
        )


def _rationale_check(rationale, field: str) -> str:
    if not isinstance(rationale, str) or not rationale.strip():
        raise ValidationError({field: "give a rationale: why this label"})
    if "\x00" in rationale:
        raise ValidationError({field: "must not contain the NUL character"})
    if len(rationale) > RATIONALE_MAX:
        raise ValidationError({field: f"at most {RATIONALE_MAX} characters"})
    return rationale.strip()


def _checked(errors: dict[str, str], check, *args, **kwargs):
    """check(...)'s result, or None with its error added to `errors`."""
    try:
        return check(*args, **kwargs)
    except ValidationError as error:
        errors.update({field: messages[0] for field, messages in error.message_dict.items()})
        return None


def _decisions_parse(*, scheme: Scheme, item_id: int, decisions) -> list[Decision]:
    """Every problem of the decisions at once, each under `decisions.<dimension>.<field>`."""
    if not isinstance(decisions, dict) or not decisions:
        raise ValidationError({"decisions": "give at least one dimension's decision"})
    errors: dict[str, str] = {}
    parsed = []
    for key, decision in decisions.items():
        where = f"decisions.{key}"
        if not isinstance(decision, dict) or "value" not in decision:
            errors[where] = "must be an object with value, rationale and reason"
            continue
        categories = _checked(
            errors,
            label_validate,
            scheme=scheme,
            key=key,
            value=decision["value"],
            field=f"{where}.value",
        )
        rationale = _checked(
            errors, _rationale_check, decision.get("rationale"), f"{where}.rationale"
        )
        reason = _checked(errors, _reason_check, decision.get("reason"), f"{where}.reason")
        if categories is not None and rationale is not None and reason is not None:
            dimension = scheme.dimension(key)
            parsed.append(
                Decision(
                    item_id,
                    dimension.pk,
                    tuple(categories),
                    FinalMethod.ADJUDICATED,
                    rationale,
                    reason,
                )
            )
    if errors:
        raise ValidationError(errors)
    return parsed


def _reason_check(reason, field: str) -> str:
    if reason not in DisagreementReason.values:
        raise ValidationError(
            {field: f"{reason!r} is not one of {', '.join(DisagreementReason.values)}"}
        )
    return reason


class LabelsChanged(Exception):
    """A decision on an item whose labels changed since the lead read them (`seen`, as
    labeler.adjudication.item_side_by_side gave it): an annotator revised, submitted or gave
    back their labels, or a dimension's final label was decided or withdrawn. `changes` says
    which, each a dict naming the annotator (by pseudonym) or the dimension."""

    def __init__(self, *, item_id: int, changes: list[dict]):
        self.item_id = item_id
        self.changes = changes
        said = "; ".join(change["text"] for change in changes)
        super().__init__(
            f"the labels of item {item_id} changed since you read them: {said}. Nothing was "
            "decided; read the item again"
        )


def _labels_changed(*, item: StudyItem, scheme: Scheme, seen: dict) -> list[dict]:
    """What differs between the labels as the lead read them (`seen`) and as they are now;
    the caller holds the item's row lock, which every submission takes too."""
    submitted = dict(
        item.assignments.filter(status=Assignment.Status.SUBMITTED).values_list("pk", "version")
    )
    was = {int(pk): version for pk, version in seen.get("assignments", {}).items()}
    finals = dict(FinalLabel.objects.filter(item=item).values_list("dimension_id", "pk"))
    seen_finals = seen.get("finals", {})
    finals_now = {d.key: finals.get(d.pk) for d in scheme.dimensions}
    if submitted == was and all(seen_finals.get(key) == pk for key, pk in finals_now.items()):
        return []
    pseudonyms = study_pseudonyms(study=item.study)
    annotators = dict(item.assignments.values_list("pk", "annotator_id"))
    changes = []
    moved = {pk for pk in submitted.keys() | was.keys() if submitted.get(pk) != was.get(pk)}
    labels_of = _version_labels(item=item, numbers={(pk, was.get(pk)) for pk in moved})
    for pk in sorted(moved, key=lambda pk: pseudonyms.get(annotators.get(pk), "")):
        who = pseudonyms.get(annotators.get(pk), "an annotator")
        before = labels_of.get((pk, was.get(pk)), {})
        after = labels_of.get((pk, None), {}) if pk in submitted else {}
        dimensions = [
            d.key for d in scheme.dimensions if before.get(d.key, []) != after.get(d.key, [])
        ]
        if pk not in submitted:
            kind, text = "withdrawn", f"{who}'s labels were withdrawn"
        elif pk not in was:
            kind, text = "submitted", f"{who} submitted labels"
        else:
            kind = "revised"
            text = f"{who} revised {', '.join(dimensions) or 'their labels'} (version {was[pk]}, "
            text += f"now {submitted[pk]})"
        changes.append(
            {
                "annotator": who,
                "change": kind,
                "seen_version": was.get(pk),
                "version": submitted.get(pk),
                "dimensions": dimensions,
                "text": text,
            }
        )
    for dimension in scheme.dimensions:
        now, before = finals_now[dimension.key], seen_finals.get(dimension.key)
        if now == before:
            continue
        kind = "withdrawn" if now is None else "decided" if before is None else "replaced"
        changes.append(
            {
                "dimension": dimension.key,
                "change": kind,
                "text": f"{dimension.key}'s final label was {kind}",
            }
        )
    return changes


def _version_labels(*, item: StudyItem, numbers: set[tuple[int, int | None]]) -> dict:
    """{(assignment, version number): labels} for the numbers given, and {(assignment,
    None): labels now} for each assignment named, in one query."""
    assignments = {pk for pk, _ in numbers}
    wanted = {number for _, number in numbers if number is not None}
    found: dict[tuple[int, int | None], dict] = {}
    latest: dict[int, int] = {}
    versions = AnnotationVersion.objects.filter(item=item, assignment_id__in=assignments)
    for pk, number, labels in versions.values_list("assignment_id", "number", "labels"):
        if number in wanted:
            found[(pk, number)] = labels
        if number >= latest.get(pk, -1):
            latest[pk] = number
            found[(pk, None)] = labels
    return found


@transaction.atomic
def item_adjudicate(*, item_id: int, user, decisions: dict, seen: dict | None = None) -> StudyItem:
    """A lead's final labels for a complete item that is not final yet.

    `decisions`: {dimension key: {"value": path or [paths] (one of the annotators' answers or
    another), "rationale": why, "reason": one of DisagreementReason}}; any number of the
    study's dimensions, each replacing the dimension's automatic label if it had one. The item
    becomes final when every dimension then has a final label. Refused, with nothing written:
    an item of an open-coding study (open_round_refused), a final item (a conflict: reopen it
    first), an item still short of annotations, and any bad decision (all reported at once).

    `seen`: the labels' state the lead decided on (item_side_by_side's `seen`); when they
    changed since, LabelsChanged says what, with nothing written. Left out: no such check.
    """
    item = _item_locked(item_id)
    open_round_refused(item.study)
    if item.adjudicated_at is not None:
        raise item_final_conflict(item_id=item.pk)
    if item.submitted < item.needed:
        raise ValidationError(
            f"item {item.pk} has {item.submitted} of its {item.needed} annotations: only complete "
            "items are adjudicated",
            code=CONFLICT,
        )
    scheme = study_scheme(study=item.study)
    parsed = _decisions_parse(scheme=scheme, item_id=item.pk, decisions=decisions)
    if seen is not None:
        changes = _labels_changed(item=item, scheme=scheme, seen=seen)
        if changes:
            raise LabelsChanged(item_id=item.pk, changes=changes)
    state = items_answers(item_ids=[item.pk])[item.pk]
    now = timezone.now()
    replaced = [state.finals[d.dimension_id].id for d in parsed if d.dimension_id in state.finals]
    labelled = set(state.finals) | {d.dimension_id for d in parsed}
    final = [item.pk] if labelled >= {d.pk for d in scheme.dimensions} else []
    if replaced:
        _withdraw(label_ids=replaced, user=user, rationale=REPLACED, now=now)
    _decide(decisions=parsed, final=final, user=user, now=now)
    item.refresh_from_db(fields=["adjudicated_at", "first_final_at"])
    return item


@transaction.atomic
def item_reopen(*, item_id: int, user, rationale: str, dimensions: list[str] | None = None):
    """Withdraw final labels of an item (those of `dimensions`, or all), with a rationale: the
    item is no longer final and waits for a lead (its labels may be revised meanwhile, but
    agreement keeps reading them as they were when it was first final)."""
    item = _item_locked(item_id)
    rationale = _rationale_check(rationale, "rationale")
    scheme = study_scheme(study=item.study)
    state = items_answers(item_ids=[item.pk])[item.pk]
    if dimensions is None:
        chosen = list(state.finals.values())
        if not chosen:
            raise ValidationError(f"item {item.pk} has no final label to reopen", code=CONFLICT)
    else:
        chosen = []
        for key in dimensions:
            dimension = dimension_get(scheme=scheme, key=key, field="dimensions")
            if dimension.pk not in state.finals:
                raise ValidationError(
                    {"dimensions": f"{key!r} has no final label on item {item.pk}"}
                )
            chosen.append(state.finals[dimension.pk])
        if not chosen:
            raise ValidationError({"dimensions": "name at least one dimension"})
    now = timezone.now()
    _withdraw(label_ids=[label.id for label in chosen], user=user, rationale=rationale, now=now)
    StudyItem.objects.filter(pk=item.pk).update(adjudicated_at=None)
    item.adjudicated_at = None
    return item


@transaction.atomic
def study_majority_set(*, study: Study, majority: str) -> int:
    """Set what happens to majority answers, then take the automatic decisions the policy now
    allows on every complete item of the study never final yet (also those completed before
    the study had final labels). Returns how many items became final."""
    if majority not in Study.Majority.values:
        raise ValidationError(
            {"majority": f"{majority!r} is not one of {', '.join(Study.Majority.values)}"}
        )
    Study.objects.filter(pk=study.pk).update(majority=majority)
    study.majority = majority
    if study.kind == Study.Kind.OPEN:
        # Open coding takes no automatic decision (labeler.labelling.services).
        return 0
    pending = list(
        StudyItem.objects.select_for_update()
        .filter(
            study=study,
            adjudicated_at__isnull=True,
            first_final_at__isnull=True,
            submitted__gte=F("needed"),
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    scheme = study_scheme(study=study)
    now = timezone.now()
    finalised = 0
    for start in range(0, len(pending), SETTLE_CHUNK):
        chunk = pending[start : start + SETTLE_CHUNK]
        finalised += len(
            final_labels_settle(item_ids=chunk, scheme=scheme, majority=majority, now=now)
        )
    return finalised


@dataclass(frozen=True)
class FinalImportSummary:
    items: int
    labels: int
    replaced: int


def final_labels_import(*, study: Study, data: bytes, source: str = "upload"):
    """Final labels decided elsewhere (a spreadsheet study's reconciled labels), from a labels
    file (labeler.common.label_csv: item,annotator,dimension,value[,note]; `annotator` names who
    decided). Every row is checked first and every problem reported at once, by line, as an
    AnnotationFileError; else each item gets a final label on every dimension (method
    imported; an optional dimension without a row: none), replacing the automatic ones, and
    becomes final. The items must be in the study already and not final; an open-coding study
    takes none (open_round_refused)."""
    open_round_refused(study)
    label_file = read_label_file(data, source)
    problems = list(label_file.problems)
    scheme = study_scheme(study=study)
    by_item: dict[tuple[str, int], list] = defaultdict(list)
    for row in label_file.rows:
        by_item[(row.repository.lower(), row.number)].append(row)
    items = _items_by_key(study=study, keys=list(by_item))

    def problem(line: int, what: str) -> None:
        problems.append(Problem(line, f"{source}:{line}: {what}"))

    decisions = []
    for key, rows in by_item.items():
        where = f"{key[0]}#{key[1]}"
        first = rows[0].line
        item = items.get(key)
        if item is None:
            problem(first, f"{where} is not an item of study {study.slug}; add it first")
            continue
        if item.adjudicated_at is not None:
            problem(first, f"{where} is final already in study {study.slug}; reopen it first")
        deciders = sorted({row.annotator for row in rows})
        if len(deciders) > 1:
            problem(first, f"{where}: one final label per item, not {', '.join(deciders)}'s")
            continue
        lines = {row.dimension: row.line for row in rows}
        labels = {row.dimension: list(row.values) for row in rows}
        try:
            chosen = labels_validate(scheme=scheme, labels=labels)
        except ValidationError as error:
            for field, messages in error.message_dict.items():
                dimension = field.removeprefix("labels.")
                line = lines.get(dimension, first)
                problems.extend(
                    Problem(line, f"{source}:{line}: {where}, {dimension}: {message}")
                    for message in messages
                )
            continue
        note = "; ".join(dict.fromkeys(row.note for row in rows if row.note))
        rationale = f"imported from {source}, decided by {deciders[0]}" + (
            f": {note}" if note else ""
        )
        decisions += [
            Decision(
                item.pk,
                dimension.pk,
                tuple(chosen.get(dimension.key, ())),
                FinalMethod.IMPORTED,
                rationale,
            )
            for dimension in scheme.dimensions
        ]
    if problems:
        raise AnnotationFileError.of(problems, source)
    return _final_import_write(items=list(items.values()), decisions=decisions)


def _items_by_key(*, study: Study, keys: list[tuple[str, int]]) -> dict[tuple[str, int], StudyItem]:
    if not keys:
        return {}
    wanted = Q()
    for repository, number in keys:
        wanted |= Q(report__repository__full_name__iexact=repository, report__number=number)
    items = (
        StudyItem.objects.filter(study=study).filter(wanted).select_related("report__repository")
    )
    return {(i.report.repository.full_name.lower(), i.report.number): i for i in items}


@transaction.atomic
def _final_import_write(*, items: list[StudyItem], decisions: list[Decision]):
    ids = sorted(item.pk for item in items)
    locked = StudyItem.objects.select_for_update().filter(pk__in=ids).order_by("pk")
    if any(final is not None for final in locked.values_list("adjudicated_at", flat=True)):
        raise ValidationError("an item of the file became final while importing", code=CONFLICT)
    replaced = list(FinalLabel.objects.filter(item_id__in=ids).values_list("pk", flat=True))
    now = timezone.now()
    if replaced:
        _withdraw(label_ids=replaced, user=None, rationale=REPLACED_BY_IMPORT, now=now)
    _decide(decisions=decisions, final=ids, user=None, now=now)
    return FinalImportSummary(items=len(ids), labels=len(decisions), replaced=len(replaced))


REPLACED_BY_IMPORT = "replaced by an imported final label"
