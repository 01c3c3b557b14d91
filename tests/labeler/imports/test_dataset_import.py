"""import_dataset: an export loaded into an empty instance exports the same records again; a
bad or partial file is refused with its reasons and nothing is written."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from labeler.common.names import study_pseudonyms
from labeler.export.dataset import ExportOptions
from labeler.export.pipeline import Export
from labeler.imports.dataset_import import DatasetImportError, dataset_import
from labeler.models import Annotation, FinalLabel, Study, StudyItem
from mining.models import BugReport, Repository
from taxonomy.models import Codebook

pytestmark = pytest.mark.django_db


def export_text(study, **options) -> str:
    return "".join(Export(study=study, fmt="json", options=ExportOptions(**options)).pieces())


def emptied(study) -> None:
    """The instance without the study, its reports, codebook and annotators."""
    reports = list(study.items.values_list("report_id", flat=True))
    codebook = study.codebook
    names = list(study.members.values_list("user__username", flat=True))
    study.delete()
    BugReport.objects.filter(pk__in=reports).delete()
    Repository.objects.filter(reports__isnull=True).delete()
    codebook.delete()
    get_user_model().objects.filter(username__in=names).delete()


def test_round_trip(labelled_study, tmp_path):
    study = labelled_study["study"]
    before = export_text(study, include_annotators=True)
    path = tmp_path / "perf.json"
    path.write_text(before, "utf-8")
    emptied(study)
    assert not Study.objects.exists()

    call_command("import_dataset", str(path))

    again = Study.objects.select_related("codebook").get(slug="perf")
    assert (
        json.loads(export_text(again, include_annotators=True))["records"]
        == (json.loads(before)["records"])
    )
    assert again.codebook.frozen
    users = get_user_model().objects.filter(username__in=["A1", "A2"])
    assert len(users) == 2
    assert not any(user.has_usable_password() for user in users)
    # Agreement reads the same labels again.
    sheet = json.loads(export_text(again))["datasheet"]
    original = json.loads(before)["datasheet"]
    assert sheet["agreement"]["dimensions"] == original["agreement"]["dimensions"]
    assert sheet["final_labels"] == original["final_labels"]


def test_pseudonyms_come_back_as_exported_whatever_order_the_first_record_lists(
    labelled_study,
):
    """The first record lists A2 before A1 (a file written by hand, or by an older export):
    A1 is A1 again in the re-export, and each record lists its annotators in pseudonym order."""
    study = labelled_study["study"]
    before = json.loads(export_text(study, include_annotators=True))
    first = before["records"][0]
    assert list(first["annotators"]) == ["A1", "A2"]
    first["annotators"] = dict(reversed(first["annotators"].items()))
    emptied(study)

    dataset_import(data=json.dumps(before).encode(), source="perf.json")

    again = json.loads(export_text(Study.objects.get(slug="perf"), include_annotators=True))
    for record, original in zip(again["records"], before["records"], strict=True):
        assert record["annotators"] == original["annotators"]
        assert list(record["annotators"]) == sorted(record["annotators"])
    # User "A1" submitted first: the study's pseudonym A1 is theirs again.
    pseudonyms = study_pseudonyms(study=Study.objects.get(slug="perf"))
    users = dict(get_user_model().objects.filter(pk__in=pseudonyms).values_list("pk", "username"))
    assert {users[pk]: name for pk, name in pseudonyms.items()} == {"A1": "A1", "A2": "A2"}


def test_an_export_of_a_study_that_exists_is_refused(labelled_study):
    data = export_text(labelled_study["study"], include_annotators=True).encode()
    with pytest.raises(DatasetImportError) as refused:
        dataset_import(data=data, source="perf.json")
    problems = refused.value.problems
    assert "datasheet.study.slug: a study 'perf' exists already" in problems
    assert any("is stored already" in problem for problem in problems)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda top: top.pop("records"), "not an export"),
        (
            lambda top: top["records"][0]["labels"]["root-cause"].update(values=["memory/nope"]),
            "perf.json: records[0].labels.root-cause: 'memory/nope' is not a category of "
            "dimension 'root-cause'",
        ),
        (
            lambda top: top["records"][1]["annotators"]["A1"]["labels"].update(impact=["x"]),
            "perf.json: records[1].annotators.A1.labels.impact: 'x' is not a category of "
            "dimension 'impact'",
        ),
        (lambda top: top["records"][2].pop("number"), "perf.json: records[2].number: missing"),
        (
            lambda top: top["records"].append(top["records"][0]),
            "appears twice",
        ),
        (
            lambda top: top["datasheet"]["codebook"]["dimensions"][0]["categories"][1].update(
                parent="memroy"
            ),
            "parent 'memroy'",
        ),
        (
            lambda top: top["datasheet"]["options"].update(include_annotators=False),
            "export with --include-annotators",
        ),
    ],
)
def test_a_bad_file_is_refused_and_nothing_is_written(labelled_study, tmp_path, change, expected):
    top = json.loads(export_text(labelled_study["study"], include_annotators=True))
    emptied(labelled_study["study"])
    change(top)
    path = tmp_path / "perf.json"
    path.write_text(json.dumps(top), "utf-8")
    with pytest.raises(CommandError) as refused:
        call_command("import_dataset", str(path))
    assert expected in str(refused.value)
    assert not Study.objects.exists()
    assert not StudyItem.objects.exists()
    assert not Codebook.objects.exists()
    assert not BugReport.objects.exists()
    assert not (Annotation.objects.exists() or FinalLabel.objects.exists())


def test_a_truncated_file_is_refused(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text('{"datasheet": {}, "records": [{"repository": "a/b"', "utf-8")
    with pytest.raises(CommandError, match=r"cut\.json: not a JSON export"):
        call_command("import_dataset", str(path))
