"""Reads of codebooks."""

from dataclasses import dataclass, field

from django.db.models import Prefetch, QuerySet

from taxonomy.codebook_file import CategorySpec, CodebookSpec, DimensionSpec, RevisesSpec
from taxonomy.diff import CodebookDiff, Revision, codebook_diff, codebook_lineage
from taxonomy.models import Category, Codebook, Dimension


def codebook_list() -> QuerySet[Codebook]:
    return Codebook.objects.prefetch_related("dimensions").order_by("key", "-updated_at")


def codebook_newest(*, key: str, version: str | None = None) -> Codebook | None:
    """The codebook `key` at `version`, or its newest version when none is given; None when
    there is no such codebook."""
    codebooks = Codebook.objects.filter(key=key)
    if version:
        codebooks = codebooks.filter(version=version)
    return codebooks.order_by("-created_at").first()


def codebook_key_owner(*, key: str) -> str | None:
    """Who owns codebook `key` (Codebook.owner of its first version); None when there is no
    such codebook."""
    return (
        Codebook.objects.filter(key=key)
        .order_by("created_at", "pk")
        .values_list("owner", flat=True)
        .first()
    )


def codebook_with_tree(*, key: str, version: str) -> Codebook:
    """One codebook with its dimensions and categories loaded in three queries."""
    categories = Category.objects.order_by("position")
    dimensions = Dimension.objects.order_by("position").prefetch_related(
        Prefetch("categories", queryset=categories)
    )
    return Codebook.objects.prefetch_related(Prefetch("dimensions", queryset=dimensions)).get(
        key=key, version=version
    )


def codebook_spec(*, codebook: Codebook) -> CodebookSpec:
    """The codebook as the spec its file describes (`codebook_yaml` writes it), in two
    queries; a version revised from another says which one, with its mapping (one more).

    For a codebook loaded from a file, `codebook_spec_hash` of it is its `content_hash`.
    """
    categories = Category.objects.select_related("parent").order_by("position")
    dimensions = codebook.dimensions.order_by("position").prefetch_related(
        Prefetch("categories", queryset=categories)
    )
    revises = None
    if codebook.derived_from_id is not None:
        revises = _revises(codebook)
    return CodebookSpec(
        key=codebook.key,
        name=codebook.name,
        version=codebook.version,
        description=codebook.description,
        source=codebook.source,
        dimensions=tuple(
            DimensionSpec(
                key=dimension.key,
                name=dimension.name,
                help=dimension.help_text,
                multiple=dimension.multiple,
                required=dimension.required,
                leaf_only=dimension.leaf_only,
                categories=tuple(
                    CategorySpec(
                        key=category.key,
                        name=category.name,
                        parent=category.parent.key if category.parent else None,
                        definition=category.definition,
                        include=category.include,
                        exclude=category.exclude,
                        examples=tuple(category.examples),
                        path=category.path,
                    )
                    for category in dimension.categories.all()
                ),
            )
            for dimension in dimensions
        ),
        revises=revises,
    )


def codebook_versions(*, key: str) -> list[str]:
    """The versions of codebook `key`, oldest first."""
    return list(
        Codebook.objects.filter(key=key)
        .order_by("created_at", "pk")
        .values_list("version", flat=True)
    )


def codebook_missing_message(*, key: str, version: str) -> str:
    """Why codebook `key` at `version` cannot be found: no such codebook, or no such version
    of it (naming the versions it has)."""
    versions = codebook_versions(key=key)
    if not versions:
        return f"no codebook {key!r}"
    return f"codebook {key!r} has no version {version!r} (it has: {', '.join(versions)})"


def codebook_versions_diff(*, old: Codebook, new: Codebook) -> CodebookDiff:
    """What changed from `old` to `new`, two versions of one codebook, read through the
    mappings recorded along the revisions between them when one derives from the other."""
    history = {
        version: Revision(revises=revises, mapping=mapping)
        for version, revises, mapping in Codebook.objects.filter(key=new.key).values_list(
            "version", "derived_from__version", "mapping"
        )
    }
    old_spec = codebook_spec(codebook=old)
    new_spec = codebook_spec(codebook=new)
    return codebook_diff(old_spec, new_spec, lineage=codebook_lineage(history, old_spec, new_spec))


def _revises(codebook: Codebook) -> RevisesSpec:
    """What `codebook` revises: the version, and the stored mapping in that version's order,
    its dimensions and their categories as it lists them (PostgreSQL keeps JSON keys in an
    order of its own). One query: the version comes with the categories."""
    rows = list(
        Category.objects.filter(dimension__codebook_id=codebook.derived_from_id)
        .order_by("dimension__position", "position")
        .values_list("dimension__codebook__version", "dimension__key", "path")
    )
    if rows:
        version = rows[0][0]
    else:
        version = Codebook.objects.values_list("version", flat=True).get(
            pk=codebook.derived_from_id
        )
    order: dict[str, dict[str, int]] = {}
    for _, dimension, path in rows:
        paths = order.setdefault(dimension, {})
        paths[path] = len(paths)
    dimensions = {dimension: index for index, dimension in enumerate(order)}

    def ranked(keys, position: dict[str, int]) -> list[str]:
        return sorted(keys, key=lambda key: (position.get(key, len(position)), key))

    mapping = codebook.mapping
    return RevisesSpec(
        version=version,
        mapping={
            dimension: {
                old: tuple(mapping[dimension][old])
                for old in ranked(mapping[dimension], order.get(dimension, {}))
            }
            for dimension in ranked(mapping, dimensions)
        },
    )


@dataclass
class CategoryNode:
    category: Category
    children: list["CategoryNode"] = field(default_factory=list)
    matches: bool = True


def category_tree(dimension: Dimension, query: str = "") -> list[CategoryNode]:
    """The dimension's categories as a tree; with `query`, only branches that mention it."""
    nodes = {c.pk: CategoryNode(c) for c in dimension.categories.all()}
    roots: list[CategoryNode] = []
    for node in nodes.values():
        parent_id = node.category.parent_id
        (nodes[parent_id].children if parent_id in nodes else roots).append(node)
    if query:
        needle = query.casefold()

        def mentions(category: Category) -> bool:
            haystack = " ".join(
                [
                    category.key,
                    category.name,
                    category.definition,
                    category.include,
                    category.exclude,
                    *category.examples,
                ]
            )
            return needle in haystack.casefold()

        def prune(branch: list[CategoryNode]) -> list[CategoryNode]:
            kept = []
            for node in branch:
                node.children = prune(node.children)
                node.matches = mentions(node.category)
                if node.matches or node.children:
                    kept.append(node)
            return kept

        roots = prune(roots)
    return roots
