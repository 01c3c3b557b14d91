"""Import labels made elsewhere (a spreadsheet study) into a study: all rows or none.

file -> good rows and bad rows (labeler.common.label_csv) -> good rows checked against the
study (items, annotators, labels_validate) -> every problem reported at once, by line, or all
written in one transaction as submitted assignments, each with its first version in the
item's history, that version pointing to the LabelImport (who imported which file, when).
Every step is set-based (a few queries per table, not per row), so a large file costs seconds.
"""

from __future__ import annotations

import gc
import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models.expressions import RawSQL
from django.utils import timezone

from config.names import closest_name
from config.sql import int_array, text_array
from labeler.adjudication.services import final_labels_settle
from labeler.common.label_csv import (
    AnnotationFileError,
    LabelFile,
    LabelRow,
    Problem,
    example_file,
    read_label_file,
)
from labeler.common.scheme import Scheme, labels_paths, labels_validate, study_scheme
from labeler.models import (
    Annotation,
    AnnotationVersion,
    Assignment,
    LabelImport,
    Study,
    StudyItem,
    StudyMember,
)
from labeler.studies.services import study_batch_append, study_member_add, user_create_unusable
from mining.selectors import report_ids_by_key
from mining.services.reports import report_stubs_create
from taxonomy.models import Category


class AnnotationImportError(AnnotationFileError):
    """Every problem of the file, each with its line; nothing was written."""


@dataclass(frozen=True)
class ImportSummary:
    rows: int
    submissions: int
    items_added: int
    reports_created: int
    users_created: int
    label_import_id: int


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
    problems, and which dimensions it gives and which required ones it lacks. Groups that
    give the same values share one accepted check, and so its JSON, made once."""

    labels: dict | None
    problems: list[Problem]
    given: set[str]
    missing: dict[str, Problem]

    @cached_property
    def paths_json(self) -> str:
        """The labels' key paths by dimension, as a version stores them."""
        return json.dumps(labels_paths(self.labels))

    @cached_property
    def values_json(self) -> dict[str, str]:
        """Each dimension's key paths, as its annotation stores them."""
        return {key: json.dumps([c.path for c in chosen]) for key, chosen in self.labels.items()}


def _ids_in(ids) -> RawSQL:
    """`field__in=_ids_in(ids)`: the ids as one array, not one parameter each."""
    return RawSQL("SELECT unnest(%s::bigint[])", [int_array(ids)])


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


@contextmanager
def _collector_paused():
    """The cyclic garbage collector off for the block. An import keeps a few hundred
    thousand small objects (rows, keys, checks) alive until it ends; the collector walked
    them again and again, a third of the import's own CPU time at 100k rows, and found little:
    what the import leaves behind goes with its frames. Collection resumes afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


CHECK_PROGRESS_EVERY = 10_000


def label_import_store(
    *,
    study: Study,
    data: bytes,
    source: str = "upload",
    create_missing_reports: bool = False,
    imported_by=None,
    max_rows: int | None = None,
    create_missing_hint: str = CREATE_MISSING_HINT,
    progress: Callable[[int], None] | None = None,
    written: Callable[[ImportSummary], None] | None = None,
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
    `progress`, if given, is called with the number of rows checked so far, now and then
    while checking (outside any transaction), and with all of them just before the writes.
    `written`, if given, is called with the summary within the transaction that writes the
    labels, last: what it writes commits with them, and an exception it raises undoes them.
    """
    with _collector_paused():
        return _import(
            study=study,
            data=data,
            source=source,
            create_missing_reports=create_missing_reports,
            imported_by=imported_by,
            max_rows=max_rows,
            create_missing_hint=create_missing_hint,
            progress=progress or (lambda checked: None),
            written=written or (lambda summary: None),
        )


