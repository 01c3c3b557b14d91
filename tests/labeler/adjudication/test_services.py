"""Final labels: decided on their own when annotators agree, by a lead, or imported; reopened."""

import pytest
from django.core.exceptions import ValidationError

from config.api import CONFLICT
from labeler.adjudication.services import (
    final_labels_import,
    item_adjudicate,
    item_reopen,
    study_majority_set,
)
from labeler.common.label_csv import AnnotationFileError
from labeler.imports.label_import import label_import_store
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import FinalLabel, FinalLabelEvent, Study, StudyItem
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory, UserFactory
from tests.mining.factories import BugReportFactory, RepositoryFactory

pytestmark = pytest.mark.django_db

LEAK = {"root-cause": "memory/leak", "impact": ["speed"]}
BLOAT = {"root-cause": "memory/bloat", "impact": ["speed"]}
THREADS = {"root-cause": "threading"}


def make_study(overlap=2, items=2, majority=Study.Majority.LEAD):
    study = LabellingStudyFactory(overlap=overlap, majority=majority)
    for position in range(items):
        StudyItemFactory(study=study, position=position)
    return study


def label(study, user, labels):
    held = assignment_next(study=study, user=user)
    return assignment_submit(assignment_id=held.pk, user=user, labels=labels)


def label_item(study, *answers):
    """The first item of the study labelled by one new annotator per answer; the item."""
    done = [label(study, UserFactory(), labels) for labels in answers]
    assert len({a.item_id for a in done}) == 1
    return StudyItem.objects.get(pk=done[0].item_id)


def finals(item):
    return {
        label.dimension.key: (label.values, label.method)
        for label in FinalLabel.objects.filter(item=item).select_related("dimension")
    }


def events(item):
    return [
        (e.kind, e.dimension.key, e.values, e.method)
        for e in FinalLabelEvent.objects.filter(item=item).order_by("created_at", "pk")
    ]


def decide(value, rationale="the fix frees the cache", reason="codebook_ambiguity"):
    return {"value": value, "rationale": rationale, "reason": reason}


def test_a_unanimous_item_becomes_final_when_complete():
    study = make_study()
    first = label(study, UserFactory(), LEAK)
    item = StudyItem.objects.get(pk=first.item_id)
    assert item.adjudicated_at is None
    assert finals(item) == {}

    label(study, UserFactory(), LEAK)

    item.refresh_from_db()
    assert item.adjudicated_at is not None
    assert item.first_final_at == item.adjudicated_at
    assert finals(item) == {
        "root-cause": (["memory/leak"], "unanimous"),
        "impact": (["speed"], "unanimous"),
    }
    root = FinalLabel.objects.get(item=item, dimension__key="root-cause")
    assert [c.path for c in root.categories.all()] == ["memory/leak"]
    assert (root.decided_by, root.reason, root.rationale) == (None, "", "")
    assert events(item) == [
        ("decided", "root-cause", ["memory/leak"], "unanimous"),
        ("decided", "impact", ["speed"], "unanimous"),
    ]


def test_an_optional_dimension_left_empty_by_all_is_unanimous():
    study = make_study()
    item = label_item(study, THREADS, THREADS)
    assert finals(item)["impact"] == ([], "unanimous")
    assert item.adjudicated_at is not None


def test_a_split_dimension_waits_for_a_lead_and_the_agreed_one_is_decided():
    study = make_study()
    item = label_item(study, LEAK, BLOAT)
    assert item.adjudicated_at is None
    assert finals(item) == {"impact": (["speed"], "unanimous")}


def test_majority_goes_to_a_lead_by_default_and_is_accepted_when_the_study_says_so():
    lead_study = make_study(overlap=3)
    item = label_item(lead_study, LEAK, LEAK, BLOAT)
    assert finals(item) == {"impact": (["speed"], "unanimous")}
    assert item.adjudicated_at is None

    auto_study = make_study(overlap=3, majority=Study.Majority.AUTO)
    item = label_item(auto_study, LEAK, LEAK, BLOAT)
    assert finals(item)["root-cause"] == (["memory/leak"], "majority")
    assert item.adjudicated_at is not None


