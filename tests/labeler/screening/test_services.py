import pytest
from django.core.exceptions import ValidationError
from django.db import transaction

from config.celery import app
from labeler.models import FinalLabel, StudyBatch, TriageRun
from labeler.screening import estimate, model
from labeler.screening.selectors import random_batches, report_texts, triage_run_answer
from labeler.screening.services import (
    prioritised_batch_add,
    triage_run_create,
    triage_run_execute,
)
from labeler.studies.services import study_items_add
from tests.labeler.screening.conftest import LABELLED, REPORTS, label_items

pytestmark = pytest.mark.django_db


def run_on(world, **fields):
    run = triage_run_create(study=world.study, dimension="root-cause", positive="memory", **fields)
    return triage_run_execute(run_id=run.pk)


def test_a_run_learns_the_known_signal_and_estimates_with_named_methods(world):
    steps = []
    run = triage_run_create(study=world.study, dimension="root-cause", positive="memory")
    run = triage_run_execute(run_id=run.pk, report=lambda p, s: steps.append(p))
    assert run.state == TriageRun.State.DONE, run.error
    assert steps == sorted(steps) and steps[-1] >= 90
    answer = triage_run_answer(run=run)
    found = answer["model"]
    assert found["labels"] == LABELLED
    assert found["positives"] == sum(world.truth[:LABELLED])
    assert found["cv"]["auc"] > 0.85
    assert set(found["cv"]) >= {"auc", "average_precision", "precision", "recall"}
    assert set(found["keyword_rule"]) >= {"precision", "recall"}
    assert len(found["calibration"]) == 10
    assert found["top_words"]["positive"]
    # Scores: every report of the frame, highest first.
    scores = [entry["score"] for entry in answer["scores"]]
    assert len(scores) == REPORTS and scores == sorted(scores, reverse=True)
    assert set(answer["scores"][0]) == {"repository", "number", "score"}
    # The frame's true share lies within both intervals.
    share = sum(world.truth) / REPORTS
    prevalence = answer["estimate"]["prevalence"]
    for method in ("random_sample", "ppi"):
        assert prevalence[method]["low"] <= share <= prevalence[method]["high"], method
    assert "Wilson" in prevalence["random_sample"]["method"]
    assert "prediction-powered" in prevalence["ppi"]["method"]
    remaining = answer["estimate"]["remaining"]
    left = sum(world.truth[LABELLED:])
    assert remaining["scored_not_labelled"] == REPORTS - LABELLED
    assert remaining["low"] <= left <= remaining["high"]


def test_the_estimates_score_unlabelled_reports_by_the_fold_models(world, monkeypatch):
    seen = {}
    ppi_share, remaining = estimate.ppi_share, estimate.positives_remaining

    def ppi_spy(truth, scores, frame_scores, **kwargs):
        seen["frame"] = list(frame_scores)
        return ppi_share(truth, scores, frame_scores, **kwargs)

    def remaining_spy(truth, scores, unlabelled, **kwargs):
        seen["unlabelled"] = list(unlabelled)
        return remaining(truth, scores, unlabelled, **kwargs)

    monkeypatch.setattr(estimate, "ppi_share", ppi_spy)
    monkeypatch.setattr(estimate, "positives_remaining", remaining_spy)
    run = run_on(world)
    texts = report_texts(report_ids=world.report_ids)
    documents = [texts[pk] for pk in world.report_ids]
    oof, models = model.cross_fit(documents[:LABELLED], world.truth[:LABELLED])
    averaged = model.fold_average(models, documents[LABELLED:])
    # The frame, in report order: the labelled ones out of fold, the others the fold models'.
    assert seen["frame"] == pytest.approx([*oof, *averaged])
    assert seen["unlabelled"] == pytest.approx(list(averaged))
    ranked = dict(run.scores)
    assert [ranked[pk] for pk in world.report_ids[LABELLED:]] != pytest.approx(list(averaged))


