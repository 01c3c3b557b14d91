"""The labels spreadsheet reader on plain bytes."""

import pytest

from labeler.common.label_csv import (
    MAX_PROBLEMS,
    AnnotationFileError,
    LabelRow,
    Problem,
    read_label_file,
    row_count,
)


def as_bytes(text: bytes | str) -> bytes:
    return text.encode() if isinstance(text, str) else text


def file_error(text: bytes | str) -> list[str]:
    """The problems of a file that cannot be read at all."""
    with pytest.raises(AnnotationFileError) as error:
        read_label_file(as_bytes(text), "labels.csv")
    return error.value.problems


def bad_rows(text: str) -> list[str]:
    return [problem.text for problem in read_label_file(as_bytes(text), "labels.csv").problems]


def test_good_file_with_multi_values_notes_and_a_bom():
    data = (
        "\ufeffitem,annotator,dimension,value,note\n"
        "pytorch/pytorch#12,alice,root-cause,memory/leak,\n"
        '"pytorch/pytorch#12",alice,impact,"speed; memory-use","a ""quoted"",\nmultiline note"\n'
        "\n"
        "tensorflow/tensorflow#7,bob,root-cause,threading,\n"
    ).encode()
    found = read_label_file(data)
    assert found.problems == []
    assert found.rows == [
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
    assert found.rows[0].item == "pytorch/pytorch#12"


def test_bad_encoding_names_the_line():
    data = b"item,annotator,dimension,value\na/b#1,al,rc,x\n" + b"a/b#2,J\xe9r\xf4me,rc,x\n"
    assert file_error(data) == ["labels.csv:3: not UTF-8 (byte 0xe9); save the file as UTF-8"]


def test_header_must_have_the_columns():
    assert "missing column 'value'" in file_error("item,annotator,dimension\n")[0]
    assert "unknown column 'score'" in file_error("item,annotator,dimension,value,score\n")[0]
    assert file_error("") == ["labels.csv: the file is empty"]


def test_every_bad_row_is_reported_with_its_line_and_the_good_rows_kept():
    found = read_label_file(
        as_bytes(
            "item,annotator,dimension,value\n"
            "pytorch#12,alice,root-cause,x\n"
            "a/b#1,,root-cause,x\n"
            "a/b#1,alice,root-cause,x\n"
            "a/b#1,alice,root-cause,y\n"
            "a/b#1,alice\n"
            "a/b#2,alice,root-cause,z\n"
        ),
        "labels.csv",
    )
    assert found.problems == [
        Problem(2, "labels.csv:2: item 'pytorch#12' is not owner/name#number"),
        Problem(3, "labels.csv:3: annotator is empty"),
        Problem(5, "labels.csv:5: alice labels root-cause of a/b#1 again (first on line 4)"),
        Problem(6, "labels.csv:6: 2 cells, the header has 4"),
    ]
    assert [(row.line, row.values) for row in found.rows] == [(4, ("x",)), (7, ("z",))]


def test_an_empty_value_is_a_row_with_no_category():
    found = read_label_file(
        b"item,annotator,dimension,value\na/b#1,al,impact,\na/b#1,al,stage, ; \n"
    )
    assert found.problems == []
    assert [(row.dimension, row.values) for row in found.rows] == [("impact", ()), ("stage", ())]


def test_nul_character_is_refused():
    assert file_error("item,annotator,dimension,value\na/b#1,al,rc,x\x00\n") == [
        "labels.csv:2: contains a NUL character"
    ]


def test_the_same_item_spelled_in_another_case_is_a_duplicate():
    found = bad_rows(
        "item,annotator,dimension,value\n"
        "pytorch/pytorch#1,alice,root-cause,memory/leak\n"
        "PyTorch/PyTorch#1,alice,root-cause,threading\n"
    )
    assert found == [
        "labels.csv:3: alice labels root-cause of PyTorch/PyTorch#1 again (first on line 2)"
    ]


def test_a_column_named_twice_is_refused():
    assert file_error("item,annotator,dimension,value,value\n") == [
        "labels.csv:1: column 'value' appears twice"
    ]


def test_a_cell_over_the_csv_field_limit_is_a_named_error():
    huge = "x" * 200_000
    found = file_error(f"item,annotator,dimension,value,note\na/b#1,al,root-cause,x,{huge}\n")
    assert len(found) == 1
    assert found[0].startswith("labels.csv:2: not valid CSV from this line on")
    assert found[0].endswith("field larger than field limit (131072)")


def test_broken_csv_is_reported_with_the_bad_rows_before_it():
    huge = "x" * 200_000
    found = file_error(
        "item,annotator,dimension,value,note\n"
        "a/b#1,,root-cause,x,\n"
        "a/b#1,al,root-cause,x,\n"
        "a/b#1,al,root-cause,y,\n"
        f"a/b#2,al,root-cause,x,{huge}\n"
    )
    assert found[:2] == [
        "labels.csv:2: annotator is empty",
        "labels.csv:4: al labels root-cause of a/b#1 again (first on line 3)",
    ]
    assert found[2].startswith("labels.csv:5: not valid CSV")
    assert len(found) == 3


def test_a_quote_left_open_is_reported_where_it_opened_even_in_the_header():
    rows = "a/b#1,al,root-cause,x\n" * 20_000
    assert file_error('"item,annotator,dimension,value\n' + rows)[0].startswith(
        "labels.csv:1: not valid CSV from this line on (a quote left open"
    )
    found = file_error('item,annotator,dimension,value\na/b#1,al,"root-cause,x\n' + rows)
    assert found[-1].startswith("labels.csv:2: not valid CSV from this line on")


def test_problems_come_in_line_order_and_past_the_cap_are_counted():
    problems = [Problem(line, f"l.csv:{line}: bad") for line in range(200, 1, -1)]
    problems.append(Problem(2, "l.csv:2: also bad"))

    error = AnnotationFileError.of(problems, "l.csv")

    assert error.count == 200
    assert len(error.problems) == MAX_PROBLEMS + 1
    assert error.problems[:3] == ["l.csv:2: bad", "l.csv:2: also bad", "l.csv:3: bad"]
    assert error.problems[-2] == f"l.csv:{MAX_PROBLEMS}: bad"
    assert error.problems[-1] == f"l.csv: … and {200 - MAX_PROBLEMS} more problems"


def test_the_row_count_is_the_imports_blank_rows_left_out_bad_ones_in():
    text = (
        "item,annotator,dimension,value\n"
        "a/b#1,ann,root-cause,x\n"
        "\n"
        " , \n"
        'a/b#2,ann,root-cause,"two\nlines"\n'
        "not an item,ann,root-cause,x\n"
    )
    found = read_label_file(as_bytes(text))

    assert row_count(as_bytes(text)) == 3 == len(found.rows) + len(found.problems)
    assert row_count(b"\xff\xfe") is None
    assert row_count(b"") == 0


def test_an_item_number_past_what_an_item_can_have_is_a_bad_row_naming_line_and_column():
    long = "9" * 5000
    text = (
        "item,annotator,dimension,value\n"
        "a/b#2147483647,ann,root-cause,x\n"
        "a/b#2147483648,ann,root-cause,x\n"
        "a/b#18446744073709551616,ann,impact,x\n"
        f"a/b#{long},ann,root-cause,y\n"
    )

    found = read_label_file(text.encode(), "labels.csv")

    assert [row.number for row in found.rows] == [2147483647]
    assert [problem.text for problem in found.problems] == [
        "labels.csv:3: item 'a/b#2147483648': the number is past 2,147,483,647, the largest an "
        "item can have",
        "labels.csv:4: item 'a/b#18446744073709551616': the number is past 2,147,483,647, the "
        "largest an item can have",
        f"labels.csv:5: item 'a/b#{'9' * 46}… (5000 digits)': the number is past 2,147,483,647, "
        "the largest an item can have",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "item,annotator,dimension,value\n",
        "item,annotator,dimension,value",
        "item,annotator,dimension,value\n,,,\n",
        "item,annotator,dimension,value,note\n , ,,,\n\n",
    ],
)
def test_a_file_with_no_row_after_its_header_is_refused(text):
    assert file_error(text) == [
        "labels.csv: no labels: the file has its header and no row with a cell filled in (rows "
        "of empty cells are skipped)"
    ]
