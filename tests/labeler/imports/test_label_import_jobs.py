"""Background label imports: a job holds its file, runs once, all rows or none."""

import hashlib

import pytest
from celery.exceptions import SoftTimeLimitExceeded

from labeler.imports import tasks
from labeler.imports.label_import_jobs import label_import_job_create, label_import_job_run
from labeler.models import Annotation, AnnotationVersion, Assignment, LabelImport, LabelImportJob
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory
from tests.mining.factories import BugReportFactory, RepositoryFactory

pytestmark = pytest.mark.django_db

HEADER = "item,annotator,dimension,value\n"


@pytest.fixture
def three_item_sheet_study():
    study = LabellingStudyFactory(slug="sheet", overlap=2)
    repository = RepositoryFactory(owner="pytorch", name="pytorch")
    for number in (1, 2, 3):
        StudyItemFactory(study=study, report=BugReportFactory(repository=repository, number=number))
    return study


def good_file() -> bytes:
    return (
        HEADER
        + "".join(
            f"pytorch/pytorch#{number},{annotator},root-cause,memory/leak\n"
            for number in (1, 2, 3)
            for annotator in ("ann", "ben")
        )
    ).encode()


def job_of(study, data: bytes, lead=None) -> LabelImportJob:
    return label_import_job_create(
        study=study, data=data, file_name="big.csv", rows=data.count(b"\n") - 1, imported_by=lead
    )


def test_a_job_imports_every_row_records_its_progress_and_the_file(three_item_sheet_study, lead):
    data = good_file()
    job = job_of(three_item_sheet_study, data, lead)
    assert (job.state, job.rows, job.sha256) == ("queued", 6, hashlib.sha256(data).hexdigest())

    assert label_import_job_run(job_id=job.pk) == "done"

    job.refresh_from_db()
    assert (job.state, job.rows_checked, job.rows_written, job.submissions) == ("done", 6, 6, 6)
    assert job.users_created == 2 and job.started_at <= job.finished_at
    assert bytes(job.data) == b""
    provenance = LabelImport.objects.get()
    assert job.label_import == provenance
    assert (provenance.imported_by, provenance.file_name, provenance.sha256) == (
        lead,
        "big.csv",
        job.sha256,
    )
    assert set(AnnotationVersion.objects.values_list("imported", flat=True)) == {provenance.pk}
    assert Assignment.objects.filter(status="submitted").count() == 6


def test_a_job_run_twice_writes_its_labels_once(three_item_sheet_study):
    job = job_of(three_item_sheet_study, good_file())
    label_import_job_run(job_id=job.pk)

    assert label_import_job_run(job_id=job.pk) == "done"
    assert Assignment.objects.count() == 6 and LabelImport.objects.count() == 1


def test_a_bad_row_fails_the_job_naming_it_and_writes_no_label(three_item_sheet_study):
    data = good_file() + b"pytorch/pytorch#3,cy,root-cause,memory/lek\n"
    job = job_of(three_item_sheet_study, data)

    assert label_import_job_run(job_id=job.pk) == "failed"

    job.refresh_from_db()
    assert job.state == "failed" and job.problem_count == 2
    assert "big.csv:8: pytorch/pytorch#3, cy, root-cause: no category 'memory/lek'" in job.error
    assert "pytorch/pytorch#3 would have 3 annotators" in job.error
    assert bytes(job.data) == b"" and job.finished_at is not None
    assert not (Assignment.objects.exists() or Annotation.objects.exists())
    assert not LabelImport.objects.exists()


def test_a_missing_report_is_named_with_the_box_to_tick(three_item_sheet_study):
    job = job_of(
        three_item_sheet_study, (HEADER + "pytorch/pytorch#9,ann,root-cause,memory/leak\n").encode()
    )

    label_import_job_run(job_id=job.pk)

    job.refresh_from_db()
    assert "unknown item pytorch/pytorch#9" in job.error
    assert "tick “Create placeholders for reports not imported yet”" in job.error


def test_past_its_time_limit_the_task_fails_the_job_and_nothing_is_written(
    three_item_sheet_study, monkeypatch
):
    job = job_of(three_item_sheet_study, good_file())

    def slow(**options):
        options["progress"](3)
        raise SoftTimeLimitExceeded

    monkeypatch.setattr("labeler.imports.label_import_jobs.label_import_store", slow)
    assert tasks.label_import_run.apply(args=(job.pk,)).get() == "failed"

    job.refresh_from_db()
    assert job.state == "failed" and job.rows_checked == 3
    assert f"stopped after {tasks.TIME_LIMIT} s (LABEL_IMPORT_TIME_LIMIT_SECONDS)" in job.error
    assert not Assignment.objects.exists()


def test_a_finished_or_gone_job_is_left_as_it_is(three_item_sheet_study):
    job = job_of(three_item_sheet_study, good_file())
    LabelImportJob.objects.filter(pk=job.pk).update(state="failed", error="earlier")

    assert label_import_job_run(job_id=job.pk) == "failed"
    assert label_import_job_run(job_id=job.pk + 1000) == "gone"
    job.refresh_from_db()
    assert job.error == "earlier" and not Assignment.objects.exists()
