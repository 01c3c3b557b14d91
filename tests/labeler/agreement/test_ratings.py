"""The agreement read side: which ratings reach the statistics, and the JSON around them."""

import json

import pytest

from labeler.adjudication.services import item_adjudicate, item_reopen
from labeler.agreement.ratings import (
    NO_CATEGORY,
    annotator_names,
    item_batches,
    items_in_labelled_order,
    study_agreement,
    study_ratings,
)
from labeler.common.scheme import study_scheme
from labeler.imports.label_import import label_import_store
from labeler.labelling.services import assignment_next, assignment_skip, assignment_submit
from labeler.models import StudyItem
from tests.labeler.factories import (
    LabellingStudyFactory,
    StudyItemFactory,
    UserFactory,
    labelling_codebook,
)
from tests.mining.factories import BugReportFactory, RepositoryFactory
from tests.taxonomy.factories import CategoryFactory, DimensionFactory

pytestmark = pytest.mark.django_db

LEAK = {"root-cause": "memory/leak", "impact": ["speed", "memory-use"], "stage": "training"}
BLOAT = {"root-cause": "memory/bloat", "impact": ["speed"]}
THREADS = {"root-cause": "threading"}


@pytest.fixture
def stage_study():
    """Three annotations an item; the labelling codebook plus an optional single-select
    dimension (stage)."""
    codebook = labelling_codebook()
    stage = DimensionFactory(codebook=codebook, key="stage", required=False, position=2)
    CategoryFactory(dimension=stage, key="training", parent=None, position=0)
    CategoryFactory(dimension=stage, key="inference", parent=None, position=1)
    study = LabellingStudyFactory(codebook=codebook, overlap=3)
    for position in range(3):
        StudyItemFactory(study=study, position=position)
    return study


@pytest.fixture
def three_raters():
    return [UserFactory(username=name) for name in ("cleo", "abe", "bea")]


def label(study, user, labels):
    held = assignment_next(study=study, user=user)
    return assignment_submit(assignment_id=held.pk, user=user, labels=labels)


def ratings_of(study, names=None):
    """{dimension key: {item id: {annotator: value}}}."""
    dimensions = study_scheme(study=study).dimensions
    names = names or annotator_names(study=study, real_names=True)
    read = study_ratings(study=study, dimensions=dimensions, names=names)
    return {key: ratings.as_dict() for key, ratings in read.items()}


def test_every_submission_is_one_rating_per_dimension(
    stage_study, three_raters, django_assert_num_queries
):
    cleo, abe, bea = three_raters
    first = label(stage_study, cleo, LEAK)
    label(stage_study, abe, BLOAT)
    label(stage_study, bea, THREADS)
    label(stage_study, cleo, THREADS)  # the second item, on its own
    held = assignment_next(study=stage_study, user=abe)  # held: no rating
    assignment_skip(assignment_id=held.pk, user=abe, reason="cannot_judge")

    names = annotator_names(study=stage_study, real_names=True)
    dimensions = study_scheme(study=stage_study).dimensions
    with django_assert_num_queries(1):
        read = study_ratings(study=stage_study, dimensions=dimensions, names=names)

    read = {key: ratings.as_dict() for key, ratings in read.items()}
    item, second = first.item_id, held.item_id
    assert read["root-cause"] == {
        item: {"cleo": "memory/leak", "abe": "memory/bloat", "bea": "threading"},
        second: {"cleo": "threading"},
    }
    assert read["impact"][item] == {
        "cleo": frozenset({"speed", "memory-use"}),
        "abe": frozenset({"speed"}),
        "bea": frozenset(),
    }
    assert read["stage"][item] == {
        "cleo": "training",
        "abe": NO_CATEGORY,
        "bea": NO_CATEGORY,
    }
    assert item_batches(study=stage_study)[item] == 1


