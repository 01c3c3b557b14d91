"""Read a labels spreadsheet (CSV) made elsewhere. Pure: no Django.

Columns: item,annotator,dimension,value[,note]. `item` is owner/name#number; `value` is a
category key path, with `;` between the values of a multi-select dimension (empty: no label).
Every bad row is collected with its line, so that the caller can add the problems it finds in
the good rows and report them all before anything is written. A file that cannot be read (not
UTF-8, a NUL, a bad header) is one error instead; broken CSV quoting ends the reading there,
reported with the bad rows before it.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

REQUIRED_COLUMNS = ("item", "annotator", "dimension", "value")
OPTIONAL_COLUMNS = ("note",)
NON_EMPTY_CELLS = ("item", "annotator", "dimension")
ITEM_PATTERN = re.compile(r"^(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)#(?P<number>[1-9][0-9]*)$")
VALUE_SEPARATOR = ";"
# The largest number an item can have: report numbers are stored as 32-bit integers (GitHub's
# issue numbers are far below it).
ITEM_NUMBER_MAX = 2**31 - 1
# Problems listed in full; the rest are counted. A mistake repeated on every row of a large
# file would otherwise bury the others.
MAX_PROBLEMS = 50


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


@dataclass(frozen=True)
class Problem:
    line: int  # 0 for the file as a whole
    text: str  # "source:line: what is wrong"


@dataclass
class LabelFile:
    """The file's good rows, and a problem for each bad one."""

    rows: list[LabelRow] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


class AnnotationFileError(Exception):
    """Problems of a labels file by line. `problems` shows at most MAX_PROBLEMS and a last line
    counting the rest; `count` counts them all."""

    def __init__(self, problems: list[str], count: int | None = None):
        self.problems = problems
        self.count = len(problems) if count is None else count
        super().__init__("\n".join(problems))

    @classmethod
    def of(cls, problems: list[Problem], source: str) -> AnnotationFileError:
        """The error listing `problems` in line order (same line: in the order found)."""
        ordered = [problem.text for problem in sorted(problems, key=lambda p: p.line)]
        if len(ordered) > MAX_PROBLEMS:
            hidden = len(ordered) - MAX_PROBLEMS
            ordered = [*ordered[:MAX_PROBLEMS], f"{source}: … and {hidden} more problems"]
        return cls(ordered, count=len(problems))


def _problem(source: str, line: int, what: str) -> Problem:
    return Problem(line, f"{source}:{line}: {what}")


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise AnnotationFileError(
            [f"{source}:{line}: not UTF-8 (byte 0x{data[error.start]:02x}); save the file as UTF-8"]
        ) from None


def read_label_file(data: bytes, source: str = "file") -> LabelFile:
    """The file's good rows and bad lines; AnnotationFileError when it cannot be read at all."""
    text = _decode(data, source)
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise AnnotationFileError([f"{source}:{line}: contains a NUL character"])
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
    except csv.Error as error:
        raise AnnotationFileError([f"{source}:1: {_not_csv(error)}"]) from None
    columns = _columns(header, source)
    found = LabelFile()
    _read_rows(reader, columns, source, found)
    if not (found.rows or found.problems):
        raise AnnotationFileError(
            [
                f"{source}: no labels: the file has its header and no row with a cell filled "
                "in (rows of empty cells are skipped)"
            ]
        )
    return found


def row_count(data: bytes) -> int | None:
    """How many rows the file has after its header, blank ones left out, as the import counts
    them (bad rows too); None when it cannot be read (the import then says why)."""
    try:
        reader = csv.reader(io.StringIO(data.decode("utf-8-sig"), newline=""))
        next(reader, None)
        return sum(1 for record in reader if any(cell.strip() for cell in record))
    except (UnicodeDecodeError, csv.Error):
        return None


def _not_csv(error: csv.Error) -> str:
    return f"not valid CSV from this line on (a quote left open, or a cell too large): {error}"


