"""Moving a study and its labels to a revised version of its codebook."""

import datetime as dt

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from labeler.common import scheme as labels
from labeler.common.scheme import study_scheme
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import (
    Annotation,
    AnnotationVersion,
    Assignment,
    CodebookMigration,
    FinalLabel,
    FinalLabelEvent,
    StudyItem,
)
from labeler.revisions.services import study_revise
from taxonomy.services import codebook_freeze
from tests.labeler.codebook_revisions import labelled_study, revise_v2, revise_v3
from tests.labeler.factories import StudyItemFactory, StudyMemberFactory, labelling_codebook

pytestmark = pytest.mark.django_db


@pytest.fixture
def labelled_v1(annotator, ann2, lead):
    return labelled_study(annotator=annotator, second=ann2, lead=lead)


def items(study):
    return list(study.items.order_by("position"))


def current(item, user):
    return dict(
        Annotation.objects.filter(item=item, annotator=user).values_list("dimension__key", "values")
    )


def test_a_dry_run_counts_and_writes_nothing(labelled_v1, lead):
    v2 = revise_v2(labelled_v1.codebook)
    before = list(Annotation.objects.values_list("pk", "values"))
    outcome = study_revise(study=labelled_v1, codebook=v2, user=lead, dry_run=True)
    assert outcome.record is None
    assert outcome.counts == {
        # Root cause on all 8 assignments, impact on the 6 that chose one; the three on
        # threading (split) are flagged.
        "annotations_carried": 11,
        "annotations_relabel": 3,
        "assignments_flagged": 3,
        # Both dimensions of items 1 to 3 (the third's impact unanimously empty), impact of
        # item 4; the third's root cause (threading) reopens.
        "finals_carried": 6,
        "finals_reopened": 1,
        "items_reopened": 1,
    }
    labelled_v1.refresh_from_db()
    assert labelled_v1.codebook.version == "1.0"
    assert not v2.frozen
    assert CodebookMigration.objects.count() == 0
    assert list(Annotation.objects.values_list("pk", "values")) == before


def test_carried_labels_move_into_the_new_version_with_a_version_in_history(
    labelled_v1, annotator, lead
):
    v2 = revise_v2(labelled_v1.codebook)
    outcome = study_revise(study=labelled_v1, codebook=v2, user=lead)
    labelled_v1.refresh_from_db()
    assert labelled_v1.codebook == v2
    v2.refresh_from_db()
    assert v2.frozen
    assert set(labelled_v1.dimensions.all()) == set(v2.dimensions.all())
    first, second, *_ = items(labelled_v1)
    assert current(first, annotator) == {"root-cause": ["memory/leak"], "impact": ["cost"]}
    assert current(second, annotator) == {"root-cause": ["memory/overuse"], "impact": ["cost"]}
    annotation = Annotation.objects.get(item=second, annotator=annotator, dimension__key="impact")
    assert annotation.dimension.codebook == v2
    assert [c.path for c in annotation.categories.all()] == ["cost"]
    assert annotation.categories.get().dimension.codebook == v2

    version = AnnotationVersion.objects.filter(item=second, annotator=annotator).latest("number")
    assert version.number == 2
    assert version.migration == outcome.record
    assert version.labels == {"root-cause": ["memory/overuse"], "impact": ["cost"]}
    assert version.changes == {
        "root-cause": {"from": ["memory/bloat"], "to": ["memory/overuse"]},
        "impact": {"from": ["speed", "memory-use"], "to": ["cost"]},
    }
    first_version = AnnotationVersion.objects.get(item=second, annotator=annotator, number=1)
    assert version.labelled_at == first_version.created_at
    assert outcome.record.reason == "codebook migration from v1.0 to v2.0 by lead"
    assert outcome.record.counts == outcome.counts


