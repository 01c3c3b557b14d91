import pytest
from django.db import connection

from config.sql import int_array, text_array

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
