import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from config.commands import READING_COMMAND_CHECKS
from labeler.analysis.comparison import MEASURE_LABELS, comparison_json, reports_compare
from labeler.analysis.groups import groups_prioritised, report_groups

QUERY_HELP = (
    "the group's filters in the query string syntax of /api/reports/, e.g. "
    "'repository=pytorch/pytorch&candidate=performance&has_fix=true'; a study's final labels "
    "with 'study=SLUG&final=DIMENSION:PATH' (or final_not=DIMENSION:PATH); '' for every "
    "imported report"
)


def _number(value, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, int) or float(value).is_integer():
        return str(int(value))
    return f"{value:.{digits}f}"


def _p_value(value) -> str:
    if value is None:
        return "-"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


class Command(BaseCommand):
    requires_system_checks = READING_COMMAND_CHECKS
    help = (
        "Compare two groups of imported reports on time to fix, fix size, time to first "
        "comment, comments, commenters and participants: each group's n, median, mean and "
        "quartiles, the two-sided Mann-Whitney U test and Cliff's delta."
    )

    def add_arguments(self, parser):
        parser.add_argument("--a", required=True, metavar="QUERY", help=f"group a: {QUERY_HELP}")
        parser.add_argument("--b", required=True, metavar="QUERY", help=f"group b: {QUERY_HELP}")
        parser.add_argument("--json", action="store_true", help="print the comparison as JSON")

    def handle(self, *args, **options):
        try:
            a, b = report_groups(queries={"a": options["a"], "b": options["b"]})
        except ValidationError as error:
            raise CommandError(
                "; ".join(
                    f"{name}: {message}"
                    for name, messages in error.message_dict.items()
                    for message in messages
                )
            ) from error
        comparison = reports_compare(a=a, b=b)
        prioritised = groups_prioritised(queries=[options["a"], options["b"]])
        if options["json"]:
            answer = {**comparison_json(comparison), "prioritised": prioritised}
            self.stdout.write(json.dumps(answer, indent=2))
            return
        self.stdout.write(self._table(comparison))
        if prioritised["note"]:
            self.stdout.write(f"Note: {prioritised['note']}")

    def _table(self, comparison: dict) -> str:
        lines = [
            f"{name}: {comparison[name]['query'] or '(every imported report)'}"
            f" -> {comparison[name]['n']} reports"
            for name in ("a", "b")
        ]
        header = ("measure", "n a", "median a", "n b", "median b", "U", "p", "delta", "magnitude")
        rows = [header]
        for row in comparison["measures"]:
            rows.append(
                (
                    MEASURE_LABELS[row["measure"]],
                    _number(row["a"]["n"]),
                    _number(row["a"]["median"]),
                    _number(row["b"]["n"]),
                    _number(row["b"]["median"]),
                    _number(row["mann_whitney_u"], 1),
                    _p_value(row["p_value"]),
                    _number(row["cliffs_delta"], 3),
                    row["magnitude"] or "-",
                )
            )
        widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
        lines.append("")
        lines += [
            "  ".join(
                cell.ljust(width) if column == 0 else cell.rjust(width)
                for column, (cell, width) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
            for row in rows
        ]
        notes = [note for row in comparison["measures"] for note in row["notes"]]
        lines += ["", *notes] if notes else []
        return "\n".join(lines)
