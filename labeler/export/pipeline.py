"""The export of a study, the same for the command, the API and the page: dataset ->
records -> writer, and the datasheet that goes with it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone

from labeler.common import writers
from labeler.common.names import annotator_names
from labeler.export.csv_rows import study_csv_lines
from labeler.export.dataset import (
    CHUNK,
    ExportOptions,
    study_code_categories,
    study_dimensions,
    study_item_rows,
)
from labeler.export.datasheet import study_datasheet
from labeler.export.markdown import datasheet_markdown
from labeler.export.records import Columns, record
from labeler.models import Study

FORMATS = ("csv", "json", "jsonl")
CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "json": "application/json",
    "jsonl": "application/x-ndjson",
}


@dataclass
class Export:
    """One export of a study: its datasheet (built at once) and its text (built as read)."""

    study: Study
    fmt: str
    options: ExportOptions
    chunk: int = CHUNK

    def __post_init__(self):
        self.names = annotator_names(study=self.study, real_names=self.options.real_names)
        self.dimensions = study_dimensions(study=self.study)
        self.exported_at: dt.datetime = timezone.now()
        self._datasheet: dict | None = None

    @property
    def datasheet(self) -> dict:
        """Built once per export: the JSON and the side files say the same."""
        if self._datasheet is None:
            self._datasheet = self._build_datasheet()
        return self._datasheet

    def _build_datasheet(self) -> dict:
        return study_datasheet(
            study=self.study,
            options=self.options,
            names=self.names,
            fmt=self.fmt,
            now=self.exported_at,
        )

    def datasheet_markdown(self) -> str:
        return datasheet_markdown(self.datasheet)

    def records(self) -> Iterator[list[dict]]:
        with_annotators = self.options.include_annotators
        for rows in study_item_rows(
            study=self.study, options=self.options, names=self.names, chunk=self.chunk
        ):
            yield [record(row, self.dimensions, with_annotators) for row in rows]

    def pieces(self, *, datasheet: bool = False) -> Iterator[str]:
        """The export's text, piece by piece, every chunk read from one snapshot of the
        database (one repeatable-read transaction) so that labels decided meanwhile do not
        leave the export half old and half new. With `datasheet`, the datasheet (its counts
        and agreement) is built from the same snapshot: a side file that says what the file
        holds. It is built meanwhile, in a second connection that imports the snapshot
        (`pg_export_snapshot`), so that it costs no time of its own; inside a transaction
        already open, after the last piece. The JSON holds its own."""
        postgresql = connection.vendor == "postgresql"
        snapshot = postgresql and not connection.in_atomic_block
        building: Future | None = None
        with transaction.atomic(), ThreadPoolExecutor(max_workers=1) as beside:
            with connection.cursor() as cursor:
                if snapshot:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                if postgresql:
                    # The planner guesses 100 elements for every JSON array the CSV's query
                    # joins, and would spend a second compiling each chunk's 50 ms query.
                    cursor.execute("SET LOCAL jit = off")
                if snapshot and datasheet and self._datasheet is None:
                    cursor.execute("SELECT pg_export_snapshot()")
                    building = beside.submit(self._datasheet_in, cursor.fetchone()[0])
            yield from self._pieces()
            if building is not None:
                self._datasheet = building.result()
            elif datasheet:
                self.datasheet  # noqa: B018 - built now, kept for the side files

    def _datasheet_in(self, snapshot: str) -> dict:
        """The datasheet, built in this thread's own connection from the exported `snapshot`
        (which its exporting transaction keeps open until this returns)."""
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                cursor.execute("SET TRANSACTION SNAPSHOT %s", [snapshot])
                return self._build_datasheet()
        finally:
            connection.close()

    def _pieces(self) -> Iterator[str]:
        if self.fmt == "json":
            return writers.json_pieces(self.records(), self.datasheet)
        if self.fmt == "jsonl":
            return writers.jsonl_pieces(self.records())
        codes = self.study.kind == Study.Kind.OPEN
        columns = Columns(
            dimensions=tuple(d.key for d in self.dimensions),
            annotators=tuple(self.names.values()) if self.options.include_annotators else None,
            codes=codes,
        )
        lines = study_csv_lines(
            study=self.study,
            options=self.options,
            names=self.names,
            dimensions=self.dimensions,
            categories=study_code_categories(study=self.study) if codes else None,
            chunk=self.chunk,
        )
        return writers.csv_pieces(lines, columns.header())

    def filename(self) -> str:
        return f"{self.study.slug}.{self.fmt}"
