"""Hand items out, take labels in. Safe under many annotators at once.

Every change to an item's `claimed` and `submitted` counters is one UPDATE on the locked
row; the database refuses more than `needed` claims and a second assignment of the same
person. Writers lock an assignment before its item (handing out locks a fresh item and
inserts a new assignment), so no two wait on each other in a circle.

`next` and `submit` run on every annotator's every item: on PostgreSQL, handing an item out
and storing a submission are one plain-SQL statement each (CLAIM_SQL, SUBMIT_SQL); other
databases get the same steps through the ORM. The tests run both.

The submission that completes an item (and a revision of a complete item not final yet)
also takes the automatic final-label decisions (labeler.adjudication.services): two more
queries, while still holding the item's row lock. A final item's labels are locked: changing
them is refused as a conflict, saying how the item became final.

In an open-coding study a submission also takes codes, written on the study's code board
(labeler.coding.services, under the board's row lock: an assignment, then its board, then its
item), and takes no automatic decision: the round's result is its codes, and its items stay
open to revision while the codes are sorted.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections import Counter
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.db.models import F
from django.http import Http404
from django.utils import timezone

from config.api import CONFLICT
from labeler.adjudication.services import final_labels_settle, item_final_conflict
from labeler.coding.selectors import assignment_codes
from labeler.coding.services import code_uses_replace
from labeler.common.permissions import user_is_staff
from labeler.common.scheme import (
    Scheme,
    labels_paths,
    labels_validate,
    open_submission_validate,
    study_scheme_by_id,
)
from labeler.models import (
    Assignment,
    SkipReason,
    Study,
    StudyItem,
)
from taxonomy.models import Category

Status = Assignment.Status
# Held items expire in small bites so one request never does much of the sweeping.
EXPIRE_BATCH = 100


@transaction.atomic
def assignment_expire_stale(*, study: Study) -> int:
    """Return held items nobody submitted within the study's hold timeout to the pool."""
    cutoff = timezone.now() - study.hold_timeout
    stale = list(
        Assignment.objects.select_for_update(skip_locked=True)
        .filter(study=study, status=Status.HELD, held_at__lt=cutoff)
        .order_by("held_at")
        .values_list("pk", "item_id")[:EXPIRE_BATCH]
    )
    if not stale:
        return 0
    Assignment.objects.filter(pk__in=[pk for pk, _ in stale]).update(status=Status.EXPIRED)
    for item_id, count in sorted(Counter(item_id for _, item_id in stale).items()):
        StudyItem.objects.filter(pk=item_id).update(claimed=F("claimed") - count)
    return len(stale)


def assignment_next(*, study: Study, user) -> Assignment | None:
    """The item `user` should label next, held for them; None when nothing is left for them.

    An item the user already holds comes back first (a reload does not lose it); then a
    submission of theirs that a codebook revision flagged for re-labelling (its item not
    final), to revise (its `relabel` says what to label again). Otherwise: the first item
    in the study's order that still needs annotations, that the user has not held,
    submitted or skipped, and that no other request is handing out at this moment.
    Held items past the study's hold timeout go back to the pool first. The assignment
    carries its item's report id as `item_report_id`, so the report can be read without
    loading the item, and the codebook version of its study as `study_codebook_id`, read
    with the assignment: a migration that flagged it, or that the hand-out waited for, is
    seen there too, so its labels are asked for in the version they will be checked against
    (the `study` passed in may have been read before that migration).

    Two queries, whether the user holds an item or one is handed out; three when nothing is
    free for them.
    """
    now = timezone.now()
    cutoff = connection.ops.adapt_datetimefield_value(now - study.hold_timeout)
    with connection.cursor() as cursor:
        cursor.execute(PROBE_SQL, {"study": study.pk, "user": user.pk, "cutoff": cutoff})
        held_id, any_stale = cursor.fetchone()
    if held_id is None:
        if any_stale:
            assignment_expire_stale(study=study)
        return _assignment_claim(study=study, user=user, now=now)
    return Assignment.objects.annotate(
        item_report_id=F("item__report_id"), study_codebook_id=F("study__codebook_id")
    ).get(pk=held_id)


