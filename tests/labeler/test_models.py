"""The schema of the labeler tables, as PostgreSQL has it."""

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db

# Created by Django for many-to-many tables, which the app does not define itself.
AUTOMATIC = {
    "labeler_annotation_categories",
    "labeler_finallabel_categories",
    "labeler_study_dimensions",
}


def test_no_index_repeats_the_first_columns_of_another():
    """Every index is kept up on every write; one whose columns lead another index (a unique
    constraint's, say) only costs."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT table_class.relname, index_class.relname, index.indkey::text,
                   index.indpred IS NOT NULL
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