def test_a_revision_of_a_final_item_is_a_conflict_saying_how_it_became_final():
    study = make_study()
    alice = UserFactory()
    mine = label(study, alice, LEAK)
    label(study, UserFactory(), LEAK)

    with pytest.raises(ValidationError) as error:
        assignment_submit(assignment_id=mine.pk, user=alice, labels=THREADS)

    assert error.value.code == CONFLICT
    assert "is final since" in error.value.message
    assert "root-cause: unanimous; impact: unanimous" in error.value.message
    assert "unless a lead reopens it" in error.value.message
    assert FinalLabel.objects.get(item_id=mine.item_id, dimension__key="root-cause").values == [
        "memory/leak"
    ]


def test_a_revision_of_a_complete_item_not_final_redoes_the_automatic_decisions():
    study = make_study()
    alice, bob = UserFactory(), UserFactory()
    mine = label(study, alice, LEAK)
    label(study, bob, {"root-cause": "memory/bloat", "impact": ["speed"]})
    item = StudyItem.objects.get(pk=mine.item_id)
    assert finals(item) == {"impact": (["speed"], "unanimous")}

    # Alice changes her impact: it is no longer unanimous, the automatic label goes.
    assignment_submit(assignment_id=mine.pk, user=alice, labels={**LEAK, "impact": ["memory-use"]})
    assert finals(item) == {}
    assert events(item)[-1] == ("reopened", "impact", ["speed"], "unanimous")
    reopened = FinalLabelEvent.objects.filter(item=item).last()
    assert "revised" in reopened.rationale

    # Then she agrees with Bob on everything: the item becomes final.
    assignment_submit(assignment_id=mine.pk, user=alice, labels=BLOAT)
    item.refresh_from_db()
    assert item.adjudicated_at is not None
    assert finals(item) == {
        "root-cause": (["memory/bloat"], "unanimous"),
        "impact": (["speed"], "unanimous"),
    }


def test_a_lead_decides_the_disputed_dimension_and_the_item_becomes_final():
    study = make_study()
    item = label_item(study, LEAK, BLOAT)
    lead = UserFactory(username="carol")

    item = item_adjudicate(
        item_id=item.pk, user=lead, decisions={"root-cause": decide("memory/leak")}
    )

    assert item.adjudicated_at is not None
    root = FinalLabel.objects.get(item=item, dimension__key="root-cause")
    assert (root.values, root.method, root.decided_by, root.reason) == (
        ["memory/leak"],
        "adjudicated",
        lead,
        "codebook_ambiguity",
    )
    assert root.rationale == "the fix frees the cache"
    assert events(item)[-1] == ("decided", "root-cause", ["memory/leak"], "adjudicated")
    # And a revision now says who decided.
    mine = item.assignments.first()
    with pytest.raises(ValidationError, match="root-cause: adjudicated by carol"):
        assignment_submit(assignment_id=mine.pk, user=mine.annotator, labels=LEAK)


def test_a_lead_may_enter_an_answer_nobody_gave_and_replace_an_automatic_one():
    study = make_study(overlap=3)
    item = label_item(study, LEAK, LEAK, BLOAT)
    lead = UserFactory()

    item_adjudicate(
        item_id=item.pk,
        user=lead,
        decisions={
            "root-cause": decide("threading", reason="annotator_slip"),
            "impact": decide(["speed", "memory-use"], reason="report_unclear"),
        },
    )

    assert finals(item) == {
        "root-cause": (["threading"], "adjudicated"),
        "impact": (["speed", "memory-use"], "adjudicated"),
    }
    assert events(item)[-3:] == [
        ("reopened", "impact", ["speed"], "unanimous"),
        ("decided", "root-cause", ["threading"], "adjudicated"),
        ("decided", "impact", ["speed", "memory-use"], "adjudicated"),
    ]


