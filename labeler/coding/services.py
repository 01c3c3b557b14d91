"""Open coding: a study's code board and the codebook version it starts from, and the codes
a submission writes on the board.

A written code counts for the board's code of that name, in any case, and for the code that
one was merged into, if it was; a new name becomes a new code. Each code an annotator gives an
item is a CodeUse keeping the code as written. The board's row is locked while codes are
written, as every change on the board locks it, so a merge never misses a use written at the
same moment.
"""

from __future__ import annotations

import datetime as dt
import re

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from labeler.common.permissions import codebook_key_owner_words
from labeler.common.scheme import Scheme, name_normalise
from labeler.models import Assignment, Board, Code, CodeUse, Study
from taxonomy.codebook_file import KEY_PATTERN, CodebookSpec, DimensionSpec
from taxonomy.models import Codebook, Dimension
from taxonomy.services import codebook_key_lock, codebook_load

# The version of the codebook an open study started from scratch pins.
OPEN_VERSION = "open"
DIMENSION_NAME_MAX = 200
NAME_MAX = 200
OPEN_SUFFIX = ": open coding"
KEY_MAX = 100


def key_from(text: str) -> str:
    """A codebook key (lower-case words joined by hyphens, as codebook files take them) from a
    name or a study's slug."""
    return re.sub(r"-{2,}", "-", slugify(text).replace("_", "-")).strip("-")


def open_dimensions_parse(names: list[str], field: str) -> tuple[DimensionSpec, ...]:
    """The dimensions an open study names, as a codebook takes them; every problem is
    reported, naming `field` and the name's place (`dimension_names[1]`)."""
    errors: dict[str, str] = {}
    specs: list[DimensionSpec] = []
    keys: dict[str, str] = {}
    for index, raw in enumerate(names):
        at = f"{field}[{index}]"
        name = " ".join(str(raw).split())
        key = key_from(name)
        if not name:
            errors[at] = "a dimension needs a name"
        elif len(name) > DIMENSION_NAME_MAX:
            errors[at] = f"at most {DIMENSION_NAME_MAX} characters ({len(name)} given)"
        elif not KEY_PATTERN.match(key) or len(key) > KEY_MAX:
            errors[at] = f"{name!r} gives no key: use letters or digits"
        elif key in keys:
            errors[at] = f"{name!r} is the same dimension as {keys[key]!r} (key {key!r})"
        else:
            keys[key] = name
            specs.append(DimensionSpec(key=key, name=name))
    if not names:
        errors[field] = "name at least one dimension to code, e.g. root cause, symptom"
    if errors:
        raise ValidationError(errors)
    return tuple(specs)


@transaction.atomic
def codebook_open_create(
    *, slug: str, name: str, dimension_names: list[str], field: str = "dimension_names"
) -> Codebook:
    """The codebook version an open study starts from scratch: the named dimensions (each
    required, one category at most, in the order given) and no category; key from the study's
    slug, version "open". The caller pins (freezes) it. Errors name `field` and the name
    (`dimension_names[1]`), or `slug` when that key exists already (it is another's: the
    caller gives the new key to the study, taxonomy.services.codebook_key_give)."""
    dimensions = open_dimensions_parse(dimension_names, field)
    key = key_from(slug)
    if not KEY_PATTERN.match(key) or len(key) > KEY_MAX:
        raise ValidationError({"slug": f"{slug!r} gives no codebook key: use letters or digits"})
    codebook_key_lock(key=key)
    owner = codebook_key_owner_words(key)
    if owner is not None:
        # A version "open" of it would be what new studies on the key pick.
        raise ValidationError(
            {
                "slug": f"codebook {key!r} exists already and belongs to {owner}: give this "
                "study another slug, or pin that codebook"
            }
        )
    codebook, _ = codebook_load(
        spec=CodebookSpec(
            key=key,
            name=f"{name[: NAME_MAX - len(OPEN_SUFFIX)]}{OPEN_SUFFIX}",
            version=OPEN_VERSION,
            description=f"The dimensions study {slug} codes, before its codes were sorted "
            "into categories.",
            dimensions=dimensions,
        )
    )
    return codebook