def _import(
    *,
    study,
    data,
    source,
    create_missing_reports,
    imported_by,
    max_rows,
    create_missing_hint,
    progress,
    written,
) -> ImportSummary:
    label_file = _file_read(data, source, max_rows)
    rows = label_file.rows
    # The file's bad rows, then what is wrong with the good ones: all reported together.
    problems: list[Problem] = list(label_file.problems)
    scheme = study_scheme(study=study)
    groups: dict[tuple[tuple[str, int], str], list[LabelRow]] = defaultdict(list)
    spelled: dict[tuple[str, int], str] = {}
    for row in rows:
        key = (row.repository.lower(), row.number)
        spelled.setdefault(key, row.repository)
        groups[(key, row.annotator)].append(row)
    checks = _groups_checked(scheme, groups, source, progress)
    first_line = {}
    for row in rows:
        first_line.setdefault((row.repository.lower(), row.number), row.line)
    reports = report_ids_by_key(keys=list(first_line))
    misspelt = _group_problems(study, groups, checks, reports, source, problems)
    misspelt_items = {key[0] for key in misspelt} - {
        key[0] for key in groups if key not in misspelt
    }
    missing = [key for key in first_line if key not in reports]
    if missing and not create_missing_reports:
        for key in missing:
            if key in misspelt_items:
                continue
            problems.append(
                _problem(
                    source,
                    first_line[key],
                    f"unknown item {key[0]}#{key[1]} (not imported; import its repository "
                    f"first, or {create_missing_hint})",
                )
            )
    users = _study_problems(
        study=study,
        groups=groups,
        reports=reports,
        first_line=first_line,
        misspelt=misspelt,
        source=source,
        problems=problems,
    )
    if problems:
        raise AnnotationImportError.of(problems, source)
    progress(len(rows))
    return _write(
        study=study,
        scheme=scheme,
        groups=groups,
        checks=checks,
        reports=reports,
        missing=[(key, spelled[key]) for key in missing],
        users=users,
        source=source,
        written=written,
        label_import=LabelImport(
            study=study,
            imported_by=imported_by,
            file_name=source[-255:],
            sha256=hashlib.sha256(data).hexdigest(),
            rows=len(rows),
        ),
    )


def _problem(source: str, line: int, what: str) -> Problem:
    return Problem(line, f"{source}:{line}: {what}")


def _file_read(data: bytes, source: str, max_rows: int | None) -> LabelFile:
    """The file's rows and bad rows; a file of more than `max_rows` rows is refused whole."""
    try:
        label_file = read_label_file(data, source)
    except AnnotationFileError as error:
        raise AnnotationImportError(error.problems, count=error.count) from None
    row_count = len(label_file.rows) + len(label_file.problems)
    if max_rows is not None and row_count > max_rows:
        raise AnnotationImportError(
            [
                f"{source}: {row_count:,} rows; an upload takes at most {max_rows:,}: split the "
                "file, or import it with the import_annotations command"
            ]
        )
    return label_file


def _groups_checked(scheme, groups: dict, source: str, progress) -> dict[tuple, GroupCheck]:
    """Each group's check against the scheme (one annotator's rows of one item)."""
    checks: dict[tuple, GroupCheck] = {}
    # A file repeats a few combinations of values: each is checked once. A refused one is
    # checked again for each group, as its problems name the group's item and lines.
    accepted: dict[tuple, GroupCheck] = {}
    progress(0)
    checked = reported = 0
    for group_key, group in groups.items():
        checked += len(group)
        if checked - reported >= CHECK_PROGRESS_EVERY:
            progress(checked)
            reported = checked
        shape = tuple(sorted((row.dimension, row.values) for row in group))
        check = accepted.get(shape)
        if check is None:
            item_key, annotator = group_key
            item_ref = f"{item_key[0]}#{item_key[1]}"
            check = _label_problems(scheme, item_ref, annotator, group, source)
            if check.labels is not None:
                accepted[shape] = check
        checks[group_key] = check
    return checks


def _group_problems(
    study, groups: dict, checks: dict[tuple, GroupCheck], reports: dict, source: str, problems
) -> set[tuple]:
    """Add the groups' problems to `problems`, a typo splitting a group in two said once;
    returns the misspelt groups."""
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
    return {typo.odd for typo in typos.values()}


