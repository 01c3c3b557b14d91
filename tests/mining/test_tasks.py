"""The import task: unexpected failures never leave a job looking as if it still ran."""

import datetime as dt

import pytest

from mining import importer, tasks
from mining.github_client import RateLimitedError
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


def test_without_a_worker_a_long_rate_limit_fails_the_job_saying_when_to_rerun(monkeypatch):
    job = factories.ImportJobFactory(status=ImportJob.Status.RUNNING)
    resume_at = dt.datetime(2030, 5, 6, 7, 8, tzinfo=dt.UTC)

    def limited(job_id, **kwargs):
        raise RateLimitedError(resume_at)

    monkeypatch.setattr(importer, "run_import", limited)

    result = tasks.import_repository.apply(args=(job.pk,), throw=True)

    job.refresh_from_db()
    assert result.get() == ImportJob.Status.FAILED
    assert job.status == ImportJob.Status.FAILED
    assert job.error_reason.startswith("rate limited until 2030-05-06 07:08 UTC")
    assert "re-run the import after that time" in job.error_reason