# The user's current hold, and whether the study has any hold to expire: one probe of two
# indexes, so the sweep runs only when there is something to sweep. Plain SQL, as the ORM
# takes ten times longer to build it than the database to answer.
#
# After the hold, a submission a codebook revision flagged for re-labelling, on an item not
# final (labeler.revisions.services): it comes back before any new item.
PROBE_SQL = """
SELECT
    COALESCE(
        (SELECT id FROM labeler_assignment
         WHERE study_id = %(study)s AND annotator_id = %(user)s AND status = 'held'
           AND held_at >= %(cutoff)s
         ORDER BY held_at, id LIMIT 1),
        (SELECT flagged.id FROM labeler_assignment flagged
         JOIN labeler_studyitem item ON item.id = flagged.item_id
         WHERE flagged.study_id = %(study)s AND flagged.annotator_id = %(user)s
           AND flagged.status = 'submitted' AND flagged.relabel <> '{}'::jsonb
           AND item.adjudicated_at IS NULL
         ORDER BY item.position, flagged.id LIMIT 1)
    ),
    EXISTS (SELECT 1 FROM labeler_assignment
            WHERE study_id = %(study)s AND status = 'held' AND held_at < %(cutoff)s)
"""


def _assignment_claim(*, study: Study, user, now) -> Assignment | None:
    """Hold the next free item for `user`: their new (or revived) assignment, or None.

    The hand-out skips the items other hand-outs (or submissions) are locking at that moment.
    When that leaves nothing, it asks once more, waiting for those locks: a locked item may
    still be free for this user once the other request is through (it took one of the
    item's `needed` claims, not always the last), and without the second look two annotators
    asking for the last item at once would leave one of them told that nothing is free. The
    request holds no other lock while it waits (`next` is a transaction of its own)."""
    params = {"study": study.pk, "user": user.pk, "now": now}
    if study.item_order == Study.ItemOrder.PER_ANNOTATOR:
        params["order_seed"] = annotator_order_seed(study_seed=study.seed, user_id=user.pk)
    with connection.cursor() as cursor:
        for picked in (CLAIM_PICKED, CLAIM_PICKED_WAITING):
            sql = CLAIM_SQL.format(picked=picked[study.item_order], columns=ASSIGNMENT_COLUMNS)
            # A retry only when another request of the same user took the picked item between
            # this statement's snapshot and its lock.
            for _ in range(CLAIM_ATTEMPTS):
                cursor.execute(sql, params)
                row = cursor.fetchone()
                if row is None:
                    break
                _, report_id, codebook_id, *columns = row
                if columns[0] is not None:
                    assignment = Assignment.from_db(connection.alias, ASSIGNMENT_FIELDS, columns)
                    # from_db takes values as given: JSON comes as text.
                    assignment.relabel = RELABEL_FIELD.from_db_value(
                        assignment.relabel, None, connection
                    )
                    assignment.item_report_id = report_id
                    if picked is CLAIM_PICKED_WAITING:
                        # The statement's snapshot predates the locks it waited for: a
                        # migration holding them has committed since.
                        codebook_id = Study.objects.values_list("codebook_id", flat=True).get(
                            pk=study.pk
                        )
                    assignment.study_codebook_id = codebook_id
                    return assignment
    return None


