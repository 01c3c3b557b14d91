"""Streaming: the first piece comes before any item is read, and memory holds one chunk
whatever the study's size."""

import tracemalloc

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from labeler.export.dataset import ExportOptions
from labeler.export.pipeline import Export
from labeler.models import StudyItem
from mining.models import BugReport
from tests.labeler.factories import LabellingStudyFactory
from tests.mining.factories import RepositoryFactory

pytestmark = pytest.mark.django_db


def large_study(items: int):
    study = LabellingStudyFactory(slug=f"large-{items}")
    repository = RepositoryFactory()
    reports = BugReport.objects.bulk_create(
        BugReport(
            repository=repository,
            number=number,
            title=f"Report {number} " + "x" * 200,
            html_url=f"https://github.com/{repository.full_name}/issues/{number}",
            labels=["type:bug", "module: performance"],
        )
        for number in range(1, items + 1)
    )
    StudyItem.objects.bulk_create(
        StudyItem(study=study, report=report, position=n) for n, report in enumerate(reports)
    )
    return study


def peak_while_streaming(study, fmt: str) -> tuple[int, int]:
    """Peak traced memory while the export is read and dropped piece by piece, and its size."""
    export = Export(study=study, fmt=fmt, options=ExportOptions(), chunk=250)
    size = 0
    tracemalloc.start()
    try:
        for piece in export.pieces():
            size += len(piece)
        return tracemalloc.get_traced_memory()[1], size
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "json"])
def test_memory_stays_flat_whatever_the_size(fmt):
    small_peak, small_size = peak_while_streaming(large_study(500), fmt)
    large_peak, large_size = peak_while_streaming(large_study(4000), fmt)
    assert large_size > 7 * small_size
    # Eight times the items, and well under twice the memory: only a chunk is held.
    assert large_peak < 1.5 * small_peak, (small_peak, large_peak)


def test_the_csv_download_starts_before_any_item_is_read():
    export = Export(study=large_study(10), fmt="csv", options=ExportOptions())
    pieces = export.pieces()
    with CaptureQueriesContext(connection) as queries:
        first = next(pieces)
    assert first.startswith("repository,number,url,")
    assert not any("labeler_studyitem" in query["sql"] for query in queries)
    assert sum(piece.count("\n") for piece in pieces) == 10