def test_the_ratings_are_the_labels_as_they_were_when_the_item_first_became_final(
    stage_study, three_raters
):
    cleo, abe, bea = three_raters
    mine = label(stage_study, cleo, LEAK)
    # A revision before the item is final counts.
    assignment_submit(assignment_id=mine.pk, user=cleo, labels=BLOAT)
    label(stage_study, abe, BLOAT)
    label(stage_study, bea, BLOAT)
    item = StudyItem.objects.get(pk=mine.item_id)
    assert item.adjudicated_at is not None

    item_reopen(item_id=item.pk, user=UserFactory(), rationale="look again")
    # After the reopening Cleo has seen the final label: her revision is kept, not counted.
    assignment_submit(assignment_id=mine.pk, user=cleo, labels=THREADS)

    assert ratings_of(stage_study)["root-cause"][item.pk] == {
        "cleo": "memory/bloat",
        "abe": "memory/bloat",
        "bea": "memory/bloat",
    }


def test_imported_labels_are_ratings_like_the_apps(stage_study):
    repository = RepositoryFactory(owner="pytorch", name="pytorch")
    BugReportFactory(repository=repository, number=7)
    csv = (
        "item,annotator,dimension,value\n"
        "pytorch/pytorch#7,old-a,root-cause,memory/leak\n"
        "pytorch/pytorch#7,old-b,root-cause,threading\n"
    )
    label_import_store(study=stage_study, data=csv.encode(), source="old.csv")
    item = StudyItem.objects.get(study=stage_study, report__repository=repository)

    assert ratings_of(stage_study)["root-cause"][item.pk] == {
        "old-a": "memory/leak",
        "old-b": "threading",
    }


def test_pseudonyms_follow_the_order_of_first_submission(stage_study, three_raters):
    cleo, abe, bea = three_raters
    for user in (cleo, abe, bea):
        label(stage_study, user, THREADS)
    assignment = label(stage_study, abe, THREADS)

    names = annotator_names(study=stage_study, real_names=False)

    assert names == {cleo.pk: "A1", abe.pk: "A2", bea.pk: "A3"}
    assert set(ratings_of(stage_study, names)["root-cause"][assignment.item_id]) == {"A2"}


def test_items_are_ordered_by_when_their_last_rating_came_in(stage_study, three_raters):
    cleo, abe, bea = three_raters
    label(stage_study, cleo, THREADS)  # item 0
    label(stage_study, abe, THREADS)  # item 0
    second = label(stage_study, cleo, THREADS)  # item 1
    last = label(stage_study, bea, THREADS)  # item 0, now complete after item 1 was started
    assert items_in_labelled_order(study=stage_study) == [second.item_id, last.item_id]


def test_the_agreement_json_has_the_issues_keys_per_dimension_and_level(stage_study, three_raters):
    for labels in ((LEAK, LEAK, BLOAT), (THREADS, THREADS, THREADS)):
        for user, answer in zip(three_raters, labels, strict=True):
            label(stage_study, user, answer)

    result = study_agreement(study=stage_study, bootstrap=20)

    assert result["study"] == stage_study.slug
    assert [(d["dimension"], d["level"]) for d in result["dimensions"]] == [
        ("root-cause", "top"),
        ("root-cause", "path"),
        ("impact", "path"),
        ("stage", "path"),
    ]
    top, path = result["dimensions"][:2]
    for key in (
        "items",
        "pairable_items",
        "annotators",
        "ratings",
        "percent_agreement",
        "cohen_kappa_pairs",
        "mean_cohen_kappa",
        "fleiss_kappa",
        "krippendorff_alpha",
        "alpha_ci95",
        "gwet_ac1",
        "interpretation",
        "per_category",
        "notes",
    ):
        assert key in path
    assert (path["items"], path["annotators"], path["ratings"]) == (2, 3, 6)
    # At the top level all three said memory on the first item: full agreement.
    assert top["percent_agreement"] == 1.0
    assert path["percent_agreement"] == pytest.approx((1 / 3 + 1) / 2)
    pairs = [pair["annotators"] for pair in path["cohen_kappa_pairs"]]
    assert pairs == [["abe", "bea"], ["abe", "cleo"], ["bea", "cleo"]]
    json.dumps(result)


