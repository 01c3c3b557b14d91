"""Codes written on submit in an open-coding study: resolved on the study's board, kept as
written in the history, replaced by revisions; and the codebook an open study starts from."""

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from labeler.adjudication.services import study_majority_set
from labeler.coding.services import codebook_open_create, key_from
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import Annotation, AnnotationVersion, Assignment, Board, Code, CodeUse
from taxonomy.models import Category, Codebook
from tests.labeler.factories import (
    LabellingStudyFactory,
    OpenStudyFactory,
    StudyItemFactory,
    UserFactory,
    labelling_codebook,
)

pytestmark = pytest.mark.django_db


def board(study):
    return Board.objects.get(study=study, kind=Board.Kind.OPEN)


def coded(study, user, codes, labels=None, **fields):
    held = assignment_next(study=study, user=user)
    return assignment_submit(
        assignment_id=held.pk, user=user, labels=labels or {}, codes=codes, **fields
    )


def uses(assignment):
    return sorted(
        CodeUse.objects.filter(assignment=assignment).values_list(
            "code__dimension__key", "code__name", "written_as"
        )
    )


def test_codes_become_uses_of_new_codes_and_the_version_keeps_them_as_written(open_study):
    alice = UserFactory()
    submitted = coded(
        open_study,
        alice,
        {"root-cause": ["  cache  never\tshrinks ", "Leak"], "symptom": ["OOM"]},
        note="memo: the cache holds every tensor",
    )

    written = {"root-cause": ["cache never shrinks", "Leak"], "symptom": ["OOM"]}
    assert submitted.codes == written
    assert uses(submitted) == [
        ("root-cause", "Leak", "Leak"),
        ("root-cause", "cache never shrinks", "cache never shrinks"),
        ("symptom", "OOM", "OOM"),
    ]
    version = AnnotationVersion.objects.get(assignment=submitted)
    assert (version.codes, version.labels, version.note) == (
        written,
        {},
        "memo: the cache holds every tensor",
    )
    code = Code.objects.get(name="Leak")
    assert (code.board, code.created_by, code.dimension.key) == (
        board(open_study),
        alice,
        "root-cause",
    )
    use = CodeUse.objects.get(written_as="OOM")
    assert (use.item_id, use.annotator, use.assignment_id) == (
        submitted.item_id,
        alice,
        submitted.pk,
    )
    assert not Annotation.objects.exists()


def test_a_written_name_counts_for_the_code_of_that_name_in_any_case_and_after_merges(open_study):
    alice, bob = UserFactory(), UserFactory()
    coded(open_study, alice, {"root-cause": ["memory leak", "mem leak"], "symptom": ["slow"]})
    # A lead merged "mem leak" into "memory leak" on the board.
    Code.objects.filter(name="mem leak").update(merged_into=Code.objects.get(name="memory leak"))
    CodeUse.objects.filter(written_as="mem leak").update(code=Code.objects.get(name="memory leak"))

    second = coded(
        open_study, bob, {"root-cause": ["Memory LEAK", "MEM LEAK"], "symptom": ["Slow"]}
    )

    assert uses(second) == [
        ("root-cause", "memory leak", "MEM LEAK"),
        ("root-cause", "memory leak", "Memory LEAK"),
        ("symptom", "slow", "Slow"),
    ]
    assert Code.objects.count() == 3
    assert second.codes == {"root-cause": ["Memory LEAK", "MEM LEAK"], "symptom": ["Slow"]}


def test_the_same_code_name_in_two_dimensions_is_two_codes(open_study):
    coded(open_study, UserFactory(), {"root-cause": ["memory"], "symptom": ["memory"]})
    assert sorted(Code.objects.values_list("dimension__key", "name")) == [
        ("root-cause", "memory"),
        ("symptom", "memory"),
    ]


