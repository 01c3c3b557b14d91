import datetime as dt

import pytest
from django.core.exceptions import ValidationError

from mining.models import ImportJob
from mining.services.import_jobs import import_job_cancel, import_job_create, import_job_rerun

pytestmark = pytest.mark.django_db


def test_import_job_create_checks_its_input_and_records_who_started_it(lead):
    with pytest.raises(ValidationError) as error:
        import_job_create(repository_full_name="not a repo", created_by=lead)
    assert "OWNER/NAME" in str(error.value)
    with pytest.raises(ValidationError) as error:
        import_job_create(repository_full_name="o/r", since=dt.datetime(2021, 1, 1))
    assert error.value.message_dict == {"since": ["needs a timezone"]}
    job = import_job_create(repository_full_name="o/r", created_by=lead)
    assert (job.status, job.created_by) == (ImportJob.Status.QUEUED, lead)
    with pytest.raises(ValidationError) as error:
        import_job_create(repository_full_name="o/r")
    assert "o/r already has an import in progress" in str(error.value)

    import_job_cancel(job_id=job.pk)
    rerun = import_job_rerun(job_id=job.pk)
    assert rerun.pk != job.pk and rerun.repository_id == job.repository_id
    assert rerun.created_by is None  # the command line


def test_an_import_job_refuses_a_patches_setting_it_does_not_know(settings):
    settings.MINING_FETCH_PATCHES = "none"
    with pytest.raises(ValidationError) as raised:
        import_job_create(repository_full_name="octo/repo")
    assert raised.value.message_dict == {
        "patches": ["MINING_FETCH_PATCHES=none: expected lazy, candidates, all"]
    }
    assert import_job_create(repository_full_name="octo/repo", patches="all").patches == "all"