def test_pseudonyms_replace_every_username(stage_study, three_raters):
    for user, answer in zip(three_raters, (LEAK, BLOAT, THREADS), strict=True):
        label(stage_study, user, answer)

    text = json.dumps(study_agreement(study=stage_study, bootstrap=0, pseudonyms=True))

    assert not any(user.username in text for user in three_raters)
    assert '"A1"' in text and '"A3"' in text


def test_one_dimension_only(stage_study, three_raters):
    for user in three_raters:
        label(stage_study, user, LEAK)
    result = study_agreement(study=stage_study, dimension="impact", bootstrap=0)
    assert [(d["dimension"], d["level"]) for d in result["dimensions"]] == [("impact", "path")]
    assert result["dimensions"][0]["percent_agreement"] == 1.0


def test_per_batch(stage_study, three_raters):
    StudyItem.objects.filter(study=stage_study, position=1).update(batch=2)
    for user in three_raters:
        label(stage_study, user, LEAK)
    for user, answer in zip(three_raters, (LEAK, BLOAT, THREADS), strict=True):
        label(stage_study, user, answer)

    result = study_agreement(study=stage_study, by="batch", dimension="root-cause", bootstrap=0)

    assert result["by"] == "batch"
    batches = {b["batch"]: b["dimensions"] for b in result["batches"]}
    assert sorted(batches) == [1, 2]
    assert batches[1][1]["percent_agreement"] == 1.0
    assert batches[2][1]["percent_agreement"] == 0.0
    assert batches[2][1]["items"] == 1


def test_per_window_in_the_order_items_were_labelled(stage_study, three_raters):
    answers = [(THREADS, THREADS, THREADS), (LEAK, BLOAT, THREADS), (LEAK, LEAK, LEAK)]
    for labels in answers:
        for user, answer in zip(three_raters, labels, strict=True):
            label(stage_study, user, answer)

    result = study_agreement(study=stage_study, by="window", window=2, dimension="root-cause")

    assert (result["by"], result["window"]) == ("window", 2)
    path = result["dimensions"][1]
    assert (path["dimension"], path["level"]) == ("root-cause", "path")
    windows = path["windows"]
    assert [(w["first"], w["last"]) for w in windows] == [(1, 2), (3, 3)]
    assert windows[0]["percent_agreement"] == 0.5
    assert windows[1]["percent_agreement"] == 1.0


def test_the_reasons_leads_gave_are_counted_per_category_in_dispute(stage_study, three_raters):
    lead = UserFactory()

    def disputed(labels, reason):
        done = [
            label(stage_study, user, answer)
            for user, answer in zip(three_raters, labels, strict=True)
        ]
        decision = {"value": "memory/leak", "rationale": "see the fix", "reason": reason}
        item_adjudicate(item_id=done[0].item_id, user=lead, decisions={"root-cause": decision})

    disputed((LEAK, LEAK, BLOAT), "codebook_ambiguity")
    disputed((LEAK, THREADS, BLOAT), "annotator_slip")

    result = study_agreement(study=stage_study, dimension="root-cause", bootstrap=0)

    top, path = result["dimensions"]
    by_category = {row["category"]: row["reasons"] for row in path["per_category"]}
    assert by_category["memory/leak"] == {
        "codebook_ambiguity": 1,
        "annotator_slip": 1,
        "report_unclear": 0,
        "other": 0,
    }
    assert by_category["memory/bloat"]["codebook_ambiguity"] == 1
    assert by_category["threading"] == {
        "codebook_ambiguity": 0,
        "annotator_slip": 1,
        "report_unclear": 0,
        "other": 0,
    }
    # At the top level the first item had no dispute: its reason goes to what they shared.
    top_reasons = {row["category"]: row["reasons"] for row in top["per_category"]}
    assert top_reasons["memory"]["codebook_ambiguity"] == 1
    assert top_reasons["memory"]["annotator_slip"] == 1
    assert top_reasons["threading"]["annotator_slip"] == 1


