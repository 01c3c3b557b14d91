"""A datasheet as Markdown, for people: the side file of CSV and JSON Lines exports and the
study page. Pure: no Django."""

from __future__ import annotations

import json


def _cell(value) -> str:
    text = "n/a" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return [*lines, ""]


def _codebook(codebook: dict) -> list[str]:
    lines = [
        "## Codebook",
        "",
        f"{codebook['name']} (`{codebook['key']}`), version {codebook['version']}, "
        f"content hash `{codebook['content_hash'][:12]}`.",
        "",
    ]
    if codebook["description"]:
        lines += [codebook["description"], ""]
    if codebook["source"]:
        lines += [f"Source: {codebook['source']}", ""]
    for dimension in codebook["dimensions"]:
        kind = "several values" if dimension["multiple"] else "one value"
        lines += [f"### {dimension['name']} (`{dimension['key']}`, {kind})", ""]
        if dimension["help"]:
            lines += [dimension["help"], ""]
        lines += _table(
            ["path", "name", "definition", "include", "exclude"],
            [
                [f"`{c['path']}`", c["name"], c["definition"], c["include"], c["exclude"]]
                for c in dimension["categories"]
            ],
        )
    return lines


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _collection(collection: dict) -> list[str]:
    frame = collection["frame"]
    sampling = collection["sampling"]
    lines = [
        "## Collection",
        "",
        f"Frame (filters): `{_json(frame)}`" if frame else "Frame: every imported report.",
        "",
        f"Sampling: {f'`{_json(sampling)}`' if sampling else 'none recorded'}; "
        f"seed {collection['seed']}; "
        f"{collection['overlap']} annotations per item; majorities: {collection['majority']}.",
        "",
    ]
    if not collection["batches"]:
        return [*lines, "No batch was drawn: the items were added or imported as they are.", ""]
    lines += _table(
        [
            "batch",
            "drawn",
            "frame size",
            "sample size",
            "seed",
            "strata (key: population / sample)",
        ],
        [
            [
                batch["number"],
                batch["prioritised"]["drawn"] if batch.get("prioritised") else "at random",
                batch["frame_size"],
                batch["sample_size"],
                batch["seed"],
                "; ".join(
                    f"{s['key'] if s['key'] is not None else 'all (not stratified)'}: "
                    f"{s['population']} / {s['sample']}"
                    for s in batch["strata"]
                ),
            ]
            for batch in collection["batches"]
        ],
    )
    if any(batch.get("prioritised") for batch in collection["batches"]):
        lines += [
            "Batches drawn by a screening model are not random samples of the frame: the "
            "prevalence estimates of the screening page use the random batches drawn before the "
            "first of them alone (a random batch drawn after one comes from a frame a model "
            "had thinned), and the "
            "counts and shares of this dataset, which include them, do not estimate the "
            "frame's population.",
            "",
        ]
    return lines


def _agreement(agreement: dict) -> list[str]:
    if agreement.get("applicable") is False:
        reason = agreement["reason"]
        return ["## Agreement", "", reason[0].upper() + reason[1:], ""]
    names = [
        ("percent_agreement", "% agreement"),
        ("mean_cohen_kappa", "Cohen's kappa (mean)"),
        ("fleiss_kappa", "Fleiss' kappa"),
        ("krippendorff_alpha", "alpha"),
        ("gwet_ac1", "AC1"),
    ]
    table = _table(
        [
            "dimension",
            "level",
            "items",
            "annotators",
            *(name for _, name in names),
            "hierarchy alpha",
        ],
        [
            [
                entry["dimension"],
                entry["level"],
                entry["items"],
                entry["annotators"],
                *(_with_interval(entry[key], entry["intervals"][key]) for key, _ in names),
                _hierarchy(entry.get("hierarchy_alpha")),
            ]
            for entry in agreement["dimensions"]
        ],
    )
    draws = agreement.get("bootstrap") or {}
    method = (
        "Each figure with its 95% interval: a percentile bootstrap over items"
        f" ({draws.get('draws')} draws, seed {draws.get('seed')}, one set shared by every"
        " figure), and Gwet's analytic interval where it applies (percent agreement, Fleiss'"
        " kappa, AC1). The hierarchy alpha gives partial credit to two paths under one top"
        " category."
    )
    scales = agreement["dimensions"][0]["band_scales"] if agreement["dimensions"] else None
    if scales:
        method += (
            f" Bands (the JSON's `bands`): alpha's from {scales['krippendorff_alpha']}, the"
            f" kappas' and AC1's from {scales['fleiss_kappa']} (the study's `kappa_scale`)."
        )
    return ["## Agreement", "", method, "", *table]


