import datetime as dt
import json
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from labeler.models import Study
from labeler.studies.frames import STRATA, Candidates, FrameQuery, StateFilter
from labeler.studies.sampling import SampleMode, SampleSpec, SampleSpecError, sample_warnings
from labeler.studies.services import (
    HOLD_MINUTES_MAX,
    HOLD_MINUTES_MIN,
    HOLD_MINUTES_RANGE,
    new_seed,
    plan_warnings,
    study_create,
    study_kind_check,
    study_sample_preview,
)
from taxonomy.models import Codebook
from taxonomy.selectors import codebook_newest


def _codebook(spec: str) -> Codebook:
    key, _, version = spec.partition("@")
    codebook = codebook_newest(key=key, version=version)
    if codebook is None:
        known = ", ".join(sorted({f"{c.key}@{c.version}" for c in Codebook.objects.all()}))
        raise CommandError(f"--codebook {spec}: no such codebook (loaded: {known or 'none'})")
    return codebook


def _validation_message(error: ValidationError) -> str:
    if hasattr(error, "error_dict"):
        return "; ".join(
            f"{field}: {' '.join(messages)}" for field, messages in error.message_dict.items()
        )
    return "; ".join(error.messages)


class Command(BaseCommand):
    help = (
        "Create a study: pin a codebook version, select reports, draw the sample and print "
        "the frame size, sample size and strata."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument(
            "--codebook",
            metavar="KEY[@VERSION]",
            help="codebook key; the newest version unless @VERSION is given (a closed study "
            "needs one; an open one pins one or names its dimensions with --dimension-names)",
        )
        parser.add_argument(
            "--kind",
            choices=Study.Kind.values,
            default=Study.Kind.CLOSED,
            help="closed: label with the codebook's categories (default); open: write free "
            "codes per dimension, sorted into a codebook on the study's code board",
        )
        parser.add_argument(
            "--dimension-names",
            metavar="NAMES",
            help="an open study without a codebook: the dimensions it codes, comma-separated "
            "(e.g. 'root cause, symptom')",
        )
        parser.add_argument(
            "--codes-shared",
            action="store_true",
            help="an open study: annotators see each other's codes while the round runs "
            "(default: each sees only their own)",
        )
        parser.add_argument("--name", help="defaults to the slug")
        parser.add_argument("--dimensions", help="comma-separated dimension keys (default: all)")
        _frame_arguments(parser.add_argument_group("which reports (the frame)"))
        _sample_arguments(parser.add_argument_group("the sample and its labelling"))
        parser.add_argument("--guidelines", type=Path, metavar="FILE", help="Markdown file")
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="print the frame, sample size and strata; create nothing",
        )
        parser.add_argument("--json", action="store_true", help="print the result as JSON")

    def handle(self, *args, **options):
        if options["margin"] is not None and options["confidence"] is None:
            raise CommandError("--margin needs --confidence")
        if options["confidence"] is not None and options["margin"] is None:
            raise CommandError("--confidence needs --margin")
        hold_minutes = options["hold_minutes"]
        if not HOLD_MINUTES_MIN <= hold_minutes <= HOLD_MINUTES_MAX:
            raise CommandError(f"--hold-minutes {hold_minutes}: {HOLD_MINUTES_RANGE}")
        codebook = _codebook(options["codebook"]) if options["codebook"] else None
        keywords = _split(options["keywords"])
        if options["keywords_file"]:
            keywords += _keywords_file(options["keywords_file"])
        try:
            frame = FrameQuery.from_dict(
                {
                    "repositories": options["repo"],
                    "candidates": options["candidates"],
                    "state": options["state"],
                    "has_fix": options["has_fix"],
                    "labels": _split(options["labels"]),
                    "created_from": options["created_from"],
                    "created_to": options["created_to"],
                    "keywords": keywords,
                }
            )
            sample = self._sample(options)
            guidelines = options["guidelines"].read_text("utf-8") if options["guidelines"] else ""
            if options["dry_run"]:
                self._dry_run(options, codebook, frame, sample, hold_minutes)
                return
            study, batch = study_create(
                slug=options["slug"],
                name=options["name"] or options["slug"],
                codebook=codebook,
                dimension_keys=_split(options["dimensions"]),
                kind=options["kind"],
                codes_shared=options["codes_shared"],
                dimension_names=_split(options["dimension_names"]),
                frame=frame,
                sample=sample,
                seed=options["seed"],
                overlap=options["overlap"],
                guidelines=guidelines,
                item_order=options["order"],
                hold_timeout=dt.timedelta(minutes=hold_minutes),
            )
        except ValidationError as error:
            raise CommandError(_validation_message(error)) from None
        except (SampleSpecError, OSError) as error:
            raise CommandError(str(error)) from None
        self._print(
            options,
            {
                "slug": study.slug,
                "created": True,
                "kind": study.kind,
                "codes_shared": study.codes_shared,
                "codebook": f"{study.codebook.key}@{study.codebook.version}",
                "dimensions": list(
                    study.dimensions.order_by("position").values_list("key", flat=True)
                ),
                "overlap": study.overlap,
                "hold_minutes": hold_minutes,
                "seed": study.seed,
                "keywords": list(frame.keywords),
                "frame_size": batch.frame_size,
                "sample_size": batch.sample_size,
                "strata": batch.strata,
                "warnings": sample_warnings(sample, batch.frame_size),
            },
        )

    def _dry_run(self, options, codebook, frame, sample, hold_minutes: int) -> None:
        """Check the study's kind and print the sample it would draw; write nothing."""
        study_kind_check(
            kind=options["kind"],
            codebook=codebook,
            codes_shared=options["codes_shared"],
            dimension_names=_split(options["dimension_names"]),
            dimension_keys=_split(options["dimensions"]),
        )
        seed = new_seed() if options["seed"] is None else options["seed"]
        plan = study_sample_preview(frame=frame, sample=sample, seed=seed)
        self._print(
            options,
            {
                "slug": options["slug"],
                "created": False,
                "seed": seed,
                "hold_minutes": hold_minutes,
                "keywords": list(frame.keywords),
                **plan.to_dict(),
                "warnings": plan_warnings(plan=plan, frame=frame, sample=sample),
            },
        )

    def _sample(self, options) -> SampleSpec:
        if options["sample"] is not None:
            mode = SampleMode.SIZE
        elif options["confidence"] is not None:
            mode = SampleMode.CONFIDENCE
        else:
            mode = SampleMode.ALL
        return SampleSpec(
            mode=mode,
            size=options["sample"],
            confidence=options["confidence"],
            margin=options["margin"],
            stratify=options["stratify"],
        )

    def _print(self, options, result: dict) -> None:
        if options["json"]:
            self.stdout.write(json.dumps(result, indent=2))
            return
        if result["created"]:
            self.stdout.write(
                f"created study {result['slug']}: {result['kind']} coding"
                f"{' (codes shared)' if result['codes_shared'] else ''}, codebook "
                f"{result['codebook']}, dimensions "
                f"{', '.join(result['dimensions'])}, overlap {result['overlap']}, "
                f"hold time {result['hold_minutes']} min, seed {result['seed']}"
            )
        else:
            self.stdout.write(
                f"dry run for study {result['slug']}: nothing created (seed {result['seed']}; "
                "create with --seed to draw exactly this)"
            )
        if result["keywords"]:
            self.stdout.write(f"candidate keywords: {', '.join(result['keywords'])}")
        self.stdout.write(f"frame size: {result['frame_size']}")
        self.stdout.write(f"sample size: {result['sample_size']}")
        for warning in result["warnings"]:
            self.stdout.write(warning)
        if options["stratify"]:
            self.stdout.write(f"strata by {options['stratify']}:")
            names = [_stratum_name(s["key"]) for s in result["strata"]]
            width = max((len(name) for name in names), default=0)
            for name, stratum in zip(names, result["strata"], strict=True):
                self.stdout.write(
                    f"  {name:<{width}}  {stratum['sample']:>6} of {stratum['population']}"
                )


