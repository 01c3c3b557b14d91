"""Agreement after a codebook migration: only labels made against the study's current
version count; carried labels count translated, flagged ones not until labelled again."""

import pytest

from labeler.agreement.ratings import annotator_names, study_agreement, study_ratings
from labeler.common.scheme import study_scheme
from labeler.labelling.services import assignment_submit
from labeler.revisions.services import study_revise
from tests.labeler.codebook_revisions import labelled_study, revise_v2

pytestmark = pytest.mark.django_db


def ratings(study):
    dimensions = study_scheme(study=study).dimensions
    names = annotator_names(study=study, real_names=True)
    read = study_ratings(study=study, dimensions=dimensions, names=names)
    return {key: found.as_dict() for key, found in read.items()}


@pytest.fixture
def migrated_to_v2(annotator, ann2, lead):
    study = labelled_study(annotator=annotator, second=ann2, lead=lead)
    study_revise(study=study, codebook=revise_v2(study.codebook), user=lead)
    study.refresh_from_db()
    return study


def test_carried_labels_count_translated_and_flagged_ones_not_at_all(migrated_to_v2):
    first, second, third, fourth = migrated_to_v2.items.order_by("position").values_list(
        "pk", flat=True
    )
    read = ratings(migrated_to_v2)
    assert read["root-cause"] == {
        first: {"ann": "memory/leak", "ann2": "memory/leak"},
        second: {"ann": "memory/overuse", "ann2": "memory/overuse"},
        # Both labelled threading, split since: no rating until labelled again (not "none").
        third: {},
        fourth: {"ann": "memory/leak"},
    }
    assert read["impact"][second] == {"ann": frozenset({"cost"}), "ann2": frozenset({"cost"})}
    # Every value read is a category of the new version: one scheme.
    paths = {c.path for d in migrated_to_v2.dimensions.all() for c in d.categories.all()}
    for by_item in read.values():
        for by_annotator in by_item.values():
            for value in by_annotator.values():
                assert set(value if isinstance(value, frozenset) else [value]) <= paths | {"(none)"}


def test_a_relabel_counts_unless_its_item_had_been_final(migrated_to_v2, annotator, ann2):
    _, _, third, fourth = migrated_to_v2.items.order_by("position")
    # The fourth item was never final: ann2's re-label is independent and counts.
    mine = fourth.assignments.get(annotator=ann2)
    assignment_submit(assignment_id=mine.pk, user=ann2, labels={"root-cause": "threading/race"})
    # The third was final before the migration: a re-label after it does not.
    theirs = third.assignments.get(annotator=annotator)
    assignment_submit(
        assignment_id=theirs.pk, user=annotator, labels={"root-cause": "threading/lock"}
    )
    read = ratings(migrated_to_v2)
    assert read["root-cause"][fourth.pk] == {"ann": "memory/leak", "ann2": "threading/race"}
    assert read["root-cause"][third.pk] == {}


def test_the_agreement_report_counts_only_the_ratings_read(migrated_to_v2):
    report = study_agreement(study=migrated_to_v2, dimension="root-cause", bootstrap=0)
    by_level = {entry["level"]: entry for entry in report["dimensions"]}
    # Items 1, 2 and 4 have a rating; 4 only one, so two items pair.
    assert by_level["path"]["items"] == 3
    assert by_level["path"]["pairable_items"] == 2
    assert by_level["path"]["ratings"] == 5