def _study_problems(
    *, study, groups: dict, reports: dict, first_line: dict, misspelt: set, source: str, problems
) -> dict:
    """Add to `problems` what the study refuses: an account that is not its annotator, an
    adjudicated item, an item its annotator already has, more annotators than the overlap;
    returns the file's existing accounts by username."""

    def problem(line: int, what: str) -> None:
        problems.append(_problem(source, line, what))

    items = {
        item.report_id: item
        for item in StudyItem.objects.filter(
            study=study, report_id__in=_ids_in(reports.values())
        ).values_list("report_id", "pk", "adjudicated_at", "needed", "claimed", named=True)
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
    key_of = {report_id: key for key, report_id in reports.items()}
    for item in items.values():
        if item.adjudicated_at is not None:
            key = key_of[item.report_id]
            problem(
                first_line[key],
                f"{key[0]}#{key[1]} is adjudicated in study {study.slug}; its labels can no "
                "longer change",
            )
    taken = set(
        Assignment.objects.filter(item__in=_ids_in(item.pk for item in items.values()))
        .exclude(status=Assignment.Status.EXPIRED)
        .values_list("item__report_id", "annotator__username")
    )
    per_item: dict[tuple[str, int], int] = defaultdict(int)
    for item_key, annotator in groups:
        report_id = reports.get(item_key)
        if report_id is not None and (report_id, annotator) in taken:
            problem(
                groups[(item_key, annotator)][0].line,
                f"{annotator} already has {item_key[0]}#{item_key[1]} in study {study.slug}",
            )
        if (item_key, annotator) not in misspelt:
            per_item[item_key] += 1
    for item_key, count in per_item.items():
        item = items.get(reports.get(item_key))
        needed = item.needed if item else study.overlap
        already = item.claimed if item else 0
        if already + count > needed:
            problem(
                first_line[item_key],
                f"{item_key[0]}#{item_key[1]} would have {already + count} annotators; the "
                f"study's overlap is {needed} (raise it first)",
            )
    return users


# The writes below go from plain lists to PostgreSQL as one array literal a column (unnest),
# not through model instances: at 100k rows, preparing instances for bulk_create took longer
# than PostgreSQL took to store them. Table and column names are the models', never input.
_CHUNK = 50_000


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
                    int_array(row[0] for row in chunk),
                    int_array(row[1] for row in chunk),
                    text_array(row[2] for row in chunk),
                ],
            )
            ids.update(((item, user), pk) for item, user, pk in cursor.fetchall())
    return ids


def _answers_insert(now, answers) -> None:
    """Annotations of (assignment id, item id, annotator id, dimension id, key paths JSON),
    and their categories: those of the dimension at the stored paths, in the same statement."""
    table = Annotation._meta.db_table
    through = Annotation.categories.through._meta.db_table
    categories = Category._meta.db_table
    with connection.cursor() as cursor:
        for start in range(0, len(answers), _CHUNK):
            chunk = answers[start : start + _CHUNK]
            cursor.execute(
                f"WITH answer AS (INSERT INTO {table} (assignment_id, item_id, annotator_id, "  # noqa: S608
                'dimension_id, "values", updated_at) SELECT r.assignment_id, r.item_id, '
                "r.annotator_id, r.dimension_id, r.paths::jsonb, %s FROM unnest(%s::bigint[], "
                "%s::bigint[], %s::bigint[], %s::bigint[], %s::text[]) AS r(assignment_id, "
                'item_id, annotator_id, dimension_id, paths) RETURNING id, dimension_id, "values") '
                # The paths are spread out before the join: joined laterally, they were
                # spread again for every category of the dimension (ten times the work).
                f"INSERT INTO {through} (annotation_id, category_id) SELECT chosen.id, "
                "category.id FROM (SELECT id, dimension_id, jsonb_array_elements_text("
                f'"values") AS path FROM answer) AS chosen JOIN {categories} category ON '
                "category.dimension_id = chosen.dimension_id AND category.path = chosen.path",
                [
                    now,
                    *(int_array(a[i] for a in chunk) for i in range(4)),
                    text_array(a[4] for a in chunk),
                ],
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
                [
                    now,
                    label_import_id,
                    *(int_array(v[i] for v in chunk) for i in range(3)),
                    *(text_array(v[i] for v in chunk) for i in (3, 4)),
                ],
            )


