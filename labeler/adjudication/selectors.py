"""Reads of adjudication: what each complete item's annotators answered, the disagreement
queue, an item side by side, final labels and their history, with the blind rule applied.

Annotators are shown by pseudonym (A1, A2, … in the order of their first submission in the
study, so a name never changes) unless a lead asks for real names.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

from django.db import connection
from django.db.models import Exists, F, OuterRef, QuerySet

from config.sql import int_array
from labeler.adjudication.consensus import (
    UNANIMOUS,
    UNANSWERED,
    Answer,
    Consensus,
    automatic_method,
    consensus,
)
from labeler.common.names import (
    annotator_names,
    annotator_removed,
    name_marked,
    report_ref,
)
from labeler.common.permissions import StudyAccess
from labeler.common.scheme import Scheme
from labeler.models import (
    Annotation,
    Assignment,
    FinalLabel,
    FinalLabelEvent,
    FinalMethod,
    Study,
    StudyItem,
)
from taxonomy.models import Category


@dataclass(frozen=True)
class FinalAnswer:
    id: int
    values: list[str]
    method: str


@dataclass
class ItemAnswers:
    """An item's counters, its annotators' current answers per dimension and its final labels
    per dimension (both by dimension id)."""

    item_id: int
    submitted: int
    needed: int
    final: bool
    was_final: bool
    position: int = 0
    answers: dict[int, list[Answer]] = field(default_factory=dict)
    finals: dict[int, FinalAnswer] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return self.submitted >= self.needed

    def consensus(self, dimension_id: int) -> Consensus:
        """Every submitted annotator's answer: one with no row on the dimension chose nothing."""
        given = self.answers.get(dimension_id, [])
        return consensus([*given, *[()] * (self.submitted - len(given))])


# Plain SQL: one round trip for every item asked about, on the submission that completes one.
ANSWERS_SQL = """
SELECT item.id, item.submitted, item.needed, item.adjudicated_at IS NOT NULL,
       item.first_final_at IS NOT NULL, item.position,
       COALESCE((SELECT json_agg(json_build_array(answer.dimension_id, answer."values"))
                 FROM labeler_annotation answer WHERE answer.item_id = item.id), '[]'),
       COALESCE((SELECT json_agg(json_build_array(final.id, final.dimension_id, final."values",
                                                  final.method))
                 FROM labeler_finallabel final WHERE final.item_id = item.id), '[]')
FROM labeler_studyitem item
WHERE {where}
ORDER BY item.id
"""


def _answers(where: str, params) -> dict[int, ItemAnswers]:
    with connection.cursor() as cursor:
        cursor.execute(ANSWERS_SQL.format(where=where), params)
        rows = cursor.fetchall()
    found = {}
    for item_id, submitted, needed, final, was_final, position, answers, finals in rows:
        state = ItemAnswers(item_id, submitted, needed, final, was_final, position)
        for dimension_id, values in answers:
            state.answers.setdefault(dimension_id, []).append(tuple(values))
        for final_id, dimension_id, values, method in finals:
            state.finals[dimension_id] = FinalAnswer(final_id, values, method)
        found[item_id] = state
    return found


def items_answers(*, item_ids) -> dict[int, ItemAnswers]:
    """ItemAnswers of the given items, by item id, in one query."""
    return _answers("item.id = ANY(%s::bigint[])", [int_array(item_ids)])


@dataclass(frozen=True)
class DimensionState:
    """One dimension of an item: how far its annotators agree, and whether it is decided.

    `disputed`: no final label, and the answers are not ones the study's policy accepts on
    its own (a split, or a majority the study sends to a lead); a dimension nobody answered
    is not disputed."""

    key: str
    kind: str
    agreement: float
    answers: int
    ratings: int
    decided: bool
    disputed: bool


def dimension_states(*, state: ItemAnswers, scheme: Scheme, majority: str) -> list[DimensionState]:
    states = []
    for dimension in scheme.dimensions:
        found = state.consensus(dimension.pk)
        decided = dimension.pk in state.finals
        automatic = automatic_method(found, majority_auto=majority == Study.Majority.AUTO)
        states.append(
            DimensionState(
                key=dimension.key,
                kind=found.kind,
                agreement=found.agreement,
                answers=len(found.answers),
                ratings=found.ratings,
                decided=decided,
                disputed=not decided and automatic is None and found.kind != UNANSWERED,
            )
        )
    return states


