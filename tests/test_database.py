"""The suite runs on PostgreSQL: locking and constraints behave as in production."""

import pytest
from django.db import connection


@pytest.mark.django_db
def test_tests_run_on_postgresql():
    assert connection.vendor == "postgresql"
