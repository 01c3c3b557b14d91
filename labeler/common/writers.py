"""Writers: records in, text pieces out, over the standard library's csv and json. Pure.

Each writer takes the datasheet and an iterable of record chunks and yields text: one piece
before the first chunk is read (so a download starts at once) and one per chunk, so memory
holds one chunk whatever the study's size.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator

# Every CSV download of text people wrote keeps it as written (a code "=SUM(A1)" is that code)
# and says this beside it: the export's datasheet, the carry-over page.
SPREADSHEET_FORMULAS = (
    "a cell that begins with =, +, - or @ is a formula to a spreadsheet, so open the CSV with "
    "its columns as text (pandas and R read it as it is)"
)


def csv_pieces(chunks: Iterable[list[str]], header: list[str]) -> Iterator[str]:
    """The header as csv.writer writes it, then each chunk of lines (written alike, each
    ending with CRLF)."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerow(header)
    yield buffer.getvalue()
    for lines in chunks:
        yield "".join(lines)


def jsonl_pieces(chunks: Iterable[list[dict]]) -> Iterator[str]:
    for chunk in chunks:
        yield "".join(json.dumps(found, ensure_ascii=False) + "\n" for found in chunk)


def json_pieces(chunks: Iterable[list[dict]], datasheet: dict) -> Iterator[str]:
    """One JSON object, {"datasheet": …, "records": […]}, written piece by piece."""
    yield '{"datasheet": ' + json.dumps(datasheet, ensure_ascii=False) + ', "records": ['
    first = True
    for chunk in chunks:
        if not chunk:
            continue
        text = ", ".join(json.dumps(found, ensure_ascii=False) for found in chunk)
        yield text if first else ", " + text
        first = False
    yield "]}\n"
