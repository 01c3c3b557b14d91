"""The codebook file on plain text: good files, every kind of bad one, and writing it back."""

import dataclasses
import textwrap
import time

import pytest

from taxonomy.builtin import builtin_names, builtin_path
from taxonomy.codebook_file import (
    CodebookFileError,
    RevisesSpec,
    codebook_yaml,
    parse_codebook,
    read_codebook_file,
)

GOOD = textwrap.dedent(
    """\
    key: perf
    name: Performance root causes
    version: "2.1"
    description: For tests.
    source: A study.
    dimensions:
      - key: root-cause
        name: Root cause
        help: Why was it slow?
        leaf_only: true
        categories:
          - key: memory
            name: Memory
            definition: Memory is wasted.
            examples: ["a leak"]
          - key: unreleased
            parent: memory
            name: Unreleased memory
          - key: other
            name: Other
      - key: impact
        name: Impact
        multiple: true
        required: false
        categories:
          - key: speed
            name: Speed
    """
)


def problems_of(text: str) -> list[str]:
    with pytest.raises(CodebookFileError) as caught:
        parse_codebook(text, "book.yaml")
    return [str(problem) for problem in caught.value.problems]


def test_good_file_gives_dimensions_categories_and_key_paths():
    spec = parse_codebook(GOOD, "book.yaml")

    assert (spec.key, spec.name, spec.version) == ("perf", "Performance root causes", "2.1")
    root_cause, impact = spec.dimensions
    assert root_cause.leaf_only and not root_cause.multiple and root_cause.required
    assert impact.multiple and not impact.required
    assert [c.path for c in root_cause.categories] == ["memory", "memory/unreleased", "other"]
    assert root_cause.categories[0].examples == ("a leak",)


def test_parent_may_come_after_its_child():
    text = textwrap.dedent(
        """\
        key: perf
        name: Perf
        version: "1"
        dimensions:
          - key: cause
            name: Cause
            categories:
              - key: leak
                parent: memory
                name: Leak
              - key: memory
                name: Memory
        """
    )
    (dimension,) = parse_codebook(text).dimensions
    assert [c.path for c in dimension.categories] == ["memory/leak", "memory"]


def test_unknown_field_is_named_with_its_line():
    text = GOOD.replace("    help: Why was it slow?\n", "    hint: Why was it slow?\n")
    assert problems_of(text) == [
        "book.yaml:9: dimensions[0].hint: unknown field 'hint' in a dimension "
        "(allowed: categories, help, key, leaf_only, multiple, name, required)"
    ]


def test_duplicate_category_key_points_at_the_second_one():
    text = GOOD.replace("      - key: other\n", "      - key: memory\n")
    assert problems_of(text) == [
        "book.yaml:19: dimensions[0].categories[2].key: duplicate category key 'memory' "
        "(first used at categories[0])"
    ]


def test_duplicate_field_in_yaml_mapping_is_refused():
    text = GOOD.replace('version: "2.1"\n', 'version: "2.1"\nversion: "3"\n')
    assert problems_of(text) == ["book.yaml:4: version: field 'version' appears twice"]


def test_child_under_missing_parent():
    text = GOOD.replace("parent: memory", "parent: memroy")
    assert problems_of(text) == [
        "book.yaml:17: dimensions[0].categories[1].parent: parent 'memroy' of category "
        "'unreleased' is not a category of this dimension"
    ]


def test_cycle_is_refused_with_the_loop_spelled_out():
    text = GOOD.replace(
        "      - key: memory\n        name: Memory\n",
        "      - key: memory\n        parent: unreleased\n        name: Memory\n",
    )
    problems = problems_of(text)
    assert "categories form a cycle: memory -> unreleased -> memory" in problems[0]
    assert problems[0].startswith("book.yaml:13: dimensions[0].categories[0].parent")


def test_dimension_without_categories():
    text = GOOD.replace(
        "    categories:\n      - key: speed\n        name: Speed\n", "    categories: []\n"
    )
    assert problems_of(text) == [
        "book.yaml:21: dimensions[1]: a dimension needs at least one category under 'categories'"
    ]


def test_several_problems_are_reported_together():
    text = GOOD.replace("key: perf", "key: Perf Book").replace("multiple: true", "multiple: maybe")
    problems = problems_of(text)
    assert len(problems) == 2
    assert "key 'Perf Book' must be lowercase" in problems[1] or "key 'Perf Book'" in problems[0]
    assert any("'multiple' must be true or false, not 'maybe'" in p for p in problems)


def test_missing_required_fields():
    problems = problems_of("key: x\ndimensions: []\n")
    assert "book.yaml:1: (document): missing required field 'name'" in problems
    assert "book.yaml:1: (document): missing required field 'version'" in problems
    assert any("non-empty list of 'dimensions'" in p for p in problems)


def test_invalid_yaml_names_the_line():
    problems = problems_of("key: x\nname: [unclosed\nversion: 1\n")
    assert len(problems) == 1
    assert problems[0].startswith("book.yaml:3: (document): not valid YAML")


def test_empty_and_non_mapping_documents():
    assert problems_of("") == ["book.yaml: (document): the file is empty"]
    assert problems_of("- a\n- b\n") == [
        "book.yaml:1: (document): a codebook must be a mapping of fields, not list"
    ]


def test_missing_and_undecodable_files(tmp_path):
    with pytest.raises(CodebookFileError, match="no such file"):
        read_codebook_file(tmp_path / "absent.yaml")
    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes("name: caf\xe9\n".encode("latin-1"))
    with pytest.raises(CodebookFileError, match=r"not UTF-8 text \(byte 9\)"):
        read_codebook_file(latin1)