@transaction.atomic
def board_open_create(*, study: Study, created_by=None) -> Board:
    """The board an open study's codes go on."""
    board = Board(
        study=study, kind=Board.Kind.OPEN, created_by=created_by, created_at=timezone.now()
    )
    board.full_clean()
    board.save()
    return board


def _board_locked(study_id: int) -> Board:
    # Not joined to the codebook it was frozen into: a submission that waited here for a
    # freeze would get the board's new row with the codebook row read before the wait (none).
    board = (
        Board.objects.select_for_update()
        .filter(study_id=study_id, kind=Board.Kind.OPEN)
        .order_by("-created_at", "-pk")
        .first()
    )
    if board is None:
        raise ValidationError({"codes": "this open-coding study has no code board"})
    return board


class _Codes:
    """A board's codes, found by name (in a dimension) as a written code names them."""

    def __init__(self, board: Board):
        self.board = board
        self.by_id: dict[int, Code] = {}
        self.exact: dict[tuple[int, str], Code] = {}
        self.folded: dict[tuple[int, str], Code] = {}
        self.last_position: dict[int, int] = {}
        for code in Code.objects.filter(board=board).order_by("pk"):
            self._know(code)

    def _know(self, code: Code) -> None:
        self.by_id[code.pk] = code
        self.exact[(code.dimension_id, code.name)] = code
        # A name stored before names were normalised still takes what reads the same.
        self.folded.setdefault((code.dimension_id, name_normalise(code.name).casefold()), code)
        self.last_position[code.dimension_id] = max(
            code.position, self.last_position.get(code.dimension_id, -1)
        )

    def resolve(self, dimension: Dimension, written: str, *, user, now: dt.datetime) -> Code:
        code = self.exact.get((dimension.pk, written)) or self.folded.get(
            (dimension.pk, written.casefold())
        )
        if code is None:
            code = Code(
                board=self.board,
                dimension=dimension,
                name=written,
                position=self.last_position.get(dimension.pk, -1) + 1,
                created_by=user,
                created_at=now,
            )
            code.save()
            self._know(code)
        seen = {code.pk}
        while code.merged_into_id is not None and code.merged_into_id not in seen:
            seen.add(code.merged_into_id)
            code = self.by_id[code.merged_into_id]
        return code


@transaction.atomic
def code_uses_replace(
    *, assignment: Assignment, scheme: Scheme, codes: dict[str, list[str]], user, now
) -> None:
    """Make the assignment's codes on the study's board `codes` ({dimension key: [codes as
    stored]}): a use the new codes still have stays as it is (with whatever code the board
    moved it to since), the others go, new ones are added. Refused while the board is frozen,
    when that would change its uses. The caller holds the assignment's row lock; this takes
    the board's."""
    board = _board_locked(assignment.study_id)
    wanted = {
        (scheme.dimension(key).pk, written)
        for key, written_codes in codes.items()
        for written in written_codes
    }
    uses = list(
        CodeUse.objects.filter(assignment=assignment).values_list(
            "pk", "code__dimension_id", "written_as"
        )
    )
    kept = {(dimension_id, written) for _, dimension_id, written in uses}
    gone = [pk for pk, dimension_id, written in uses if (dimension_id, written) not in wanted]
    added = [
        (key, written)
        for key, written_codes in codes.items()
        for written in written_codes
        if (scheme.dimension(key).pk, written) not in kept
    ]
    if not (gone or added):
        return
    if board.frozen_into is not None:
        raise ValidationError(
            {
                "codes": f"the study's codes were frozen into codebook {board.frozen_into.key} "
                f"v{board.frozen_into.version}: they no longer change"
            }
        )
    CodeUse.objects.filter(pk__in=gone).delete()
    found = _Codes(board)
    CodeUse.objects.bulk_create(
        [
            CodeUse(
                code=found.resolve(scheme.dimension(key), written, user=user, now=now),
                assignment=assignment,
                item_id=assignment.item_id,
                annotator=user,
                written_as=written,
                created_at=now,
            )
            for key, written in added
        ]
    )
