"""A study's labelling scheme and the one check every labels payload goes through.

The API, the labelling page and the annotation import all call `labels_validate`, so a label
that one of them refuses, the others refuse too, with the same message.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cached_property

from django.core.exceptions import ValidationError

from config.names import closest_name
from labeler.models import Study
from taxonomy.models import Category, Dimension

# The longest note (rationale) a submission or a skip takes: the API refuses more, and the
# labelling page counts towards it.
NOTE_MAX = 10_000


@dataclass(frozen=True)
class Scheme:
    """The study's dimensions in order, each with its categories by key path.

    `key` identifies a scheme that can no longer change (its study's codebook version is
    frozen); None when it still can.
    """

    dimensions: tuple[Dimension, ...]
    categories: dict[int, tuple[Category, ...]]
    key: tuple | None = None

    def dimension(self, key: str) -> Dimension | None:
        return self._dimensions_by_key.get(key)

    def by_path(self, dimension: Dimension) -> dict[str, Category]:
        return self._by_path[dimension.pk]

    def by_key(self, dimension: Dimension) -> dict[str, Category]:
        return self._by_key[dimension.pk]

    def children(self, category: Category) -> list[Category]:
        return self._children.get(category.pk, [])

    # Lookups built on first use; a scheme is shared by every request of its process.
    @cached_property
    def _dimensions_by_key(self) -> dict[str, Dimension]:
        return {dimension.key: dimension for dimension in self.dimensions}

    @cached_property
    def _by_path(self) -> dict[int, dict[str, Category]]:
        return {pk: {c.path: c for c in categories} for pk, categories in self.categories.items()}

    @cached_property
    def _by_key(self) -> dict[int, dict[str, Category]]:
        return {pk: {c.key: c for c in categories} for pk, categories in self.categories.items()}

    @cached_property
    def _children(self) -> dict[int, list[Category]]:
        children: dict[int, list[Category]] = {}
        for categories in self.categories.values():
            for category in categories:
                if category.parent_id is not None:
                    children.setdefault(category.parent_id, []).append(category)
        return children


# Schemes of studies whose codebook version is frozen, by study id: they never change (a
# study's codebook and dimensions are chosen when it is created), so each process loads them
# once.
_FROZEN_SCHEMES: dict[int, Scheme] = {}
FROZEN_SCHEMES_KEPT = 64


def study_scheme(*, study: Study) -> Scheme:
    """The study's scheme: no query when this process loaded it before (its codebook version
    frozen), else two (three if `study.codebook` is not loaded yet)."""
    cached = _FROZEN_SCHEMES.get(study.pk)
    if cached is not None and cached.key[1] == study.codebook_id:
        return cached
    codebook = study.codebook
    dimensions = tuple(study.dimensions.order_by("position"))
    categories: dict[int, list[Category]] = {d.pk: [] for d in dimensions}
    for category in Category.objects.filter(dimension__in=dimensions).order_by("position"):
        categories[category.dimension_id].append(category)
    scheme = Scheme(
        dimensions=dimensions,
        categories={pk: tuple(items) for pk, items in categories.items()},
        key=(study.pk, codebook.pk, codebook.content_hash) if codebook.frozen else None,
    )
    if scheme.key is not None:
        if len(_FROZEN_SCHEMES) >= FROZEN_SCHEMES_KEPT:
            _FROZEN_SCHEMES.clear()
        _FROZEN_SCHEMES[study.pk] = scheme
    return scheme


def study_scheme_by_id(*, study_id: int, codebook_id: int | None = None) -> Scheme:
    """study_scheme for a study known by id: no query when its scheme is loaded already (and,
    when `codebook_id` is given, is of that codebook version: a study moved to a revised
    version since has a new scheme)."""
    cached = _FROZEN_SCHEMES.get(study_id)
    if cached is not None and codebook_id in (None, cached.key[1]):
        return cached
    return study_scheme(study=Study.objects.select_related("codebook").get(pk=study_id))


def scheme_forget(*, study_id: int) -> None:
    """Drop the study's loaded scheme: its codebook version changed (a migration)."""
    _FROZEN_SCHEMES.pop(study_id, None)


def closest(value: str, candidates) -> str:
    """`; did you mean 'x'?` for the closest candidate, or nothing when none is close."""
    match = closest_name(value, candidates)
    return f"; did you mean {match!r}?" if match else ""


