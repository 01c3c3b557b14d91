"""The datasheet: codebook, sampling, agreement, counts, annotators, time and version."""

import datetime as dt
import importlib.metadata
import json

import pytest

from labeler.agreement.statistics import kappa_band
from labeler.export.dataset import ExportOptions
from labeler.export.markdown import datasheet_markdown
from labeler.export.pipeline import Export
from labeler.models import StudyBatch

pytestmark = pytest.mark.django_db


@pytest.fixture
def sheet(labelled_study):
    study = labelled_study["study"]
    study.frame = {"repositories": ["octo/repo"], "state": "closed"}
    study.sampling = {"mode": "confidence", "confidence": 0.95, "margin": 0.05, "stratify": None}
    study.seed = 7
    study.save()
    StudyBatch.objects.create(
        study=study,
        number=1,
        frame=study.frame,
        sampling=study.sampling,
        seed=7,
        frame_size=40,
        sample_size=5,
        strata=[{"key": "octo/repo", "population": 40, "sample": 5}],
    )
    export = Export(study=study, fmt="json", options=ExportOptions(include_annotators=True))
    return export, json.loads("".join(export.pieces()))["datasheet"]


def test_the_json_export_carries_the_datasheet(sheet):
    export, found = sheet
    assert found == json.loads(json.dumps(export.datasheet))
    assert found["format"] == "json"
    assert found["options"] == {
        "include_annotators": True,
        "final_only": False,
        "annotator_names": "pseudonyms",
    }
    assert dt.datetime.fromisoformat(found["exported_at"]) == export.exported_at
    assert found["software"]["version"].startswith(importlib.metadata.version("bug-labeler"))


def test_codebook_with_every_definition(sheet, labelled_study):
    _, found = sheet
    codebook = labelled_study["study"].codebook
    assert (found["codebook"]["key"], found["codebook"]["version"]) == (
        codebook.key,
        codebook.version,
    )
    root_cause, impact = found["codebook"]["dimensions"]
    assert (root_cause["key"], root_cause["leaf_only"], impact["multiple"]) == (
        "root-cause",
        True,
        True,
    )
    leak = next(c for c in root_cause["categories"] if c["path"] == "memory/leak")
    category = codebook.dimensions.get(key="root-cause").categories.get(key="leak")
    assert leak == {
        "key": "leak",
        "parent": "memory",
        "path": "memory/leak",
        "name": "Leak",
        "definition": category.definition,
        "include": category.include,
        "exclude": category.exclude,
        "examples": category.examples,
    }


def test_sampling_counts_annotators_and_agreement(sheet):
    _, found = sheet
    collection = found["collection"]
    assert collection["frame"] == {"repositories": ["octo/repo"], "state": "closed"}
    assert collection["sampling"]["margin"] == 0.05
    assert (collection["seed"], collection["overlap"]) == (7, 2)
    (batch,) = collection["batches"]
    assert (batch["frame_size"], batch["sample_size"], batch["strata"][0]["population"]) == (
        40,
        5,
        40,
    )
    assert found["final_labels"] == {
        "items": 5,
        "final_items": 2,
        "by_dimension": {
            "root-cause": {"adjudicated": 1, "unanimous": 1},
            "impact": {"adjudicated": 1, "unanimous": 1},
        },
    }
    # ann-unused is a member who never submitted: two annotators labelled.
    assert found["annotators"] == 2
    entry = next(d for d in found["agreement"]["dimensions"] if d["level"] == "path")
    assert (entry["dimension"], entry["items"], entry["annotators"]) == ("root-cause", 4, 2)
    assert entry["cohen_kappa_pairs"][0]["annotators"] == ["A1", "A2"]
    assert found["agreement"]["bootstrap"]["draws"] == 1000
    assert set(entry["intervals"]["fleiss_kappa"]) == {"bootstrap", "gwet"}
    assert entry["double_coding"]["items"] == entry["pairable_items"]


def test_the_bands_follow_the_studys_kappa_scale(labelled_study):
    study = labelled_study["study"]
    study.kappa_scale = "fleiss"
    study.save()
    export = Export(study=study, fmt="json", options=ExportOptions(include_annotators=True))
    found = json.loads("".join(export.pieces()))["datasheet"]
    assert found["study"]["kappa_scale"] == "fleiss"
    for entry in found["agreement"]["dimensions"]:
        assert entry["band_scales"]["fleiss_kappa"] == "Fleiss (1981)"
        assert entry["band_scales"]["krippendorff_alpha"] == "Krippendorff (2004)"
        assert entry["bands"]["fleiss_kappa"] == kappa_band(entry["fleiss_kappa"], "fleiss")
    assert "the kappas' and AC1's from Fleiss (1981)" in export.datasheet_markdown()


def test_markdown_has_every_part(sheet):
    export, _ = sheet
    text = export.datasheet_markdown()
    for heading in (
        "# Datasheet: ",
        "## Composition",
        "## Codebook",
        "### Root cause",
        "## Collection",
        "## Labels",
        "## Agreement",
    ):
        assert heading in text
    assert "| `memory/leak` | Leak |" in text
    assert "5 items, 2 final; 2 annotators." in text
    assert "| 1 | at random | 40 | 5 | 7 | octo/repo: 40 / 5 |" in text
    assert "joined with `;`" in text
    assert 'Frame (filters): `{"repositories": ["octo/repo"], "state": "closed"}`' in text
    assert '"confidence": 0.95' in text and '"margin": 0.05' in text
    assert "percentile bootstrap over items (1000 draws, seed 0" in text
    assert "(bootstrap " in text and "; gwet " in text


def test_markdown_of_a_study_without_filters_or_batches(sheet):
    """Said in words, not as an empty `{}` and a table of no rows."""
    _, data = sheet
    data["collection"].update(frame={}, sampling={}, batches=[])
    text = datasheet_markdown(data)
    assert "Frame: every imported report." in text
    assert "Sampling: none recorded; seed 7;" in text
    assert "No batch was drawn" in text and "| batch |" not in text


def test_the_version_without_git_is_the_package_version(monkeypatch):
    from labeler.export import datasheet

    monkeypatch.setattr(datasheet.shutil, "which", lambda name: None)
    assert datasheet.software_version() == importlib.metadata.version("bug-labeler")


def test_markdown_of_an_unstratified_batch_and_no_final_label(sheet):
    """A batch drawn without strata has one stratum of key null; no final label, no table of
    methods with no column."""
    _, data = sheet
    data["collection"]["batches"][0]["strata"] = [{"key": None, "population": 40, "sample": 5}]
    data["final_labels"]["by_dimension"] = {"root-cause": {}, "impact": {}}
    text = datasheet_markdown(data)
    assert "| all (not stratified): 40 / 5 |" in text and "None" not in text
    labels = text[text.index("## Labels") : text.index("## Agreement")]
    assert "No final label yet." in labels and "|" not in labels