def annotator_order_seed(*, study_seed: int, user_id: int) -> int:
    """The seed of one annotator's own order of a study's items: the same study seed and
    annotator always give the same order, and two annotators get unrelated ones."""
    digest = hashlib.blake2b(f"{study_seed}:{user_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


CLAIM_ATTEMPTS = 3
# The first open item in the study's order that this user has not taken (or only held until
# it expired), skipping items other requests are handing out, locked. Its `claimed < needed`
# is re-checked on the locked row.
PICKED_IN_ORDER = """
    SELECT item.id, item.report_id
    FROM labeler_studyitem item
    WHERE item.study_id = %(study)s
      AND item.claimed < item.needed
      AND item.adjudicated_at IS NULL
      -- A scalar subquery, so that it stays one probe of the (item, annotator) unique index
      -- per item whatever the planner's statistics say.
      AND COALESCE(
          (SELECT mine.status FROM labeler_assignment mine
           WHERE mine.item_id = item.id AND mine.annotator_id = %(user)s),
          'expired'
      ) = 'expired'
    ORDER BY {order}
    LIMIT 1
    FOR UPDATE SKIP LOCKED
"""
# Each annotator's own permutation of the items: by PostgreSQL's 64-bit hash of the position
# under the annotator's seed. No index serves that order, so every open item is read: first
# a top-N sort without locks finds the annotator's next CANDIDATES (an anti-join with their
# own assignments, not a probe per item), then the first of them is locked. On 50,000 open
# items that takes about 15 ms, where the shared order takes 0.2 ms (EXPLAIN ANALYZE on
# PostgreSQL 15, 2 cores). Fewer open items, less time.
PICKED_PER_ANNOTATOR = """
    SELECT item.id, item.report_id
    FROM labeler_studyitem item
    WHERE item.id IN (
        SELECT open.id FROM labeler_studyitem open
        WHERE open.study_id = %(study)s
          AND open.claimed < open.needed
          AND open.adjudicated_at IS NULL
          AND NOT EXISTS (
              SELECT 1 FROM labeler_assignment mine
              WHERE mine.study_id = %(study)s AND mine.annotator_id = %(user)s
                AND mine.item_id = open.id AND mine.status <> 'expired'
          )
        ORDER BY hashint8extended(open.position, %(order_seed)s), open.position
        LIMIT {candidates}
    )
      AND item.claimed < item.needed
      AND item.adjudicated_at IS NULL
    ORDER BY hashint8extended(item.position, %(order_seed)s), item.position
    LIMIT 1
    FOR UPDATE SKIP LOCKED
"""
# Candidates per hand-out in an annotator's own order: enough that all of them being locked
# by other hand-outs at one moment is not a worry.
CANDIDATES = 32
CLAIM_PICKED = {
    Study.ItemOrder.RANDOM: PICKED_IN_ORDER.format(order="item.position"),
    Study.ItemOrder.PRIORITY: PICKED_IN_ORDER.format(order="item.priority DESC, item.position"),
    Study.ItemOrder.PER_ANNOTATOR: PICKED_PER_ANNOTATOR.format(candidates=CANDIDATES),
}
# The same, waiting for the rows other requests lock instead of skipping them; PostgreSQL
# checks a row again once its lock is released, and goes on to the next if it no longer fits.
CLAIM_PICKED_WAITING = {
    order: picked.replace("FOR UPDATE SKIP LOCKED", "FOR UPDATE")
    for order, picked in CLAIM_PICKED.items()
}
# One statement: lock the item picked (CLAIM_PICKED); insert the user's assignment (or revive
# their expired one); count the claim on the item. The database refuses more than `needed`.
CLAIM_SQL = """
WITH picked AS ({picked}), claim AS (
    INSERT INTO labeler_assignment AS assignment
        (item_id, study_id, annotator_id, status, held_at, skip_reason, note, unsure, seconds,
         version)
    SELECT picked.id, %(study)s, %(user)s, 'held', %(now)s, '', '', false, 0, 0
    FROM picked
    ON CONFLICT ON CONSTRAINT assignment_unique_person
        DO UPDATE SET status = EXCLUDED.status, held_at = EXCLUDED.held_at
        WHERE assignment.status = 'expired'
    RETURNING {columns}
), counted AS (
    UPDATE labeler_studyitem item SET claimed = item.claimed + 1
    FROM claim WHERE item.id = claim.item_id
)
SELECT picked.id, picked.report_id,
       (SELECT codebook_id FROM labeler_study WHERE id = %(study)s), claim.*
FROM picked LEFT JOIN claim ON claim.item_id = picked.id
"""
# Every column of the assignment, in the order Assignment.from_db takes them.
ASSIGNMENT_FIELDS = [field.attname for field in Assignment._meta.concrete_fields]
RELABEL_FIELD = Assignment._meta.get_field("relabel")
ASSIGNMENT_COLUMNS = ", ".join(
    f"assignment.{field.column}" for field in Assignment._meta.concrete_fields
)


def _locked_own(*, assignment_id: int, user, as_member: bool = False) -> Assignment:
    """Lock the user's assignment and check it is theirs, in one read: PermissionDenied when
    it is someone else's. `as_member` (a request's caller): also Http404 when it does not
    exist or lies in a study the user is no member of, and PermissionDenied when they no longer
    annotate there (staff may still change their own). Its item is read, not locked
    (SUBMIT_SQL changes its counters as its first write): the assignment carries the item's
    `item_adjudicated_at`, its study's `study_majority` policy, `study_kind` and
    `study_codebook_id`."""
    rows = Assignment.objects.raw(LOCK_OWN_SQL, [user.pk, user.pk, assignment_id])
    assignment = next(iter(rows), None)
    staff = as_member and user_is_staff(user)
    if assignment is None or (as_member and not (assignment.is_member or staff)):
        raise Http404("no such assignment")
    if assignment.annotator_id != user.pk:
        raise PermissionDenied("this assignment belongs to another annotator")
    if as_member and not (assignment.annotates or staff):
        raise PermissionDenied("you no longer annotate in this study")
    return assignment


# Plain SQL: it runs on every submission, and the ORM takes longer to build it than the
# database to answer.
LOCK_OWN_SQL = """
SELECT assignment.*, item.adjudicated_at AS item_adjudicated_at,
       study.majority AS study_majority, study.kind AS study_kind,
       study.codebook_id AS study_codebook_id,
       EXISTS (SELECT 1 FROM labeler_studymember member
               WHERE member.study_id = assignment.study_id AND member.user_id = %s) AS is_member,
       EXISTS (SELECT 1 FROM labeler_studymember member
               WHERE member.study_id = assignment.study_id AND member.user_id = %s
               AND member.role = 'annotator') AS annotates
FROM labeler_assignment assignment
JOIN labeler_studyitem item ON item.id = assignment.item_id
JOIN labeler_study study ON study.id = assignment.study_id
WHERE assignment.id = %s
FOR UPDATE OF assignment
"""


def _item_counters_refused(*, item_id: int, codebook_id: int) -> None:
    """Why the item's counters could not change (and so nothing of the submission is kept)."""
    if StudyItem.objects.filter(pk=item_id, adjudicated_at__isnull=False).exists():
        raise item_final_conflict(item_id=item_id)
    moved = (
        StudyItem.objects.filter(pk=item_id)
        .exclude(study__codebook_id=codebook_id)
        .values_list("study__codebook__version", flat=True)
        .first()
    )
    if moved is not None:
        raise ValidationError(
            f"the study moved to version {moved} of its codebook while you labelled; reload "
            "the page and label the item again",
            code=CONFLICT,
        )
    raise ValidationError(
        "your hold on this item expired and other annotators took it; ask for the next one"
    )


def _changes(old: dict, new: dict) -> dict:
    return {
        key: {"from": old.get(key, []), "to": new.get(key, [])}
        for key in sorted(set(old) | set(new))
        if old.get(key, []) != new.get(key, [])
    }


def _code_changes(old: dict, new: dict) -> dict:
    """Changed codes under `codes.<dimension key>`, as written; their order does not count."""
    return {
        f"codes.{key}": {"from": old.get(key, []), "to": new.get(key, [])}
        for key in sorted(set(old) | set(new))
        if set(old.get(key, [])) != set(new.get(key, []))
    }


CLOSED_STUDY_CODES = (
    "this is a closed-coding study: it takes labels from its codebook only, no codes"
)


def _submission_fields_check(*, note, unsure, seconds) -> None:
    """Refuse a bad note, unsure flag or seconds; None stands for a note or flag left out."""
    errors = {}
    if note is not None and not isinstance(note, str):
        errors["note"] = "must be text"
    elif note is not None and "\x00" in note:
        errors["note"] = "must not contain the NUL character"
    if unsure is not None and not isinstance(unsure, bool):
        errors["unsure"] = "must be true or false"
    if isinstance(seconds, bool) or not isinstance(seconds, int) or not 0 <= seconds <= 86_400:
        errors["seconds"] = "must be a whole number of seconds between 0 and 86400"
    if errors:
        raise ValidationError(errors)


class VersionConflict(Exception):
    """A submission based on a version that is no longer the assignment's current one (it
    was saved from elsewhere since, e.g. another tab). `current` is what is stored now:
    {labels, codes, note, unsure, version}."""

    def __init__(self, *, based_on: int, current: dict):
        self.based_on = based_on
        self.current = current
        super().__init__(
            f"you changed version {based_on} of these labels, but version "
            f"{current['version']} was saved since (from another tab or window)"
        )


def _version_check(assignment: Assignment, version: int | None) -> None:
    if version is None or version == assignment.version:
        return
    labels = dict(assignment.annotations.values_list("dimension__key", "values"))
    open_coding = assignment.study_kind == Study.Kind.OPEN
    current = {
        "labels": labels,
        "codes": assignment_codes(assignment=assignment) if open_coding else {},
        "note": assignment.note,
        "unsure": assignment.unsure,
        "version": assignment.version,
    }
    raise VersionConflict(based_on=version, current=current)


@transaction.atomic
def assignment_submit(
    *,
    assignment_id: int,
    user,
    labels: dict,
    codes: dict | None = None,
    note: str | None = None,
    unsure: bool | None = None,
    seconds: int = 0,
    version: int | None = None,
    scheme: Scheme | None = None,
    as_member: bool = False,
) -> Assignment:
    """Store the user's labels for their assignment: a first submission or a revision.

    In an open-coding study `codes` ({dimension key: [codes]}, see labels.codes_validate)
    come with the labels, a required dimension taking a category or a code; they are written
    on the study's board (labeler.coding.services) and kept as written in the version. A
    closed study refuses codes.

    A `note` or `unsure` left out (None) is "" and false on a first submission; a revision
    keeps what the assignment had. Every submission becomes a numbered version in the item's
    history with what changed. `version` is the version the labels revise (0 for a first
    submission); when it is given and another was saved since, VersionConflict is raised.
    Refused, with nothing stored: someone else's assignment, a final item (a conflict), a
    skipped item, a hold that expired after others took the item, a stale `version`, and any
    label `labels_validate` refuses; with `as_member` (a request), also a study the user no
    longer annotates in (see _locked_own). A submission that completes the item, or revises the
    labels of a complete item not final yet, takes the automatic final-label decisions (in a
    closed study). The returned assignment carries its new labels as `labels` ({dimension
    key: [paths]}) and its codes as `codes` ({dimension key: [codes]}).
    """
    _submission_fields_check(note=note, unsure=unsure, seconds=seconds)
    assignment = _locked_own(assignment_id=assignment_id, user=user, as_member=as_member)
    _submittable_check(assignment, version)
    scheme = scheme or study_scheme_by_id(
        study_id=assignment.study_id, codebook_id=assignment.study_codebook_id
    )
    open_coding = assignment.study_kind == Study.Kind.OPEN
    chosen, written = _submission_validate(
        scheme=scheme, labels=labels, codes=codes, open_coding=open_coding
    )
    reclaim = assignment.status == Status.EXPIRED
    first = assignment.status != Status.SUBMITTED
    # Left out: "" and false on a first submission; what the assignment had on a revision.
    note = ("" if first else assignment.note) if note is None else note
    unsure = (False if first else assignment.unsure) if unsure is None else unsure
    now = timezone.now()

    new = labels_paths(chosen)
    old, changes = {}, {}
    if not first:
        old = dict(assignment.annotations.values_list("dimension__key", "values"))
        changes = _revision_changes(
            assignment, old=old, new=new, written=written, note=note, unsure=unsure
        )
        assignment.annotations.all().delete()
    if open_coding:
        code_uses_replace(assignment=assignment, scheme=scheme, codes=written, user=user, now=now)
    _assignment_submitted(assignment, note=note, unsure=unsure, seconds=seconds, now=now)
    submission = Submission(
        assignment=assignment,
        chosen=chosen,
        labels=new,
        codes=written,
        changes=changes,
        seconds=seconds,
        now=now,
        first=first,
        reclaim=reclaim,
        codebook_id=scheme.key[1] if scheme.key is not None else assignment.study_codebook_id,
    )
    complete = _submission_write(submission)
    if complete and not open_coding and (first or new != old):
        majority = assignment.study_majority
        final_labels_settle(
            item_ids=[assignment.item_id], scheme=scheme, majority=majority, now=now
        )
    assignment.labels, assignment.codes = new, written
    return assignment


def _submittable_check(assignment: Assignment, version: int | None) -> None:
    """Refused: a final item (a conflict), a skipped item, a stale `version`."""
    if assignment.item_adjudicated_at is not None:
        raise item_final_conflict(item_id=assignment.item_id)
    if assignment.status == Status.SKIPPED:
        raise ValidationError("you skipped this item; it went to other annotators")
    _version_check(assignment, version)


def _assignment_submitted(
    assignment: Assignment, *, note: str, unsure: bool, seconds: int, now
) -> None:
    """The assignment as a submission leaves it (not saved: _submission_write saves it)."""
    if assignment.status != Status.SUBMITTED:
        assignment.submitted_at = now
    assignment.version += 1
    assignment.status = Status.SUBMITTED
    assignment.note = note
    assignment.unsure = unsure
    assignment.seconds += seconds


def _submission_validate(
    *, scheme: Scheme, labels: dict, codes: dict | None, open_coding: bool
) -> tuple[dict, dict]:
    """The categories chosen and the codes written, as labels_validate and
    open_submission_validate check them; a closed study refuses codes."""
    if open_coding:
        return open_submission_validate(scheme=scheme, labels=labels, codes=codes or {})
    if codes:
        raise ValidationError({"codes": CLOSED_STUDY_CODES})
    return labels_validate(scheme=scheme, labels=labels), {}


def _revision_changes(
    assignment: Assignment, *, old: dict, new: dict, written: dict, note: str, unsure: bool
) -> dict:
    """What a revision changes in the submission: labels, codes (open coding), note, unsure."""
    changes = _changes(old, new)
    if assignment.study_kind == Study.Kind.OPEN:
        changes.update(_code_changes(assignment_codes(assignment=assignment), written))
    if note != assignment.note:
        changes["note"] = {"from": assignment.note, "to": note}
    if unsure != assignment.unsure:
        changes["unsure"] = {"from": assignment.unsure, "to": unsure}
    return changes


@dataclass(frozen=True)
class Submission:
    """What a submission writes: the assignment (its fields already changed), its labels and
    codes, the version's changes and seconds. A first submission counts on the item; one
    after the hold expired claims a place on it again, if there is one."""

    assignment: Assignment
    chosen: dict[str, list[Category]]
    labels: dict[str, list[str]]
    codes: dict[str, list[str]]
    changes: dict
    seconds: int
    now: dt.datetime
    first: bool
    reclaim: bool
    codebook_id: int


def _submission_write(submission: Submission) -> bool:
    """The submission's rows and the item's counters, in one statement (one round trip).
    Whether the item has all its annotations now."""
    assignment = submission.assignment
    chosen = submission.chosen.values()
    with connection.cursor() as cursor:
        cursor.execute(
            SUBMIT_SQL,
            {
                "item": assignment.item_id,
                "codebook": submission.codebook_id,
                "claimed": int(submission.reclaim),
                "submitted": int(submission.first),
                "reclaim": submission.reclaim,
                "assignment": assignment.pk,
                "annotator": assignment.annotator_id,
                "status": assignment.status,
                "submitted_at": assignment.submitted_at,
                "note": assignment.note,
                "unsure": assignment.unsure,
                "total_seconds": assignment.seconds,
                "version": assignment.version,
                "labels": json.dumps(submission.labels),
                "codes": json.dumps(submission.codes),
                "changes": json.dumps(submission.changes),
                "seconds": submission.seconds,
                "now": submission.now,
                "dimensions": [categories[0].dimension_id for categories in chosen],
                "values": [json.dumps(paths) for paths in submission.labels.values()],
                "category_dimensions": [c.dimension_id for cs in chosen for c in cs],
                "categories": [c.pk for cs in chosen for c in cs],
            },
        )
        counted, complete = cursor.fetchone()
    if not counted:
        _item_counters_refused(item_id=assignment.item_id, codebook_id=submission.codebook_id)
    return complete


# Every write is gated on the item's counters changing, and they change only while the item
# is not adjudicated and (for a reclaim) has a free place: re-checked on the locked item row,
# so when they do not hold, nothing is written. The item row is locked from here to the commit
# only, so annotators of the same item do not queue behind each other's whole submission.
SUBMIT_SQL = """
WITH counted AS (
    UPDATE labeler_studyitem item
    SET claimed = item.claimed + %(claimed)s, submitted = item.submitted + %(submitted)s
    WHERE item.id = %(item)s
      AND item.adjudicated_at IS NULL
      AND (NOT %(reclaim)s OR item.claimed < item.needed)
      -- The labels were checked against this codebook version: a codebook revision
      -- committed since (seen by this statement's fresh snapshot) refuses them.
      AND EXISTS (SELECT 1 FROM labeler_study study
                  WHERE study.id = item.study_id AND study.codebook_id = %(codebook)s)
    RETURNING item.id, item.submitted >= item.needed AS complete
), saved AS (
    UPDATE labeler_assignment assignment
    SET status = %(status)s, submitted_at = %(submitted_at)s, note = %(note)s,
        unsure = %(unsure)s, seconds = %(total_seconds)s, version = %(version)s,
        relabel = '{}'::jsonb
    FROM counted
    WHERE assignment.id = %(assignment)s
), versioned AS (
    INSERT INTO labeler_annotationversion
        (assignment_id, item_id, annotator_id, number, labels, codes, changes, note, unsure,
         seconds, created_at)
    SELECT %(assignment)s, counted.id, %(annotator)s, %(version)s, %(labels)s::jsonb,
           %(codes)s::jsonb, %(changes)s::jsonb, %(note)s, %(unsure)s, %(seconds)s, %(now)s
    FROM counted
), added AS (
    INSERT INTO labeler_annotation
        (assignment_id, item_id, annotator_id, dimension_id, "values", updated_at)
    SELECT %(assignment)s, counted.id, %(annotator)s, answer.dimension_id,
           answer.paths::jsonb, %(now)s
    FROM counted,
         unnest(%(dimensions)s::bigint[], %(values)s::text[]) AS answer(dimension_id, paths)
    RETURNING id, dimension_id
), categorised AS (
    INSERT INTO labeler_annotation_categories (annotation_id, category_id)
    SELECT added.id, chosen.category_id
    FROM added
    JOIN unnest(%(category_dimensions)s::bigint[], %(categories)s::bigint[])
        AS chosen(dimension_id, category_id) USING (dimension_id)
)
SELECT count(*), COALESCE(bool_or(complete), false) FROM counted
"""


@transaction.atomic
def assignment_skip(
    *, assignment_id: int, user, reason: str, note: str = "", as_member: bool = False
) -> Assignment:
    """Give the item back with a reason; it goes to other annotators and the lead sees why."""
    if reason not in SkipReason.values:
        raise ValidationError(
            {"reason": f"{reason!r} is not one of {', '.join(SkipReason.values)}"}
        )
    _submission_fields_check(note=note, unsure=None, seconds=0)
    assignment = _locked_own(assignment_id=assignment_id, user=user, as_member=as_member)
    if assignment.status == Status.SUBMITTED:
        raise ValidationError("you submitted labels for this item; revise them instead")
    if assignment.status == Status.SKIPPED:
        raise ValidationError("you skipped this item already")
    was_held = assignment.status == Status.HELD
    assignment.status = Status.SKIPPED
    assignment.skip_reason = reason
    assignment.note = note
    assignment.save(update_fields=["status", "skip_reason", "note"])
    if was_held:
        StudyItem.objects.filter(pk=assignment.item_id).update(claimed=F("claimed") - 1)
    return assignment
