"""Agreement of a study's annotators: their independent labels, read from the database as they
were before anyone saw a final label, handed to the statistics (labeler.agreement.statistics).

Every submitted assignment gives one rating per dimension: its latest version created at or
before the moment its item first became final (StudyItem.first_final_at), else its latest
version. Only labels made against the study's current codebook version count: after a
codebook migration (labeler.revisions.services) an assignment's rating is the
migration's translation of its labels, read as of when they were given; a label the
migration flagged for re-labelling counts for nothing until it is labelled again, and a
re-label of an item that had been final comes after its final label was shown, so it never
counts. Imported labels are submissions like the app's. A single-select dimension left empty
is rated NO_CATEGORY; a multi-select one, the empty set.

An open-coding study has no agreement: its annotators write their own codes in their own
words, so two codes that differ say nothing of whether the annotators disagree, and the
categories its ratings would count are empty. `study_agreement` raises AgreementNotApplicable
for it, with the reason every door (page, API, command, datasheet) shows instead of a figure.
A dimension whose every rating is empty ("(none)", or the empty set) has no coefficient
either (labeler.agreement.statistics, `empty`).

Each dimension is measured on full key paths (`level` "path"); one with sub-categories is
also measured on top-level categories (`level` "top", listed first). Each category's entry
in `per_category` also counts the reasons leads gave when they adjudicated a disagreement on
it (`reasons`: {reason: count}), which is what a team needs to revise its codebook.

Every figure of a call (each dimension, level, category, batch, and the hierarchy alpha on
full paths) has its 95% intervals from one seeded set of bootstrap draws over the items
(labeler.agreement.intervals), and each entry says how many more double-coded items would
narrow alpha's interval to the half-width wanted (labeler.agreement.planning).

The ratings go to the statistics as a code matrix (items x annotators), built from one query
whose columns come as arrays, with no Python object per rating (bench/agreement_bench.py).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from django.db import connection

from labeler.agreement.intervals import Draws
from labeler.agreement.planning import plan_during
from labeler.agreement.statistics import (
    agreement_windows,
    agreement_with_draws,
    changes,
    run_draws,
    top_level,
)
from labeler.common.names import (
    annotator_names,
)
from labeler.common.scheme import Scheme, study_scheme
from labeler.models import DisagreementReason, FinalLabel, FinalMethod, Study
from taxonomy.models import Dimension

NO_CATEGORY = "(none)"
BOOTSTRAP = 1000
# The half-width of alpha's 95% interval a study aims for when it asks how many more items to
# double-code (labeler.agreement.planning.plan_during).
HALF_WIDTH = 0.05
LEVELS = ("top", "path")
BY = ("batch", "window")
WINDOW_MIN = 2

Value = str | frozenset[str]

OPEN_CODING = (
    "an open-coding round has no agreement: each annotator writes codes in their own words, "
    "and codes in different words are not disagreements a coefficient could count; the "
    "round's result is its code board. Agreement is measured in a closed study that labels "
    "with the codebook version the board is frozen into."
)


class AgreementNotApplicable(Exception):
    """The study has no agreement to measure; the message says why."""


def agreement_not_applicable(*, study: Study) -> str | None:
    """Why the study has no agreement to measure, or None when it has."""
    return OPEN_CODING if study.kind == Study.Kind.OPEN else None


@dataclass(frozen=True)
class Ratings:
    """One dimension's ratings: row r is item items[r] (ascending ids), column a is annotator
    annotators[a], codes[r, a] indexes categories (sorted), -1 where there is no rating."""

    items: np.ndarray
    annotators: list[str]
    categories: list[Value]
    codes: np.ndarray

    def at_level(self, level: str) -> Ratings:
        """The same ratings on top-level categories ("top") or as they are ("path")."""
        if level == "path":
            return self
        tops = [top_level(value) for value in self.categories]
        return self._recoded(tops)

    def _recoded(self, values: list[Value]) -> Ratings:
        categories = sorted(set(values), key=_order)
        index = {value: code for code, value in enumerate(categories)}
        # A spare last slot keeps -1 (no rating) at -1.
        renumber = np.array([*(index[value] for value in values), -1], dtype=np.intp)
        return Ratings(self.items, self.annotators, categories, renumber[self.codes])

    def in_order(self, order: list[int]) -> Ratings:
        """The same ratings with rows in `order` (item ids), items not in it left out."""
        ids = np.array(order, dtype=np.int64)
        if len(self.items) == 0:
            return self
        rows = np.searchsorted(self.items, ids)
        found = (rows < len(self.items)) & (
            self.items[np.minimum(rows, len(self.items) - 1)] == ids
        )
        rows = rows[found]
        return Ratings(self.items[rows], self.annotators, self.categories, self.codes[rows])

    def of_items(self, mask: np.ndarray) -> Ratings:
        return Ratings(self.items[mask], self.annotators, self.categories, self.codes[mask])

    def only_used(self) -> Ratings:
        """The same ratings with only the categories some rating uses."""
        used = [int(code) for code in np.unique(self.codes) if code >= 0]
        # A spare last slot keeps -1 (no rating) at -1.
        renumber = np.full(len(self.categories) + 1, -1, dtype=np.intp)
        renumber[used] = np.arange(len(used))
        categories = [self.categories[code] for code in used]
        return Ratings(self.items, self.annotators, categories, renumber[self.codes])

    def of_item(self, item_id: int) -> dict[str, Value]:
        row = int(np.searchsorted(self.items, item_id))
        if row == len(self.items) or self.items[row] != item_id:
            return {}
        return {
            self.annotators[a]: self.categories[code]
            for a, code in enumerate(self.codes[row])
            if code >= 0
        }

    def as_dict(self) -> dict[int, dict[str, Value]]:
        """{item id: {annotator: value}}, the statistics' plain form."""
        return {int(item): self.of_item(int(item)) for item in self.items}


