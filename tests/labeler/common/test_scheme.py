"""The labels check shared by the API, the page and the import."""

import pytest
from django.core.exceptions import ValidationError

from labeler.common.scheme import (
    CODES_PER_DIMENSION,
    codes_validate,
    labels_paths,
    labels_validate,
    name_normalise,
    study_scheme,
    study_scheme_by_id,
)
from taxonomy.services import codebook_freeze
from tests.labeler.factories import LabellingStudyFactory
from tests.taxonomy.factories import CategoryFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def scheme():
    return study_scheme(study=LabellingStudyFactory())


def errors(scheme, labels):
    with pytest.raises(ValidationError) as error:
        labels_validate(scheme=scheme, labels=labels)
    return {key: messages[0] for key, messages in error.value.message_dict.items()}


def test_good_labels_come_back_as_paths_in_codebook_order(scheme):
    chosen = labels_validate(
        scheme=scheme, labels={"root-cause": "memory/leak", "impact": ["memory-use", "speed"]}
    )
    assert labels_paths(chosen) == {
        "root-cause": ["memory/leak"],
        "impact": ["speed", "memory-use"],
    }


def test_a_plain_key_is_accepted_for_its_path(scheme):
    chosen = labels_validate(scheme=scheme, labels={"root-cause": "leak"})
    assert labels_paths(chosen) == {"root-cause": ["memory/leak"]}


def test_optional_dimension_may_be_left_out(scheme):
    chosen = labels_validate(scheme=scheme, labels={"root-cause": ["threading"], "impact": []})
    assert labels_paths(chosen) == {"root-cause": ["threading"]}


def test_unknown_dimension_is_named(scheme):
    found = errors(scheme, {"root-cause": "threading", "impakt": "speed"})
    assert list(found) == ["labels.impakt"]
    assert "did you mean 'impact'" in found["labels.impakt"]


def test_category_of_another_dimension(scheme):
    found = errors(scheme, {"root-cause": "speed"})
    assert found == {
        "labels.root-cause": "'speed' is a category of dimension 'impact', not of 'root-cause'"
    }


def test_parent_where_a_leaf_is_required(scheme):
    found = errors(scheme, {"root-cause": "memory"})
    assert found["labels.root-cause"] == (
        "'memory' has sub-categories; choose one of: memory/leak, memory/bloat"
    )


def test_missing_required_dimension(scheme):
    assert errors(scheme, {"impact": ["speed"]}) == {
        "labels.root-cause": "this dimension is required"
    }


def test_unknown_category_suggests_the_closest(scheme):
    found = errors(scheme, {"root-cause": "memory/leek"})
    assert "did you mean 'memory/leak'" in found["labels.root-cause"]


def test_several_values_for_a_single_choice_dimension_and_repeats(scheme):
    assert (
        "one category"
        in errors(scheme, {"root-cause": ["threading", "memory/leak"]})["labels.root-cause"]
    )
    assert (
        "twice"
        in errors(scheme, {"root-cause": "threading", "impact": ["speed", "speed"]})[
            "labels.impact"
        ]
    )


def test_a_parent_and_its_own_sub_category_are_not_given_together():
    study = LabellingStudyFactory()
    impact = study.codebook.dimensions.get(key="impact")
    speed = impact.categories.get(key="speed")
    CategoryFactory(dimension=impact, key="latency", parent=speed, position=2)
    scheme = study_scheme(study=study)

    assert errors(scheme, {"root-cause": "threading", "impact": ["speed", "speed/latency"]}) == {
        "labels.impact": "'speed/latency' is within 'speed': give one of the two, not both"
    }
    chosen = labels_validate(
        scheme=scheme, labels={"root-cause": "threading", "impact": ["speed/latency", "memory-use"]}
    )
    assert set(labels_paths(chosen)["impact"]) == {"speed/latency", "memory-use"}


def test_not_an_object(scheme):
    assert "labels" in errors(scheme, ["threading"])
    assert "not a category" in errors(scheme, {"root-cause": 3})["labels.root-cause"]


def test_every_problem_is_reported_at_once(scheme):
    found = errors(scheme, {"root-cause": "memory", "impact": "nope", "extra": "x"})
    assert set(found) == {"labels.root-cause", "labels.impact", "labels.extra"}


def test_a_frozen_scheme_is_loaded_once_per_process(django_assert_num_queries):
    study = LabellingStudyFactory()
    unfrozen = study_scheme(study=study)
    assert unfrozen.key is None
    with django_assert_num_queries(2):
        assert study_scheme(study=study).dimensions == unfrozen.dimensions

    codebook_freeze(codebook=study.codebook)
    frozen = study_scheme(study=study)
    assert frozen.key == (study.pk, study.codebook.pk, study.codebook.content_hash)
    with django_assert_num_queries(0):
        assert study_scheme(study=study) is frozen
        assert study_scheme_by_id(study_id=study.pk) is frozen
    assert [d.key for d in frozen.dimensions] == ["root-cause", "impact"]
    assert [c.path for c in frozen.children(frozen.by_path(frozen.dimensions[0])["memory"])] == [
        "memory/leak",
        "memory/bloat",
    ]