def _items_count(counts: dict[int, int]) -> None:
    """Add each item's new submissions (by item id) to its claimed and submitted counts."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {StudyItem._meta.db_table} item SET claimed = item.claimed + r.n, "  # noqa: S608
            "submitted = item.submitted + r.n FROM unnest(%s::bigint[], %s::int[]) AS r(id, n) "
            "WHERE item.id = r.id",
            [int_array(counts), int_array(counts.values())],
        )


@dataclass(frozen=True)
class _Item:
    id: int
    needed: int
    claimed: int
    submitted: int


@transaction.atomic
def _write(
    *, study, scheme, groups, checks, reports, missing, users, source, written, label_import
) -> ImportSummary:
    reports, created_users = _stubs_and_annotators(
        study=study, groups=groups, reports=reports, missing=missing, users=users
    )
    items, new_report_ids = _items_locked(study=study, reports=reports, source=source)
    now = timezone.now()
    label_import.created_at = now
    label_import.save()
    per_item = _room_checked(groups, items, reports)
    by_id = {item.id: item for item in items.values()}
    pairs, notes, assignment_ids = _assignments_write(
        study=study,
        now=now,
        groups=groups,
        items=items,
        reports=reports,
        users=users,
        per_item=per_item,
    )

    dimensions = {d.key: d.pk for d in scheme.dimensions}
    answers, versions = [], []
    for group_key, (item_id, user_id) in pairs.items():
        check = checks[group_key]
        assignment_id = assignment_ids[(item_id, user_id)]
        for key, paths in check.values_json.items():
            answers.append((assignment_id, item_id, user_id, dimensions[key], paths))
        versions.append((assignment_id, item_id, user_id, check.paths_json, notes[group_key]))
    _answers_insert(now, answers)
    _versions_insert(now, label_import.pk, versions)
    # The items are locked above.
    _items_count(per_item)
    # Imported labels count like the app's: the items they complete are decided as a
    # submission would decide them.
    completed = [
        item_id
        for item_id, count in per_item.items()
        if by_id[item_id].submitted + count >= by_id[item_id].needed
    ]
    final_labels_settle(item_ids=completed, scheme=scheme, majority=study.majority, now=now)
    summary = ImportSummary(
        rows=sum(len(group) for group in groups.values()),
        submissions=len(groups),
        items_added=len(new_report_ids),
        reports_created=len(missing),
        users_created=created_users,
        label_import_id=label_import.pk,
    )
    written(summary)
    return summary


def _stubs_and_annotators(*, study, groups, reports, missing, users) -> tuple[dict, int]:
    """Stubs for the missing reports, accounts for the new annotators, and every annotator of
    the file a member of the study: (the reports with the stubs, how many accounts made)."""
    # A stub's repository is named as the file first spells it.
    stubs = report_stubs_create(references=[(name, key[1]) for key, name in missing])
    reports = {**reports, **{key: stub.pk for (key, _), stub in zip(missing, stubs, strict=True)}}
    created_users = 0
    for _, annotator in groups:
        if annotator not in users:
            users[annotator] = user_create_unusable(username=annotator)
            created_users += 1
    for annotator in dict.fromkeys(annotator for _, annotator in groups):
        study_member_add(study=study, user=users[annotator], role=StudyMember.Role.ANNOTATOR)
    return reports, created_users


def _items_locked(*, study, reports, source) -> tuple[dict[int, _Item], list[int]]:
    """The study's items of the file's reports, locked, those not in it yet added in a new
    batch: ({report id: item}, the report ids added)."""
    report_ids = set(reports.values())
    items = {
        report_id: _Item(pk, needed, claimed, submitted)
        for report_id, pk, needed, claimed, submitted in StudyItem.objects.select_for_update()
        .filter(study=study, report_id__in=_ids_in(report_ids))
        .values_list("report_id", "pk", "needed", "claimed", "submitted")
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
        items.update((report_id, _Item(pk, study.overlap, 0, 0)) for report_id, pk in added.items())
    return items, new_report_ids


def _room_checked(groups, items, reports) -> dict[int, int]:
    """How many annotations each item takes from the file; refused when one was handed out
    since the checks and has no room left for them."""
    per_item: dict[int, int] = defaultdict(int)
    for item_key, _ in groups:
        per_item[items[reports[item_key]].id] += 1
    by_id = {item.id: item for item in items.values()}
    for item_id, count in per_item.items():
        item = by_id[item_id]
        if item.claimed + count > item.needed:
            name = next(f"{k[0]}#{k[1]}" for k, r in reports.items() if items[r].id == item_id)
            raise ValidationError(
                f"item {name} was handed out while importing; it now has no room for "
                f"{count} more annotations"
            )
    return per_item


def _assignments_write(
    *, study, now, groups, items, reports, users, per_item
) -> tuple[dict, dict, dict]:
    """A submitted assignment per group: ({group: (item id, user id)}, {group: note},
    {(item id, user id): assignment id})."""
    # A hold of theirs that expired takes the place of a new assignment (one per person):
    # the checks refused any other assignment of theirs on these items.
    pairs = {}
    notes = {}
    for group_key, group in groups.items():
        item_key, annotator = group_key
        pairs[group_key] = (items[reports[item_key]].id, users[annotator].pk)
        notes[group_key] = "\n".join(dict.fromkeys(row.note for row in group if row.note))
    expired = {
        (a.item_id, a.annotator_id): a
        for a in Assignment.objects.filter(
            item__in=_ids_in(per_item), annotator__in={user.pk for user in users.values()}
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
    return pairs, notes, assignment_ids


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
