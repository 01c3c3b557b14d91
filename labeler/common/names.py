"""Names as people read them, one way each.

Annotators: the study's pseudonyms (A1, A2, … in the order of first submission) or their
usernames (`annotator_names`), and how one reader sees them (`annotator_namer`). Reports:
`owner/name#number` (`report_ref`). Stored labels: dimension and category names, in the
codebook's order, each version of an item's labels named by the codebook version it was
labelled against (a history says what was true when it was written)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import BooleanField, Exists, ExpressionWrapper, Min, OuterRef

from labeler.common.permissions import StudyAccess, access_sees_annotator_names
from labeler.common.scheme import Scheme
from labeler.models import (
    Assignment,
    CodebookMigration,
    DisagreementReason,
    Study,
    StudyMember,
    StudyMemberRemoval,
)
from taxonomy.models import Category, Dimension


def _submitters(study: Study) -> list[tuple[int, str]]:
    """(user id, username) of everyone who submitted in the study, in the order of their first
    submission: one query."""
    return list(
        Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED)
        .values("annotator")
        .annotate(first=Min("submitted_at"))
        .order_by("first", "annotator")
        .values_list("annotator", "annotator__username")
    )


def study_pseudonyms(*, study: Study) -> dict[int, str]:
    """A1, A2, … by user id, in the order of each annotator's first submission in the study."""
    return {pk: f"A{number}" for number, (pk, _) in enumerate(_submitters(study), start=1)}


def annotator_names(
    *, study: Study, real_names: bool, user_ids=(), mark_removed: bool = False
) -> dict[int, str]:
    """User id -> name of everyone who submitted in the study (and, with real names, of
    `user_ids`, who may not have yet): the study's pseudonym, or the username when real names
    are asked for; in the order of first submission; with `mark_removed`, "(removed)" after an
    annotator a lead removed from the study. One query (one more for `user_ids` holding
    someone who has not submitted, and one for `mark_removed`)."""
    if not real_names:
        names = study_pseudonyms(study=study)
    else:
        names = dict(_submitters(study))
        missing = [pk for pk in user_ids if pk not in names]
        if missing:
            users = get_user_model().objects.filter(pk__in=missing)
            names.update(users.values_list("pk", "username"))
    if mark_removed:
        removed = study_removed_annotators(study_id=study.pk)
        names = {pk: name_marked(name, removed=pk in removed) for pk, name in names.items()}
    return names


def annotator_namer(*, study: Study, user, access: StudyAccess):
    """How `user` reads who labelled in the study: usernames for its leads (and staff), their
    own name for themselves, and the study's pseudonyms (A1, A2, …) for everyone else, as the
    export names them. A function of the annotator (a user). An annotator removed from the
    study is marked so ("A2 (removed)")."""
    removed = study_removed_annotators(study_id=study.pk)
    if access_sees_annotator_names(access):
        return lambda annotator: name_marked(
            annotator.get_username(), removed=annotator.pk in removed
        )
    pseudonyms = study_pseudonyms(study=study)

    def name(annotator) -> str:
        if annotator.pk == user.pk:
            return annotator.get_username()
        return name_marked(
            pseudonyms.get(annotator.pk, "another annotator"), removed=annotator.pk in removed
        )

    return name


def report_ref(report) -> str:
    """A report as people cite it: owner/name#number."""
    return f"{report.repository.full_name}#{report.number}"


def reason_names() -> list[tuple[str, str, str]]:
    """(value, short name, what it means) of each reason a lead may give for a disagreement."""
    return [
        (value, value.replace("_", " ").capitalize(), label)
        for value, label in DisagreementReason.choices
    ]


def _as_text(value) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "(none)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value) if value not in (None, "") else "(empty)"


# A codebook revision took the label off: its category was split (or removed).
RELABEL_TEXT = "(to label again: its category was split or removed)"
# A revision's changed codes are under `codes.<dimension key>` (services.assignment).
CODES = "codes."