def test_a_study_with_no_labels_yet_has_no_figures_and_says_why(stage_study):
    result = study_agreement(study=stage_study, dimension="impact")
    (impact,) = result["dimensions"]
    assert (impact["items"], impact["ratings"], impact["krippendorff_alpha"]) == (0, 0, None)
    assert impact["notes"]


def test_every_figure_of_a_call_shares_one_set_of_draws(stage_study, three_raters):
    stage_study.parent_distance = 0.25
    stage_study.save(update_fields=["parent_distance"])
    for labels in ((LEAK, LEAK, BLOAT), (THREADS, THREADS, THREADS), (LEAK, BLOAT, BLOAT)):
        for user, answer in zip(three_raters, labels, strict=True):
            label(stage_study, user, answer)

    result = study_agreement(study=stage_study, bootstrap=50, seed=4, half_width=0.1)

    assert result["bootstrap"]["draws"] == 50 and result["bootstrap"]["seed"] == 4
    assert all(entry["bootstrap"] == result["bootstrap"] for entry in result["dimensions"])
    top, path = result["dimensions"][:2]
    assert top["hierarchy_alpha"] is None
    credit = path["hierarchy_alpha"]
    assert credit["distances"]["same_top_category"] == 0.25
    # memory/leak against memory/bloat is half a disagreement or less: more credit than nominal.
    assert path["krippendorff_alpha"] < credit["estimate"]
    assert set(path["intervals"]) == {
        "percent_agreement",
        "mean_cohen_kappa",
        "fleiss_kappa",
        "krippendorff_alpha",
        "gwet_ac1",
    }
    assert path["intervals"]["gwet_ac1"]["gwet"]["se"] > 0
    plan = path["double_coding"]
    assert plan["items"] == path["pairable_items"] == 3
    assert plan["half_width_wanted"] == 0.1
    assert plan["more_items"] == plan["items_needed"] - 3 >= 0
    json.dumps(result, allow_nan=False)


def test_each_batch_after_the_first_has_its_change_from_paired_draws(stage_study, three_raters):
    StudyItem.objects.filter(study=stage_study, position=1).update(batch=2)
    for user in three_raters:
        label(stage_study, user, LEAK)
    for user, answer in zip(three_raters, (LEAK, BLOAT, THREADS), strict=True):
        label(stage_study, user, answer)

    result = study_agreement(study=stage_study, by="batch", dimension="root-cause", bootstrap=40)

    assert result["bootstrap"]["strata"] == "batch"
    first, second = (batch["dimensions"] for batch in result["batches"])
    assert all("change" not in entry for entry in first)
    change = second[1]["change"]["percent_agreement"]
    assert change["estimate"] == second[1]["percent_agreement"] - first[1]["percent_agreement"]
    assert change["bootstrap"]["ci95"] is not None
    json.dumps(result, allow_nan=False)


def test_windows_of_every_dimension_share_one_set_of_draws(stage_study, three_raters):
    answers = [(THREADS, THREADS, THREADS), (LEAK, BLOAT, THREADS), (LEAK, LEAK, LEAK)]
    for labels in answers:
        for user, answer in zip(three_raters, labels, strict=True):
            label(stage_study, user, answer)

    result = study_agreement(study=stage_study, by="window", window=2, bootstrap=30, seed=3)

    assert result["bootstrap"] == {**result["bootstrap"], "draws": 30, "seed": 3}
    assert result["bootstrap"]["strata"] == "window"
    for entry in result["dimensions"]:
        assert all(w["bootstrap"] == result["bootstrap"] for w in entry["windows"])
        assert "change" in entry["windows"][1]
    json.dumps(result, allow_nan=False)
