"""Reads of a codebook revision: the lineage of versions, and the plan of what a study's labels
become (labeler.revisions.mapping does the arithmetic)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from django.core.exceptions import ValidationError
from django.utils import timezone

from labeler.models import (
    Annotation,
    Assignment,
    FinalLabel,
    Study,
)
from labeler.revisions.mapping import (
    REMOVED,
    PlanError,
    ValuePlan,
    category_changes,
    mapping_compose,
    value_plan,
)
from taxonomy.models import Category, Codebook, Dimension

Status = Assignment.Status


@dataclass(frozen=True)
class CategoryMove:
    """One old category in a codebook revision's plan: what became of it, where it goes,
    and how many current labels (annotations) and final labels use it."""

    dimension: str
    path: str
    change: str
    into: list[str]
    annotations: int
    finals: int


@dataclass(frozen=True)
class LabelMove:
    """One annotation's or final label's value (`old`) and its plan in the new version."""

    id: int
    item_id: int
    assignment_id: int | None
    key: str
    old: list[str]
    plan: ValuePlan


@dataclass
class RevisionPlan:
    """A study's move to a revised version of its codebook, as it would go now.

    `mapping` is composed from the study's version (`source`) to `target`; `dimensions` are
    the target's dimensions the study labels, by key. `holds` counts the items annotators
    hold at this moment: a migration waits until they are submitted or expire."""

    study: Study
    source: Codebook
    target: Codebook
    mapping: dict
    dimensions: dict[str, Dimension]
    categories: list[CategoryMove]
    annotations: list[LabelMove]
    finals: list[LabelMove]
    holds: int

    @cached_property
    def relabelled(self) -> set[tuple[int, str]]:
        """(item id, dimension key) where an annotation needs re-labelling."""
        return {(move.item_id, move.key) for move in self.annotations if move.plan.relabel}

    def reopens(self, final: LabelMove) -> bool:
        """A final label is reopened when it touches a split (or removed) category, or when
        an annotation it rests on must be labelled again."""
        return final.plan.relabel or (final.item_id, final.key) in self.relabelled

    @property
    def counts(self) -> dict[str, int]:
        reopened = [final for final in self.finals if self.reopens(final)]
        relabel = [move for move in self.annotations if move.plan.relabel]
        return {
            "annotations_carried": len(self.annotations) - len(relabel),
            "annotations_relabel": len(relabel),
            "assignments_flagged": len({move.assignment_id for move in relabel}),
            "finals_carried": len(self.finals) - len(reopened),
            "finals_reopened": len(reopened),
            "items_reopened": len({final.item_id for final in reopened}),
        }


def codebook_lineage(*, source: Codebook, target: Codebook) -> list[Codebook]:
    """The versions after `source` up to `target`, each revised from the one before it; a
    ValidationError when `target` is `source` or does not derive from it."""
    if target.pk == source.pk:
        raise ValidationError(
            f"the study is on {source.key} v{source.version} already: choose a later version"
        )
    chain = [target]
    while chain[-1].derived_from_id not in (None, source.pk):
        chain.append(Codebook.objects.get(pk=chain[-1].derived_from_id))
    if chain[-1].derived_from_id != source.pk:
        raise ValidationError(
            f"{target.key} v{target.version} does not derive from the study's version "
            f"({source.key} v{source.version}): a study moves only to a revision of its version"
        )
    return chain[::-1]


def codebook_revisions_after(*, codebook: Codebook) -> list[Codebook]:
    """Every version revised, directly or not, from `codebook`, oldest first."""
    found: list[Codebook] = []
    frontier = [codebook.pk]
    while frontier:
        revised = list(Codebook.objects.filter(derived_from__in=frontier).order_by("pk"))
        found += revised
        frontier = [c.pk for c in revised]
    return found


def study_revision_plan(*, study: Study, target: Codebook) -> RevisionPlan:
    """How the study's labels would move to `target` now (see labeler.revisions.mapping).

    Refused with a ValidationError naming the problem: the same version, a version that does
    not derive from the study's, an open-coding study (its round builds a codebook), a
    dimension of the study the target lacks."""
    source = study.codebook
    lineage = codebook_lineage(source=source, target=target)
    if study.kind == Study.Kind.OPEN:
        raise ValidationError(
            f"study {study.slug!r} is an open-coding study: its round builds a codebook; "
            "migrate a closed study's labels"
        )
    mapping = mapping_compose([version.mapping for version in lineage])
    keys = list(study.dimensions.order_by("position").values_list("key", flat=True))
    dimensions = {d.key: d for d in target.dimensions.filter(key__in=keys)}
    missing = [key for key in keys if key not in dimensions]
    if missing:
        raise ValidationError(
            f"{target.key} v{target.version} has no dimension {', '.join(map(repr, missing))}, "
            f"which study {study.slug!r} labels"
        )
    annotations = [
        LabelMove(pk, item_id, assignment_id, key, values, _value_plan(mapping, key, values))
        for pk, item_id, assignment_id, key, values in Annotation.objects.filter(item__study=study)
        .order_by("pk")
        .values_list("pk", "item_id", "assignment_id", "dimension__key", "values")
    ]
    finals = [
        LabelMove(pk, item_id, None, key, values, _value_plan(mapping, key, values))
        for pk, item_id, key, values in FinalLabel.objects.filter(item__study=study)
        .order_by("pk")
        .values_list("pk", "item_id", "dimension__key", "values")
    ]
    uses = Counter((move.key, path) for move in annotations for path in move.old)
    final_uses = Counter((move.key, path) for move in finals for path in move.old)
    categories = []
    for key in keys:
        changes = category_changes(mapping.get(key, {}))
        for path in (
            Category.objects.filter(dimension__codebook=source, dimension__key=key)
            .order_by("position")
            .values_list("path", flat=True)
        ):
            categories.append(
                CategoryMove(
                    dimension=key,
                    path=path,
                    change=changes.get(path, REMOVED),
                    into=mapping.get(key, {}).get(path, []),
                    annotations=uses[(key, path)],
                    finals=final_uses[(key, path)],
                )
            )
    holds = study.assignments.filter(
        status=Status.HELD, held_at__gte=timezone.now() - study.hold_timeout
    ).count()
    return RevisionPlan(
        study=study,
        source=source,
        target=target,
        mapping=mapping,
        dimensions=dimensions,
        categories=categories,
        annotations=annotations,
        finals=finals,
        holds=holds,
    )


def _value_plan(mapping: dict, key: str, values: list[str]) -> ValuePlan:
    try:
        return value_plan(mapping.get(key, {}), values)
    except PlanError as problem:
        raise ValidationError(f"dimension {key!r}: {problem}") from None
