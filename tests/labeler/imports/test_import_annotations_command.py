"""import_annotations from the command line: every problem in one go, nothing written."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from labeler.common.label_csv import MAX_PROBLEMS
from labeler.models import Annotation, Assignment, LabelImport, StudyMember

pytestmark = pytest.mark.django_db


def import_error(path) -> str:
    with pytest.raises(CommandError) as error:
        call_command("import_annotations", "sheet", str(path), stdout=StringIO())
    return str(error.value)


def test_a_duplicate_does_not_hide_the_other_problems(sheet_study, tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "item,annotator,dimension,value\n"
        "pytorch/pytorch#1,alice,root-cause,leak\n"
        "pytorch/pytorch#1,alice,impact,sped\n"
        "pytorch/pytorch#1,alice,root-cause,threading\n"
        "pytorch/pytorch#7,bob,root-cause,threading\n"
        "pytorch/pytorch#1,carol,root-cause,memory\n"
        "pytorch/pytorch#1,carol,impakt,speed\n"
    )

    message = import_error(labels)

    assert message.splitlines() == [
        "5 problems; nothing was imported:",
        f"{labels}:3: pytorch/pytorch#1, alice, impact: no category 'sped' in dimension "
        "'impact'; did you mean 'speed'?",
        f"{labels}:4: alice labels root-cause of pytorch/pytorch#1 again (first on line 2)",
        f"{labels}:5: unknown item pytorch/pytorch#7 (not imported; import its repository "
        "first, or pass --create-missing-reports to create a stub)",
        f"{labels}:6: pytorch/pytorch#1, carol, root-cause: 'memory' has sub-categories; "
        "choose one of: memory/leak, memory/bloat",
        f"{labels}:7: pytorch/pytorch#1, carol, impakt: the study does not label dimension "
        "'impakt' (it labels: root-cause, impact); did you mean 'impact'?",
    ]
    assert not (Assignment.objects.exists() or Annotation.objects.exists())
    assert not StudyMember.objects.exists()


def test_the_count_covers_the_problems_past_the_cap(sheet_study, tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "item,annotator,dimension,value\n"
        + "".join(f"pytorch/pytorch#{n},al,root-cause,leak\n" for n in range(3, MAX_PROBLEMS + 13))
    )

    lines = import_error(labels).splitlines()

    assert lines[0] == f"{MAX_PROBLEMS + 10} problems; nothing was imported:"
    assert lines[1].startswith(f"{labels}:2: unknown item pytorch/pytorch#3 ")
    assert lines[-1] == f"{labels}: … and 10 more problems"
    assert len(lines) == MAX_PROBLEMS + 2


def test_final_labels_from_a_file(sheet_study, tmp_path):
    labels = tmp_path / "final.csv"
    labels.write_text(
        "item,annotator,dimension,value,note\n"
        "PyTorch/PyTorch#1,carol,root-cause,memory/leak,the fix frees the cache\n"
    )
    out = StringIO()

    call_command("import_annotations", "sheet", str(labels), "--final", stdout=out)

    assert out.getvalue().strip() == (
        "imported final labels of 1 items (2 labels; 0 automatic or earlier ones replaced)"
    )
    item = sheet_study.items.get()
    assert item.adjudicated_at is not None
    assert {(f.dimension.key, f.method) for f in item.final_labels.all()} == {
        ("root-cause", "imported"),
        ("impact", "imported"),
    }


def test_final_labels_problems_are_reported_by_line(sheet_study, tmp_path):
    labels = tmp_path / "final.csv"
    labels.write_text(
        "item,annotator,dimension,value\n"
        "pytorch/pytorch#1,carol,root-cause,memory\n"
        "pytorch/pytorch#9,carol,root-cause,threading\n"
    )
    with pytest.raises(CommandError) as error:
        call_command("import_annotations", "sheet", str(labels), "--final", stdout=StringIO())
    assert str(error.value).splitlines() == [
        "2 problems; nothing was imported:",
        f"{labels}:2: pytorch/pytorch#1, root-cause: 'memory' has sub-categories; choose one "
        "of: memory/leak, memory/bloat",
        f"{labels}:3: pytorch/pytorch#9 is not an item of study sheet; add it first",
    ]
    with pytest.raises(CommandError, match="no --create-missing-reports"):
        call_command(
            "import_annotations", "sheet", str(labels), "--final", "--create-missing-reports"
        )


@pytest.mark.parametrize(
    "text", ["item,annotator,dimension,value\n", "item,annotator,dimension,value\n,,,\n"]
)
def test_a_file_with_a_header_and_no_rows_is_refused_and_nothing_written(
    sheet_study, tmp_path, text
):
    labels = tmp_path / "labels.csv"
    labels.write_text(text)

    message = import_error(labels)

    assert "no labels: the file has its header and no row with a cell filled in" in message
    assert not LabelImport.objects.exists()
    assert not Assignment.objects.exists()
