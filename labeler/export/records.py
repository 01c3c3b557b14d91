"""One export record per study item, and its CSV cells. Pure: no Django.

An item comes in as an `ItemRow` of plain values; `record` makes the record that JSON and JSON
Lines write as it is. `Columns` names the CSV columns: one per dimension, several values
joined with `;` (the database formats the CSV's cells, see `csv_rows`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

MULTI_SEPARATOR = ";"
NAME_SEPARATOR = " > "


@dataclass(frozen=True)
class DimensionInfo:
    """A dimension as the export names it: its key, and each category's name chain by path."""

    id: int
    key: str
    names: dict[str, str]


@dataclass
class ItemRow:
    """Everything the export says about one item, as read from the database."""

    item_id: int
    report: dict
    fixes: list[dict] = field(default_factory=list)
    finals: dict[int, dict] = field(default_factory=dict)
    annotators: dict[str, dict] = field(default_factory=dict)
    final: bool = False


REPORT_FIELDS = (
    "repository",
    "number",
    "url",
    "title",
    "state",
    "state_reason",
    "github_labels",
    "created_at",
    "closed_at",
    "time_to_fix_hours",
    "fix_size",
    "time_to_first_comment_hours",
    "comments",
    "commenters",
    "participants",
)


def _time(value: dt.datetime | None) -> str | None:
    return None if value is None else value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def _label(dimension: DimensionInfo, found: dict | None) -> dict:
    if found is None:
        return {"values": [], "names": [], "method": None, "reason": "", "rationale": ""}
    return {
        "values": list(found["values"]),
        "names": [dimension.names.get(path, path) for path in found["values"]],
        "method": found["method"],
        "reason": found["reason"],
        "rationale": found["rationale"],
    }


def _codes(given: dict, dimension: DimensionInfo) -> list[dict]:
    """An annotator's codes on one dimension as written, each with the code board's category
    (its key path) or None where the board has not sorted it."""
    categories = given["categories"]
    return [
        {"code": code, "category": categories.get((dimension.id, code))}
        for code in given["codes"].get(dimension.key, ())
    ]


def record(row: ItemRow, dimensions: list[DimensionInfo], with_annotators: bool) -> dict:
    """The export record of one item: the report, its measures, fixes and candidate flags,
    whether it is final, and per dimension its final label and how it was reached; with
    `with_annotators`, each annotator's labels, note, unsure flag and seconds, and in an
    open-coding study their codes per dimension (`codes`: [{code, category}]), the note being
    their memo."""
    report = row.report
    found = {
        "repository": report["repository"],
        "number": report["number"],
        "url": report["url"],
        "title": report["title"],
        "state": report["state"],
        "state_reason": report["state_reason"],
        "github_labels": list(report["labels"]),
        "created_at": _time(report["created_at"]),
        "closed_at": _time(report["closed_at"]),
        "time_to_fix_hours": report["fix_hours"],
        "fix_size": report["fix_size"],
        "time_to_first_comment_hours": report["first_comment_hours"],
        "comments": report["comment_count"],
        "commenters": report["commenter_count"],
        "participants": report["participant_count"],
        "fixes": [dict(fix) for fix in row.fixes],
        "candidates": {
            "performance": report["is_performance_candidate"],
            "accuracy": report["is_accuracy_candidate"],
            "non_bug": report["is_non_bug"],
            "rules": dict(report["candidate_rules"]),
        },
        "final": row.final,
        "labels": {d.key: _label(d, row.finals.get(d.id)) for d in dimensions},
    }
    if with_annotators:
        found["annotators"] = {}
        for name, given in row.annotators.items():
            answer = {"labels": {d.key: list(given["labels"].get(d.id, [])) for d in dimensions}}
            if "codes" in given:
                answer["codes"] = {d.key: _codes(given, d) for d in dimensions}
            answer |= {
                "note": given["note"],
                "unsure": given["unsure"],
                "seconds": given["seconds"],
            }
            found["annotators"][name] = answer
    return found


@dataclass(frozen=True)
class Columns:
    """The CSV columns of a study's export: the report's, then five per dimension (key paths,
    names, how reached, and an adjudication's reason and rationale), then with annotators, per
    annotator one per dimension, in an open-coding study (`codes`) two more per dimension
    (`A1.root-cause.codes`: the codes as written; `A1.root-cause.categories`: each code's
    category on the code board, in the same order, empty where it has none), and note, unsure
    and seconds. The cells of a record, by column, are those of `record` (values joined)."""

    dimensions: tuple[str, ...]
    annotators: tuple[str, ...] | None
    codes: bool = False

    def header(self) -> list[str]:
        names = [
            *REPORT_FIELDS,
            "fix_commits",
            "fix_pull_requests",
            "fix_evidence",
            "fix_reverted",
            "performance_candidate",
            "accuracy_candidate",
            "non_bug",
            "candidate_rules",
            "final",
        ]
        for key in self.dimensions:
            names += [key, f"{key}.names", f"{key}.method", f"{key}.reason", f"{key}.rationale"]
        for annotator in self.annotators or ():
            names += [f"{annotator}.{key}" for key in self.dimensions]
            if self.codes:
                names += [f"{annotator}.{key}.codes" for key in self.dimensions]
                names += [f"{annotator}.{key}.categories" for key in self.dimensions]
            names += [f"{annotator}.note", f"{annotator}.unsure", f"{annotator}.seconds"]
        return names
