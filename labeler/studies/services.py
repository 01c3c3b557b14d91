"""Create studies, draw their items, manage their members."""

from __future__ import annotations

import datetime as dt
import secrets

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from config.sql import int_array
from labeler.coding.services import board_open_create, codebook_open_create
from labeler.common.permissions import codebook_owner_of
from labeler.models import Study, StudyBatch, StudyItem, StudyMember, StudyMemberRemoval
from labeler.studies.frames import FrameQuery, frame_reports, stratum_expression
from labeler.studies.sampling import (
    SamplePlan,
    SampleSpec,
    SampleSpecError,
    draw_sample,
    sample_plan,
    sample_warnings,
)
from mining.tasks import reports_patches_request
from taxonomy.models import Codebook
from taxonomy.services import codebook_freeze, codebook_key_give

# How long an item may be held without a submission before it returns to the pool.
HOLD_MINUTES_MIN = 1
HOLD_MINUTES_MAX = 24 * 60
HOLD_MINUTES_RANGE = f"must be between {HOLD_MINUTES_MIN} and {HOLD_MINUTES_MAX} minutes (24 hours)"


def _frame_units(*, frame: FrameQuery, sample: SampleSpec, study: Study | None):
    """(report id, stratum) pairs of the frame, leaving out reports the study already has."""
    stratum = stratum_expression(sample.stratify)
    reports = frame_reports(frame)
    if study is not None and study.pk:
        reports = reports.exclude(study_items__study=study)
    if stratum is None:
        return [(pk, None) for pk in reports.values_list("pk", flat=True)]
    return list(reports.annotate(stratum=stratum).values_list("pk", "stratum"))


def study_sample_preview(
    *, frame: FrameQuery, sample: SampleSpec, study: Study | None = None, seed: int | None = None
) -> SamplePlan:
    """Frame size, sample size and strata of a draw, before anything is written. Give the
    seed the draw will use: with many small strata it decides which get the leftover places."""
    return sample_plan(sample, _frame_units(frame=frame, sample=sample, study=study), seed=seed)


def sample_empty_message(*, frame: FrameQuery, in_study: bool) -> str:
    """Why a draw would take nothing, naming the frame's filters."""
    if in_study:
        return (
            f"matched no report not already in the study ({frame.describe()}): a batch needs "
            "at least one new item"
        )
    return (
        f"matched no report ({frame.describe()}): a study needs at least one item; widen the frame"
    )


def plan_warnings(
    *, plan: SamplePlan, frame: FrameQuery, sample: SampleSpec, in_study: bool = False
) -> list[str]:
    """What to tell the user about a previewed draw: that it would take nothing, or that it
    takes less than asked for."""
    if plan.sample_size == 0:
        return [f"the frame {sample_empty_message(frame=frame, in_study=in_study)}"]
    return sample_warnings(sample, plan.frame_size)


def new_seed() -> int:
    return secrets.randbelow(2**31)


def _batch_slot(*, study: Study) -> tuple[int, int]:
    """The next batch's number and the position its first item takes (after every other)."""
    recorded = study.batches.aggregate(last=Max("number"))["last"] or 0
    items = study.items.aggregate(batch=Max("batch"), position=Max("position"))
    number = max(recorded, items["batch"] or 0) + 1
    return number, 0 if items["position"] is None else items["position"] + 1


def _draw(
    *, frame: FrameQuery, sample: SampleSpec, seed: int, study: Study | None
) -> tuple[SamplePlan, list[int]]:
    """The plan and the drawn report ids; refused when nothing would be drawn."""
    units = _frame_units(frame=frame, sample=sample, study=study)
    plan, drawn = draw_sample(sample, units, seed)
    if not drawn:
        message = sample_empty_message(frame=frame, in_study=study is not None)
        raise ValidationError({"frame": message})
    return plan, drawn


