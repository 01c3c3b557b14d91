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
        ["batch", "frame size", "sample size", "seed", "strata (key: population / sample)"],
        [
            [
                batch["number"],
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
    return lines


def _agreement(agreement: dict) -> list[str]:
    if agreement.get("applicable") is False:
        reason = agreement["reason"]
        return ["## Agreement", "", reason[0].upper() + reason[1:], ""]
    table = _table(
        ["dimension", "level", "items", "annotators", "% agreement", "Fleiss' kappa", "alpha"],
        [
            [
                entry["dimension"],
                entry["level"],
                entry["items"],
                entry["annotators"],
                entry["percent_agreement"],
                entry["fleiss_kappa"],
                entry["krippendorff_alpha"],
            ]
            for entry in agreement["dimensions"]
        ],
    )
    return ["## Agreement", "", *table]


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
    lines += ["How a final label was reached:", ""]
    lines += [f"- `{method}`: {what}" for method, what in composition["methods"].items()]
    lines += [""]
    lines += _codebook(sheet["codebook"])
    lines += _collection(sheet["collection"])
    lines += _final_labels(sheet["final_labels"], sheet["annotators"])
    lines += _agreement(sheet["agreement"])
    return "\n".join(lines)