def _category(scheme: Scheme, dimension: Dimension, value) -> Category:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{value!r} is not a category key path")
    category = scheme.by_path(dimension).get(value) or scheme.by_key(dimension).get(value)
    if category is not None:
        return category
    for other in scheme.dimensions:
        if other.pk != dimension.pk and (
            value in scheme.by_path(other) or value in scheme.by_key(other)
        ):
            raise ValueError(
                f"{value!r} is a category of dimension {other.key!r}, not of {dimension.key!r}"
            )
    paths = scheme.by_path(dimension)
    raise ValueError(f"no category {value!r} in dimension {dimension.key!r}{closest(value, paths)}")


def _dimension_values(
    scheme: Scheme, dimension: Dimension, raw, coded: frozenset[str] | None = None
) -> list[Category]:
    if isinstance(raw, list):
        if not dimension.multiple and len(raw) > 1:
            raise ValueError("takes one category, not several")
        values = raw
    else:
        values = [] if raw in (None, "") else [raw]
    chosen: list[Category] = []
    for value in values:
        category = _category(scheme, dimension, value)
        if category in chosen:
            raise ValueError(f"{category.path!r} is given twice")
        children = scheme.children(category)
        if dimension.leaf_only and children:
            raise ValueError(
                f"{category.path!r} has sub-categories; choose one of: "
                f"{', '.join(c.path for c in children)}"
            )
        chosen.append(category)
    if dimension.required and not chosen:
        if coded is None:
            raise ValueError("this dimension is required")
        if dimension.key not in coded:
            raise ValueError("this dimension is required: choose a category or write a code")
    for category in chosen:
        within = [c for c in chosen if c.path.startswith(category.path + "/")]
        if within:
            raise ValueError(
                f"{within[0].path!r} is within {category.path!r}: give one of the two, not both"
            )
    return sorted(chosen, key=lambda c: c.position)


def labels_validate(
    *, scheme: Scheme, labels, field: str = "labels", coded: frozenset[str] | None = None
) -> dict[str, list[Category]]:
    """Check `{dimension key: path or [paths]}` against the scheme; every problem is reported.

    Returns the chosen categories by dimension key (only dimensions with a choice). Raises a
    ValidationError whose keys name the field, e.g. `labels.root-cause`. `coded` is for open
    coding: the keys of the dimensions given at least one code, which satisfies a required
    dimension as a category does (None: a closed study, where only categories count).
    """
    if not isinstance(labels, dict):
        raise ValidationError({field: "must be an object of dimension key to category key path"})
    errors: dict[str, str] = {}
    for key in labels:
        if scheme.dimension(key) is None:
            known = [d.key for d in scheme.dimensions]
            errors[f"{field}.{key}"] = (
                f"the study does not label dimension {key!r} (it labels: {', '.join(known)})"
                f"{closest(key, known)}"
            )
    chosen: dict[str, list[Category]] = {}
    for dimension in scheme.dimensions:
        try:
            categories = _dimension_values(scheme, dimension, labels.get(dimension.key), coded)
        except ValueError as problem:
            errors[f"{field}.{dimension.key}"] = str(problem)
            continue
        if categories:
            chosen[dimension.key] = categories
    if errors:
        raise ValidationError(errors)
    return chosen


def dimension_get(*, scheme: Scheme, key: str, field: str = "dimension") -> Dimension:
    """The scheme's dimension of that key; an error naming `field` and the known keys if none."""
    dimension = scheme.dimension(key)
    if dimension is None:
        known = [d.key for d in scheme.dimensions]
        raise ValidationError(
            {
                field: f"the study does not label dimension {key!r} (it labels: "
                f"{', '.join(known)}){closest(key, known)}"
            }
        )
    return dimension


def label_validate(*, scheme: Scheme, key: str, value, field: str) -> list[Category]:
    """One dimension's value, checked as `labels_validate` checks it; errors name `field`."""
    dimension = dimension_get(scheme=scheme, key=key, field=field)
    try:
        return _dimension_values(scheme, dimension, value)
    except ValueError as problem:
        raise ValidationError({field: str(problem)}) from None


