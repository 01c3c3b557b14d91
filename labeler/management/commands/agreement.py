import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.serializers.json import DjangoJSONEncoder

from config.commands import READING_COMMAND_CHECKS
from labeler.agreement.ratings import (
    BOOTSTRAP,
    BY,
    HALF_WIDTH,
    WINDOW_MIN,
    AgreementNotApplicable,
    study_agreement,
)
from labeler.common.scheme import dimension_get, study_scheme
from labeler.models import Study

FIGURES = [
    ("percent agreement", "percent_agreement"),
    ("Cohen's kappa, mean of pairs", "mean_cohen_kappa"),
    ("Fleiss' kappa", "fleiss_kappa"),
    ("Krippendorff's alpha", "krippendorff_alpha"),
    ("Gwet's AC1", "gwet_ac1"),
]


def _number(value) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _intervals(intervals: dict) -> str:
    """A figure's intervals, each named by its method."""
    shown = []
    for method, found in intervals.items():
        if found and found.get("ci95"):
            low, high = found["ci95"]
            flag = " (read with care)" if found.get("degenerate") else ""
            shown.append(f"{method} [{_number(low)}, {_number(high)}]{flag}")
    return "  " + "; ".join(shown) if shown else ""


def _table(entry: dict) -> list[str]:
    """One dimension at one level as aligned lines."""
    lines = [
        f"{entry['dimension']} ({entry['level']}): {entry['items']} items, "
        f"{entry['pairable_items']} with two or more ratings, {entry['annotators']} annotators, "
        f"{entry['ratings']} ratings"
    ]
    width = max(len(name) for name, _ in FIGURES)
    for name, key in FIGURES:
        lines.append(
            f"  {name:<{width}}  {_number(entry[key])}{_intervals(entry['intervals'][key])}"
        )
    credit = entry.get("hierarchy_alpha")
    if credit:
        lines.append(
            f"  {'hierarchy alpha':<{width}}  {_number(credit['estimate'])}"
            f"{_intervals(credit['intervals'])}  (same top category:"
            f" {credit['distances']['same_top_category']})"
        )
    if entry.get("interpretation"):
        lines.append(f"  {'reading':<{width}}  {entry['interpretation']}")
    plan = entry.get("double_coding")
    if plan and plan["more_items"] is not None:
        lines.append(
            f"  double-coding: alpha +-{_number(plan['half_width'])} on {plan['items']} items;"
            f" {plan['more_items']} more for +-{plan['half_width_wanted']}"
        )
    for pair in entry["cohen_kappa_pairs"]:
        first, second = pair["annotators"]
        lines.append(
            f"  kappa {first} / {second}: {_number(pair['kappa'])}{_intervals(pair['intervals'])} "
            f"on {pair['items']} items"
        )
    for row in entry["per_category"]:
        kappa = _number(row["kappa"])
        given = ", ".join(f"{reason} {n}" for reason, n in row["reasons"].items() if n)
        reasons = f"; adjudicated: {given}" if given else ""
        lines.append(
            f"  {row['category']}: {row['count']} ratings, kappa {kappa}"
            f"{_intervals(row['intervals']['kappa'])}{reasons}"
        )
    lines.extend(f"  note: {note}" for note in entry["notes"])
    return lines


def _windows(entry: dict) -> list[str]:
    lines = [f"{entry['dimension']} ({entry['level']}), by window:"]
    lines.append(f"  {'window':>6}  {'items':>13}  {'agreement':>9}  {'alpha':>6}  {'AC1':>6}")
    for window in entry["windows"]:
        items = f"{window['first']}-{window['last']}"
        lines.append(
            f"  {window['window']:>6}  {items:>13}  {_number(window['percent_agreement']):>9}  "
            f"{_number(window['krippendorff_alpha']):>6}  {_number(window['gwet_ac1']):>6}"
        )
    return lines


def readable(result: dict) -> str:
    """The agreement JSON as text for a terminal."""
    lines = [f"study {result['study']}"]
    if result.get("by") == "batch":
        for batch in result["batches"]:
            lines.append(f"batch {batch['batch']}")
            for entry in batch["dimensions"]:
                lines.extend(_table(entry))
    elif result.get("by") == "window":
        for entry in result["dimensions"]:
            lines.extend(_windows(entry))
    else:
        for entry in result["dimensions"]:
            lines.extend(_table(entry))
    return "\n".join(lines)


class Command(BaseCommand):
    requires_system_checks = READING_COMMAND_CHECKS
    help = (
        "Inter-rater agreement of a study per dimension: percent agreement, Cohen's kappa per "
        "pair and their mean, Fleiss' kappa, Krippendorff's alpha, Gwet's AC1, per category, "
        "at both levels, each with its 95% interval (a bootstrap over items, one seeded set of "
        "draws shared by every figure; Gwet's analytic interval where it applies); per batch or "
        "window with each change and its interval. On the labels as they were before any "
        "final label was known. An open-coding study has none: the command says why and exits "
        "with status 1."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--dimension", metavar="KEY", help="only this dimension")
        parser.add_argument("--json", action="store_true", dest="as_json", help="print JSON")
        parser.add_argument(
            "--by", choices=BY, help="per batch, or per --window items in the order labelled"
        )
        parser.add_argument("--window", type=int, metavar="N", help="items per window")
        parser.add_argument(
            "--bootstrap",
            type=int,
            default=BOOTSTRAP,
            metavar="N",
            help=f"resamples for every figure's interval (default {BOOTSTRAP}; 0: none)",
        )
        parser.add_argument(
            "--pseudonyms", action="store_true", help="name annotators A1, A2, … instead"
        )
        parser.add_argument(
            "--half-width",
            type=float,
            metavar="H",
            help=f"alpha's interval half-width to plan double-coding for (default {HALF_WIDTH})",
        )

    def handle(self, *args, slug, dimension, as_json, by, window, bootstrap, pseudonyms, **options):
        if options["half_width"] is not None and not 0 < options["half_width"] < 1:
            raise CommandError("--half-width: a number between 0 and 1")
        study = Study.objects.select_related("codebook").filter(slug=slug).first()
        if study is None:
            raise CommandError(f"no study {slug!r}")
        if dimension is not None:
            try:
                dimension_get(scheme=study_scheme(study=study), key=dimension)
            except ValidationError as error:
                raise CommandError(f"--dimension: {error.message_dict['dimension'][0]}") from None
        if window is not None:
            if by not in (None, "window"):
                raise CommandError("--window goes with --by window")
            if window < WINDOW_MIN:
                raise CommandError(f"--window: at least {WINDOW_MIN} items")
            by = "window"
        elif by == "window":
            raise CommandError("--by window needs --window N (items per window)")
        if bootstrap < 0:
            raise CommandError("--bootstrap: 0 or more")
        try:
            result = study_agreement(
                study=study,
                dimension=dimension,
                by=by,
                window=window,
                bootstrap=bootstrap,
                pseudonyms=pseudonyms,
                half_width=options["half_width"] or HALF_WIDTH,
            )
        except AgreementNotApplicable as error:
            raise CommandError(f"{slug}: {error}") from None
        if as_json:
            self.stdout.write(json.dumps(result, indent=2, cls=DjangoJSONEncoder))
        else:
            self.stdout.write(readable(result))