def test_a_decision_on_part_of_the_disputes_leaves_the_item_waiting():
    study = make_study()
    item = label_item(study, LEAK, {"root-cause": "memory/bloat", "impact": ["memory-use"]})

    item = item_adjudicate(
        item_id=item.pk, user=UserFactory(), decisions={"impact": decide(["speed"])}
    )

    assert item.adjudicated_at is None
    assert finals(item) == {"impact": (["speed"], "adjudicated")}


@pytest.mark.parametrize(
    ("decisions", "field", "words"),
    [
        ({"root-cause": decide("memory")}, "decisions.root-cause.value", "sub-categories"),
        ({"root-cause": decide("memory/leek")}, "decisions.root-cause.value", "did you mean"),
        ({"root-cause": decide(None)}, "decisions.root-cause.value", "required"),
        ({"root-kause": decide("threading")}, "decisions.root-kause.value", "does not label"),
        (
            {"root-cause": decide("threading", rationale=" ")},
            "decisions.root-cause.rationale",
            "rationale",
        ),
        (
            {"root-cause": decide("threading", reason="bored")},
            "decisions.root-cause.reason",
            "codebook_ambiguity",
        ),
        ({"root-cause": "threading"}, "decisions.root-cause", "value, rationale and reason"),
        ({}, "decisions", "at least one"),
    ],
)
def test_bad_decisions_are_named_and_nothing_is_written(decisions, field, words):
    study = make_study()
    item = label_item(study, LEAK, BLOAT)
    before = events(item)

    with pytest.raises(ValidationError) as error:
        item_adjudicate(item_id=item.pk, user=UserFactory(), decisions=decisions)

    assert words in error.value.message_dict[field][0]
    assert events(item) == before
    assert finals(item) == {"impact": (["speed"], "unanimous")}


def test_every_bad_decision_is_reported_at_once():
    study = make_study()
    item = label_item(study, LEAK, BLOAT)
    decisions = {
        "root-cause": decide("memory", rationale=""),
        "impact": decide(["speed"], reason="meh"),
    }
    with pytest.raises(ValidationError) as error:
        item_adjudicate(item_id=item.pk, user=UserFactory(), decisions=decisions)
    assert set(error.value.message_dict) == {
        "decisions.root-cause.value",
        "decisions.root-cause.rationale",
        "decisions.impact.reason",
    }


def test_only_complete_items_not_final_are_adjudicated():
    study = make_study()
    final = label_item(study, LEAK, LEAK)
    with pytest.raises(ValidationError, match="is final") as error:
        item_adjudicate(
            item_id=final.pk, user=UserFactory(), decisions={"root-cause": decide("threading")}
        )
    assert error.value.code == CONFLICT

    half = label_item(study, LEAK)
    with pytest.raises(ValidationError, match="1 of its 2 annotations") as error:
        item_adjudicate(
            item_id=half.pk, user=UserFactory(), decisions={"root-cause": decide("threading")}
        )
    assert error.value.code == CONFLICT


def test_reopening_withdraws_final_labels_keeps_the_first_final_time_and_allows_revision():
    study = make_study()
    alice = UserFactory()
    mine = label(study, alice, LEAK)
    label(study, UserFactory(), LEAK)
    item = StudyItem.objects.get(pk=mine.item_id)
    first_final = item.first_final_at
    lead = UserFactory(username="carol")

    item_reopen(item_id=item.pk, user=lead, rationale="the report says it is a bloat")

    item.refresh_from_db()
    assert (item.adjudicated_at, item.first_final_at) == (None, first_final)
    assert finals(item) == {}
    reopened = FinalLabelEvent.objects.filter(item=item, kind="reopened")
    assert {(e.dimension.key, e.user, e.rationale) for e in reopened} == {
        ("root-cause", lead, "the report says it is a bloat"),
        ("impact", lead, "the report says it is a bloat"),
    }
    # A revision is allowed again, and a reopened item waits for a lead even when unanimous.
    assignment_submit(assignment_id=mine.pk, user=alice, labels=LEAK)
    item.refresh_from_db()
    assert item.adjudicated_at is None
    assert finals(item) == {}


