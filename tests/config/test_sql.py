import pytest
from django.db import ProgrammingError, connection
from django.test.utils import CaptureQueriesContext

from config.sql import copy_csv_rows, int_array, text_array

pytestmark = pytest.mark.django_db


def test_arrays_reach_postgresql_element_for_element():
    texts = ["plain", "", "NULL", 'a "quote"', "back\\slash", "comma, {brace}", "new\nline", "ü"]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT %s::bigint[], %s::text[]", [int_array([3, -1, 2**40]), text_array(texts)]
        )
        assert cursor.fetchone() == ([3, -1, 2**40], texts)


def test_an_int_array_takes_only_numbers():
    with pytest.raises(ValueError, match="invalid literal"):
        int_array(["1); DROP"])
    assert int_array([]) == "{}"


def test_copy_gives_one_whole_row_per_element_quoted_as_csv():
    rows = copy_csv_rows(
        "SELECT n, %s::text || n AS text, NULLIF('', '') AS nothing, '' AS empty"
        " FROM generate_series(1, 3) AS n",
        ['two\nlines, a "quote" '],
    )
    assert rows == [f'{n},"two\nlines, a ""quote"" {n}",,""\n' for n in (1, 2, 3)]


def test_copy_is_logged_and_fails_as_django_queries_do():
    with CaptureQueriesContext(connection) as queries:
        copy_csv_rows("SELECT 1")
    assert [query["sql"] for query in queries] == ["COPY (SELECT 1) TO STDOUT WITH (FORMAT csv)"]
    with pytest.raises(ProgrammingError, match="no_such_table"):
        copy_csv_rows("SELECT * FROM no_such_table")
