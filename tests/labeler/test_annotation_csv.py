"""The labels spreadsheet reader on plain bytes."""

import pytest

from labeler.annotation_csv import AnnotationFileError, LabelRow, read_label_rows


def problems(text: bytes | str) -> list[str]:
    data = text.encode() if isinstance(text, str) else text
    with pytest.raises(AnnotationFileError) as error:
        read_label_rows(data, "labels.csv")
    return error.value.problems


def test_good_file_with_multi_values_notes_and_a_bom():
    data = (
        "\ufeffitem,annotator,dimension,value,note\n"
        "pytorch/pytorch#12,alice,root-cause,memory/leak,\n"
        '"pytorch/pytorch#12",alice,impact,"speed; memory-use","a ""quoted"",\nmultiline note"\n'
        "\n"
        "tensorflow/tensorflow#7,bob,root-cause,threading,\n"
    ).encode()
    rows = read_label_rows(data)
    assert rows == [
        LabelRow(2, "pytorch/pytorch", 12, "alice", "root-cause", ("memory/leak",), ""),
        LabelRow(
            3,
            "pytorch/pytorch",
            12,
            "alice",
            "impact",
            ("speed", "memory-use"),
            'a "quoted",\nmultiline note',
        ),
        LabelRow(6, "tensorflow/tensorflow", 7, "bob", "root-cause", ("threading",), ""),
    ]
    assert rows[0].item == "pytorch/pytorch#12"


def test_bad_encoding_names_the_line():
    data = b"item,annotator,dimension,value\na/b#1,al,rc,x\n" + b"a/b#2,J\xe9r\xf4me,rc,x\n"
    assert problems(data) == ["labels.csv:3: not UTF-8 (byte 0xe9); save the file as UTF-8"]


def test_header_must_have_the_columns():
    assert "missing column 'value'" in problems("item,annotator,dimension\n")[0]
    assert "unknown column 'score'" in problems("item,annotator,dimension,value,score\n")[0]
    assert problems("") == ["labels.csv: the file is empty"]


def test_every_bad_row_is_reported_with_its_line():
    found = problems(
        "item,annotator,dimension,value\n"
        "pytorch#12,alice,root-cause,x\n"
        "a/b#1,,root-cause,x\n"
        "a/b#1,alice,root-cause,x\n"
        "a/b#1,alice,root-cause,y\n"
        "a/b#1,alice\n"
    )
    assert found == [
        "labels.csv:2: item 'pytorch#12' is not owner/name#number",
        "labels.csv:3: annotator is empty",
        "labels.csv:5: alice labels root-cause of a/b#1 again (first on line 4)",
        "labels.csv:6: 2 cells, the header has 4",
    ]


def test_nul_character_is_refused():
    assert problems("item,annotator,dimension,value\na/b#1,al,rc,x\x00\n") == [
        "labels.csv:2: contains a NUL character"
    ]


def test_the_same_item_spelled_in_another_case_is_a_duplicate():
    found = problems(
        "item,annotator,dimension,value\n"
        "pytorch/pytorch#1,alice,root-cause,memory/leak\n"
        "PyTorch/PyTorch#1,alice,root-cause,threading\n"
    )
    assert found == [
        "labels.csv:3: alice labels root-cause of PyTorch/PyTorch#1 again (first on line 2)"
    ]


def test_a_column_named_twice_is_refused():
    assert problems("item,annotator,dimension,value,value\n") == [
        "labels.csv:1: column 'value' appears twice"
    ]


def test_a_cell_over_the_csv_field_limit_is_a_named_error():
    huge = "x" * 200_000
    found = problems(f"item,annotator,dimension,value,note\na/b#1,al,root-cause,x,{huge}\n")
    assert len(found) == 1
    assert found[0].startswith("labels.csv:2: not valid CSV: field larger than field limit")