def test_reopening_one_dimension():
    study = make_study()
    item = label_item(study, LEAK, LEAK)

    item_reopen(item_id=item.pk, user=UserFactory(), rationale="check", dimensions=["impact"])

    item.refresh_from_db()
    assert item.adjudicated_at is None
    assert finals(item) == {"root-cause": (["memory/leak"], "unanimous")}
    item = item_adjudicate(
        item_id=item.pk, user=UserFactory(), decisions={"impact": decide(["memory-use"])}
    )
    assert item.adjudicated_at is not None


@pytest.mark.parametrize(
    ("options", "field", "words"),
    [
        ({"rationale": ""}, "rationale", "give a rationale"),
        ({"rationale": "x", "dimensions": ["severity"]}, "dimensions", "does not label"),
        ({"rationale": "x", "dimensions": []}, "dimensions", "at least one"),
    ],
)
def test_reopening_needs_a_rationale_and_known_dimensions(options, field, words):
    study = make_study()
    item = label_item(study, LEAK, LEAK)
    with pytest.raises(ValidationError) as error:
        item_reopen(item_id=item.pk, user=UserFactory(), **options)
    assert words in error.value.message_dict[field][0]
    item.refresh_from_db()
    assert item.adjudicated_at is not None


def test_reopening_a_dimension_with_no_final_label_or_an_item_with_none():
    study = make_study()
    item = label_item(study, LEAK, BLOAT)
    with pytest.raises(ValidationError) as error:
        item_reopen(item_id=item.pk, user=UserFactory(), rationale="x", dimensions=["root-cause"])
    assert "no final label" in error.value.message_dict["dimensions"][0]
    blank = StudyItemFactory(study=study, position=9)
    with pytest.raises(ValidationError, match="no final label to reopen") as error:
        item_reopen(item_id=blank.pk, user=UserFactory(), rationale="x")
    assert error.value.code == CONFLICT


def test_a_policy_of_automatic_majority_decides_the_waiting_items_at_once():
    study = make_study(overlap=3, items=2)
    split = label_item(study, LEAK, LEAK, BLOAT)
    assert split.adjudicated_at is None

    finalised = study_majority_set(study=study, majority=Study.Majority.AUTO)

    assert finalised == 1
    split.refresh_from_db()
    assert split.adjudicated_at is not None
    assert finals(split)["root-cause"] == (["memory/leak"], "majority")
    assert Study.objects.get(pk=study.pk).majority == "auto"


def test_a_policy_change_leaves_reopened_items_to_the_lead_and_refuses_unknown_policies():
    study = make_study(overlap=3)
    item = label_item(study, LEAK, LEAK, LEAK)
    item_reopen(item_id=item.pk, user=UserFactory(), rationale="look again")
    assert study_majority_set(study=study, majority=Study.Majority.AUTO) == 0
    item.refresh_from_db()
    assert item.adjudicated_at is None

    with pytest.raises(ValidationError) as error:
        study_majority_set(study=study, majority="always")
    assert "auto, lead" in error.value.message_dict["majority"][0]


def test_items_completed_before_final_labels_existed_are_decided_by_a_policy_change():
    study = make_study()
    item = label_item(study, LEAK, LEAK)
    FinalLabel.objects.all().delete()
    StudyItem.objects.filter(pk=item.pk).update(adjudicated_at=None, first_final_at=None)

    assert study_majority_set(study=study, majority=Study.Majority.LEAD) == 1
    item.refresh_from_db()
    assert item.adjudicated_at is not None


