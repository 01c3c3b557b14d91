"""The datasheet of an export, after "Datasheets for Datasets" (Gebru et al.): what the
dataset is, how it was sampled, how it was labelled and how far the annotators agreed."""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import shutil
import subprocess
from pathlib import Path

from django.db.models import Count

from labeler.agreement.ratings import AgreementNotApplicable, study_agreement
from labeler.common.names import study_removed_annotators
from labeler.common.scheme import study_scheme
from labeler.common.writers import SPREADSHEET_FORMULAS
from labeler.export.dataset import ExportOptions
from labeler.export.records import MULTI_SEPARATOR, NAME_SEPARATOR
from labeler.models import FinalLabel, Study, StudyBatch, StudyItem

PACKAGE = "bug-labeler"
REPOSITORY_ROOT = Path(__file__).resolve().parents[2]


def software_version() -> str:
    """The installed package's version, and the git commit when git can tell it cheaply."""
    try:
        version = importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        version = "not installed"
    git = shutil.which("git")
    if git is None:
        return version
    try:
        commit = subprocess.run(  # noqa: S603 - a fixed argument list, no shell
            [git, "rev-parse", "--short=12", "HEAD"],
            cwd=REPOSITORY_ROOT,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return version
    return f"{version} ({commit})" if commit else version


def _codebook(study) -> dict:
    """The study's codebook version with every definition, in the codebook file's structure."""
    codebook = study.codebook
    scheme = study_scheme(study=study)
    by_id = {c.pk: c for categories in scheme.categories.values() for c in categories}
    return {
        "key": codebook.key,
        "name": codebook.name,
        "version": codebook.version,
        "description": codebook.description,
        "source": codebook.source,
        "content_hash": codebook.content_hash,
        "dimensions": [
            {
                "key": d.key,
                "name": d.name,
                "help": d.help_text,
                "multiple": d.multiple,
                "required": d.required,
                "leaf_only": d.leaf_only,
                "categories": [
                    {
                        "key": c.key,
                        "parent": by_id[c.parent_id].key if c.parent_id else None,
                        "path": c.path,
                        "name": c.name,
                        "definition": c.definition,
                        "include": c.include,
                        "exclude": c.exclude,
                        "examples": list(c.examples),
                    }
                    for c in scheme.categories[d.pk]
                ],
            }
            for d in scheme.dimensions
        ],
    }


# What someone who labels in the study reads of each batch's draw once a screening model drew
# some: the items page shows each item's batch, so naming those batches would tell the model's
# guess for their items.
DRAW_NOT_SHOWN = {
    "drawn": "not shown to someone who labels in the study: a screening model drew some of "
    "its batches, and which ones would tell its guess for their items"
}


def _sampling(study, *, blind: bool) -> dict:
    batches = list(StudyBatch.objects.filter(study=study).order_by("number"))
    hidden = blind and any(batch.prioritised for batch in batches)
    return {
        "frame": study.frame,
        "sampling": study.sampling,
        "seed": study.seed,
        "overlap": study.overlap,
        "majority": study.majority,
        "batches": [
            {
                "number": batch.number,
                # How a batch was drawn (a model's records its run as its frame) is not shown
                # where the draw is not.
                "frame": None if hidden else batch.frame,
                "sampling": None if hidden else batch.sampling,
                "seed": batch.seed,
                "frame_size": batch.frame_size,
                "sample_size": batch.sample_size,
                "strata": [] if hidden else batch.strata,
                # None for a random draw; how a screening model chose the batch otherwise.
                "prioritised": DRAW_NOT_SHOWN if hidden else batch.prioritised,
                "drawn_at": batch.created_at.astimezone(dt.UTC).isoformat(),
            }
            for batch in batches
        ],
    }


def _final_counts(study) -> dict:
    items = StudyItem.objects.filter(study=study)
    by_method: dict[str, dict[str, int]] = {d.key: {} for d in study_scheme(study=study).dimensions}
    counts = (
        FinalLabel.objects.filter(item__study=study)
        .values_list("dimension__key", "method")
        .annotate(n=Count("pk"))
        .order_by("dimension__key", "method")
    )
    for key, method, n in counts:
        by_method.setdefault(key, {})[method] = n
    final = items.filter(adjudicated_at__isnull=False).count()
    return {"items": items.count(), "final_items": final, "by_dimension": by_method}


TEXT_AS_IMPORTED = (
    f"titles, labels and notes are exactly as imported or written, nothing escaped: "
    f"{SPREADSHEET_FORMULAS}"
)


OPEN_CODES = (
    "an open-coding round: labels are empty where annotators wrote codes instead; each "
    "annotator's codes per dimension are as they wrote them (their latest submission), with "
    "each code's category on the study's code board (its key path; none where the board has "
    "not sorted it), and the note is the annotator's memo. In CSV, `A1.<dimension>.codes` "
    "holds the codes and `A1.<dimension>.categories` their categories in the same order "
    "(an empty place for a code under no category), both joined with `;` (a code holding `;` "
    "is kept apart only in JSON and JSON Lines, as `annotators.A1.codes.<dimension>`: "
    "[{code, category}])"
)


# Each dimension's final label: the JSON record's fields under labels.<dimension>, named as
# its CSV columns are (the key paths are the column <dimension> itself).
FINAL_LABEL_FIELDS = {
    "<dimension>": "the final label's category key paths",
    "<dimension>.names": "their names, with their parents'",
    "<dimension>.method": "how the final label was reached (see methods)",
    "<dimension>.reason": "adjudicated only: why the annotators disagreed, as the lead judged",
    "<dimension>.rationale": "the rationale given with the decision (a lead's, or an import's)",
}


def _agreement(study, *, pseudonyms: bool, final_only: bool) -> dict:
    """The agreement table; for a study without one (open coding), why, and no dimension."""
    try:
        return study_agreement(study=study, pseudonyms=pseudonyms, final_only=final_only)
    except AgreementNotApplicable as error:
        return {"study": study.slug, "applicable": False, "reason": str(error), "dimensions": []}


def study_datasheet(
    *, study, options: ExportOptions, names: dict[int, str], fmt: str, now: dt.datetime
) -> dict:
    """The datasheet of one export of `study` as plain JSON values."""
    return {
        "title": f"{study.name} ({study.slug})",
        "format": fmt,
        "exported_at": now.astimezone(dt.UTC).isoformat(),
        "software": {"name": PACKAGE, "version": software_version()},
        "options": {
            "include_annotators": options.include_annotators,
            "final_only": options.final_only,
            "annotator_names": "usernames" if options.real_names else "pseudonyms",
        },
        "composition": {
            "record": "one per study item (a GitHub bug report)",
            "final": "whether every dimension of the item has a final label",
            "multi_value_separator_in_csv": MULTI_SEPARATOR,
            "category_name_separator": NAME_SEPARATOR,
            "times": "ISO 8601, UTC; durations in hours",
            "text": TEXT_AS_IMPORTED,
            **({"codes": OPEN_CODES} if study.kind == Study.Kind.OPEN else {}),
            "final_label": FINAL_LABEL_FIELDS,
            "methods": {
                "unanimous": "every annotator gave this label",
                "majority": "most annotators gave it and the study accepts majorities",
                "adjudicated": "a lead decided, with a rationale and a reason for the split",
                "imported": "decided outside the app and imported",
            },
        },
        "study": {
            "slug": study.slug,
            "name": study.name,
            "guidelines": study.guidelines,
            "item_order": study.item_order,
            "hold_minutes": study.hold_timeout.total_seconds() / 60,
            # The scale of the agreement's kappa bands (each entry's "band_scales" names it).
            "kappa_scale": study.kappa_scale,
        },
        "codebook": _codebook(study),
        "collection": _sampling(study, blind=options.blind),
        "annotators": len(names),
        # Their labels stay in the dataset; they no longer annotate in the study.
        "removed_annotators": sorted(
            names[pk] for pk in study_removed_annotators(study_id=study.pk) if pk in names
        ),
        "final_labels": _final_counts(study),
        "agreement": _agreement(study, pseudonyms=not options.real_names, final_only=options.blind),
    }