def _columns(header: list[str] | None, source: str) -> list[str]:
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
    return columns


def _read_rows(reader, columns: list[str], source: str, found: LabelFile) -> None:
    first_seen: dict[tuple[str, str, str], int] = {}
    # Cells by position: a dict per row cost a third of the reading at 100k rows.
    item_at, annotator_at, dimension_at, value_at = (
        columns.index(name) for name in REQUIRED_COLUMNS
    )
    note_at = columns.index("note") if "note" in columns else None
    width = len(columns)
    line = reader.line_num + 1
    while True:
        start = line
        try:
            record = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            # Past broken quoting the reader cannot tell where rows start: stop at the line
            # where the record began, with the problems found so far.
            found.problems.append(_problem(source, start, _not_csv(error)))
            raise AnnotationFileError.of(found.problems, source) from None
        line = reader.line_num + 1
        cells = [cell.strip() for cell in record]
        if not any(cells):
            continue
        if len(cells) != width:
            found.problems.append(
                _problem(source, start, f"{len(cells)} cells, the header has {width}")
            )
            continue
        item, annotator, dimension = cells[item_at], cells[annotator_at], cells[dimension_at]
        if not (item and annotator and dimension):
            empty = next(
                name
                for name, cell in zip(NON_EMPTY_CELLS, (item, annotator, dimension), strict=True)
                if not cell
            )
            found.problems.append(_problem(source, start, f"{empty} is empty"))
            continue
        match = ITEM_PATTERN.match(item)
        if match is None:
            found.problems.append(
                _problem(source, start, f"item {item!r} is not owner/name#number")
            )
            continue
        number = match["number"]
        if len(number) > len(str(ITEM_NUMBER_MAX)) or int(number) > ITEM_NUMBER_MAX:
            shown = item if len(item) <= 60 else f"{item[:50]}… ({len(number)} digits)"
            found.problems.append(
                _problem(
                    source,
                    start,
                    f"item {shown!r}: the number is past {ITEM_NUMBER_MAX:,}, the largest an "
                    "item can have",
                )
            )
            continue
        # GitHub names are case-insensitive: PyTorch/PyTorch#1 is pytorch/pytorch#1.
        key = (item.lower(), annotator, dimension)
        if key in first_seen:
            again = (
                f"{annotator} labels {dimension} of {item} again (first on line {first_seen[key]})"
            )
            found.problems.append(_problem(source, start, again))
            continue
        first_seen[key] = start
        found.rows.append(
            LabelRow(
                line=start,
                repository=match["repo"],
                number=int(number),
                annotator=annotator,
                dimension=dimension,
                values=_values(cells[value_at]),
                note="" if note_at is None else cells[note_at],
            )
        )


def _values(cell: str) -> tuple[str, ...]:
    """A value cell's values: none when empty, several separated by VALUE_SEPARATOR."""
    if VALUE_SEPARATOR in cell:
        return tuple(v.strip() for v in cell.split(VALUE_SEPARATOR) if v.strip())
    return (cell,) if cell else ()


def example_file(
    *, item: str, annotators: tuple[str, ...], dimensions: list[tuple[str, bool, list[str]]]
) -> str:
    """A labels file a study takes as it is, to show the format: each annotator labels
    `item` on every dimension. `dimensions` are (key, several allowed, valid key paths); each
    annotator takes the next path, and two joined with ';' where several are allowed."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS])
    for turn, annotator in enumerate(annotators):
        for position, (key, several, paths) in enumerate(dimensions):
            if not paths:
                continue
            values = [paths[turn % len(paths)]]
            if several and len(paths) > 1:
                values.append(paths[(turn + 1) % len(paths)])
            note = "why this label (optional)" if turn == 0 and position == 0 else ""
            writer.writerow([item, annotator, key, VALUE_SEPARATOR.join(values), note])
    return out.getvalue()