class LabelNames:
    """Stored labels (dimension keys, category key paths) as people read them: names, in the
    codebook's order of dimensions, each category with its path."""

    def __init__(self, scheme) -> None:
        self.scheme = scheme
        self.dimensions = {d.key: (position, d) for position, d in enumerate(scheme.dimensions)}

    def _order(self, key: str) -> tuple[int, str]:
        return (self.dimensions.get(key, (len(self.dimensions),))[0], key)

    def dimension_name(self, key: str) -> str:
        return self.dimensions[key][1].name if key in self.dimensions else key

    def _category_name(self, key: str, path: str) -> str:
        """The category's name; its path when the scheme no longer has it."""
        if key not in self.dimensions:
            return path
        category = self.scheme.by_path(self.dimensions[key][1]).get(path)
        return category.name if category is not None else path

    def _named(self, key: str, paths) -> object:
        if not isinstance(paths, list) or key.startswith(CODES):
            return paths  # the note, the unsure flag, or codes as written
        return [f"{self._category_name(key, path)} ({path})" for path in paths]

    def values(self, key: str, paths: list[str]) -> list[tuple[str, str]]:
        """[(category name, path)] of a dimension's values."""
        return [(self._category_name(key, path), path) for path in paths]

    def ordered(self, labels: dict) -> list[tuple[str, list[str]]]:
        """[(dimension key, its values)] in the codebook's order of dimensions."""
        return [(key, labels[key]) for key in sorted(labels, key=self._order)]

    def labels(self, labels: dict) -> list[tuple[str, list[tuple[str, str]]]]:
        """[(dimension name, [(category name, path)])]."""
        return [
            (
                self.dimension_name(key),
                [(self._category_name(key, path), path) for path in labels[key]],
            )
            for key in sorted(labels, key=self._order)
        ]

    def codes(self, codes: dict) -> list[tuple[str, list[str]]]:
        """Open coding: [(dimension name, [codes as written])]."""
        return [(self.dimension_name(key), codes[key]) for key in sorted(codes, key=self._order)]

    def _change_name(self, key: str) -> str:
        if key.startswith(CODES):
            return f"{self.dimension_name(key.removeprefix(CODES))}: codes"
        return self.dimension_name(key)

    def changes(self, changes: dict) -> list[tuple[str, str, str]]:
        """What a revision changed, as (what, from, to) text."""
        return [
            (
                self._change_name(key),
                _as_text(self._named(key, changes[key].get("from"))),
                RELABEL_TEXT
                if changes[key].get("relabel")
                else _as_text(self._named(key, changes[key].get("to"))),
            )
            for key in sorted(changes, key=self._order)
        ]


def names_as_labelled(*, study, scheme: Scheme, versions) -> dict[int, LabelNames]:
    """Per version, the names of the codebook version it was labelled against: a migration's
    version, the one it migrated to; any other, the one the study had when it was made (the
    version migrated from by the first migration after it, else the study's own). A version
    a study pinned is frozen, so these are the names as they were."""
    migrations = list(
        CodebookMigration.objects.filter(study=study)
        .order_by("created_at", "pk")
        .values_list("pk", "created_at", "from_codebook_id", "to_codebook_id")
    )
    to_of = {pk: to for pk, _, _, to in migrations}

    def codebook_of(version) -> int:
        if version.migration_id is not None:
            return to_of[version.migration_id]
        later = (old for _, at, old, _ in migrations if at > version.created_at)
        return next(later, study.codebook_id)

    codebooks = {version.pk: codebook_of(version) for version in versions}
    keys = [d.key for d in scheme.dimensions]
    by_codebook = {study.codebook_id: LabelNames(scheme)}
    for codebook_id in set(codebooks.values()) - set(by_codebook):
        dimensions = tuple(
            Dimension.objects.filter(codebook_id=codebook_id, key__in=keys).order_by("position")
        )
        categories: dict[int, list[Category]] = {d.pk: [] for d in dimensions}
        for category in Category.objects.filter(dimension__in=dimensions).order_by("position"):
            categories[category.dimension_id].append(category)
        by_codebook[codebook_id] = LabelNames(
            Scheme(dimensions=dimensions, categories={k: tuple(v) for k, v in categories.items()})
        )
    return {pk: by_codebook[codebook_id] for pk, codebook_id in codebooks.items()}


def study_removed_annotators(*, study_id: int) -> set[int]:
    """Ids of users a lead removed as annotators of the study who annotate in it no more."""
    annotates = StudyMember.objects.filter(
        study_id=study_id, user=OuterRef("user"), role=StudyMember.Role.ANNOTATOR
    )
    return set(
        StudyMemberRemoval.objects.filter(study_id=study_id, role=StudyMember.Role.ANNOTATOR)
        .exclude(Exists(annotates))
        .values_list("user", flat=True)
    )


def annotator_removed(*, study: str = "study", user: str = "annotator") -> ExpressionWrapper:
    """Whether the row's annotator (the `user` path) was removed as annotator of the row's
    study (the `study` path) and annotates there no more: a column, for rows already read."""
    removed = StudyMemberRemoval.objects.filter(
        study=OuterRef(study), user=OuterRef(user), role=StudyMember.Role.ANNOTATOR
    )
    annotates = StudyMember.objects.filter(
        study=OuterRef(study), user=OuterRef(user), role=StudyMember.Role.ANNOTATOR
    )
    return ExpressionWrapper(Exists(removed) & ~Exists(annotates), output_field=BooleanField())


REMOVED_MARK = " (removed)"


def name_marked(name: str, *, removed: bool) -> str:
    """A labeller's name as shown beside their labels: marked when they were removed."""
    return name + REMOVED_MARK if removed else name