@transaction.atomic
def study_batch_append(
    *,
    study: Study,
    report_ids: list[int],
    frame: dict,
    sampling: dict,
    seed: int,
    frame_size: int,
    strata: list[dict] | None = None,
    created_by=None,
) -> tuple[StudyBatch, dict[int, int]]:
    """Record a batch and append its reports to the study as items, in the given order,
    after every earlier item: the one way items join a study (drawn or imported). Returns the
    batch and the new items' ids by report id.

    One INSERT ... SELECT from an array of the report ids: at 8,000 items, making model
    instances for bulk_create took four times as long as PostgreSQL took to store them."""
    number, start = _batch_slot(study=study)
    batch = StudyBatch(
        study=study,
        number=number,
        frame=frame,
        sampling=sampling,
        seed=seed,
        frame_size=frame_size,
        sample_size=len(report_ids),
        strata=strata or [],
        created_by=created_by,
    )
    batch.full_clean(exclude=["study"])
    batch.save()
    with connection.cursor() as cursor:
        # The table's name is the model's, never input; the values are bound parameters.
        cursor.execute(
            f"INSERT INTO {StudyItem._meta.db_table} (study_id, report_id, batch, position, "  # noqa: S608
            "priority, needed, claimed, submitted) SELECT %s, r.report_id, %s, %s + r.n - 1, 0, "
            "%s, 0, 0 FROM unnest(%s::bigint[]) WITH ORDINALITY AS r(report_id, n) "
            "RETURNING report_id, id",
            [study.pk, number, start, study.overlap, int_array(report_ids)],
        )
        items = dict(cursor.fetchall())
    # Per-file patches come on demand: the reports entering a study are the ones read.
    transaction.on_commit(lambda: reports_patches_request(report_ids=list(report_ids)))
    return batch, items


def sample_spec_parse(sample: SampleSpec | dict) -> SampleSpec:
    """A SampleSpec from itself or its dict form, within the bounds a new draw may ask for;
    errors name the field (`sample.size`)."""
    try:
        spec = sample if isinstance(sample, SampleSpec) else SampleSpec.from_dict(sample)
        spec.bounds_check()
        return spec
    except SampleSpecError as error:
        field, _, message = str(error).partition(": ")
        raise ValidationError({f"sample.{field}": message}) from None


def study_kind_check(
    *, kind: str, codebook: Codebook | None, codes_shared: bool, dimension_names, dimension_keys
) -> None:
    """A closed study labels with a codebook; an open one pins a codebook or names the
    dimensions it codes, not both. The set-up page checks it before the preview."""
    if kind not in Study.Kind.values:
        raise ValidationError({"kind": f"{kind!r} is not one of {', '.join(Study.Kind.values)}"})
    if kind == Study.Kind.CLOSED:
        errors = {}
        if codebook is None:
            errors["codebook"] = "a closed-coding study labels with a codebook: choose one"
        if dimension_names:
            errors["dimension_names"] = (
                "only an open-coding study names its own dimensions (kind: open)"
            )
        if codes_shared:
            errors["codes_shared"] = "only an open-coding study has codes to share (kind: open)"
        if errors:
            raise ValidationError(errors)
    elif codebook is None and not dimension_names:
        raise ValidationError(
            {
                "codebook": "an open-coding study pins a codebook (its categories are offered "
                "besides free codes) or names the dimensions it codes (dimension_names)"
            }
        )
    elif codebook is not None and dimension_names:
        raise ValidationError(
            {
                "dimension_names": "name dimensions only to start without a codebook: the "
                "pinned one has its own (choose among them with dimensions)"
            }
        )
    elif dimension_names and dimension_keys:
        raise ValidationError(
            {"dimensions": "a study without a codebook codes every dimension it names"}
        )