@dataclass(frozen=True)
class QueueEntry:
    item_id: int
    position: int
    final: bool
    dimensions: list[DimensionState]
    # The sort key: the lowest agreement among the dimensions still to decide (or the one
    # asked about).
    agreement: float

    @property
    def disputed(self) -> list[str]:
        return [d.key for d in self.dimensions if d.disputed]


# Most split first (the lowest share of the most given answer), closest calls first, hand-out order.
QUEUE_ORDERINGS = ("split", "-split", "position")


def study_disagreements(
    *,
    study: Study,
    scheme: Scheme,
    dimension: str | None = None,
    ordering: str = "split",
    unanimous: bool = False,
) -> list[QueueEntry]:
    """The lead's queue: complete items not yet final on which the annotators did not agree on
    every dimension, most split first (`ordering`: `-split` for the closest calls first,
    `position` for hand-out order). With `dimension`, only items that dimension still has to
    be decided on, sorted by its split.

    `unanimous`: instead, the complete items whose annotators agreed on every dimension,
    final (automatically) or not (a reopened item, or one completed before the policy
    existed), listed apart.
    """
    where = "item.study_id = %s AND item.submitted >= item.needed AND item.adjudicated_at IS NULL"
    pending = _answers(where, [study.pk])
    entries = []
    for state in pending.values():
        dimensions = dimension_states(state=state, scheme=scheme, majority=study.majority)
        all_agree = all(d.kind == UNANIMOUS for d in dimensions)
        if unanimous != all_agree:
            continue
        open_ = [d for d in dimensions if not d.decided and (unanimous or d.kind != UNANIMOUS)]
        if dimension is not None:
            open_ = [d for d in open_ if d.key == dimension]
            if not open_:
                continue
        agreement = min((d.agreement for d in open_), default=1.0)
        entries.append(QueueEntry(state.item_id, state.position, False, dimensions, agreement))
    if unanimous:
        entries += _final_unanimous(study=study, scheme=scheme)
    if ordering == "position":
        entries.sort(key=lambda e: (e.position, e.item_id))
    else:
        sign = -1 if ordering == "-split" else 1
        entries.sort(key=lambda e: (sign * e.agreement, -len(e.disputed), e.position, e.item_id))
    return entries


def _final_unanimous(*, study: Study, scheme: Scheme) -> list[QueueEntry]:
    """Final items whose every final label was reached by unanimity: no annotations read."""
    other = FinalLabel.objects.filter(item=OuterRef("pk")).exclude(method=FinalMethod.UNANIMOUS)
    finals = StudyItem.objects.filter(
        study=study, adjudicated_at__isnull=False, submitted__gte=F("needed")
    ).filter(~Exists(other))
    return [
        QueueEntry(
            item_id,
            position,
            True,
            [
                DimensionState(d.key, UNANIMOUS, 1.0, 1, ratings, True, False)
                for d in scheme.dimensions
            ],
            1.0,
        )
        for item_id, position, ratings in finals.values_list("pk", "position", "submitted")
    ]


def queue_items(*, item_ids) -> dict[int, dict]:
    """The report reference, title and batch of each listed item, for one page of the queue."""
    items = StudyItem.objects.filter(pk__in=item_ids).select_related("report__repository")
    return {
        item.pk: {
            "report": report_ref(item.report),
            "title": item.report.title,
            "batch": item.batch,
        }
        for item in items
    }


def _category_json(category: Category) -> dict:
    return {
        "path": category.path,
        "name": category.name,
        "definition": category.definition,
        "include": category.include,
        "exclude": category.exclude,
        "examples": category.examples,
    }


def _final_json(label: FinalLabel) -> dict:
    return {
        "values": label.values,
        "method": label.method,
        "decided_by": label.decided_by.username if label.decided_by else None,
        "decided_at": label.decided_at,
        "rationale": label.rationale,
        "reason": label.reason,
    }