def code_errors(scheme, codes):
    with pytest.raises(ValidationError) as error:
        codes_validate(scheme=scheme, codes=codes)
    return {key: messages[0] for key, messages in error.value.message_dict.items()}


def test_codes_come_back_trimmed_and_collapsed_in_scheme_order(scheme):
    written = codes_validate(
        scheme=scheme,
        codes={
            "impact": ["  slow\n start "],
            "root-cause": ["Leak", "cache\u00a0 bloat"],
        },
    )
    assert written == {"root-cause": ["Leak", "cache bloat"], "impact": ["slow start"]}
    assert list(written) == ["root-cause", "impact"]
    assert codes_validate(scheme=scheme, codes={"impact": []}) == {}


def test_every_bad_code_is_named_by_dimension_and_place(scheme):
    assert code_errors(
        scheme,
        {
            "root-cause": ["leak", "   ", 7, "LEAK", "a\x00b"],
            "impakt": ["slow"],
            "impact": "slow",
        },
    ) == {
        "codes.root-cause[1]": "a code takes 1 to 120 characters; this one is empty",
        "codes.root-cause[2]": "must be text",
        "codes.root-cause[3]": "'LEAK' is given twice (also at [0])",
        "codes.root-cause[4]": "must not contain the NUL character",
        "codes.impakt": "the study does not code dimension 'impakt' (it codes: root-cause, "
        "impact); did you mean 'impact'?",
        "codes.impact": "must be a list of codes (text)",
    }


def test_codes_are_at_most_twenty_per_dimension_and_an_object(scheme):
    too_many = [f"code {n}" for n in range(CODES_PER_DIMENSION + 1)]
    assert code_errors(scheme, {"root-cause": too_many}) == {
        "codes.root-cause": "at most 20 codes per dimension (21 given)"
    }
    assert codes_validate(scheme=scheme, codes={"root-cause": too_many[:-1]})
    assert code_errors(scheme, ["leak"]) == {
        "codes": "must be an object of dimension key to a list of codes"
    }


def test_a_code_satisfies_a_required_dimension_only_when_codes_count(scheme):
    assert labels_validate(scheme=scheme, labels={}, coded=frozenset({"root-cause"})) == {}
    with pytest.raises(ValidationError) as error:
        labels_validate(scheme=scheme, labels={}, coded=frozenset({"impact"}))
    assert error.value.message_dict == {
        "labels.root-cause": ["this dimension is required: choose a category or write a code"]
    }
    assert errors(scheme, {}) == {"labels.root-cause": "this dimension is required"}


# Each reads as "leak" (or as nothing) but differs in its code points.
LOOKALIKES = [
    "\uff2c\uff25\uff21\uff2b",  # full-width
    "le\u200bak",  # zero-width space
    "\u202eleak\u202c",  # right-to-left override ... pop
    "l\u00adeak",  # soft hyphen
    "\ufeffleak\u2060",  # byte order mark, word joiner
]


@pytest.mark.parametrize("lookalike", LOOKALIKES)
def test_codes_that_only_look_different_are_one_code_given_twice(scheme, lookalike):
    assert code_errors(scheme, {"root-cause": ["leak", lookalike]}) == {
        "codes.root-cause[1]": "'leak' is given twice (also at [0])"
        if lookalike != "\uff2c\uff25\uff21\uff2b"
        else "'LEAK' is given twice (also at [0])"
    }
    assert codes_validate(scheme=scheme, codes={"root-cause": [lookalike]}) == {
        "root-cause": ["LEAK" if lookalike == "\uff2c\uff25\uff21\uff2b" else "leak"]
    }


@pytest.mark.parametrize("invisible", ["\u200b\u200b", "\u200e \u200f", "\u2066\u2069", "\ufeff"])
def test_a_code_of_invisible_characters_only_is_empty(scheme, invisible):
    assert code_errors(scheme, {"root-cause": ["leak", invisible]}) == {
        "codes.root-cause[1]": "a code takes 1 to 120 characters; this one is empty"
    }


def test_names_are_normalised_once_and_keep_what_is_visible():
    assert name_normalise("  \uff23\uff41\uff43\uff48\uff45\u200b   miss\u2069 ") == "Cache miss"
    assert name_normalise("\ufb01le café") == "file café"
    assert name_normalise(name_normalise("\uff2c\uff25\uff21\uff2b\u200d")) == "LEAK"
