"""The import task: unexpected failures never leave a job looking as if it still ran."""

import pytest

from mining import importer, tasks
from mining.models import ImportJob
from tests.mining import factories

pytestmark = pytest.mark.django_db


def test_an_unexpected_error_fails_the_job_with_its_reason(monkeypatch):
    job = factories.ImportJobFactory(status=ImportJob.Status.RUNNING)

    def explode(job_id, **kwargs):
        raise RuntimeError("database went away")

    monkeypatch.setattr(importer, "run_import", explode)

    with pytest.raises(RuntimeError):
        tasks.import_repository.apply(args=(job.pk,), throw=True)

    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED
    assert job.error_reason == "unexpected error: RuntimeError: database went away"
    assert job.finished_at is not None
