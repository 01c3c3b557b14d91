"""The study a label sheet is imported into."""

import pytest

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