def test_precision_and_recall_are_at_the_chosen_threshold(world):
    low, high = run_on(world, threshold=0.2), run_on(world, threshold=0.8)
    assert (low.result["model"]["cv"]["threshold"], high.threshold) == (0.2, 0.8)
    assert low.result["model"]["cv"]["recall"] >= high.result["model"]["cv"]["recall"]
    assert low.result["model"]["cv"]["auc"] == high.result["model"]["cv"]["auc"]


def test_the_keyword_rule_is_measured_on_the_same_items(world):
    run = run_on(world, keyword_rule="performance")
    rule = run.result["model"]["keyword_rule"]
    # The world's rule flags positives except at every fifth report, where it is reversed.
    truth = world.truth[:LABELLED]
    flags = [bool(t) if i % 5 else not t for i, t in enumerate(truth)]
    hits = sum(1 for t, f in zip(truth, flags, strict=True) if t and f)
    assert rule["precision"] == pytest.approx(hits / sum(flags))
    assert rule["recall"] == pytest.approx(hits / sum(truth))


def test_too_few_labels_of_a_class_are_refused_before_a_run_is_recorded(world):
    # A positive class nobody chose: no positive label at all.
    with pytest.raises(ValidationError) as error:
        triage_run_create(study=world.study, dimension="root-cause", positive="memory/bloat")
    message = " ".join(error.value.message_dict["positive"])
    assert f"0 positive and {LABELLED} negative" in message and "at least 10" in message
    assert "root-cause = memory/bloat" in message
    assert not TriageRun.objects.exists()


def test_labels_gone_between_request_and_run_fail_the_run_saying_why(world):
    run = triage_run_create(study=world.study, dimension="root-cause", positive="memory")
    FinalLabel.objects.filter(item__study=world.study, values=["memory/leak"]).delete()
    run = triage_run_execute(run_id=run.pk)
    assert run.state == TriageRun.State.FAILED
    assert "0 positive" in run.error and "at least 10" in run.error
    assert run.scores == [] and run.result == {}


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"dimension": "cause"}, "dimension", "does not label"),
        ({"dimension": "impact", "positive": "speed"}, "dimension", "several categories"),
        ({"positive": "memory/nope"}, "positive", "not a category key path"),
        ({"reports": "stat=open"}, "reports.stat", "unknown parameter"),
        ({"reports": "state=maybe"}, "reports.state", "maybe"),
        ({"reports": "repository=nope/nope"}, "reports", "selects no imported report"),
        ({"keyword_rule": "speed"}, "keyword_rule", "not one of"),
        ({"threshold": 1.5}, "threshold", "between 0 and 1"),
    ],
)
def test_a_wrong_request_names_its_field(world, fields, field, words):
    request = {"dimension": "root-cause", "positive": "memory", **fields}
    with pytest.raises(ValidationError) as error:
        triage_run_create(study=world.study, **request)
    assert field in error.value.message_dict
    assert words in " ".join(error.value.message_dict[field])
    assert not TriageRun.objects.exists()


def test_a_query_chooses_the_reports_scored(world):
    run = run_on(world, reports="q=word399")
    scored = {entry["number"] for entry in triage_run_answer(run=run)["scores"]}
    assert 0 < len(scored) < REPORTS
    # The prevalence is still the frame's.
    assert run.result["estimate"]["prevalence"]["frame_reports"] == REPORTS


def test_a_prioritised_batch_is_marked_and_handed_out_in_random_order(world):
    run = run_on(world)
    batch = prioritised_batch_add(study=world.study, run=run, count=30)
    assert batch.prioritised["by"] == "score" and batch.prioritised["triage_run"] == run.pk
    assert "highest scores" in batch.prioritised["drawn"]
    assert batch.number not in random_batches(study=world.study)
    in_study = set(world.report_ids[:LABELLED])
    expected = [pk for pk, _ in run.scores if pk not in in_study][:30]
    order = list(
        world.study.items.filter(batch=batch.number)
        .order_by("position")
        .values_list("report_id", flat=True)
    )
    assert sorted(order) == sorted(expected)
    assert order != expected, "the hand-out order must not be the ranking"
    assert set(world.study.items.filter(batch=batch.number).values_list("priority", flat=True)) == {
        0
    }
    # Labelled, its items train the next model but never enter the prevalence estimates.
    truth = dict(zip(world.report_ids, world.truth, strict=True))
    label_items(world.study, {pk: truth[pk] for pk in order})
    again = run_on(world)
    assert again.result["model"]["labels"] == LABELLED + 30
    assert again.result["estimate"]["prevalence"]["random_labels"] == LABELLED
    assert again.result["estimate"]["labels_from_prioritised_batches"] == 30