def item_side_by_side(*, item: StudyItem, scheme: Scheme, real_names: bool = False) -> dict:
    """Everything a lead needs to decide an item: each annotator's labels, note, unsure flag
    and time; per dimension the answers grouped with who gave them, whether it is disputed,
    the final label if any, and the codebook entries of the categories chosen on it; the item's
    decision history. Annotators by pseudonym unless `real_names`.

    `seen`: the labels' state as read now (each submitted assignment's version, each
    dimension's final label or None); a decision sends it back, and is refused if the labels
    changed since (labeler.adjudication.services.item_adjudicate)."""
    study = item.study
    submitted, by_assignment, annotators = _submissions(item, real_names=real_names)
    finals = {
        label.dimension_id: label
        for label in FinalLabel.objects.filter(item=item).select_related("decided_by")
    }
    state = ItemAnswers(
        item.pk,
        item.submitted,
        item.needed,
        final=item.adjudicated_at is not None,
        was_final=item.first_final_at is not None,
        finals={pk: FinalAnswer(f.pk, f.values, f.method) for pk, f in finals.items()},
    )
    for dimension in scheme.dimensions:
        state.answers[dimension.pk] = [
            tuple(by_assignment[a.pk].get(dimension.key, ())) for a in submitted
        ]
    states = dimension_states(state=state, scheme=scheme, majority=study.majority)
    dimensions = [
        _dimension_side_by_side(
            dimension, dimension_state, scheme=scheme, annotators=annotators,
            final=finals.get(dimension.pk),
        )
        for dimension, dimension_state in zip(scheme.dimensions, states, strict=True)
    ]  # fmt: skip
    report = item.report
    return {
        "item": item.pk,
        "study": study.slug,
        "report": {"id": report.pk, "ref": report_ref(report), "title": report.title},
        "batch": item.batch,
        "position": item.position,
        "submitted": item.submitted,
        "needed": item.needed,
        "final": item.adjudicated_at is not None,
        "final_at": item.adjudicated_at,
        "disputed": [d["key"] for d in dimensions if d["disputed"]],
        "annotators": annotators,
        "dimensions": dimensions,
        "history": final_history(item=item, scheme=scheme),
        "seen": {
            "assignments": {str(a.pk): a.version for a in submitted},
            "finals": {
                dimension.key: finals[dimension.pk].pk if dimension.pk in finals else None
                for dimension in scheme.dimensions
            },
        },
    }


def _submissions(item: StudyItem, *, real_names: bool) -> tuple[list, dict, list[dict]]:
    """The item's submitted assignments (oldest first), their labels by assignment id
    ({dimension key: values}), and a row per annotator by name: labels, note, unsure flag,
    time, version. A name is marked when a lead has removed its annotator from the study."""
    names = annotator_names(study=item.study, real_names=real_names)
    submitted = list(
        item.assignments.filter(status=Assignment.Status.SUBMITTED)
        .select_related("annotator")
        .annotate(annotator_removed=annotator_removed())
        .order_by("submitted_at", "pk")
    )
    names = {
        a.annotator_id: name_marked(names[a.annotator_id], removed=a.annotator_removed)
        for a in submitted
    }
    by_assignment: dict[int, dict[str, list[str]]] = defaultdict(dict)
    for assignment_id, key, values in Annotation.objects.filter(item=item).values_list(
        "assignment_id", "dimension__key", "values"
    ):
        by_assignment[assignment_id][key] = values
    annotators = [
        {
            "annotator": names[a.annotator_id],
            "labels": by_assignment[a.pk],
            "note": a.note,
            "unsure": a.unsure,
            "seconds": a.seconds,
            "submitted_at": a.submitted_at,
            "version": a.version,
        }
        for a in sorted(submitted, key=lambda a: names[a.annotator_id])
    ]
    return submitted, by_assignment, annotators


def _dimension_side_by_side(
    dimension, state, *, scheme: Scheme, annotators: list[dict], final: FinalLabel | None
) -> dict:
    """One dimension of item_side_by_side: its agreement, the answers grouped with who gave
    them (most given first), its final label, and the codebook entries of the categories
    chosen on it."""
    grouped: dict[tuple, list[str]] = defaultdict(list)
    for row in annotators:
        grouped[tuple(row["labels"].get(dimension.key, []))].append(row["annotator"])
    by_path = scheme.by_path(dimension)
    chosen = sorted(
        {path for answer in grouped for path in answer},
        key=lambda path: by_path[path].position,
    )
    return {
        "key": dimension.key,
        "name": dimension.name,
        "multiple": dimension.multiple,
        "agreement": state.kind,
        "share": round(state.agreement, 4),
        "disputed": state.disputed,
        "answers": [
            {"values": list(answer), "annotators": who}
            for answer, who in sorted(grouped.items(), key=lambda g: (-len(g[1]), g[0]))
        ],
        "final": _final_json(final) if final else None,
        "categories": [_category_json(by_path[path]) for path in chosen],
    }


def disagreement_after(*, entries: list[QueueEntry], after: int | None = None) -> QueueEntry | None:
    """The queue's entry to open after item `after` (the one the lead reads): the first one
    behind it in the queue's order, else, wrapping round, the first before it (items the lead
    passed over); never `after` itself. Without `after`, or when it has left the queue (it was
    decided), the queue's head."""
    ids = [entry.item_id for entry in entries]
    if after is None or after not in ids:
        return entries[0] if entries else None
    at = ids.index(after)
    following = entries[at + 1 :] + entries[:at]
    return following[0] if following else None


