"""The screening page for every kind of person, what it shows and its refusals."""

import pytest
from django.db import transaction
from django.utils.html import escape

from labeler.models import StudyBatch, TriageRun
from labeler.screening.services import (
    prioritised_batch_add,
    triage_run_create,
    triage_run_execute,
)
from labeler.studies.services import study_items_add
from mining.models import BugReport
from tests.labeler.screening.conftest import KINDS, label_items

pytestmark = pytest.mark.django_db


def expected(kind: str, allowed: int) -> int:
    return {"anonymous": 302, "non-member": 404}.get(
        kind, allowed if kind in ("lead", "superuser") else 403
    )


@pytest.mark.parametrize("kind", list(KINDS))
def test_who_reaches_each_route(client_as, world, done, kind):
    client = client_as(kind)
    base = f"/studies/{world.study.slug}/triage/"
    response = client.get(base)
    assert response.status_code == expected(kind, 200)
    assert (b"Ranked reports" in response.content) == (response.status_code == 200)
    assert client.get(f"{base}{done.pk}/").status_code == expected(kind, 200)
    started = client.post(base, {"dimension": "root-cause", "positive": "memory"})
    assert started.status_code == expected(kind, 302)
    batch = client.post(f"{base}{done.pk}/batch/", {"count": "3", "by": "score"})
    assert batch.status_code == expected(kind, 302)
    made = StudyBatch.objects.filter(study=world.study, prioritised__isnull=False).count()
    assert made == (1 if kind in ("lead", "superuser") else 0)


def test_the_page_shows_quality_estimates_and_the_ranking(client_as, world, done):
    text = client_as("lead").get(f"/studies/{world.study.slug}/triage/{done.pk}/").content.decode()
    for part in (
        "AUC",
        "keyword rule (any candidates), same items",
        "Calibration",
        "Words that weigh most",
    ):
        assert part in text
    assert "Wilson score interval" in text and "prediction-powered inference" in text
    assert f"<h1>Screening in {world.study.name}</h1>" in text
    assert 'data-testid="prevalence-note"' not in text
    assert "Positives not yet labelled among the 140 scored reports" in text
    assert text.count('data-testid="ranked-row"') == 100
    top = BugReport.objects.get(pk=done.scores[0][0])
    assert f'<td data-testid="ranked-title">{escape(top.title)}</td>' in text


def test_a_wrong_form_is_a_400_naming_the_field(client_as, world):
    response = client_as("lead").post(
        f"/studies/{world.study.slug}/triage/", {"dimension": "root-cause", "positive": "nope"}
    )
    assert response.status_code == 400
    assert "positive: &#x27;nope&#x27; is not a category key path" in response.content.decode()
    assert not TriageRun.objects.exists()


def test_too_few_labels_are_refused_on_the_form_saying_how_many(client_as, world):
    response = client_as("lead").post(
        f"/studies/{world.study.slug}/triage/",
        {"dimension": "root-cause", "positive": "memory/bloat"},
    )
    assert response.status_code == 400
    text = response.content.decode()
    assert "positive: too few labels to train on: 0 positive and 100 negative" in text
    assert not TriageRun.objects.exists()


def test_a_wrong_batch_count_is_a_400(client_as, world, done):
    response = client_as("lead").post(
        f"/studies/{world.study.slug}/triage/{done.pk}/batch/", {"count": "many"}
    )
    assert response.status_code == 400
    assert "count: a whole number" in response.content.decode()


def test_the_study_page_links_leads_only(client_as, world):
    link = b'data-testid="triage-link"'
    assert link in client_as("lead").get(f"/studies/{world.study.slug}/").content
    assert link not in client_as("annotator-and-lead").get(f"/studies/{world.study.slug}/").content


def test_a_run_id_beyond_any_id_is_not_found(client_as, world):
    response = client_as("lead").get(f"/studies/{world.study.slug}/triage/99999999999999999999/")
    assert response.status_code == 404


def test_the_study_page_marks_a_prioritised_batch_for_leads_only(client_as, world, done):
    prioritised_batch_add(study=world.study, run=done, count=4)
    mark = b'data-testid="prioritised-mark"'
    assert mark in client_as("lead").get(f"/studies/{world.study.slug}/").content
    assert mark not in client_as("annotator").get(f"/studies/{world.study.slug}/").content


def test_the_page_says_which_random_batches_the_prevalence_leaves_out(client_as, world, done):
    prioritised = prioritised_batch_add(study=world.study, run=done, count=10)
    with transaction.atomic():
        later = study_items_add(study=world.study, sample={"mode": "size", "size": 12}, seed=4)
    truth = dict(zip(world.report_ids, world.truth, strict=True))
    ids = world.study.items.filter(batch=later.number).values_list("report_id", flat=True)
    label_items(world.study, {pk: truth[pk] for pk in ids})
    run = triage_run_create(study=world.study, dimension="root-cause", positive="memory")
    triage_run_execute(run_id=run.pk)
    text = client_as("lead").get(f"/studies/{world.study.slug}/triage/{run.pk}/").content.decode()
    assert (
        f"Random batch {later.number} left out: drawn after prioritised batch "
        f"{prioritised.number}, from the frame without its reports, it is not a random sample "
        "of the frame (12 labels left out of both)."
    ) in text
    assert "<td>100</td>" in text  # the random labels the estimates use


def test_a_runs_page_links_its_ranked_reports_and_keeps_its_request_in_the_form(client_as, world):
    run = triage_run_create(
        study=world.study,
        dimension="root-cause",
        positive="memory/leak",
        reports="q=word399",
        keyword_rule="performance",
        threshold=0.3,
    )
    run = triage_run_execute(run_id=run.pk)
    text = client_as("lead").get(f"/studies/{world.study.slug}/triage/{run.pk}/").content.decode()
    top, score = run.scores[0]
    number = world.report_ids.index(top) + 1
    assert f'<a href="/reports/{top}/">octo/torch#{number}</a></td>' in text
    assert f"<td>{score:.3f}</td>" in text
    assert text.count('data-testid="ranked-row"') == len(run.scores) < 100
    assert '<option value="memory/leak" selected>' in text
    assert 'value="q=word399"' in text and 'value="0.3"' in text
    assert '<option value="performance" selected>' in text
    assert f'href="/api/studies/{world.study.slug}/triage/{run.pk}/"' in text
    assert (
        f"python manage.py triage {world.study.slug} --dimension root-cause --positive memory/leak"
        " --reports q=word399 --keyword-rule performance --threshold 0.3 --output scores.csv"
    ) in text