def _study_dimensions(*, codebook: Codebook, dimension_keys: list[str] | None) -> list:
    """The codebook's dimensions a study labels: those of `dimension_keys` in that order,
    else all of them; at least one."""
    dimensions = list(codebook.dimensions.order_by("position"))
    if dimension_keys:
        by_key = {d.key: d for d in dimensions}
        unknown = [key for key in dimension_keys if key not in by_key]
        if unknown:
            raise ValidationError(
                {
                    "dimensions": f"codebook {codebook.key} v{codebook.version} has no dimension "
                    f"{unknown[0]!r} (it has: {', '.join(by_key)})"
                }
            )
        dimensions = [by_key[key] for key in dict.fromkeys(dimension_keys)]
    if not dimensions:
        raise ValidationError({"dimensions": "a study labels at least one dimension"})
    return dimensions


def _study_settings_check(study: Study) -> None:
    """The unsaved study's fields valid, its overlap at least 1, its hold in range."""
    study.full_clean()
    if study.overlap < 1:
        raise ValidationError({"overlap": "each item needs at least one annotation"})
    if not (
        dt.timedelta(minutes=HOLD_MINUTES_MIN)
        <= study.hold_timeout
        <= dt.timedelta(minutes=HOLD_MINUTES_MAX)
    ):
        raise ValidationError({"hold_timeout": HOLD_MINUTES_RANGE})


@transaction.atomic
def study_create(
    *,
    slug: str,
    name: str,
    codebook: Codebook | None = None,
    dimension_keys: list[str] | None = None,
    kind: str = Study.Kind.CLOSED,
    codes_shared: bool = False,
    dimension_names: list[str] | None = None,
    frame: FrameQuery,
    sample: SampleSpec,
    seed: int | None = None,
    overlap: int = 2,
    guidelines: str = "",
    item_order: str = Study.ItemOrder.RANDOM,
    hold_timeout: dt.timedelta | None = None,
    created_by=None,
) -> tuple[Study, StudyBatch]:
    """Create a study, pin (freeze) its codebook version and draw its first batch of items.

    `dimension_keys` defaults to every dimension of the codebook. The creator, if given,
    becomes a lead of the study. Refused, with nothing written, when the frame gives no
    item to draw.

    `kind` open: an open-coding study, with its code board; `codes_shared` lets its
    annotators see each other's codes while the round runs. It pins `codebook`, or starts
    from scratch on a codebook version made of `dimension_names` (services.coding).
    """
    sample = sample_spec_parse(sample)
    study_kind_check(
        kind=kind,
        codebook=codebook,
        codes_shared=codes_shared,
        dimension_names=dimension_names,
        dimension_keys=dimension_keys,
    )
    if Study.objects.filter(slug=slug).exists():
        raise ValidationError({"slug": f"a study {slug!r} already exists"})
    made = codebook is None
    if made:
        codebook = codebook_open_create(slug=slug, name=name, dimension_names=dimension_names)
    dimensions = _study_dimensions(codebook=codebook, dimension_keys=dimension_keys)
    study = Study(
        slug=slug,
        name=name,
        codebook=codebook,
        overlap=overlap,
        guidelines=guidelines,
        frame=frame.to_dict(),
        sampling=sample.to_dict(),
        seed=new_seed() if seed is None else seed,
        item_order=item_order,
        kind=kind,
        codes_shared=codes_shared,
        created_by=created_by,
    )
    if hold_timeout is not None:
        study.hold_timeout = hold_timeout
    _study_settings_check(study)
    plan, drawn = _draw(frame=frame, sample=sample, seed=study.seed, study=None)
    study.save()
    study.dimensions.set(dimensions)
    _study_codebook_and_people(study, made_codebook=made, created_by=created_by)
    batch, _ = study_batch_append(
        study=study,
        report_ids=drawn,
        frame=frame.to_dict(),
        sampling=sample.to_dict(),
        seed=study.seed,
        frame_size=plan.frame_size,
        strata=plan.to_dict()["strata"],
        created_by=created_by,
    )
    return study, batch