def _order(value: Value):
    return tuple(sorted(value)) if isinstance(value, frozenset) else value


# Every version made before its item first became final (or of an item never final), with
# each dimension's value picked out of its labels by PostgreSQL; each column comes as one
# array, so that only plain numbers and text cross to Python, no row objects. (Versions exist
# only for submitted assignments; a submitted assignment never changes status.)
#
# Only labels made against the study's current codebook version count: a version followed
# by a codebook migration's version of the same assignment is of an older scheme and is not
# read. A migration's version translates the labels before it and is read as of when those
# were given (`labelled_at`); a dimension it flagged for re-labelling (marked "relabel" in
# its changes) is no rating at all, not "no category", until the annotator labels it again.
RELABEL = "?relabel"  # no key path has a "?"
FLAGGED = (
    "CASE WHEN version.migration_id IS NOT NULL AND version.changes -> %s ? 'relabel' "
    f"THEN '{RELABEL}' ELSE {{value}} END"
)
SINGLE_VALUE = FLAGGED.format(value="version.labels -> %s ->> 0")
MULTIPLE_VALUE = FLAGGED.format(value="version.labels ->> %s")
RATINGS_SQL = """
SELECT array_agg(version.assignment_id), array_agg(version.number),
       array_agg(version.item_id), array_agg(version.annotator_id), {values}
FROM labeler_annotationversion version
JOIN labeler_studyitem item ON item.id = version.item_id
-- Each migrated assignment's latest migration version, from a partial index (empty until a
-- migration): a join the planner costs low, where a correlated NOT EXISTS probe costed high
-- enough to switch on JIT compiling (0.45 s).
LEFT JOIN (
    SELECT assignment_id, max(number) AS number FROM labeler_annotationversion
    WHERE migration_id IS NOT NULL GROUP BY assignment_id
) migrated ON migrated.assignment_id = version.assignment_id
WHERE item.study_id = %s
  AND (item.first_final_at IS NULL
       OR COALESCE(version.labelled_at, version.created_at) <= item.first_final_at)
  AND (migrated.number IS NULL OR version.number >= migrated.number)
"""


