"""Import labels made elsewhere (a spreadsheet study) into a study: all rows or none.

file -> good rows and bad rows (labeler.annotation_csv) -> good rows checked against the
study (items, annotators, labels_validate) -> every problem reported at once, by line, or all
written in one transaction as submitted assignments, each with its first version in the
item's history, that version pointing to the LabelImport (who imported which file, when).
Every step is set-based (a few queries per table, not per row), so a large file costs seconds.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from config.api import closest_name
from labeler.annotation_csv import (
    AnnotationFileError,
    LabelRow,
    Problem,
    example_file,
    read_label_file,
)
from labeler.labels import Scheme, labels_paths, labels_validate, study_scheme
from labeler.models import (
    Annotation,
    AnnotationVersion,
    Assignment,
    LabelImport,
    Study,
    StudyItem,
    StudyMember,
)
from labeler.services.adjudication import final_labels_settle
from labeler.services.studies import study_batch_append, study_member_add, user_create_unusable
from mining.selectors import reports_by_key
from mining.services.reports import report_stubs_create


class AnnotationImportError(AnnotationFileError):
    """Every problem of the file, each with its line; nothing was written."""


@dataclass(frozen=True)
class ImportSummary:
    rows: int
    submissions: int
    items_added: int
    reports_created: int
    users_created: int


def _group_labels(scheme: Scheme, rows: list[LabelRow]) -> dict:
    labels = {}
    for row in rows:
        dimension = scheme.dimension(row.dimension)
        multiple = dimension is not None and dimension.multiple
        labels[row.dimension] = (
            list(row.values) if multiple or len(row.values) != 1 else row.values[0]
        )
    return labels


def _lines(rows: list[LabelRow]) -> str:
    numbers = ", ".join(str(row.line) for row in rows)
    return f"line {numbers}" if len(rows) == 1 else f"lines {numbers}"


@dataclass
class GroupCheck:
    """One annotator's rows for one item, checked: the labels (None when refused), the
    problems, and which dimensions it gives and which required ones it lacks."""

    labels: dict | None
    problems: list[Problem]
    given: set[str]
    missing: dict[str, Problem]


def _label_problems(
    scheme: Scheme, item: str, annotator: str, rows: list[LabelRow], source: str
) -> GroupCheck:
    """Problems of one annotator's labels for one item, each on the line of its row; a
    dimension with no row at all on the group's first line, naming the group's lines. A
    required dimension that a misspelt one stands for is not reported twice."""
    given = {row.dimension for row in rows}
    try:
        labels = labels_validate(scheme=scheme, labels=_group_labels(scheme, rows))
    except ValidationError as error:
        refused = error
    else:
        return GroupCheck(labels=labels, problems=[], given=given, missing={})
    known = [d.key for d in scheme.dimensions]
    misspelt = {closest_name(key, known) for key in given if scheme.dimension(key) is None}
    lines = {row.dimension: row.line for row in rows}
    problems, missing = [], {}
    for field, messages in refused.message_dict.items():
        dimension = field.removeprefix("labels.")
        if dimension in lines:
            line = lines[dimension]
            where = f"{source}:{line}: {item}, {annotator}, {dimension}"
            problems.extend(Problem(line, f"{where}: {message}") for message in messages)
        elif dimension not in misspelt:
            # Only a required dimension can fail without a row: its values are None.
            line = rows[0].line
            missing[dimension] = Problem(
                line,
                f"{source}:{line}: {item}, {annotator}: no row for required dimension "
                f"{dimension!r} ({annotator}'s rows for {item}: {_lines(rows)})",
            )
    return GroupCheck(labels=None, problems=problems, given=given, missing=missing)


@dataclass(frozen=True)
class Typo:
    """Two groups that make one when a misspelt item or annotator is read right: `odd` is the
    misspelt one, `other` the one it stands for."""

    odd: tuple
    other: tuple
    problem: Problem


def _typos(
    groups: dict, checks: dict[tuple, GroupCheck], known: set, source: str
) -> dict[tuple, Typo]:
    """Groups split by a typo in an item or an annotator cell: one lacks required dimensions
    that the other gives, neither lacks one the other does not give, they give none twice,
    and the two differ in one cell, by a few letters. One problem for the two, instead of a
    missing dimension (and an unknown item, or one annotator too many). The misspelt one of
    the two is the one not `known` (an imported item, an annotator of the study), else the
    one with fewer rows."""
    lacking = {key for key, check in checks.items() if check.missing}
    by_item: dict[tuple, list[tuple]] = defaultdict(list)
    by_annotator: dict[str, list[tuple]] = defaultdict(list)
    for key in groups:
        by_item[key[0]].append(key)
        by_annotator[key[1]].append(key)
    rows_of_item: Counter = Counter()
    rows_of_annotator: Counter = Counter()
    for (item, annotator), rows in groups.items():
        rows_of_item[item] += len(rows)
        rows_of_annotator[annotator] += len(rows)
    found: dict[tuple, Typo] = {}

    def complement(a, b) -> bool:
        one, two = checks[a], checks[b]
        return (
            not one.given & two.given
            and set(one.missing) <= two.given
            and set(two.missing) <= one.given
        )

    def ref(item_key) -> str:
        return f"{item_key[0]}#{item_key[1]}"

    for key in sorted(lacking, key=lambda k: groups[k][0].line):
        if key in found:
            continue
        item, annotator = key
        names = {other[1]: other for other in by_item[item] if other != key}
        # A misspelt item keeps its repository or its number.
        refs = {
            ref(other[0]): other
            for other in by_annotator[annotator]
            if other != key and (other[0][0] == item[0] or other[0][1] == item[1])
        }
        for candidates, kind in ((names, "annotator"), (refs, "item")):
            own = annotator if kind == "annotator" else ref(item)
            close = closest_name(own, [c for c in candidates if candidates[c] not in found])
            if close is None or not complement(key, candidates[close]):
                continue
            other = candidates[close]
            cell, rows_of = (1, rows_of_annotator) if kind == "annotator" else (0, rows_of_item)

            def weight(group, cell=cell, rows_of=rows_of):
                return (group[cell] in known, rows_of[group[cell]], -groups[group][0].line)

            odd, right = (key, other) if weight(key) < weight(other) else (other, key)
            line = groups[odd][0].line
            given_odd = ", ".join(sorted(checks[odd].given))
            given_right = ", ".join(sorted(checks[right].given))
            if kind == "annotator":
                what = (
                    f"annotator {odd[1]!r} looks like a typo of {right[1]!r}: for {ref(item)}, "
                    f"{odd[1]} gives only {given_odd} and {right[1]} only {given_right} "
                    f"({_lines(groups[right])})"
                )
            else:
                what = (
                    f"item {ref(odd[0])} looks like a typo of {ref(right[0])}: {annotator} "
                    f"gives only {given_odd} for it and only {given_right} for "
                    f"{ref(right[0])} ({_lines(groups[right])})"
                )
            typo = Typo(odd=odd, other=right, problem=Problem(line, f"{source}:{line}: {what}"))
            found[odd] = found[right] = typo
            break
    return found


CREATE_MISSING_HINT = "pass --create-missing-reports to create a stub"


def annotation_import(
    *,
    study: Study,
    data: bytes,
    source: str = "upload",
    create_missing_reports: bool = False,
    imported_by=None,
    max_rows: int | None = None,
    create_missing_hint: str = CREATE_MISSING_HINT,
) -> ImportSummary:
    """Check every row, then write them all in one transaction, or raise with every problem.

    Annotators are created as needed (without a usable password) and join the study as
    annotators. An existing account that is not an annotator of the study is refused; one that
    is gets the file's labels credited to them on the word of whoever imports the file, so
    every version written records the import (`imported_by`, None from the command line; the
    file's name, `source`, and a SHA-256 of its bytes), shown in the item's history. Items are
    matched to reports ignoring the case of the repository name. Reports not imported yet are
    an error, or with `create_missing_reports` become stubs that the next GitHub import fills
    in. Items not yet in the study join it in a new batch. A file of more than `max_rows`
    rows (None: no limit) is refused before any is checked.
    The problem for a missing report ends with `create_missing_hint`, how the caller's user
    asks for stubs. A typo in an item or annotator cell that splits one annotator's labels of
    an item in two is one problem, not one per consequence.
    """
    try:
        label_file = read_label_file(data, source)
    except AnnotationFileError as error:
        raise AnnotationImportError(error.problems, count=error.count) from None
    rows = label_file.rows
    row_count = len(rows) + len(label_file.problems)
    if max_rows is not None and row_count > max_rows:
        raise AnnotationImportError(
            [
                f"{source}: {row_count:,} rows; an upload takes at most {max_rows:,}: split the "
                "file, or import it with the import_annotations command"
            ]
        )
    # The file's bad rows, then what is wrong with the good ones: all reported together.
    problems: list[Problem] = list(label_file.problems)
    scheme = study_scheme(study=study)
    groups: dict[tuple[tuple[str, int], str], list[LabelRow]] = defaultdict(list)
    spelled: dict[tuple[str, int], str] = {}
    for row in rows:
        key = (row.repository.lower(), row.number)
        spelled.setdefault(key, row.repository)
        groups[(key, row.annotator)].append(row)

    chosen = {}
    checks = {}
    for (item_key, annotator), group in groups.items():
        item_ref = f"{item_key[0]}#{item_key[1]}"
        checks[(item_key, annotator)] = _label_problems(scheme, item_ref, annotator, group, source)
        chosen[(item_key, annotator)] = checks[(item_key, annotator)].labels
    first_line = {}
    for row in rows:
        first_line.setdefault((row.repository.lower(), row.number), row.line)
    reports = reports_by_key(keys=list(first_line))
    annotators = StudyMember.objects.filter(
        study=study, role=StudyMember.Role.ANNOTATOR, user__username__in={a for _, a in groups}
    ).values_list("user__username", flat=True)
    typos = _typos(groups, checks, {*reports, *annotators}, source)
    for key, check in checks.items():
        problems.extend(check.problems)
        if key not in typos:
            problems.extend(check.missing.values())
    problems.extend({typo.problem for typo in typos.values()})
    # What follows from a typo is said by its problem: no unknown item, no annotator too many.
    misspelt = {typo.odd for typo in typos.values()}
    misspelt_items = {key[0] for key in misspelt} - {
        key[0] for key in groups if key not in misspelt
    }

    def problem(line: int, what: str) -> None:
        problems.append(Problem(line, f"{source}:{line}: {what}"))

    missing = [key for key in first_line if key not in reports]
    if missing and not create_missing_reports:
        for key in missing:
            if key in misspelt_items:
                continue
            problem(
                first_line[key],
                f"unknown item {key[0]}#{key[1]} (not imported; import its repository first, "
                f"or {create_missing_hint})",
            )

    report_ids = [report.pk for report in reports.values()]
    items = {
        item.report_id: item
        for item in StudyItem.objects.filter(study=study, report_id__in=report_ids)
    }
    users = {
        u.username: u for u in get_user_model().objects.filter(username__in={a for _, a in groups})
    }
    study_annotators = set(
        StudyMember.objects.filter(
            study=study, role=StudyMember.Role.ANNOTATOR, user__in=users.values()
        ).values_list("user__username", flat=True)
    )
    reported_outsiders = set()
    for (_, annotator), group in groups.items():
        if annotator in users and annotator not in study_annotators:
            if annotator not in reported_outsiders:
                problem(
                    group[0].line,
                    f"{annotator} is an existing account but not an annotator of study "
                    f"{study.slug}; add them as an annotator first",
                )
            reported_outsiders.add(annotator)
    key_of = {report.pk: key for key, report in reports.items()}
    for item in items.values():
        if item.adjudicated_at is not None:
            key = key_of[item.report_id]
            problem(
                first_line[key],
                f"{key[0]}#{key[1]} is adjudicated in study {study.slug}; its labels can no "
                "longer change",
            )
    taken = set(
        Assignment.objects.filter(item__in=items.values())
        .exclude(status=Assignment.Status.EXPIRED)
        .values_list("item__report_id", "annotator__username")
    )
    per_item: dict[tuple[str, int], int] = defaultdict(int)
    for item_key, annotator in groups:
        report = reports.get(item_key)
        if report is not None and (report.pk, annotator) in taken:
            problem(
                groups[(item_key, annotator)][0].line,
                f"{annotator} already has {item_key[0]}#{item_key[1]} in study {study.slug}",
            )
        if (item_key, annotator) not in misspelt:
            per_item[item_key] += 1
    for item_key, count in per_item.items():
        report = reports.get(item_key)
        item = items.get(report.pk) if report else None
        needed = item.needed if item else study.overlap
        already = item.claimed if item else 0
        if already + count > needed:
            problem(
                first_line[item_key],
                f"{item_key[0]}#{item_key[1]} would have {already + count} annotators; the "
                f"study's overlap is {needed} (raise it first)",
            )
    if problems:
        raise AnnotationImportError.of(problems, source)

    return _write(
        study=study,
        scheme=scheme,
        groups=groups,
        chosen=chosen,
        reports=reports,
        missing=[(key, spelled[key]) for key in missing],
        users=users,
        source=source,
        label_import=LabelImport(
            study=study,
            imported_by=imported_by,
            file_name=source[-255:],
            sha256=hashlib.sha256(data).hexdigest(),
            rows=len(rows),
        ),
    )


# The writes below go from plain lists to PostgreSQL as one array a column (unnest), not
# through model instances: at 100k rows, preparing instances for bulk_create took longer than
# PostgreSQL took to store them. Table and column names are the models', never input.
_CHUNK = 20_000


def _assignments_insert(study, now, rows) -> dict[tuple[int, int], int]:
    """Submitted assignments of (item id, annotator id, note); their ids by (item, annotator)."""
    ids = {}
    with connection.cursor() as cursor:
        for start in range(0, len(rows), _CHUNK):
            chunk = rows[start : start + _CHUNK]
            cursor.execute(
                f"INSERT INTO {Assignment._meta.db_table} (item_id, study_id, annotator_id, "  # noqa: S608
                "status, held_at, submitted_at, skip_reason, note, unsure, seconds, version) "
                "SELECT r.item_id, %s, r.annotator_id, %s, %s, %s, '', r.note, false, 0, 1 "
                "FROM unnest(%s::bigint[], %s::bigint[], %s::text[]) AS r(item_id, annotator_id, "
                "note) RETURNING item_id, annotator_id, id",
                [
                    study.pk,
                    Assignment.Status.SUBMITTED,
                    now,
                    now,
                    [row[0] for row in chunk],
                    [row[1] for row in chunk],
                    [row[2] for row in chunk],
                ],
            )
            ids.update(((item, user), pk) for item, user, pk in cursor.fetchall())
    return ids


def _answers_insert(now, answers) -> None:
    """Annotations of (assignment id, item id, annotator id, dimension id, categories), and
    their categories."""
    table = Annotation._meta.db_table
    through = Annotation.categories.through._meta.db_table
    with connection.cursor() as cursor:
        for start in range(0, len(answers), _CHUNK):
            chunk = answers[start : start + _CHUNK]
            cursor.execute(
                f"INSERT INTO {table} (assignment_id, item_id, annotator_id, dimension_id, "  # noqa: S608
                '"values", updated_at) SELECT r.assignment_id, r.item_id, r.annotator_id, '
                "r.dimension_id, r.paths::jsonb, %s FROM unnest(%s::bigint[], %s::bigint[], "
                "%s::bigint[], %s::bigint[], %s::text[]) AS r(assignment_id, item_id, "
                "annotator_id, dimension_id, paths) RETURNING assignment_id, dimension_id, id",
                [
                    now,
                    [a[0] for a in chunk],
                    [a[1] for a in chunk],
                    [a[2] for a in chunk],
                    [a[3] for a in chunk],
                    [json.dumps([c.path for c in a[4]]) for a in chunk],
                ],
            )
            ids = {(assignment, dimension): pk for assignment, dimension, pk in cursor.fetchall()}
            links = [(ids[(a[0], a[3])], category.pk) for a in chunk for category in a[4]]
            cursor.execute(
                f"INSERT INTO {through} (annotation_id, category_id) "  # noqa: S608
                "SELECT * FROM unnest(%s::bigint[], %s::bigint[])",
                [[link[0] for link in links], [link[1] for link in links]],
            )


def _versions_insert(now, label_import_id, versions) -> None:
    """First versions of (assignment id, item id, annotator id, labels JSON, note)."""
    with connection.cursor() as cursor:
        for start in range(0, len(versions), _CHUNK):
            chunk = versions[start : start + _CHUNK]
            cursor.execute(
                f"INSERT INTO {AnnotationVersion._meta.db_table} (assignment_id, item_id, "  # noqa: S608
                "annotator_id, number, labels, changes, note, unsure, seconds, created_at, "
                "imported_id) SELECT r.assignment_id, r.item_id, r.annotator_id, 1, "
                "r.labels::jsonb, '{}', r.note, false, 0, %s, %s FROM unnest(%s::bigint[], "
                "%s::bigint[], %s::bigint[], %s::text[], %s::text[]) AS r(assignment_id, "
                "item_id, annotator_id, labels, note)",
                [now, label_import_id, *([v[i] for v in chunk] for i in range(5))],
            )


@transaction.atomic
def _write(
    *, study, scheme, groups, chosen, reports, missing, users, source, label_import
) -> ImportSummary:
    # A stub's repository is named as the file first spells it.
    stubs = report_stubs_create(references=[(name, key[1]) for key, name in missing])
    reports = {**reports, **{key: stub for (key, _), stub in zip(missing, stubs, strict=True)}}
    created_users = 0
    for _, annotator in groups:
        if annotator not in users:
            users[annotator] = user_create_unusable(username=annotator)
            created_users += 1
    for annotator in dict.fromkeys(annotator for _, annotator in groups):
        study_member_add(study=study, user=users[annotator], role=StudyMember.Role.ANNOTATOR)

    report_ids = {report.pk for report in reports.values()}
    items = {
        item.report_id: item
        for item in StudyItem.objects.select_for_update().filter(
            study=study, report_id__in=report_ids
        )
    }
    new_report_ids = sorted(report_ids - set(items))
    if new_report_ids:
        _, added = study_batch_append(
            study=study,
            report_ids=new_report_ids,
            frame={},
            sampling={"mode": "import", "source": source},
            seed=0,
            frame_size=len(new_report_ids),
        )
        items.update((item.report_id, item) for item in added)

    now = timezone.now()
    label_import.created_at = now
    label_import.save()
    per_item: dict[int, int] = defaultdict(int)
    for item_key, _ in groups:
        per_item[reports[item_key].pk] += 1
    for report_id, count in per_item.items():
        item = items[report_id]
        if item.claimed + count > item.needed:
            raise ValidationError(
                f"item {item} was handed out while importing; it now has no room for "
                f"{count} more annotations"
            )

    # A hold of theirs that expired takes the place of a new assignment (one per person):
    # the checks refused any other assignment of theirs on these items.
    pairs = {}
    notes = {}
    for group_key, group in groups.items():
        item_key, annotator = group_key
        pairs[group_key] = (items[reports[item_key].pk].pk, users[annotator].pk)
        notes[group_key] = "\n".join(dict.fromkeys(row.note for row in group if row.note))
    expired = {
        (a.item_id, a.annotator_id): a
        for a in Assignment.objects.filter(
            item__in={item for item, _ in pairs.values()},
            annotator__in={user for _, user in pairs.values()},
        )
    }
    reused = []
    for group_key, pair in pairs.items():
        if pair in expired:
            assignment = expired[pair]
            assignment.study, assignment.status, assignment.version = study, "submitted", 1
            assignment.held_at = assignment.submitted_at = now
            assignment.note = notes[group_key]
            reused.append(assignment)
    Assignment.objects.bulk_update(
        reused, ["study", "status", "held_at", "submitted_at", "note", "version"], batch_size=2000
    )
    fresh = [key for key, pair in pairs.items() if pair not in expired]
    assignment_ids = {(a.item_id, a.annotator_id): a.pk for a in reused}
    assignment_ids.update(_assignments_insert(study, now, [(*pairs[k], notes[k]) for k in fresh]))

    dimensions = {d.key: d.pk for d in scheme.dimensions}
    answers, versions = [], []
    for group_key, (item_id, user_id) in pairs.items():
        labels = chosen[group_key]
        assignment_id = assignment_ids[(item_id, user_id)]
        for key, categories in labels.items():
            answers.append((assignment_id, item_id, user_id, dimensions[key], categories))
        versions.append(
            (assignment_id, item_id, user_id, json.dumps(labels_paths(labels)), notes[group_key])
        )
    _answers_insert(now, answers)
    _versions_insert(now, label_import.pk, versions)

    # One update per distinct count, not per item: the items are locked above.
    by_count: dict[int, list[int]] = defaultdict(list)
    for report_id, count in per_item.items():
        by_count[count].append(items[report_id].pk)
    for count, item_ids in by_count.items():
        StudyItem.objects.filter(pk__in=item_ids).update(
            claimed=F("claimed") + count, submitted=F("submitted") + count
        )
    # Imported labels count like the app's: the items they complete are decided as a
    # submission would decide them.
    completed = [
        items[report_id].pk
        for report_id, count in per_item.items()
        if items[report_id].submitted + count >= items[report_id].needed
    ]
    final_labels_settle(item_ids=completed, scheme=scheme, majority=study.majority, now=now)
    return ImportSummary(
        rows=sum(len(group) for group in groups.values()),
        submissions=len(groups),
        items_added=len(new_report_ids),
        reports_created=len(missing),
        users_created=created_users,
    )


EXAMPLE_ANNOTATORS = ("alice", "bob")


def labels_csv_example(*, study: Study) -> str:
    """A labels file for this study, built from its own codebook: what the import page shows
    as the format. Values are the most specific categories, nested ones first, so that the
    example shows a key path."""
    scheme = study_scheme(study=study)
    dimensions = []
    for dimension in scheme.dimensions:
        leaves = [c for c in scheme.categories[dimension.pk] if not scheme.children(c)]
        leaves.sort(key=lambda category: "/" not in category.path)
        dimensions.append((dimension.key, dimension.multiple, [c.path for c in leaves]))
    first = study.items.select_related("report__repository").order_by("position").first()
    item = f"{first.report.repository.full_name}#{first.report.number}" if first else "owner/name#1"
    return example_file(item=item, annotators=EXAMPLE_ANNOTATORS, dimensions=dimensions)