def test_imported_labels_that_complete_an_item_are_decided_like_the_apps():
    study = LabellingStudyFactory(overlap=2)
    repository = RepositoryFactory(owner="pytorch", name="pytorch")
    item = StudyItemFactory(study=study, report=BugReportFactory(repository=repository, number=1))
    csv = (
        "item,annotator,dimension,value\n"
        "pytorch/pytorch#1,alice,root-cause,memory/leak\n"
        "pytorch/pytorch#1,bob,root-cause,memory/leak\n"
        "pytorch/pytorch#1,bob,impact,speed\n"
    )

    label_import_store(study=study, data=csv.encode(), source="old.csv")

    item.refresh_from_db()
    assert item.adjudicated_at is None
    assert finals(item) == {"root-cause": (["memory/leak"], "unanimous")}


@pytest.fixture
def disputed_sheet_study():
    """A study of two items, pytorch/pytorch#1 and #2; the first labelled in dispute."""
    study = LabellingStudyFactory(slug="sheet", overlap=2)
    repository = RepositoryFactory(owner="pytorch", name="pytorch")
    for number in (1, 2):
        StudyItemFactory(
            study=study,
            position=number,
            report=BugReportFactory(repository=repository, number=number),
        )
    label_item(study, LEAK, BLOAT)
    return study


def import_final(study, text):
    return final_labels_import(study=study, data=text.encode(), source="final.csv")


def test_imported_final_labels_make_their_items_final_with_the_method_imported(
    disputed_sheet_study,
):
    summary = import_final(
        disputed_sheet_study,
        "item,annotator,dimension,value,note\n"
        "pytorch/pytorch#1,carol,root-cause,memory/leak,see the fix\n"
        "pytorch/pytorch#1,carol,impact,speed;memory-use,\n"
        "pytorch/pytorch#2,dave,root-cause,threading,\n",
    )

    assert (summary.items, summary.labels, summary.replaced) == (2, 4, 1)
    first, second = disputed_sheet_study.items.order_by("position")
    assert first.adjudicated_at is not None and second.adjudicated_at is not None
    assert finals(first) == {
        "root-cause": (["memory/leak"], "imported"),
        "impact": (["speed", "memory-use"], "imported"),
    }
    assert finals(second) == {"root-cause": (["threading"], "imported"), "impact": ([], "imported")}
    label = FinalLabel.objects.get(item=first, dimension__key="root-cause")
    assert (label.decided_by, label.rationale) == (
        None,
        "imported from final.csv, decided by carol: see the fix",
    )
    # The automatic label of the disputed item's agreed impact was replaced, and the history
    # says so.
    assert events(first)[0] == ("decided", "impact", ["speed"], "unanimous")
    assert events(first)[1] == ("reopened", "impact", ["speed"], "unanimous")


def test_imported_final_labels_are_checked_first_every_problem_by_line(disputed_sheet_study):
    item = disputed_sheet_study.items.order_by("position").first()
    item_adjudicate(
        item_id=item.pk, user=UserFactory(), decisions={"root-cause": decide("memory/leak")}
    )

    with pytest.raises(AnnotationFileError) as error:
        import_final(
            disputed_sheet_study,
            "item,annotator,dimension,value\n"
            "pytorch/pytorch#1,carol,root-cause,threading\n"
            "pytorch/pytorch#2,carol,root-cause,\n"
            "pytorch/pytorch#2,dave,impact,speed\n"
            "pytorch/pytorch#3,carol,root-cause,threading\n"
            "pytorch/pytorch#2,carol,impact,sped\n",
        )

    assert error.value.problems == [
        "final.csv:2: pytorch/pytorch#1 is final already in study sheet; reopen it first",
        "final.csv:3: pytorch/pytorch#2: one final label per item, not carol, dave's",
        "final.csv:5: pytorch/pytorch#3 is not an item of study sheet; add it first",
    ]
    assert not FinalLabel.objects.filter(method="imported").exists()
