"""Every model change has its migration (`make test` runs this check with the suite)."""

import io

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_lacks_a_migration():
    output = io.StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=output)
    except SystemExit:
        pytest.fail(f"a model change has no migration:\n{output.getvalue()}")
    assert output.getvalue().strip() == "No changes detected"