def test_a_revision_replaces_the_uses_and_records_the_code_changes(open_study):
    alice = UserFactory()
    first = coded(open_study, alice, {"root-cause": ["leak", "cache"], "symptom": ["oom"]})
    kept = CodeUse.objects.get(written_as="cache")
    # The board split "cache" off to a code of its own since: the use stays there.
    split = Code.objects.create(
        board=board(open_study),
        dimension=kept.code.dimension,
        name="cache growth",
        created_at=timezone.now(),
    )
    CodeUse.objects.filter(pk=kept.pk).update(code=split)

    revised = assignment_submit(
        assignment_id=first.pk,
        user=alice,
        labels={},
        codes={"root-cause": ["cache", "lock contention"], "symptom": ["oom"]},
        version=1,
    )

    assert revised.version == 2
    assert uses(revised) == [
        ("root-cause", "cache growth", "cache"),
        ("root-cause", "lock contention", "lock contention"),
        ("symptom", "oom", "oom"),
    ]
    assert CodeUse.objects.get(written_as="cache").pk == kept.pk
    version = AnnotationVersion.objects.get(assignment=first, number=2)
    assert version.changes == {
        "codes.root-cause": {"from": ["leak", "cache"], "to": ["cache", "lock contention"]}
    }
    assert version.codes == {"root-cause": ["cache", "lock contention"], "symptom": ["oom"]}
    # The code nobody uses any more stays on the board, without uses.
    assert not Code.objects.get(name="leak").uses.exists()


def test_a_revision_that_only_reorders_the_codes_changes_none(open_study):
    alice = UserFactory()
    first = coded(open_study, alice, {"root-cause": ["leak", "cache"], "symptom": ["oom"]})
    before = set(CodeUse.objects.values_list("pk", flat=True))
    assignment_submit(
        assignment_id=first.pk,
        user=alice,
        labels={},
        codes={"root-cause": ["cache", "leak"], "symptom": ["oom"]},
    )
    assert AnnotationVersion.objects.get(assignment=first, number=2).changes == {}
    assert set(CodeUse.objects.values_list("pk", flat=True)) == before


def test_a_required_dimension_takes_a_category_or_a_code():
    study = OpenStudyFactory(codebook=labelling_codebook())
    StudyItemFactory(study=study)
    alice = UserFactory()
    held = assignment_next(study=study, user=alice)

    with pytest.raises(ValidationError) as refused:
        assignment_submit(assignment_id=held.pk, user=alice, labels={}, codes={})
    assert refused.value.message_dict == {
        "labels.root-cause": ["this dimension is required: choose a category or write a code"]
    }

    submitted = assignment_submit(
        assignment_id=held.pk,
        user=alice,
        labels={"impact": ["speed"]},
        codes={"root-cause": ["workers wait on a lock"]},
    )
    assert submitted.labels == {"impact": ["speed"]}
    assert submitted.codes == {"root-cause": ["workers wait on a lock"]}
    assert list(Annotation.objects.values_list("dimension__key", flat=True)) == ["impact"]


def test_bad_labels_and_bad_codes_are_refused_together_and_nothing_is_stored(open_study):
    alice = UserFactory()
    held = assignment_next(study=open_study, user=alice)
    with pytest.raises(ValidationError) as refused:
        assignment_submit(
            assignment_id=held.pk,
            user=alice,
            labels={"root-cause": "memory"},
            codes={"root-cause": ["leak", "x" * 121], "symptom": ["slow", " SLOW "]},
        )
    assert refused.value.message_dict == {
        "codes.root-cause[1]": ["a code takes at most 120 characters (121 given)"],
        "codes.symptom[1]": ["'SLOW' is given twice (also at [0])"],
        "labels.root-cause": ["no category 'memory' in dimension 'root-cause'"],
    }
    assert not CodeUse.objects.exists()
    assert not Code.objects.exists()
    assert Assignment.objects.get(pk=held.pk).status == "held"


def test_a_closed_study_refuses_codes_naming_them():
    study = LabellingStudyFactory()
    StudyItemFactory(study=study)
    alice = UserFactory()
    held = assignment_next(study=study, user=alice)
    with pytest.raises(ValidationError) as refused:
        assignment_submit(
            assignment_id=held.pk,
            user=alice,
            labels={"root-cause": "threading"},
            codes={"root-cause": ["lock"]},
        )
    assert list(refused.value.message_dict) == ["codes"]
    assert "closed-coding study" in refused.value.message_dict["codes"][0]
    assert not AnnotationVersion.objects.exists()


