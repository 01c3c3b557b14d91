"""Reads of adjudication: the queue, an item side by side, final labels and who sees them."""

import pytest

from labeler.adjudication.selectors import (
    final_labels_visible,
    item_decisions,
    item_decisions_visible,
    item_side_by_side,
    study_disagreements,
)
from labeler.adjudication.services import item_adjudicate, item_reopen, study_majority_set
from labeler.common.permissions import study_access
from labeler.common.scheme import study_scheme
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import Study, StudyItem
from tests.labeler.factories import (
    LabellingStudyFactory,
    StudyItemFactory,
    StudyMemberFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

LEAK = {"root-cause": "memory/leak", "impact": ["speed"]}
BLOAT = {"root-cause": "memory/bloat", "impact": ["speed"]}
THREADS = {"root-cause": "threading", "impact": ["speed"]}
SLOW_THREADS = {"root-cause": "threading", "impact": ["memory-use"]}


@pytest.fixture
def three_way_study():
    study = LabellingStudyFactory(overlap=3, slug="perf")
    for position in range(6):
        StudyItemFactory(study=study, position=position)
    return study


@pytest.fixture
def three_annotators(three_way_study):
    users = [UserFactory(username=name) for name in ("cleo", "abe", "bea")]
    for user in users:
        StudyMemberFactory(study=three_way_study, user=user, role="annotator")
    return users


def label_next(study, people, answers):
    """The next item labelled by each of `people` with their answer; the item."""
    done = []
    for user, labels in zip(people, answers, strict=False):
        held = assignment_next(study=study, user=user)
        done.append(assignment_submit(assignment_id=held.pk, user=user, labels=labels))
    return StudyItem.objects.get(pk=done[0].item_id)


def decide(value, reason="codebook_ambiguity"):
    return {"value": value, "rationale": "as the fix shows", "reason": reason}


@pytest.fixture
def split_items(three_way_study, three_annotators):
    """close: 2 of 3 on root-cause; final: unanimous; wide: three answers, and split impact;
    half: still short of an annotation."""
    return {
        "close": label_next(three_way_study, three_annotators, (LEAK, LEAK, BLOAT)),
        "final": label_next(three_way_study, three_annotators, (THREADS, THREADS, THREADS)),
        "wide": label_next(three_way_study, three_annotators, (LEAK, BLOAT, SLOW_THREADS)),
        "half": label_next(three_way_study, three_annotators[:2], (LEAK, BLOAT)),
    }


def queue(study, **options):
    entries = study_disagreements(study=study, scheme=study_scheme(study=study), **options)
    return [(entry.item_id, entry.disputed) for entry in entries]


def test_the_queue_lists_complete_items_not_final_most_split_first(three_way_study, split_items):
    close, wide = split_items["close"].pk, split_items["wide"].pk
    assert queue(three_way_study) == [(wide, ["root-cause", "impact"]), (close, ["root-cause"])]
    assert queue(three_way_study, ordering="-split") == [
        (close, ["root-cause"]),
        (wide, ["root-cause", "impact"]),
    ]
    assert queue(three_way_study, ordering="position") == queue(three_way_study, ordering="-split")
    assert queue(three_way_study, dimension="impact") == [(wide, ["root-cause", "impact"])]


def test_the_queue_shows_how_split_each_dimension_is(three_way_study, split_items):
    (entry,) = [
        e
        for e in study_disagreements(
            study=three_way_study, scheme=study_scheme(study=three_way_study)
        )
        if e.item_id == split_items["close"].pk
    ]
    root, impact = entry.dimensions
    assert (root.key, root.kind, root.answers, root.ratings, root.decided, root.disputed) == (
        "root-cause",
        "majority",
        2,
        3,
        False,
        True,
    )
    assert root.agreement == pytest.approx(2 / 3)
    assert (impact.kind, impact.decided, impact.disputed) == ("unanimous", True, False)
    assert entry.agreement == pytest.approx(2 / 3)


def test_a_decided_dimension_leaves_the_queue_and_a_final_item_leaves_it(
    three_way_study, split_items
):
    wide = split_items["wide"]
    lead = UserFactory()
    item_adjudicate(item_id=wide.pk, user=lead, decisions={"impact": decide(["speed"])})
    assert queue(three_way_study, dimension="impact") == []
    assert (wide.pk, ["root-cause"]) in queue(three_way_study)

    item_adjudicate(item_id=wide.pk, user=lead, decisions={"root-cause": decide("threading")})
    assert [item for item, _ in queue(three_way_study)] == [split_items["close"].pk]


def test_a_majority_accepted_by_the_policy_leaves_the_queue(three_way_study, split_items):
    study_majority_set(study=three_way_study, majority=Study.Majority.AUTO)
    assert [item for item, _ in queue(three_way_study)] == [split_items["wide"].pk]


def test_unanimous_items_are_listed_apart_final_or_reopened(
    three_way_study, split_items, three_annotators
):
    final = split_items["final"]
    label_next(
        three_way_study, three_annotators[2:], (LEAK,)
    )  # completes the item still short of one
    reopened = label_next(three_way_study, three_annotators, (LEAK, LEAK, LEAK))
    item_reopen(item_id=reopened.pk, user=UserFactory(), rationale="spot check")

    listed = study_disagreements(
        study=three_way_study, scheme=study_scheme(study=three_way_study), unanimous=True
    )

    assert {(e.item_id, e.final) for e in listed} == {(final.pk, True), (reopened.pk, False)}
    assert all(d.kind == "unanimous" for e in listed for d in e.dimensions)
    assert reopened.pk not in [item for item, _ in queue(three_way_study)]


def test_side_by_side_shows_each_answer_by_pseudonym_and_the_categories_in_dispute(
    three_way_study, split_items, three_annotators
):
    item = split_items["close"]
    cleo = item.assignments.get(annotator__username="cleo")
    cleo.note, cleo.unsure = "looks like a leak", True
    cleo.save()

    seen = item_side_by_side(item=item, scheme=study_scheme(study=three_way_study))

    assert (seen["item"], seen["report"]["id"], seen["final"]) == (item.pk, item.report_id, False)
    assert seen["disputed"] == ["root-cause"]
    assert [a["annotator"] for a in seen["annotators"]] == ["A1", "A2", "A3"]
    first = seen["annotators"][0]
    assert (first["labels"], first["note"], first["unsure"]) == (
        {"root-cause": ["memory/leak"], "impact": ["speed"]},
        "looks like a leak",
        True,
    )
    root, impact = seen["dimensions"]
    assert (root["key"], root["agreement"], root["disputed"], root["final"]) == (
        "root-cause",
        "majority",
        True,
        None,
    )
    assert root["answers"] == [
        {"values": ["memory/leak"], "annotators": ["A1", "A2"]},
        {"values": ["memory/bloat"], "annotators": ["A3"]},
    ]
    assert [c["path"] for c in root["categories"]] == ["memory/leak", "memory/bloat"]
    assert set(root["categories"][0]) == {
        "path",
        "name",
        "definition",
        "include",
        "exclude",
        "examples",
    }
    assert impact["final"]["method"] == "unanimous"
    assert seen["history"] == [
        {
            "kind": "decided",
            "dimension": "impact",
            "dimension_name": impact["name"],
            "values": ["speed"],
            "categories": [{"path": "speed", "name": impact["categories"][0]["name"]}],
            "method": "unanimous",
            "by": None,
            "rationale": "",
            "reason": "",
            "at": impact["final"]["decided_at"],
        }
    ]
    names = item_side_by_side(
        item=item, scheme=study_scheme(study=three_way_study), real_names=True
    )
    assert [a["annotator"] for a in names["annotators"]] == ["abe", "bea", "cleo"]


def test_item_decisions_mark_the_dimensions_annotators_disagreed_on(three_way_study, split_items):
    item = split_items["close"]
    lead = UserFactory(username="carol")
    item_adjudicate(item_id=item.pk, user=lead, decisions={"root-cause": decide("memory/leak")})
    item.refresh_from_db()

    seen = item_decisions(
        item=item, scheme=study_scheme(study=three_way_study), majority=three_way_study.majority
    )

    assert (seen["final"], seen["disagreed"]) == (True, ["root-cause"])
    assert [(d["dimension"], d["method"], d["decided_by"]) for d in seen["labels"]] == [
        ("root-cause", "adjudicated", "carol"),
        ("impact", "unanimous", None),
    ]
    assert [h["kind"] for h in seen["history"]] == ["decided", "decided"]


def access(user, study):
    return study_access(user=user, study=study)


def test_who_sees_final_labels(three_way_study, split_items, three_annotators):
    lead, researcher, labelling_lead, other = (UserFactory() for _ in range(4))
    StudyMemberFactory(study=three_way_study, user=lead, role="lead")
    StudyMemberFactory(study=three_way_study, user=researcher, role="researcher")
    StudyMemberFactory(study=three_way_study, user=labelling_lead, role="lead")
    StudyMemberFactory(study=three_way_study, user=labelling_lead, role="annotator")
    StudyMemberFactory(study=three_way_study, user=other, role="annotator")

    def seen(user):
        labels = final_labels_visible(
            study=three_way_study, user=user, access=access(user, three_way_study)
        )
        return {(label.item_id, label.dimension.key) for label in labels}

    final, close = split_items["final"].pk, split_items["close"].pk
    # Leads see labels as they are decided: the agreed impact of an item still in dispute too.
    assert seen(lead) == {(final, "root-cause"), (final, "impact"), (close, "impact")}
    final_only = {(final, "root-cause"), (final, "impact")}
    assert seen(researcher) == seen(labelling_lead) == seen(three_annotators[0]) == final_only
    assert seen(other) == set()


def test_who_sees_an_items_decisions(three_way_study, split_items, three_annotators):
    lead, researcher, other = UserFactory(), UserFactory(), UserFactory()
    StudyMemberFactory(study=three_way_study, user=lead, role="lead")
    StudyMemberFactory(study=three_way_study, user=researcher, role="researcher")
    StudyMemberFactory(study=three_way_study, user=other, role="annotator")

    def sees(user, item):
        return item_decisions_visible(item=item, user=user, access=access(user, three_way_study))

    final, close = split_items["final"], split_items["close"]
    assert [sees(u, final) for u in (lead, researcher, three_annotators[0], other)] == [
        True,
        True,
        True,
        False,
    ]
    assert [sees(u, close) for u in (lead, researcher, three_annotators[0])] == [True, False, False]