def test_a_folder_is_not_a_codebook_file(tmp_path):
    with pytest.raises(CodebookFileError, match="a folder, not a file"):
        read_codebook_file(tmp_path)


BILLION_LAUGHS = textwrap.dedent(
    """\
    key: laughs
    name: Laughs
    version: "1"
    a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
    b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
    c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
    d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
    e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
    f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
    g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
    h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
    i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]
    dimensions: *i
    """
)


def test_a_billion_laughs_is_refused_at_its_first_alias_without_expanding_it():
    started = time.monotonic()

    problems = problems_of(BILLION_LAUGHS)

    assert time.monotonic() - started < 1
    assert problems == [
        "book.yaml:5: (document): aliases are not allowed in a codebook file (found *a): "
        "write the value out where it is used"
    ]


def test_an_alias_inside_its_own_anchor_is_refused():
    text = GOOD.replace("dimensions:\n", "dimensions: &self\n  - *self\n", 1)

    assert problems_of(text) == [
        "book.yaml:7: (document): aliases are not allowed in a codebook file (found *self): "
        "write the value out where it is used"
    ]


def test_a_merge_key_is_an_alias_too():
    text = GOOD + "extra: &base {key: x}\nmore:\n  <<: *base\n"

    assert problems_of(text) == [
        "book.yaml:30: (document): aliases are not allowed in a codebook file (found *base): "
        "write the value out where it is used"
    ]


def test_an_anchor_without_alias_is_harmless():
    spec = parse_codebook(GOOD.replace("name: Root cause", "name: &rc Root cause"), "book.yaml")

    assert spec.dimensions[0].name == "Root cause"


def test_deep_nesting_is_refused_with_its_line():
    deep = "[" * 50_000 + "]" * 50_000
    text = f"key: deep\nname: Deep\nversion: '1'\ndimensions:\n  - {deep}\n"

    problems = problems_of(text)

    assert problems == ["book.yaml:5: (document): nested deeper than 50 levels"]


REVISION = GOOD.replace('version: "2.1"', 'version: "3.0"').replace(
    "dimensions:\n",
    textwrap.dedent(
        """\
        revises:
          version: "2.1"
          mapping:
            root-cause:
              memory: [memory]
              memory/unreleased: [memory/unreleased, other]
              other: other
            impact:
              speed: []
        dimensions:
        """
    ),
    1,
)


def test_a_revises_block_gives_the_old_version_and_its_mapping():
    spec = parse_codebook(REVISION, "book.yaml")

    assert spec.revises == RevisesSpec(
        version="2.1",
        mapping={
            "root-cause": {
                "memory": ("memory",),
                "memory/unreleased": ("memory/unreleased", "other"),
                "other": ("other",),
            },
            "impact": {"speed": ()},
        },
    )
    assert parse_codebook(GOOD).revises is None


def test_a_bad_revises_block_names_each_problem_with_its_line():
    text = REVISION.replace("other: other", "other: {a: b}").replace("speed: []", "speed: [1]")
    text = text.replace('  version: "2.1"\n', "  versoin: 2.1\n")

    assert problems_of(text) == [
        "book.yaml:7: revises.versoin: unknown field 'versoin' in the 'revises' block "
        "(allowed: mapping, version)",
        "book.yaml:7: revises: missing required field 'version'",
        "book.yaml:12: revises.mapping.root-cause.other: must be a list of new key paths "
        "([] if removed)",
        "book.yaml:14: revises.mapping.impact.speed: must be a list of new key paths "
        "([] if removed)",
    ]
    assert problems_of(REVISION.replace("    impact:\n      speed: []\n", "    impact: 3\n")) == [
        "book.yaml:13: revises.mapping.impact: must map each old key path to a list of "
        "new key paths"
    ]
    assert problems_of(GOOD.replace("dimensions:\n", "revises: {version: '1'}\ndimensions:\n"))[
        0
    ] == (
        "book.yaml:6: revises: 'mapping' must map each dimension key to "
        "{old key path: [new key paths]}"
    )


@pytest.mark.parametrize("text", [GOOD, REVISION], ids=["plain", "revision"])
def test_codebook_yaml_reads_back_into_an_equal_spec(text):
    spec = parse_codebook(text)

    written = codebook_yaml(spec)

    assert parse_codebook(written) == spec
    assert codebook_yaml(parse_codebook(written)) == written


def test_codebook_yaml_writes_a_readable_file():
    spec = parse_codebook(REVISION)
    spec = dataclasses.replace(spec, description="Two lines:\nthe second.", name="Ünïcode 2.0")

    written = codebook_yaml(spec)

    assert written.startswith("key: perf\nname: Ünïcode 2.0\nversion: '3.0'\n")
    assert "description: |-\n  Two lines:\n  the second.\n" in written
    assert "      memory/unreleased:\n        - memory/unreleased\n        - other\n" in written
    assert "      speed: []\n" in written
    assert (
        "  - key: unreleased\n        parent: memory\n        name: Unreleased memory\n" in written
    )
    assert "definition" not in written.split("key: unreleased")[1].split("key: other")[0]
    assert parse_codebook(written) == spec


def test_every_builtin_codebook_round_trips():
    for name in builtin_names():
        spec = read_codebook_file(builtin_path(name))
        assert parse_codebook(codebook_yaml(spec)) == spec, name