def test_a_frozen_board_refuses_changed_codes_but_not_a_revision_keeping_them(open_study):
    alice = UserFactory()
    first = coded(open_study, alice, {"root-cause": ["leak"], "symptom": ["oom"]})
    frozen = Codebook.objects.create(key="open-sorted", version="1", name="Sorted")
    Board.objects.filter(study=open_study).update(frozen_into=frozen, frozen_at=timezone.now())

    with pytest.raises(ValidationError) as refused:
        assignment_submit(
            assignment_id=first.pk,
            user=alice,
            labels={},
            codes={"root-cause": ["lock"], "symptom": ["oom"]},
        )
    assert refused.value.message_dict == {
        "codes": [
            "the study's codes were frozen into codebook open-sorted v1: they no longer change"
        ]
    }
    kept = assignment_submit(
        assignment_id=first.pk,
        user=alice,
        labels={},
        codes={"root-cause": ["leak"], "symptom": ["oom"]},
        note="still a leak",
    )
    assert kept.version == 2


def test_an_open_study_takes_no_automatic_decision_and_its_items_stay_revisable(open_study):
    alice, bob = UserFactory(), UserFactory()
    first = coded(open_study, alice, {"root-cause": ["leak"], "symptom": ["oom"]})
    coded(open_study, bob, {"root-cause": ["leak"], "symptom": ["oom"]})
    item = first.item
    item.refresh_from_db()
    assert (item.submitted, item.adjudicated_at) == (2, None)
    assert not item.final_labels.exists()

    assert study_majority_set(study=open_study, majority="auto") == 0
    revised = assignment_submit(
        assignment_id=first.pk,
        user=alice,
        labels={},
        codes={"root-cause": ["leak", "cache"], "symptom": ["oom"]},
    )
    assert revised.version == 2


def test_a_codebook_from_scratch_has_the_named_dimensions_and_no_category():
    codebook = codebook_open_create(
        slug="Perf_2024", name="Performance", dimension_names=[" root  cause", "Symptom"]
    )
    assert (codebook.key, codebook.version, codebook.name) == (
        "perf-2024",
        "open",
        "Performance: open coding",
    )
    assert list(codebook.dimensions.values_list("key", "name", "required", "multiple")) == [
        ("root-cause", "root cause", True, False),
        ("symptom", "Symptom", True, False),
    ]
    assert not Category.objects.filter(dimension__codebook=codebook).exists()


@pytest.mark.parametrize(
    ("names", "errors"),
    [
        (
            [],
            {"dimension_names": ["name at least one dimension to code, e.g. root cause, symptom"]},
        ),
        (
            ["root cause", "", "Root-Cause"],
            {
                "dimension_names[1]": ["a dimension needs a name"],
                "dimension_names[2]": [
                    "'Root-Cause' is the same dimension as 'root cause' (key 'root-cause')"
                ],
            },
        ),
        (["???"], {"dimension_names[0]": ["'???' gives no key: use letters or digits"]}),
    ],
)
def test_a_codebook_from_scratch_refuses_bad_dimension_names(names, errors):
    with pytest.raises(ValidationError) as refused:
        codebook_open_create(slug="perf", name="Perf", dimension_names=names)
    assert refused.value.message_dict == errors
    assert not Codebook.objects.exists()


def test_a_codebook_from_scratch_does_not_take_an_existing_open_version():
    codebook_open_create(slug="perf", name="Perf", dimension_names=["symptom"])
    with pytest.raises(ValidationError) as refused:
        codebook_open_create(slug="perf", name="Perf again", dimension_names=["symptom"])
    assert list(refused.value.message_dict) == ["slug"]


def test_keys_come_from_names_as_codebook_files_take_them():
    assert key_from("Root cause / symptom") == "root-cause-symptom"
    assert key_from("perf_2024--x") == "perf-2024-x"