def labels_paths(chosen: dict[str, list[Category]]) -> dict[str, list[str]]:
    return {key: [category.path for category in categories] for key, categories in chosen.items()}


# Open coding: a code is a short free text, trimmed and with its whitespace collapsed.
CODE_MAX = 120
CODES_PER_DIMENSION = 20


def name_normalise(text: str) -> str:
    """A code or a board theme's name as stored: NFKC (full-width letters are letters), without
    format characters (Unicode category Cf: zero-width spaces and joiners, bidirectional
    controls), no whitespace at either end and every run of it one space. Two names that read
    the same are then the same text, so "none twice whatever the case" holds for what is seen."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(char for char in text if unicodedata.category(char) != "Cf")
    return " ".join(text.split())


def code_normalise(text: str) -> str:
    """The code as stored (name_normalise)."""
    return name_normalise(text)


def _dimension_codes(raw, where: str, errors: dict[str, str]) -> list[str]:
    if not isinstance(raw, list):
        errors[where] = "must be a list of codes (text)"
        return []
    if len(raw) > CODES_PER_DIMENSION:
        errors[where] = f"at most {CODES_PER_DIMENSION} codes per dimension ({len(raw)} given)"
        return []
    codes: list[str] = []
    seen: dict[str, int] = {}
    for index, value in enumerate(raw):
        at = f"{where}[{index}]"
        if not isinstance(value, str):
            errors[at] = "must be text"
            continue
        code = code_normalise(value)
        if "\x00" in code:
            errors[at] = "must not contain the NUL character"
        elif not code:
            errors[at] = f"a code takes 1 to {CODE_MAX} characters; this one is empty"
        elif len(code) > CODE_MAX:
            errors[at] = f"a code takes at most {CODE_MAX} characters ({len(code)} given)"
        elif code.casefold() in seen:
            errors[at] = f"{code!r} is given twice (also at [{seen[code.casefold()]}])"
        else:
            seen[code.casefold()] = index
            codes.append(code)
    return codes


def codes_validate(*, scheme: Scheme, codes, field: str = "codes") -> dict[str, list[str]]:
    """Check open coding's `{dimension key: ["code", ...]}`; every problem is reported.

    Returns the codes as stored (code_normalise), by dimension key in the scheme's order, only
    dimensions with a code. Raises a ValidationError whose keys name the field and the code,
    e.g. `codes.root-cause[2]`: a code that is empty, longer than CODE_MAX or given twice
    (whatever the case), more than CODES_PER_DIMENSION of them, an unknown dimension.
    """
    if not isinstance(codes, dict):
        raise ValidationError({field: "must be an object of dimension key to a list of codes"})
    errors: dict[str, str] = {}
    for key in codes:
        if scheme.dimension(key) is None:
            known = [d.key for d in scheme.dimensions]
            errors[f"{field}.{key}"] = (
                f"the study does not code dimension {key!r} (it codes: {', '.join(known)})"
                f"{closest(key, known)}"
            )
    written: dict[str, list[str]] = {}
    for dimension in scheme.dimensions:
        if dimension.key in codes:
            found = _dimension_codes(codes[dimension.key], f"{field}.{dimension.key}", errors)
            if found:
                written[dimension.key] = found
    if errors:
        raise ValidationError(errors)
    return written


def open_submission_validate(
    *, scheme: Scheme, labels, codes
) -> tuple[dict[str, list[Category]], dict[str, list[str]]]:
    """The labels and codes of a submission in an open-coding study, checked together so
    that every problem of both is reported: (chosen categories, codes as stored), each by
    dimension key. A required dimension takes a category or at least one code."""
    errors: dict[str, list[str]] = {}
    written: dict[str, list[str]] = {}
    try:
        written = codes_validate(scheme=scheme, codes=codes)
        coded = frozenset(written)
    except ValidationError as problem:
        errors.update(problem.message_dict)
        # Dimensions given a code count as coded, so one bad code does not also read as none.
        given = codes.items() if isinstance(codes, dict) else ()
        coded = frozenset(key for key, value in given if isinstance(value, list) and value)
    chosen: dict[str, list[Category]] = {}
    try:
        chosen = labels_validate(scheme=scheme, labels=labels, coded=coded)
    except ValidationError as problem:
        errors.update(problem.message_dict)
    if errors:
        raise ValidationError(errors)
    return chosen, written
