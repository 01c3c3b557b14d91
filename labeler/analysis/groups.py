"""Groups of reports to compare: a query string of the filters of /api/reports/ and, for a
study, of its items' final labels.

A group's QUERY takes every parameter of /api/reports/ (repository, state, candidate, has_fix,
label, created_after, created_before, closed_after, closed_before, q), and `study=SLUG` with
any number of `final=DIMENSION:PATH` (items whose final label on the dimension is the category
or one below it), `final=DIMENSION` (items with a final label on the dimension) and
`final_not=DIMENSION:PATH` (items with a final label on the dimension that is neither); they
all hold at once. Without `final`, `study` selects all its items' reports. Example:
`study=perf-2024&final=root-cause:memory&repository=pytorch/pytorch`.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import Http404, QueryDict

from labeler.adjudication.selectors import FinalLabelRow, study_final_labels
from labeler.analysis.tabulation import covers
from labeler.common.permissions import study_get_for_user
from labeler.common.scheme import Scheme, closest, study_scheme
from labeler.models import Study
from labeler.screening.selectors import studies_with_prioritised_batches
from mining.models import BugReport
from mining.selectors import reports_filtered, reports_imported

STUDY_PARAMETERS = ("study", "final", "final_not")


def groups_prioritised(*, queries: list[str]) -> dict:
    """{"studies": the slugs the groups name (`study=SLUG`) that have a batch drawn by a
    screening model, "note": what that means for the comparison, or null}."""
    studies = studies_with_prioritised_batches(queries=queries)
    its, studys = ("its", "study's") if len(studies) == 1 else ("their", "studies'")
    note = (
        f"{', '.join(studies)}: some of {its} items were drawn by a screening model, not at "
        f"random, and a group of {its} items includes them: the comparison describes the "
        f"{studys} items, not the frame's population."
        if studies
        else None
    )
    return {"studies": studies, "note": note}


@dataclass(frozen=True)
class ReportGroup:
    name: str
    query: str
    reports: QuerySet[BugReport]


@dataclass(frozen=True)
class FinalCondition:
    """A final label on `dimension`: the category `path` (or one below it; any label when
    None), or, `negated`, any label but it."""

    dimension: str
    path: str | None
    negated: bool

    def holds(self, answer: tuple[str, ...] | None) -> bool:
        """Whether an item with this answer on the dimension (None: no final label) meets it."""
        if answer is None:
            return False
        if self.path is None:
            return True
        return any(covers(self.path, value) for value in answer) != self.negated


def report_group(
    *, name: str, query: str, user=None, within: QuerySet[BugReport] | None = None
) -> ReportGroup:
    """The group `name` ("a", "b", ...) of the imported reports (of `within`, if given) that
    QUERY selects. `user` is who asks: a study group needs them to analyse the study (None:
    the command line, which may read every study).

    A ValidationError lists every bad parameter as {name: ["PARAMETER: what is wrong"]}.
    """
    params = QueryDict(query)
    problems: list[str] = []
    try:
        base = _study_reports(params, user=user, within=within)
    except ValidationError as error:
        problems += _problems(error)
        base = within
    try:
        reports = reports_filtered(params=params, within=base, ignored=STUDY_PARAMETERS)
    except ValidationError as error:
        problems += _problems(error)
    if problems:
        raise ValidationError({name: problems})
    return ReportGroup(name=name, query=query, reports=reports)


def _problems(error: ValidationError) -> list[str]:
    return [
        f"{parameter}: {message}"
        for parameter, messages in error.message_dict.items()
        for message in messages
    ]


def _study_reports(
    params: QueryDict, *, user, within: QuerySet[BugReport] | None
) -> QuerySet[BugReport] | None:
    slugs = params.getlist("study")
    finals, nots = params.getlist("final"), params.getlist("final_not")
    if not slugs:
        if finals or nots:
            name = "final" if finals else "final_not"
            raise ValidationError({name: ["needs study=SLUG, the study whose final labels count"]})
        return within
    if len(slugs) > 1:
        raise ValidationError({"study": [f"given {len(slugs)} times; give it once"]})
    study = _study(slugs[0], user=user)
    scheme = study_scheme(study=study)
    errors: dict[str, list[str]] = {}
    conditions = []
    for parameter, values in (("final", finals), ("final_not", nots)):
        for value in values:
            try:
                conditions.append(_condition(value, scheme, study, negated=parameter != "final"))
            except ValueError as error:
                errors.setdefault(parameter, []).append(str(error))
    if errors:
        raise ValidationError(errors)
    if conditions:
        report_ids = _reports_meeting(study_final_labels(study=study), conditions)
    else:
        report_ids = study.items.values("report_id")
    reports = reports_imported() if within is None else within
    return reports.filter(pk__in=report_ids)


def _study(slug: str, *, user) -> Study:
    if user is None:
        study = Study.objects.select_related("codebook").filter(slug=slug).first()
        if study is None:
            raise ValidationError({"study": [f"no study {slug!r}"]})
        return study
    try:
        study, access = study_get_for_user(user=user, slug=slug)
    except Http404 as error:
        raise ValidationError({"study": [f"no study {slug!r}"]}) from error
    if not access.can_analyse:
        raise ValidationError(
            {"study": [f"only the leads and researchers of {slug!r} may analyse its labels"]}
        )
    return study


def _condition(value: str, scheme: Scheme, study: Study, *, negated: bool) -> FinalCondition:
    dimension_key, colon, path = value.partition(":")
    if (colon and not path) or (negated and not path):
        example = "DIMENSION:PATH" if negated else "DIMENSION:PATH or DIMENSION"
        raise ValueError(f"{value!r} is not {example}, e.g. root-cause:memory")
    dimension = scheme.dimension(dimension_key)
    if dimension is None:
        known = [d.key for d in scheme.dimensions]
        raise ValueError(
            f"no dimension {dimension_key!r} in study {study.slug!r}{closest(dimension_key, known)}"
        )
    if not path:
        return FinalCondition(dimension=dimension_key, path=None, negated=False)
    paths = scheme.by_path(dimension)
    if path not in paths:
        raise ValueError(
            f"no category {path!r} in dimension {dimension_key!r}{closest(path, paths)}"
        )
    return FinalCondition(dimension=dimension_key, path=path, negated=negated)


def _reports_meeting(rows: list[FinalLabelRow], conditions: list[FinalCondition]) -> list[int]:
    answers: dict[int, dict[str, tuple[str, ...]]] = {}
    reports: dict[int, int] = {}
    for row in rows:
        answers.setdefault(row.item_id, {})[row.dimension] = row.values
        reports[row.item_id] = row.report_id
    return [
        reports[item]
        for item, answer in answers.items()
        if all(condition.holds(answer.get(condition.dimension)) for condition in conditions)
    ]


def report_groups(
    *, queries: dict[str, str], user=None, within: QuerySet[BugReport] | None = None
) -> list[ReportGroup]:
    """report_group for each (name, QUERY), every group's problems in one ValidationError."""
    groups, errors = [], {}
    for name, query in queries.items():
        try:
            groups.append(report_group(name=name, query=query, user=user, within=within))
        except ValidationError as error:
            errors.update(error.message_dict)
    if errors:
        raise ValidationError(errors)
    return groups