def test_labels_on_a_split_category_are_flagged_and_taken_off(labelled_v1, annotator, lead):
    v2 = revise_v2(labelled_v1.codebook)
    study_revise(study=labelled_v1, codebook=v2, user=lead)
    third = items(labelled_v1)[2]
    assert current(third, annotator) == {}
    assignment = Assignment.objects.get(item=third, annotator=annotator)
    assert assignment.relabel == {
        "root-cause": {
            "was": ["threading"],
            "into": {"threading": ["threading/lock", "threading/race"]},
            "suggested": [],
        }
    }
    version = assignment.versions.latest("number")
    assert version.labels == {}
    assert version.changes == {"root-cause": {"from": ["threading"], "to": [], "relabel": True}}
    untouched = Assignment.objects.get(item=items(labelled_v1)[0], annotator=annotator)
    assert untouched.relabel == {}


def test_final_labels_carry_over_or_reopen_for_adjudication(labelled_v1, lead):
    v2 = revise_v2(labelled_v1.codebook)
    study_revise(study=labelled_v1, codebook=v2, user=lead)
    first, _, third, fourth = items(labelled_v1)
    assert dict(first.final_labels.values_list("dimension__key", "values")) == {
        "root-cause": ["memory/leak"],
        "impact": ["cost"],
    }
    assert first.final_labels.get(dimension__key="impact").categories.get().path == "cost"
    assert first.final_labels.get(dimension__key="impact").dimension.codebook == v2
    assert StudyItem.objects.get(pk=first.pk).adjudicated_at is not None
    # A carried value that changed is a decision in the item's final history.
    decided = FinalLabelEvent.objects.filter(item=first, kind="decided", user=lead).get()
    assert (decided.values, decided.rationale) == (
        ["cost"],
        "codebook migration from v1.0 to v2.0 by lead",
    )
    # The split category's final label is withdrawn: the item waits again.
    assert list(third.final_labels.values_list("dimension__key", "values")) == [("impact", [])]
    assert StudyItem.objects.get(pk=third.pk).adjudicated_at is None
    reopened = FinalLabelEvent.objects.get(item=third, kind="reopened")
    assert reopened.values == ["threading"]
    assert reopened.rationale.startswith("codebook migration from v1.0 to v2.0 by lead: ")
    # Item 4's impact was never in question: it carries over.
    assert dict(fourth.final_labels.values_list("dimension__key", "values")) == {"impact": ["cost"]}
    assert FinalLabel.objects.filter(dimension__codebook=labelled_v1.codebook).count() == 0


def test_after_the_migration_submissions_take_the_new_version(labelled_v1, annotator, lead):
    v2 = revise_v2(labelled_v1.codebook)
    StudyItemFactory(study=labelled_v1, position=10)
    study_revise(study=labelled_v1, codebook=v2, user=lead)
    held = assignment_next(study=labelled_v1, user=annotator)
    with pytest.raises(ValidationError, match="no category 'memory/bloat'"):
        assignment_submit(
            assignment_id=held.pk, user=annotator, labels={"root-cause": "memory/bloat"}
        )
    submitted = assignment_submit(
        assignment_id=held.pk, user=annotator, labels={"root-cause": "memory/overuse"}
    )
    assert submitted.labels == {"root-cause": ["memory/overuse"]}


def test_a_scheme_another_process_loaded_before_the_migration_is_not_used_after(
    labelled_v1, annotator, lead
):
    codebook_freeze(codebook=labelled_v1.codebook)  # as a study's service does
    old = study_scheme(study=labelled_v1)
    assert old.key is not None
    v2 = revise_v2(labelled_v1.codebook)
    StudyItemFactory(study=labelled_v1, position=10)
    study_revise(study=labelled_v1, codebook=v2, user=lead)
    labels._FROZEN_SCHEMES[labelled_v1.pk] = old  # as another process still holds it
    held = assignment_next(study=labelled_v1, user=annotator)
    submitted = assignment_submit(
        assignment_id=held.pk, user=annotator, labels={"root-cause": "threading/lock"}
    )
    assert submitted.labels == {"root-cause": ["threading/lock"]}
    assert Annotation.objects.get(assignment=held.pk).dimension.codebook == v2