def study_ratings(
    *, study: Study, dimensions: Sequence[Dimension], names: dict[int, str]
) -> dict[str, Ratings]:
    """The independent ratings of `dimensions` by dimension key, annotators named by `names`
    (user id -> name), in one query: each assignment's latest version among those read."""
    keys = [d.key for d in dimensions]
    values = ", ".join(
        f"array_agg({MULTIPLE_VALUE if d.multiple else SINGLE_VALUE})" for d in dimensions
    )
    with connection.cursor() as cursor:
        cursor.execute(
            RATINGS_SQL.format(values=values),
            [*(k for key in keys for k in (key, key)), study.pk],
        )
        assignments, numbers, item_ids, user_ids, *texts = (
            column or [] for column in cursor.fetchone()
        )
    assignment = np.array(assignments, dtype=np.int64)
    by_version = np.lexsort((np.array(numbers, dtype=np.int64), assignment))
    latest = np.ones(len(by_version), dtype=bool)
    latest[:-1] = assignment[by_version][1:] != assignment[by_version][:-1]
    kept = by_version[latest]
    items, rows_of = np.unique(np.array(item_ids, dtype=np.int64)[kept], return_inverse=True)
    annotator_ids, by_id = np.unique(np.array(user_ids, dtype=np.int64)[kept], return_inverse=True)
    # Columns in the order of the annotators' names, as the statistics list them.
    annotators = sorted(names[int(user)] for user in annotator_ids)
    column = np.array([annotators.index(names[int(user)]) for user in annotator_ids], dtype=np.intp)
    columns_of = column[by_id]
    found = {}
    for dimension, given in zip(dimensions, texts, strict=True):
        distinct = sorted({text for text in given if text not in (None, RELABEL)})
        code = {text: index for index, text in enumerate(distinct)}
        code[RELABEL] = -1
        none = len(distinct)
        coded = np.fromiter(
            (none if text is None else code[text] for text in given),
            dtype=np.intp,
            count=len(given),
        )
        codes = np.full((len(items), len(annotators)), -1, dtype=np.intp)
        codes[rows_of, columns_of] = coded[kept]
        stored = Ratings(items, annotators, [*distinct, None], codes)
        found[dimension.key] = stored._recoded(
            [_value(text, dimension.multiple) for text in stored.categories]
        )
    return found


def _value(text: str | None, multiple: bool) -> Value:
    """A rating as the statistics take it, from the text PostgreSQL gave."""
    if multiple:
        return frozenset(json.loads(text)) if text is not None else frozenset()
    return NO_CATEGORY if text is None else text


def item_batches(*, study: Study) -> dict[int, int]:
    return dict(study.items.values_list("pk", "batch"))


def items_in_labelled_order(*, study: Study) -> list[int]:
    """Items with a rating, by when their last rating came in (the order they were labelled)."""
    with connection.cursor() as cursor:
        cursor.execute(LABELLED_ORDER_SQL, [study.pk])
        return [item for (item,) in cursor.fetchall()]


LABELLED_ORDER_SQL = """
SELECT item_id FROM labeler_assignment
WHERE study_id = %s AND status = 'submitted'
GROUP BY item_id
ORDER BY max(submitted_at), item_id
"""


def levels(dimension: Dimension, scheme: Scheme) -> tuple[str, ...]:
    nested = any(c.parent_id is not None for c in scheme.categories[dimension.pk])
    return LEVELS if nested else ("path",)


def _members(value: Value) -> frozenset[str]:
    return value if isinstance(value, frozenset) else frozenset([value])


def _reasons(*, study: Study, dimension: Dimension, ratings: Ratings) -> dict[str, Counter]:
    """Per category in dispute, how often leads gave each reason for the disagreement: the
    categories some but not all annotators chose on an adjudicated item (at the ratings'
    level), or, when they all chose the same there, the categories they shared."""
    counts: dict[str, Counter] = defaultdict(Counter)
    adjudicated = FinalLabel.objects.filter(
        item__study=study, dimension=dimension, method=FinalMethod.ADJUDICATED
    ).values_list("item_id", "reason")
    for item_id, reason in adjudicated:
        chosen = [_members(value) for value in ratings.of_item(item_id).values()]
        if not chosen:
            continue
        shared = frozenset.intersection(*chosen)
        for category in frozenset.union(*chosen) - shared or shared:
            counts[category][reason] += 1
    return counts


def run_draws_of(
    *, read: dict[str, Ratings], bootstrap: int, seed: int, strata=None, strata_name="batch"
) -> Draws:
    """The run's one set of bootstrap draws over the items of `read` (every dimension's ratings
    on the same items), stratified by `strata` (each item's batch or window) when given."""
    ratings = list(read.values())
    items = ratings[0].items if ratings else np.zeros(0, dtype=np.int64)
    keys = np.column_stack([r.codes for r in ratings]) if ratings else np.zeros((0, 1))
    return run_draws(
        keys,
        draws=bootstrap,
        seed=seed,
        strata=None if strata is None else strata(items),
        strata_name=None if strata is None else strata_name,
    )