def test_the_most_uncertain_reports_make_a_batch_too(world):
    run = run_on(world)
    batch = prioritised_batch_add(study=world.study, run=run, count=5, by="uncertainty")
    chosen = set(world.study.items.filter(batch=batch.number).values_list("report_id", flat=True))
    scores = dict(run.scores)
    outside = [pk for pk in scores if pk not in set(world.report_ids[:LABELLED]) | chosen]
    assert max(abs(scores[pk] - 0.5) for pk in chosen) <= min(
        abs(scores[pk] - 0.5) for pk in outside
    )


def test_a_random_batch_drawn_after_a_prioritised_one_stays_out_of_the_prevalence(world):
    # It was drawn from the frame without the prioritised reports, the likeliest positives: its
    # share is not the frame's. The random batches before the first prioritised one are.
    run = run_on(world)
    prioritised = prioritised_batch_add(study=world.study, run=run, count=40)
    with transaction.atomic():
        later = study_items_add(study=world.study, sample={"mode": "size", "size": 30}, seed=4)
    truth = dict(zip(world.report_ids, world.truth, strict=True))
    for number in (prioritised.number, later.number):
        ids = world.study.items.filter(batch=number).values_list("report_id", flat=True)
        label_items(world.study, {pk: truth[pk] for pk in ids})
    estimate = run_on(world).result["estimate"]
    assert estimate["prevalence"]["random_labels"] == LABELLED
    assert estimate["labels_from_prioritised_batches"] == 40
    assert estimate["labels_from_random_batches_after_prioritised"] == 30
    share = sum(truth[pk] for pk in world.report_ids[:LABELLED]) / LABELLED
    assert estimate["prevalence"]["random_sample"]["estimate"] == pytest.approx(share)
    assert f"random batch {later.number}" in estimate["prevalence"]["note"]
    assert f"prioritised batch {prioritised.number}" in estimate["prevalence"]["note"]


def test_a_random_batch_drawn_after_a_run_is_drawn_and_ordered_as_without_it(world):
    def draw() -> list[int]:
        with transaction.atomic():
            batch = study_items_add(study=world.study, sample={"mode": "size", "size": 40}, seed=9)
            order = list(
                world.study.items.filter(batch=batch.number)
                .order_by("position")
                .values_list("report_id", flat=True)
            )
            assert batch.prioritised is None
            transaction.set_rollback(True)
        return order

    before = draw()
    run = run_on(world)
    after = draw()
    assert after == before
    scores = dict(run.scores)
    assert after != sorted(after, key=lambda pk: -scores[pk])


def test_a_run_delivered_twice_is_left_as_it_is(world):
    run = run_on(world)
    assert triage_run_execute(run_id=run.pk) is None
    assert triage_run_execute(run_id=run.pk + 1000) is None


def test_the_worker_knows_the_task():
    app.loader.import_default_modules()
    assert "labeler.screening.tasks.triage_run" in app.tasks


def test_a_prioritised_batch_needs_a_finished_run_of_the_study(world):
    run = triage_run_create(study=world.study, dimension="root-cause", positive="memory")
    with pytest.raises(ValidationError, match="finished triage run"):
        prioritised_batch_add(study=world.study, run=run, count=3)
    assert StudyBatch.objects.filter(study=world.study).count() == 1


def test_a_frame_without_reports_is_refused_before_a_run_is_recorded(world):
    world.study.frame = {"labels": ["no such label"]}
    world.study.save(update_fields=["frame"])
    with pytest.raises(ValidationError, match="the study's frame holds no imported report"):
        triage_run_create(study=world.study, dimension="root-cause", positive="memory")
    assert not TriageRun.objects.exists()
