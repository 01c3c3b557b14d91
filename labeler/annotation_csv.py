"""Read a labels spreadsheet (CSV) made elsewhere. Pure: no Django.

Columns: item,annotator,dimension,value[,note]. `item` is owner/name#number; `value` is a
category key path, with `;` between the values of a multi-select dimension. Every problem is
collected with its line number before anything is written.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

REQUIRED_COLUMNS = ("item", "annotator", "dimension", "value")
OPTIONAL_COLUMNS = ("note",)
ITEM_PATTERN = re.compile(r"^(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)#(?P<number>[1-9][0-9]*)$")
VALUE_SEPARATOR = ";"


@dataclass(frozen=True)
class LabelRow:
    line: int
    repository: str
    number: int
    annotator: str
    dimension: str
    values: tuple[str, ...]
    note: str = ""

    @property
    def item(self) -> str:
        return f"{self.repository}#{self.number}"


class AnnotationFileError(Exception):
    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise AnnotationFileError(
            [f"{source}:{line}: not UTF-8 (byte 0x{data[error.start]:02x}); save the file as UTF-8"]
        ) from None


def read_label_rows(data: bytes, source: str = "file") -> list[LabelRow]:
    """The file's rows, or an AnnotationFileError listing every bad line."""
    text = _decode(data, source)
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise AnnotationFileError([f"{source}:{line}: contains a NUL character"])
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        return _rows(reader, source)
    except csv.Error as error:
        raise AnnotationFileError([f"{source}:{reader.line_num}: not valid CSV: {error}"]) from None


def _rows(reader, source: str) -> list[LabelRow]:
    header = next(reader, None)
    if header is None:
        raise AnnotationFileError([f"{source}: the file is empty"])
    columns = [name.strip().lower() for name in header]
    repeated = sorted({name for name in columns if columns.count(name) > 1})
    if repeated:
        raise AnnotationFileError([f"{source}:1: column {repeated[0]!r} appears twice"])
    missing = [name for name in REQUIRED_COLUMNS if name not in columns]
    unknown = [name for name in columns if name not in REQUIRED_COLUMNS + OPTIONAL_COLUMNS]
    if missing or unknown:
        wanted = ",".join(REQUIRED_COLUMNS) + "[,note]"
        what = f"missing column {missing[0]!r}" if missing else f"unknown column {unknown[0]!r}"
        raise AnnotationFileError([f"{source}:1: {what}; the header must be {wanted}"])

    rows: list[LabelRow] = []
    problems: list[str] = []
    first_seen: dict[tuple[str, str, str], int] = {}
    line = reader.line_num + 1
    for record in reader:
        start, line = line, reader.line_num + 1
        if not any(cell.strip() for cell in record):
            continue
        if len(record) != len(columns):
            problems.append(f"{source}:{start}: {len(record)} cells, the header has {len(columns)}")
            continue
        cells = {name: cell.strip() for name, cell in zip(columns, record, strict=True)}
        empty = [name for name in REQUIRED_COLUMNS if not cells[name]]
        if empty:
            problems.append(f"{source}:{start}: {empty[0]} is empty")
            continue
        match = ITEM_PATTERN.match(cells["item"])
        if match is None:
            problems.append(f"{source}:{start}: item {cells['item']!r} is not owner/name#number")
            continue
        # GitHub names are case-insensitive: PyTorch/PyTorch#1 is pytorch/pytorch#1.
        key = (cells["item"].lower(), cells["annotator"], cells["dimension"])
        if key in first_seen:
            problems.append(
                f"{source}:{start}: {cells['annotator']} labels {cells['dimension']} of "
                f"{cells['item']} again (first on line {first_seen[key]})"
            )
            continue
        first_seen[key] = start
        values = tuple(v.strip() for v in cells["value"].split(VALUE_SEPARATOR) if v.strip())
        rows.append(
            LabelRow(
                line=start,
                repository=match["repo"],
                number=int(match["number"]),
                annotator=cells["annotator"],
                dimension=cells["dimension"],
                values=values,
                note=cells.get("note", ""),
            )
        )
    if problems:
        raise AnnotationFileError(problems)
    return rows
