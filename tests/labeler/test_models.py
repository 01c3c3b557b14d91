"""The schema of the labeler tables, as PostgreSQL has it."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from labeler.models import Annotation, AnnotationVersion, Assignment
from tests.labeler.factories import AssignmentFactory, StudyItemFactory, UserFactory

pytestmark = pytest.mark.django_db

# Created by Django for many-to-many tables, which the app does not define itself.
AUTOMATIC = {
    "labeler_annotation_categories",
    "labeler_finallabel_categories",
    "labeler_study_dimensions",
}


def test_no_index_repeats_the_first_columns_of_another():
    """Every index is kept up on every write; one whose columns lead another index (a unique
    constraint's, say) only costs. A primary key's index is not optional: a unique constraint
    that starts with its column (what a composite foreign key refers to) is not counted."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT table_class.relname, index_class.relname, index.indkey::text,
                   index.indpred IS NOT NULL OR index.indisprimary
            FROM pg_index index
            JOIN pg_class index_class ON index_class.oid = index.indexrelid
            JOIN pg_class table_class ON table_class.oid = index.indrelid
            WHERE table_class.relname LIKE 'labeler\\_%%'
            """
        )
        indexes = cursor.fetchall()
    assert len(indexes) > 10
    redundant = [
        (table, name, other)
        for table, name, columns, partial in indexes
        for other_table, other, other_columns, other_partial in indexes
        if table == other_table
        and name != other
        and not partial
        and not other_partial
        and table not in AUTOMATIC
        and other_columns.split()[: len(columns.split())] == columns.split()
        and len(other_columns.split()) > len(columns.split())
    ]
    assert redundant == []


def test_composite_foreign_keys_check_every_column_once():
    """An assignment's item and study, and an annotation's and a version's assignment, item
    and annotator, are checked by one composite foreign key each, not one each column."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT conrelid::regclass::text, array_length(conkey, 1)
            FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text IN
            ('labeler_assignment', 'labeler_annotation', 'labeler_annotationversion')
            """
        )
        keys = sorted(cursor.fetchall())
    assert keys == [
        ("labeler_annotation", 1),  # dimension
        ("labeler_annotation", 3),
        ("labeler_annotationversion", 1),  # imported
        ("labeler_annotationversion", 1),  # migration
        ("labeler_annotationversion", 3),
        ("labeler_assignment", 1),  # annotator
        ("labeler_assignment", 2),
    ]


def _commit_refused(write) -> str:
    """The error PostgreSQL gives at commit (the keys are deferred) for what `write` stored."""
    with pytest.raises(IntegrityError) as refused, transaction.atomic():
        write()
    return str(refused.value)


@pytest.mark.django_db(transaction=True)
def test_an_assignment_of_another_studys_item_is_refused():
    item, other = StudyItemFactory(), StudyItemFactory()
    assert item.study_id != other.study_id

    message = _commit_refused(
        lambda: AssignmentFactory(item=item, study=other.study)  # not the item's study
    )

    assert "assignment_item_in_study" in message
    assert not Assignment.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_an_answer_that_disagrees_with_its_assignment_is_refused():
    from taxonomy.models import Dimension

    assignment = AssignmentFactory()
    stranger = UserFactory()
    dimension = Dimension.objects.create(
        codebook=assignment.study.codebook, key="cause", name="Cause", position=0
    )
    now = timezone.now()

    def answer():
        Annotation.objects.create(
            assignment=assignment,
            item=assignment.item,
            annotator=stranger,  # not the assignment's annotator
            dimension=dimension,
            values=[],
            updated_at=now,
        )

    def version():
        AnnotationVersion.objects.create(
            assignment=assignment,
            item=StudyItemFactory(study=assignment.study),  # not the assignment's item
            annotator=assignment.annotator,
            number=1,
            labels={},
            changes={},
            created_at=now,
        )

    assert "annotation_of_assignment" in _commit_refused(answer)
    assert "version_of_assignment" in _commit_refused(version)
    assert not Annotation.objects.exists() and not AnnotationVersion.objects.exists()
