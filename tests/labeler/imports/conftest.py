"""The study with every kind of item an export meets (tests.labeler.exported_study), and the
study a label sheet is imported into (`sheet_study`)."""

import pytest

from tests.labeler.exported_study import labelled_study  # noqa: F401 (fixture)
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory
from tests.mining.factories import BugReportFactory, RepositoryFactory


@pytest.fixture
def sheet_study():
    """Study "sheet" (two annotations an item): pytorch/pytorch#1 is its one item; #2 is a
    report outside it."""
    study = LabellingStudyFactory(slug="sheet", overlap=2)
    repository = RepositoryFactory(owner="pytorch", name="pytorch")
    StudyItemFactory(study=study, report=BugReportFactory(repository=repository, number=1))
    BugReportFactory(repository=repository, number=2)
    return study