def _stratum_name(key) -> str:
    """A stratum as the web preview names it: reports with no value are "(none)"."""
    if key is None or key == "":
        return "(none)"
    if isinstance(key, bool):
        return "yes" if key else "no"
    return str(key)


def _keywords_file(path: Path) -> list[str]:
    """One keyword per line; blank lines and everything after a # are left out."""
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(f"--keywords-file {path}: {error}") from None
    lines = (line.partition("#")[0].strip() for line in text.splitlines())
    return [line for line in lines if line]


def _split(value: str | None) -> list[str]:
    return [part.strip() for part in (value or "").split(",") if part.strip()]


def _frame_arguments(group) -> None:
    group.add_argument(
        "--repo",
        action="extend",
        nargs="+",
        default=[],
        metavar="OWNER/NAME",
        help="only reports of these repositories",
    )
    group.add_argument(
        "--candidates",
        choices=list(Candidates),
        help="only candidates of this kind ('any': performance or accuracy)",
    )
    group.add_argument("--state", choices=list(StateFilter), default=StateFilter.ALL)
    fix = group.add_mutually_exclusive_group()
    fix.add_argument("--has-fix", dest="has_fix", action="store_true", default=None)
    fix.add_argument("--no-fix", dest="has_fix", action="store_false")
    group.add_argument("--labels", help="comma-separated; reports with any of them")
    group.add_argument(
        "--keywords",
        help="comma-separated candidate keywords replacing each repository's own (label "
        "rules still count); without --candidates, reports mentioning any of them",
    )
    group.add_argument(
        "--keywords-file",
        type=Path,
        metavar="FILE",
        help="more candidate keywords, one per line; # starts a comment",
    )
    group.add_argument("--created-from", metavar="YYYY-MM-DD")
    group.add_argument("--created-to", metavar="YYYY-MM-DD")


def _sample_arguments(group) -> None:
    size = group.add_mutually_exclusive_group()
    size.add_argument("--sample", type=int, metavar="N", help="a fixed sample size")
    size.add_argument("--confidence", type=float, help="e.g. 0.95 (with --margin)")
    group.add_argument("--margin", type=float, help="e.g. 0.05 (with --confidence)")
    group.add_argument(
        "--stratify",
        metavar="FIELD",
        help=f"proportional allocation over one of: {', '.join(STRATA)}",
    )
    group.add_argument("--seed", type=int, help="default: a random seed, stored and printed")
    group.add_argument(
        "--overlap",
        type=int,
        default=2,
        metavar="K",
        help="independent annotations per item (default 2)",
    )
    group.add_argument("--order", choices=Study.ItemOrder.values, default="random")
    group.add_argument(
        "--hold-minutes",
        type=int,
        default=30,
        metavar="N",
        help="a held item nobody submits returns to the pool after N minutes "
        f"({HOLD_MINUTES_MIN} to {HOLD_MINUTES_MAX}; default 30)",
    )
