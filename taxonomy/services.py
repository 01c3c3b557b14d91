"""Writes to codebooks. Loading is an upsert on natural keys, all or nothing."""

import hashlib
import json
from dataclasses import asdict

from django.core.exceptions import ValidationError
from django.db import transaction

from taxonomy.codebook_file import CodebookSpec
from taxonomy.models import Category, Codebook, Dimension


def codebook_spec_hash(spec: CodebookSpec) -> str:
    content = asdict(spec)
    if spec.revises is None:
        # Versions that revise none hash as they did before `revises` existed.
        del content["revises"]
    canonical = json.dumps(content, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@transaction.atomic
def codebook_load(*, spec: CodebookSpec) -> tuple[Codebook, bool]:
    """Create or update the codebook `spec` describes. Returns (codebook, changed).

    Loading the same content twice changes nothing. A frozen version (pinned by a study) is
    never changed: its content must come under a new version.
    """
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


def codebook_freeze(*, codebook: Codebook) -> None:
    if not codebook.frozen:
        Codebook.objects.filter(pk=codebook.pk).update(frozen=True)
        codebook.frozen = True
