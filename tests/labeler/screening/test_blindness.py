"""No annotator sees a score, a rank or a model's guess: not in the labelling API or page, not
in the order items of a prioritised batch are handed out."""

import pytest
from django.test import Client

from labeler.common.roles import Role
from labeler.export.dataset import ExportOptions
from labeler.export.pipeline import Export
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import TriageRun
from labeler.screening.services import prioritised_batch_add
from tests.labeler.factories import StudyMemberFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch_run(world, done):
    return done, prioritised_batch_add(study=world.study, run=done, count=25)


def test_an_annotator_is_handed_a_prioritised_batch_in_no_score_order(world, make_user, batch_run):
    run, batch = batch_run
    annotator = make_user(Role.ANNOTATOR, username="blind")
    StudyMemberFactory(study=world.study, user=annotator, role="annotator")
    handed = []
    while (held := assignment_next(study=world.study, user=annotator)) is not None:
        handed.append(held.item.report_id)
        assignment_submit(assignment_id=held.pk, user=annotator, labels={"root-cause": "threading"})
    assert len(handed) == batch.sample_size
    scores = dict(run.scores)
    by_score = sorted(handed, key=lambda pk: -scores[pk])
    assert handed != by_score and handed != by_score[::-1]


def test_the_labelling_api_and_page_carry_no_score(world, make_user, batch_run):
    run, _ = batch_run
    annotator = make_user(Role.ANNOTATOR, username="blind")
    StudyMemberFactory(study=world.study, user=annotator, role="annotator")
    # A score no other number on the page can be.
    TriageRun.objects.filter(pk=run.pk).update(
        scores=[[pk, 0.918273] for pk, _ in run.scores],
        result={
            **run.result,
            "model": {
                **run.result["model"],
                "top_words": {
                    "positive": [{"word": "zq-model-word", "weight": 1.0}],
                    "negative": [],
                },
            },
        },
    )
    client = Client()
    client.force_login(annotator)
    payload = client.post(f"/api/studies/{world.study.slug}/next/").content.decode()
    page = client.get(f"/studies/{world.study.slug}/label/").content.decode()
    study_page = client.get(f"/studies/{world.study.slug}/").content.decode()
    for text in (payload, page, study_page):
        assert "0.918" not in text and "zq-model-word" not in text
        assert "triage" not in text.lower()
    assert "octo/torch" in payload, "the annotator was handed an item"
    assert '"score"' not in payload and '"rank"' not in payload


def test_the_analysis_page_names_no_prioritised_batch_to_someone_who_labels(
    client_as, world, batch_run
):
    # Items pages show each item's batch: naming the batch a model chose would tell its guess.
    _, batch = batch_run
    url = f"/studies/{world.study.slug}/analysis/"
    named = f"Batch {batch.number} was drawn by a screening model"
    lead = client_as("lead").get(url).content.decode()
    assert named in lead
    labeller = client_as("annotator-and-lead").get(url)
    assert labeller.status_code == 200
    text = labeller.content.decode()
    assert named not in text and "drawn by a screening model, not at random (which" in text
    assert "describe the study's items, not the frame's population" in text


def test_the_datasheet_of_someone_who_labels_names_no_batch_a_model_drew(world, batch_run):
    _, batch = batch_run
    blind = Export(study=world.study, fmt="csv", options=ExportOptions(final_only=True, blind=True))
    sheet = blind.datasheet["collection"]["batches"]
    assert [entry["prioritised"]["drawn"].startswith("not shown") for entry in sheet] == [
        True,
        True,
    ]
    assert {entry["frame"] for entry in sheet} == {None}
    assert {entry["sampling"] for entry in sheet} == {None}
    text = blind.datasheet_markdown()
    assert "highest scores" not in text and "triage" not in text.lower()
    assert f"| {batch.number} | not shown to someone who labels in the study" in text
    assert "Batches drawn by a screening model are not random samples" in text
    lead = Export(study=world.study, fmt="csv", options=ExportOptions()).datasheet
    drawn = [entry["prioritised"] for entry in lead["collection"]["batches"]]
    assert drawn[0] is None and "highest scores" in drawn[1]["drawn"]


def test_a_blind_datasheet_without_a_model_drawn_batch_shows_every_draw(world):
    blind = Export(study=world.study, fmt="csv", options=ExportOptions(final_only=True, blind=True))
    (entry,) = blind.datasheet["collection"]["batches"]
    assert entry["prioritised"] is None and entry["sampling"] == {"mode": "size", "size": 100}


def test_the_study_page_shows_no_batch_draw_to_someone_who_labels_once_a_model_drew_one(
    client_as, world, batch_run
):
    _, batch = batch_run
    url = f"/studies/{world.study.slug}/"
    lead = client_as("lead").get(url).content.decode()
    assert 'data-testid="prioritised-mark"' in lead
    assert 'data-testid="batch-draws-hidden"' not in lead
    for person in ("annotator-and-lead", "annotator"):
        text = client_as(person).get(url).content.decode()
        assert 'data-testid="batch-draws-hidden"' in text, person
        assert "prioritised" not in text and f"<code>{batch.seed}</code>" not in text, person


def test_the_study_page_shows_every_draw_to_someone_who_labels_when_no_model_drew_one(
    client_as, world
):
    text = client_as("annotator-and-lead").get(f"/studies/{world.study.slug}/").content.decode()
    assert 'data-testid="batch-draws-hidden"' not in text
    assert "size" in text and 'data-testid="batches"' in text