def _figures(*, study, scheme, dimensions, read, mask, draws, half_width) -> list[dict]:
    """Each dimension's figures at each level on the run's draws; each entry also carries its
    coefficients on the draws under "_draws" (for differences; the caller removes it)."""
    entries = []
    for dimension in dimensions:
        ratings = read[dimension.key]
        of_figure = draws
        if mask is not None:
            kept = mask(ratings.items)
            ratings, of_figure = ratings.of_items(kept), draws.subset(kept)
        for level in levels(dimension, scheme):
            at_level = ratings.at_level(level)
            figures, on_draws = agreement_with_draws(
                at_level.codes,
                at_level.categories,
                at_level.annotators,
                multiple=dimension.multiple,
                draws=of_figure,
                empty=NO_CATEGORY,
                parent_distance=study.parent_distance if level == "path" else None,
                kappa_scale=study.kappa_scale,
            )
            reasons = _reasons(study=study, dimension=dimension, ratings=at_level)
            for row in figures["per_category"]:
                found = reasons.get(row["category"], Counter())
                row["reasons"] = {reason: found[reason] for reason in DisagreementReason.values}
            figures["double_coding"] = plan_during(
                items=figures["pairable_items"],
                ci95=figures["alpha_ci95"],
                half_width_wanted=half_width,
            )
            entries.append(
                {"dimension": dimension.key, "level": level, **figures, "_draws": on_draws}
            )
    return entries


def _without_draws(entries: list[dict]) -> list[dict]:
    for entry in entries:
        entry.pop("_draws")
    return entries


def study_agreement(
    *,
    study: Study,
    dimension: str | None = None,
    by: str | None = None,
    window: int | None = None,
    bootstrap: int = BOOTSTRAP,
    pseudonyms: bool = False,
    seed: int = 0,
    final_only: bool = False,
    half_width: float = HALF_WIDTH,
) -> dict:
    """The study's agreement per dimension and level, as `agreement --json` prints it.

    `by="batch"`: the same per batch of items; `by="window"`: over consecutive windows of
    `window` items in the order they were labelled (by their last rating). `dimension` (a key
    the caller has checked) limits it to one dimension; `pseudonyms` names annotators A1, A2, …
    instead of by username; `final_only` counts only the final items (what whoever labels in
    the study may see, labeler.common.permissions.access_figures_final_only). Raises
    AgreementNotApplicable for a study without agreement (an open-coding round).

    Every figure's interval comes from one set of `bootstrap` draws seeded with `seed`
    ("bootstrap" says which; per batch, each batch is resampled within itself and each batch
    after the first has its "change" from the one before, from paired draws; per window, the
    same with each window resampled within itself). Each entry's "double_coding" says
    how many more double-coded items bring alpha's interval to +-`half_width`. The path
    level's "hierarchy_alpha" uses the study's parent_distance, and the kappas' and AC1's bands
    its kappa_scale (each entry's "band_scales" names each band's scale).
    """
    reason = agreement_not_applicable(study=study)
    if reason is not None:
        raise AgreementNotApplicable(reason)
    scheme = study_scheme(study=study)
    dimensions = [scheme.dimension(dimension)] if dimension else list(scheme.dimensions)
    names = annotator_names(study=study, real_names=not pseudonyms, mark_removed=True)
    read = study_ratings(study=study, dimensions=dimensions, names=names)
    if final_only:
        read = _final_items_only(study=study, read=read)
    figures = {
        "study": study,
        "scheme": scheme,
        "dimensions": dimensions,
        "read": read,
        "half_width": half_width,
    }
    if by == "batch":
        return _per_batch(figures, bootstrap=bootstrap, seed=seed)
    if by == "window":
        return _per_window(figures, window=window, bootstrap=bootstrap, seed=seed)
    draws = run_draws_of(read=read, bootstrap=bootstrap, seed=seed)
    return {
        "study": study.slug,
        "bootstrap": draws.describe(),
        "dimensions": _without_draws(_figures(**figures, mask=None, draws=draws)),
    }