def test_a_submission_checked_against_the_old_version_is_refused_after_the_migration(
    labelled_v1, annotator, lead
):
    """As a submission that read the study before a migration committed would be."""
    codebook_freeze(codebook=labelled_v1.codebook)
    old = study_scheme(study=labelled_v1)
    first = Assignment.objects.get(item=items(labelled_v1)[3], annotator=annotator)
    study_revise(study=labelled_v1, codebook=revise_v2(labelled_v1.codebook), user=lead)
    with pytest.raises(ValidationError, match=r"the study moved to version 2\.0 of its codebook"):
        assignment_submit(
            assignment_id=first.pk,
            user=annotator,
            labels={"root-cause": "memory/bloat"},
            scheme=old,
        )
    assert current(items(labelled_v1)[3], annotator) == {
        "root-cause": ["memory/leak"],
        "impact": ["cost"],
    }
    assert first.versions.count() == 2


def test_a_study_two_revisions_behind_moves_along_both_mappings(labelled_v1, annotator, lead):
    v3 = revise_v3(revise_v2(labelled_v1.codebook))
    outcome = study_revise(study=labelled_v1, codebook=v3, user=lead)
    assert current(items(labelled_v1)[0], annotator) == {
        "root-cause": ["memory/retention"],
        "impact": ["cost"],
    }
    assert outcome.record.reason == "codebook migration from v1.0 to v3.0 by lead"


def test_a_second_migration_leaves_labels_still_to_relabel_flagged(labelled_v1, annotator, lead):
    v2 = revise_v2(labelled_v1.codebook)
    study_revise(study=labelled_v1, codebook=v2, user=lead)
    study_revise(study=labelled_v1, codebook=revise_v3(v2), user=lead)
    assignment = Assignment.objects.get(item=items(labelled_v1)[2], annotator=annotator)
    assert set(assignment.relabel) == {"root-cause"}
    assert assignment.versions.latest("number").changes == {
        "root-cause": {"from": [], "to": [], "relabel": True}
    }


def test_the_same_version_is_refused(labelled_v1, lead):
    with pytest.raises(ValidationError, match=r"on perf v1\.0 already"):
        study_revise(study=labelled_v1, codebook=labelled_v1.codebook, user=lead)


def test_a_version_that_does_not_derive_from_the_study_s_is_refused(labelled_v1, lead):
    other = labelling_codebook(key="other")
    with pytest.raises(ValidationError, match="does not derive from the study's version"):
        study_revise(study=labelled_v1, codebook=revise_v2(other), user=lead)
    v2 = revise_v2(labelled_v1.codebook)
    study_revise(study=labelled_v1, codebook=v2, user=lead)
    labelled_v1.refresh_from_db()
    with pytest.raises(ValidationError, match="does not derive"):
        study_revise(
            study=labelled_v1, codebook=type(v2).objects.get(key="perf", version="1.0"), user=lead
        )


def test_items_held_right_now_hold_the_migration_back(labelled_v1, lead, make_user):
    StudyItemFactory(study=labelled_v1, position=10)
    third = make_user(username="ann3")
    StudyMemberFactory(study=labelled_v1, user=third, role="annotator")
    held = assignment_next(study=labelled_v1, user=third)
    v2 = revise_v2(labelled_v1.codebook)
    with pytest.raises(ValidationError, match="1 item\\(s\\) of study 'perf' are held"):
        study_revise(study=labelled_v1, codebook=v2, user=lead)
    assert CodebookMigration.objects.count() == 0
    # An expired hold does not count.
    Assignment.objects.filter(pk=held.pk).update(held_at=timezone.now() - dt.timedelta(days=1))
    study_revise(study=labelled_v1, codebook=v2, user=lead)
    assert CodebookMigration.objects.count() == 1