def _with_interval(value, intervals: dict) -> str:
    """A figure and its intervals by method: `0.712 (bootstrap 0.650 to 0.770; gwet ...)`."""
    if value is None:
        return "n/a"
    shown = [
        f"{method} {found['ci95'][0]:.3f} to {found['ci95'][1]:.3f}"
        + (" (read with care)" if found.get("degenerate") else "")
        for method, found in intervals.items()
        if found and found.get("ci95")
    ]
    return f"{value:.3f}" + (f" ({'; '.join(shown)})" if shown else "")


def _hierarchy(credit: dict | None) -> str:
    if not credit:
        return ""
    text = _with_interval(credit["estimate"], credit["intervals"])
    return f"{text}, same top category {credit['distances']['same_top_category']}"


def _final_labels(final: dict, annotators: int) -> list[str]:
    methods = sorted({method for counts in final["by_dimension"].values() for method in counts})
    lines = [
        "## Labels",
        "",
        f"{final['items']} items, {final['final_items']} final; {annotators} annotators.",
        "",
    ]
    if not methods:
        return [*lines, "No final label yet.", ""]
    return lines + _table(
        ["dimension", *methods],
        [
            [key, *(counts.get(method, 0) for method in methods)]
            for key, counts in final["by_dimension"].items()
        ],
    )


def datasheet_markdown(sheet: dict) -> str:
    composition = sheet["composition"]
    separator = composition["multi_value_separator_in_csv"]
    options = sheet["options"]
    lines = [
        f"# Datasheet: {sheet['title']}",
        "",
        f"Exported {sheet['exported_at']} as {sheet['format']} by {sheet['software']['name']} "
        f"{sheet['software']['version']}.",
        "",
        "## Composition",
        "",
        f"One record per study item (a GitHub bug report); `final` says whether every dimension "
        f"has a final label{' (only final items here)' if options['final_only'] else ''}. "
        f"In CSV, several values in one cell are joined with `{separator}`; "
        f"category names are joined with `{composition['category_name_separator']}`. "
        f"Times are ISO 8601 in UTC, durations in hours. "
        f"Text: {composition['text']}.",
        "",
    ]
    if options["include_annotators"]:
        lines += [
            f"Each annotator's labels are included, named by {options['annotator_names']}.",
            "",
        ]
        if sheet.get("removed_annotators"):
            removed = ", ".join(sheet["removed_annotators"])
            lines += [f"Labels by members since removed from the study: {removed}.", ""]
        if "codes" in composition:
            codes = composition["codes"]
            lines += [f"Codes of {codes}.", ""]
    lines += ["Each dimension's final label (CSV columns; in JSON under `labels`):", ""]
    lines += [f"- `{column}`: {what}" for column, what in composition["final_label"].items()]
    lines += [""]
    lines += ["How a final label was reached:", ""]
    lines += [f"- `{method}`: {what}" for method, what in composition["methods"].items()]
    lines += [""]
    lines += _codebook(sheet["codebook"])
    lines += _collection(sheet["collection"])
    lines += _final_labels(sheet["final_labels"], sheet["annotators"])
    lines += _agreement(sheet["agreement"])
    return "\n".join(lines)