def _final_items_only(*, study: Study, read: dict[str, Ratings]) -> dict[str, Ratings]:
    final = np.array(
        list(study.items.filter(adjudicated_at__isnull=False).values_list("pk", flat=True))
    )
    return {
        key: ratings.of_items(np.isin(ratings.items, final)).only_used()
        for key, ratings in read.items()
    }


def _per_batch(figures: dict, *, bootstrap: int, seed: int) -> dict:
    """study_agreement by batch: each batch's figures on one set of draws stratified by
    batch, and each batch after the first its change from the one before."""
    study = figures["study"]
    batch_of = item_batches(study=study)
    batch_ids = np.array(sorted(batch_of), dtype=np.int64)
    batch_numbers = np.array([batch_of[item] for item in batch_ids.tolist()], dtype=np.int64)
    draws = run_draws_of(
        read=figures["read"],
        bootstrap=bootstrap,
        seed=seed,
        strata=lambda items: batch_numbers[np.searchsorted(batch_ids, items)],
    )

    def in_batch(number):
        members = batch_ids[batch_numbers == number]
        return lambda items: np.isin(items, members)

    batches, before = [], None
    for number in sorted(set(batch_of.values())):
        entries = _figures(**figures, mask=in_batch(number), draws=draws)
        if before is not None:
            _add_changes(before, entries)
        before = entries
        batches.append({"batch": number, "dimensions": entries})
    for batch in batches:
        _without_draws(batch["dimensions"])
    return {
        "study": study.slug,
        "by": "batch",
        "bootstrap": draws.describe(),
        "batches": batches,
    }


def _per_window(figures: dict, *, window: int, bootstrap: int, seed: int) -> dict:
    """study_agreement by window of `window` items in the order they were labelled, on one
    set of draws stratified by window."""
    study, scheme = figures["study"], figures["scheme"]
    order = items_in_labelled_order(study=study)
    in_order = {key: ratings.in_order(order) for key, ratings in figures["read"].items()}
    shared = run_draws_of(
        read=in_order,
        bootstrap=bootstrap,
        seed=seed,
        strata=lambda items: np.arange(len(items)) // window,
        strata_name="window",
    )
    return {
        "study": study.slug,
        "by": "window",
        "window": window,
        "bootstrap": shared.describe(),
        "dimensions": [
            {
                "dimension": d.key,
                "level": level,
                "windows": agreement_windows(
                    _in_order(in_order[d.key].at_level(level).as_dict(), order),
                    size=window,
                    multiple=d.multiple,
                    bootstrap=bootstrap,
                    seed=seed,
                    empty=NO_CATEGORY,
                    parent_distance=study.parent_distance if level == "path" else None,
                    kappa_scale=study.kappa_scale,
                    draws=shared,
                ),
            }
            for d in figures["dimensions"]
            for level in levels(d, scheme)
        ],
    }


# Draws for the study page's double-coding figure: enough for the width of an interval.
PLAN_BOOTSTRAP = 200


def study_double_coding(*, study: Study, final_only: bool = False) -> list[dict]:
    """Per dimension (its full paths): alpha's interval half-width now and how many more
    double-coded items bring it to +-HALF_WIDTH, as the study page shows it; [] for a study
    without agreement."""
    if agreement_not_applicable(study=study) is not None:
        return []
    result = study_agreement(study=study, bootstrap=PLAN_BOOTSTRAP, final_only=final_only)
    return [
        {"dimension": entry["dimension"], **entry["double_coding"]}
        for entry in result["dimensions"]
        if entry["level"] == "path" and entry["double_coding"] is not None
    ]


def _add_changes(earlier: list[dict], later: list[dict]) -> None:
    """Each later entry's "change": its coefficients minus the same dimension and level's in
    the earlier batch, with intervals from the paired draws."""
    before = {(entry["dimension"], entry["level"]): entry for entry in earlier}
    for entry in later:
        match = before.get((entry["dimension"], entry["level"]))
        if match is not None:
            entry["change"] = changes((match, match["_draws"]), (entry, entry["_draws"]))


def _in_order(ratings: dict, order: list[int]) -> list[tuple[int, dict]]:
    return [(item, ratings[item]) for item in order if item in ratings]