@transaction.atomic
def study_items_add(
    *,
    study: Study,
    frame: FrameQuery | None = None,
    sample: SampleSpec | None = None,
    seed: int | None = None,
    created_by=None,
) -> StudyBatch:
    """Draw another batch into the study; earlier items keep their batch and order.

    Reports already in the study are left out of the frame. The batch goes after the earlier
    items in hand-out order. Defaults: the study's frame and sampling, a new seed. Refused,
    with nothing written, when no report of the frame is left to draw.
    """
    Study.objects.select_for_update().filter(pk=study.pk).first()
    frame = frame if frame is not None else FrameQuery.from_dict(study.frame)
    sample = sample_spec_parse(sample if sample is not None else study.sampling)
    seed = new_seed() if seed is None else seed
    plan, drawn = _draw(frame=frame, sample=sample, seed=seed, study=study)
    batch, _ = study_batch_append(
        study=study,
        report_ids=drawn,
        frame=frame.to_dict(),
        sampling=sample.to_dict(),
        seed=seed,
        frame_size=plan.frame_size,
        strata=plan.to_dict()["strata"],
        created_by=created_by,
    )
    return batch


def _study_codebook_and_people(study: Study, *, made_codebook: bool, created_by) -> None:
    """A new study's pinned (frozen) codebook, the key of one it made, its board (open coding)
    and its creator as a lead."""
    codebook_freeze(codebook=study.codebook)
    if made_codebook:
        # The key its round made is the study's: its leads freeze the board into it.
        codebook_key_give(key=study.codebook.key, owner=codebook_owner_of(study))
    if study.kind == Study.Kind.OPEN:
        board_open_create(study=study, created_by=created_by)
    if created_by is not None:
        study_member_add(study=study, user=created_by, role=StudyMember.Role.LEAD)


def study_member_add(*, study: Study, user, role: str) -> StudyMember:
    """Give `user` the role in the study; giving it twice changes nothing."""
    if role not in StudyMember.Role.values:
        raise ValidationError({"role": f"{role!r} is not one of {', '.join(StudyMember.Role)}"})
    member, _ = StudyMember.objects.get_or_create(study=study, user=user, role=role)
    return member


LAST_LEAD = "a study keeps at least one lead: add another one first"


@transaction.atomic
def study_member_remove(*, study: Study, user, role: str) -> bool:
    """Take the role away; their labels stay. Returns whether they had it.

    Refused for the study's last lead.
    """
    # The study row is locked so that two leads removing each other cannot both succeed.
    Study.objects.select_for_update().filter(pk=study.pk).first()
    member = StudyMember.objects.filter(study=study, user=user, role=role).first()
    if member is None:
        return False
    if role == StudyMember.Role.LEAD and not (
        StudyMember.objects.filter(study=study, role=StudyMember.Role.LEAD)
        .exclude(pk=member.pk)
        .exists()
    ):
        raise ValidationError({"role": LAST_LEAD})
    member.delete()
    StudyMemberRemoval.objects.create(study=study, user=user, role=role, removed_at=timezone.now())
    return True


@transaction.atomic
def study_members_add(
    *, study: Study, usernames: list[str], role: str, create_users: bool = False
) -> list[StudyMember]:
    """Add several users by name at once; all or none. Unknown names are an error unless
    `create_users`, which creates them without a usable password."""
    users = {u.username: u for u in get_user_model().objects.filter(username__in=usernames)}
    missing = [name for name in usernames if name not in users]
    if missing and not create_users:
        raise ValidationError(
            {
                "usernames": f"no user {', '.join(missing)}: create their accounts first, or have "
                "them created (--create-users; on the members page, the create box)"
            }
        )
    for name in missing:
        users[name] = user_create_unusable(username=name)
    return [study_member_add(study=study, user=users[name], role=role) for name in usernames]


def user_create_unusable(*, username: str):
    """A user who signs in only after an admin sets a password (or through an API token)."""
    user = get_user_model()(username=username)
    user.set_unusable_password()
    user.full_clean()
    user.save()
    return user


@transaction.atomic
def study_item_priority_set(*, item: StudyItem, priority: int) -> StudyItem:
    StudyItem.objects.filter(pk=item.pk).update(priority=priority)
    item.priority = priority
    return item
