"""Writes to codebooks. Loading is an upsert on natural keys, all or nothing."""

import dataclasses
import hashlib
import json
from dataclasses import asdict

from django.core.exceptions import ValidationError
from django.db import connection, transaction

from taxonomy.codebook_file import CodebookSpec, RevisesSpec
from taxonomy.models import Category, Codebook, Dimension
from taxonomy.selectors import codebook_key_owner


def codebook_spec_hash(spec: CodebookSpec) -> str:
    content = asdict(spec)
    if spec.revises is None:
        # Versions that revise none hash as they did before `revises` existed.
        del content["revises"]
    canonical = json.dumps(content, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@transaction.atomic
def codebook_load(*, spec: CodebookSpec, owner: str = Codebook.ADMINS) -> tuple[Codebook, bool]:
    """Create or update the codebook `spec` describes. Returns (codebook, changed).

    Loading the same content twice changes nothing. A frozen version (pinned by a study) is
    never changed: its content must come under a new version. A new key is `owner`'s; a new
    version of a key keeps the key's owner (who may add one is the caller's to check).
    """
    codebook_key_lock(key=spec.key)
    digest = codebook_spec_hash(spec)
    codebook = (
        Codebook.objects.select_for_update().filter(key=spec.key, version=spec.version).first()
    )
    if codebook is not None and codebook.content_hash == digest:
        return codebook, False
    if codebook is not None and codebook.frozen:
        raise ValidationError(
            f"codebook {spec.key!r} version {spec.version!r} is used by a study and cannot "
            "change; give the edited file a new version",
            code="frozen",
        )

    if codebook is None:
        codebook = Codebook(key=spec.key, version=spec.version)
        codebook.owner = codebook_key_owner(key=spec.key)
        if codebook.owner is None:
            codebook.owner = owner
    codebook.name = spec.name
    codebook.description = spec.description
    codebook.source = spec.source
    codebook.content_hash = digest
    codebook.full_clean()
    codebook.save()

    kept_dimensions = []
    for position, dimension_spec in enumerate(spec.dimensions):
        dimension, _ = Dimension.objects.update_or_create(
            codebook=codebook,
            key=dimension_spec.key,
            defaults={
                "name": dimension_spec.name,
                "help_text": dimension_spec.help,
                "multiple": dimension_spec.multiple,
                "required": dimension_spec.required,
                "leaf_only": dimension_spec.leaf_only,
                "position": position,
            },
        )
        kept_dimensions.append(dimension.pk)
        _dimension_categories_sync(dimension=dimension, specs=dimension_spec.categories)
    codebook.dimensions.exclude(pk__in=kept_dimensions).delete()
    return codebook, True


def _dimension_categories_sync(*, dimension: Dimension, specs) -> None:
    existing = {category.key: category for category in dimension.categories.all()}
    # Detach parents first so a category can move under one that is defined after it.
    dimension.categories.update(parent=None)
    by_key: dict[str, Category] = {}
    for position, spec in enumerate(specs):
        category = existing.pop(spec.key, None) or Category(dimension=dimension, key=spec.key)
        category.parent = None
        category.path = f"__loading__/{position}"
        category.name = spec.name
        category.definition = spec.definition
        category.include = spec.include
        category.exclude = spec.exclude
        category.examples = list(spec.examples)
        category.position = position
        category.depth = spec.path.count("/")
        category.save()
        by_key[spec.key] = category
    Category.objects.filter(pk__in=[c.pk for c in existing.values()]).delete()
    for spec in specs:
        category = by_key[spec.key]
        category.parent = by_key[spec.parent] if spec.parent else None
        category.path = spec.path
        category.full_clean(exclude=["dimension"])
        category.save(update_fields=["parent", "path"])


def codebook_key_lock(*, key: str) -> None:
    """Hold codebook `key` until the transaction ends, so that who checks then adds a version
    to it sees the versions, and the owner, of whoever added one just before (two freezes into
    one new key at once: the second finds the first's)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"codebook:{key}"])


def codebook_key_give(*, key: str, owner: str) -> None:
    """Make `owner` the owner of codebook `key` (every version of it)."""
    Codebook.objects.filter(key=key).update(owner=owner)


def codebook_freeze(*, codebook: Codebook) -> None:
    if not codebook.frozen:
        Codebook.objects.filter(pk=codebook.pk).update(frozen=True)
        codebook.frozen = True


def _mapping_problems(*, base: Codebook, spec: CodebookSpec, mapping) -> list[str]:
    """Every way `mapping` fails to send each category of `base` to categories of `spec`."""
    if not isinstance(mapping, dict):
        return ["the mapping must be {dimension key: {old key path: [new key paths]}}"]
    old_paths = {
        dimension.key: list(
            dimension.categories.order_by("position").values_list("path", flat=True)
        )
        for dimension in base.dimensions.order_by("position")
    }
    new_paths = {d.key: {c.path for c in d.categories} for d in spec.dimensions}
    problems = []
    for key in mapping:
        if key not in old_paths:
            problems.append(
                f"dimension {key!r}: version {base.version} has no such dimension "
                f"(it has: {', '.join(old_paths)})"
            )
    for key, paths in old_paths.items():
        given = mapping.get(key)
        if given is None:
            if paths:
                problems.append(
                    f"dimension {key!r}: not in the mapping; map each of its categories "
                    f"({', '.join(paths)}), to [] if removed"
                )
            continue
        if not isinstance(given, dict):
            problems.append(f"dimension {key!r}: must map old key paths to lists of new ones")
            continue
        for old in given:
            if old not in paths:
                problems.append(
                    f"dimension {key!r}: {old!r} is not a category of version {base.version}"
                )
        for old in paths:
            if old not in given:
                problems.append(
                    f"dimension {key!r}: {old!r} of version {base.version} is not mapped; "
                    "map it to [] if it is removed"
                )
                continue
            new = given[old]
            if not isinstance(new, list | tuple) or not all(isinstance(p, str) for p in new):
                problems.append(f"dimension {key!r}: {old!r} must map to a list of key paths")
                continue
            if len(set(new)) < len(new):
                problems.append(f"dimension {key!r}: {old!r} maps to the same path twice")
            if new and key not in new_paths:
                problems.append(
                    f"dimension {key!r}: {old!r} maps to {', '.join(new)}, but version "
                    f"{spec.version} has no dimension {key!r}"
                )
                continue
            for path in new:
                if path not in new_paths[key]:
                    problems.append(
                        f"dimension {key!r}: {old!r} maps to {path!r}, which is not a "
                        f"category of version {spec.version}"
                    )
    return problems


@transaction.atomic
def codebook_revise(*, base: Codebook, spec: CodebookSpec, mapping: dict) -> Codebook:
    """Load `spec` as the next version of `base`, recording where each of base's categories
    went: `mapping` is {dimension key: {old key path: [new key paths]}} (see RevisesSpec).

    Every category of base is mapped exactly once, to categories the new version has; the
    new version shares base's key and is new. Loading the same revision again changes
    nothing. Raises a ValidationError listing every problem, each naming the dimension and
    the path.
    """
    problems = []
    if spec.key != base.key:
        problems.append(
            f"the revision's key {spec.key!r} is not the key of the version it revises "
            f"({base.key!r})"
        )
    if spec.revises is not None and spec.revises.version != base.version:
        problems.append(
            f"the revision says it revises version {spec.revises.version}, not {base.version}"
        )
    problems += _mapping_problems(base=base, spec=spec, mapping=mapping)
    if problems:
        raise ValidationError(problems, code="revision")
    revised = dataclasses.replace(
        spec,
        revises=RevisesSpec(
            version=base.version,
            mapping={
                key: {old: tuple(new) for old, new in paths.items()}
                for key, paths in mapping.items()
            },
        ),
    )
    existing = Codebook.objects.filter(key=spec.key, version=spec.version).first()
    if existing is not None:
        if existing.derived_from_id == base.pk and existing.content_hash == codebook_spec_hash(
            revised
        ):
            return existing
        raise ValidationError(
            f"codebook {spec.key!r} already has a version {spec.version!r}: give the revision "
            "a new version",
            code="version_exists",
        )
    codebook, _ = codebook_load(spec=revised)
    codebook.derived_from = base
    codebook.mapping = {
        key: {old: list(new) for old, new in paths.items()}
        for key, paths in revised.revises.mapping.items()
    }
    codebook.save(update_fields=["derived_from", "mapping", "updated_at"])
    return codebook
