"""The triage API for every kind of caller, its contract and its 400s."""

import pytest

from labeler.models import TriageRun

pytestmark = pytest.mark.django_db

BODY = {"dimension": "root-cause", "positive": "memory"}


EXPECTED = {
    "anonymous": (403, 403, 403),
    "non-member": (404, 404, 404),
    "annotator": (403, 403, 403),
    "annotator-and-lead": (403, 403, 403),
    "researcher": (403, 403, 403),
    "lead": (202, 200, 201),
    "superuser": (202, 200, 201),
    "superuser-and-annotator": (403, 403, 403),
}


@pytest.mark.parametrize("kind", list(EXPECTED))
def test_who_may_start_read_and_batch(api_client_as, world, done, kind):
    client = api_client_as(kind)
    start, read, batch = EXPECTED[kind]
    base = f"/api/studies/{world.study.slug}/triage/"
    response = client.post(base, BODY, format="json")
    assert response.status_code in (start, 401 if start == 403 else start)
    response = client.get(f"{base}{done.pk}/")
    assert response.status_code in (read, 401 if read == 403 else read)
    if read != 200:
        assert '"scores"' not in response.content.decode()
    response = client.post(f"{base}{done.pk}/batch/", {"count": 3}, format="json")
    assert response.status_code in (batch, 401 if batch == 403 else batch)
    if batch == 403 and kind != "anonymous":
        assert "annotators never see a score" in response.json()["message"]


def test_start_then_get_gives_the_contract(
    api_client_as, world, django_capture_on_commit_callbacks
):
    client = api_client_as("lead")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/api/studies/{world.study.slug}/triage/", BODY, format="json")
    assert response.status_code == 202
    run_id = response.json()["id"]
    # The eager task ran on commit.
    assert TriageRun.objects.get(pk=run_id).celery_task_id
    answer = client.get(f"/api/studies/{world.study.slug}/triage/{run_id}/").json()
    assert answer["state"] == "done" and answer["progress"] == 100
    assert set(answer["model"]) >= {"labels", "positives", "cv", "keyword_rule"}
    assert set(answer["model"]["cv"]) >= {"auc", "average_precision", "precision", "recall"}
    assert set(answer["model"]["keyword_rule"]) >= {"precision", "recall"}
    assert answer["scores"][0]["score"] >= answer["scores"][-1]["score"]
    assert set(answer["scores"][0]) == {"repository", "number", "score"}
    assert {"prevalence", "remaining"} <= set(answer["estimate"])
    top = client.get(f"/api/studies/{world.study.slug}/triage/{run_id}/?limit=5").json()
    assert top["scores"] == answer["scores"][:5]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"positive": "memory"}, "dimension"),
        ({"dimension": "root-cause", "positive": "nope"}, "positive"),
        ({"dimension": "root-cause", "positive": "memory/bloat"}, "positive"),
        ({**BODY, "reports": "candidate=speed"}, "reports.candidate"),
        ({**BODY, "keyword_rule": "x"}, "keyword_rule"),
        ({**BODY, "threshold": 0}, "threshold"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(api_client_as, world, body, field):
    response = api_client_as("lead").post(
        f"/api/studies/{world.study.slug}/triage/", body, format="json"
    )
    assert response.status_code == 400
    assert field in response.json()["fields"]
    assert not TriageRun.objects.exists()


def test_a_batch_request_is_checked(api_client_as, world, done):
    url = f"/api/studies/{world.study.slug}/triage/{done.pk}/batch/"
    client = api_client_as("lead")
    assert "count" in client.post(url, {"count": 0}, format="json").json()["fields"]
    assert "by" in client.post(url, {"count": 2, "by": "luck"}, format="json").json()["fields"]
    made = client.post(url, {"count": 2, "by": "uncertainty"}, format="json").json()
    assert made["prioritised"]["by"] == "uncertainty" and made["sample_size"] == 2


def test_a_run_of_another_study_is_not_found(api_client_as, world, done):
    response = api_client_as("lead").get(f"/api/studies/{world.study.slug}/triage/{done.pk + 99}/")
    assert response.status_code == 404


def test_the_model_reads_in_the_contracts_order(api_client_as, world, done):
    # The database keeps jsonb keys in its own order; the API gives the issue's.
    model = api_client_as("lead").get(f"/api/studies/{world.study.slug}/triage/{done.pk}/")
    model = model.json()["model"]
    assert list(model)[:4] == ["labels", "positives", "cv", "keyword_rule"]
    assert list(model["cv"])[:4] == ["auc", "average_precision", "precision", "recall"]
    assert list(model["keyword_rule"])[:2] == ["precision", "recall"]
    assert set(model) == set(done.result["model"])