def final_history(*, item: StudyItem, scheme: Scheme) -> list[dict]:
    """Every decision and reopening on the item's final labels, oldest first, each as it was
    when made: its dimension's key and name, and each value's category name, those of the
    codebook version it was decided under (a codebook revision since moves the study to
    another version, but a version a study pinned is frozen, so its names never change)."""
    events = list(
        FinalLabelEvent.objects.filter(item=item)
        .select_related("user", "dimension")
        .order_by("created_at", "pk")
    )
    # The scheme's names without a query; an older version's (after a migration) with one.
    names: dict[int, dict[str, str]] = defaultdict(dict)
    for dimension in scheme.dimensions:
        names[dimension.pk] = {path: c.name for path, c in scheme.by_path(dimension).items()}
    older = {event.dimension_id for event in events} - set(names)
    if older:
        categories = Category.objects.filter(dimension_id__in=older)
        for dimension_id, path, name in categories.values_list("dimension_id", "path", "name"):
            names[dimension_id][path] = name
    return [
        {
            "kind": event.kind,
            "dimension": event.dimension.key,
            "dimension_name": event.dimension.name,
            "values": event.values,
            "categories": [
                {"path": path, "name": names[event.dimension_id].get(path, path)}
                for path in event.values or ()
            ],
            "method": event.method,
            "by": event.user.username if event.user else None,
            "rationale": event.rationale,
            "reason": event.reason,
            "at": event.created_at,
        }
        for event in events
    ]


def item_decisions(*, item: StudyItem, scheme: Scheme, majority: str) -> dict:
    """The item's final labels, which dimensions its annotators disagree on, and the history
    of its decisions: for the item's history, to whom item_decisions_visible allows."""
    finals = FinalLabel.objects.filter(item=item).select_related("dimension", "decided_by")
    state = items_answers(item_ids=[item.pk])[item.pk]
    states = dimension_states(state=state, scheme=scheme, majority=majority)
    return {
        "item": item.pk,
        "final": item.adjudicated_at is not None,
        "final_at": item.adjudicated_at,
        "disagreed": [d.key for d in states if d.kind not in (UNANIMOUS, UNANSWERED)],
        "labels": [
            {"dimension": label.dimension.key, **_final_json(label)}
            for label in finals.order_by("dimension__position")
        ],
        "history": final_history(item=item, scheme=scheme),
    }


def item_decisions_visible(*, item: StudyItem, user, access: StudyAccess) -> bool:
    """Leads who do not label see decisions as they are made; everyone else in the study once
    the item is final, annotators only on items they labelled."""
    if access.sees_all_labels:
        return True
    if item.adjudicated_at is None:
        return False
    if access.can_view_progress:
        return True
    return item.assignments.filter(annotator=user, status=Assignment.Status.SUBMITTED).exists()


def final_labels_visible(*, study: Study, user, access: StudyAccess) -> QuerySet[FinalLabel]:
    """Final labels of the study the user may see: leads who do not label, all of them as they
    are made; leads who label, researchers and staff, those of final items; annotators, those
    of final items they labelled. Never who labelled what."""
    labels = (
        FinalLabel.objects.filter(item__study=study)
        .select_related("item__report__repository", "dimension", "decided_by")
        .order_by("item__position", "item_id", "dimension__position")
    )
    if access.sees_all_labels:
        return labels
    labels = labels.filter(item__adjudicated_at__isnull=False)
    if access.can_view_progress:
        return labels
    mine = Assignment.objects.filter(
        item=OuterRef("item"), annotator=user, status=Assignment.Status.SUBMITTED
    )
    return labels.filter(Exists(mine))


class FinalLabelRow(NamedTuple):
    item_id: int
    report_id: int
    dimension: str
    values: tuple[str, ...]


def study_final_labels(*, study: Study) -> list[FinalLabelRow]:
    """The study's final labels: (item id, report id, dimension key, category key paths) per
    item and dimension that has one, by item and dimension position. Only items that are
    final now count (a reopened item is not, until it is decided again)."""
    rows = (
        FinalLabel.objects.filter(item__study=study, item__adjudicated_at__isnull=False)
        .order_by("item__position", "item_id", "dimension__position")
        .values_list("item_id", "item__report_id", "dimension__key", "values")
    )
    return [
        FinalLabelRow(item_id, report_id, dimension, tuple(sorted(values)))
        for item_id, report_id, dimension, values in rows
    ]
