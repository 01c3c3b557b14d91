import pytest

from mining.models import ImportJob
from tests.mining import factories

pytestmark = pytest.mark.django_db
ROLES = ["annotator", "lead", "researcher", "admin_user"]


@pytest.fixture
def reports():
    repo = factories.RepositoryFactory(full_name="pytorch/pytorch", name="pytorch")
    slow = factories.BugReportFactory(
        repository=repo,
        number=1,
        title="Slow conv",
        labels=["module: performance"],
        is_performance_candidate=True,
        has_fix=True,
    )
    factories.FixLinkFactory(report=slow)
    factories.CommentFactory(report=slow)
    other = factories.BugReportFactory(repository=repo, number=2, title="Crash", state="open")
    return slow, other


@pytest.mark.parametrize("role", ROLES)
def test_every_role_reads_reports(request, api_as, reports, role):
    client = api_as(request.getfixturevalue(role))
    response = client.get("/api/reports/")
    assert response.status_code == 200
    assert response.json()["count"] == 2
    detail = client.get(f"/api/reports/{reports[0].pk}/").json()
    assert detail["fix_links"][0]["evidence"] == "closed_by_commit"
    assert detail["fix_links"][0]["commit"]["files"][0]["patch"].startswith("@@")
    assert len(detail["comments"]) == 1


def test_anonymous_gets_401_json(api_client, reports):
    response = api_client.get("/api/reports/")
    assert response.status_code == 401
    assert set(response.json()) == {"message", "fields"}


@pytest.mark.parametrize(
    ("query", "numbers"),
    [
        ("candidate=performance", [1]),
        ("has_fix=false", [2]),
        ("state=open", [2]),
        ("label=module: performance", [1]),
        ("q=crash", [2]),
        ("repository=PyTorch/pytorch", [1, 2]),
        ("created_after=2021-01-01T00:00:00Z&closed_before=2030-01-01T00:00:00Z", [1, 2]),
    ],
)
def test_report_filters(api_as, lead, reports, query, numbers):
    data = api_as(lead).get(f"/api/reports/?{query}").json()
    assert sorted(r["number"] for r in data["results"]) == numbers


def test_report_list_query_count_is_constant(api_as, lead, reports, django_assert_max_num_queries):
    for number in range(10, 40):
        factories.BugReportFactory(repository=reports[0].repository, number=number)
    client = api_as(lead)
    with django_assert_max_num_queries(4):
        assert client.get("/api/reports/").status_code == 200
    with django_assert_max_num_queries(6):
        assert client.get(f"/api/reports/{reports[0].pk}/").status_code == 200


def test_missing_report_is_404_json(api_as, lead, db):
    response = api_as(lead).get("/api/reports/999999/")
    assert response.status_code == 404 and "message" in response.json()


@pytest.mark.parametrize(
    ("role", "allowed"),
    [("annotator", False), ("lead", True), ("researcher", True), ("admin_user", True)],
)
def test_import_actions_need_manage_imports(request, api_as, role, allowed, fake_github):
    user = request.getfixturevalue(role)
    client = api_as(user)
    response = client.post("/api/imports/", {"repository": "octo/none"}, format="json")
    assert response.status_code == (201 if allowed else 403)
    job = factories.ImportJobFactory(status=ImportJob.Status.RUNNING)
    response = client.post(f"/api/imports/{job.pk}/cancel/")
    assert response.status_code == (200 if allowed else 403)
    response = client.post(f"/api/imports/{job.pk}/rerun/")
    assert response.status_code == (201 if allowed else 403)
    listing = client.get("/api/imports/")
    if allowed:
        assert listing.json()["count"] >= 1 and "eta_seconds" in listing.json()["results"][0]
    else:
        assert listing.status_code == 403
        assert client.get(f"/api/imports/{job.pk}/").status_code == 403


def test_import_create_validation_message(api_as, lead):
    response = api_as(lead).post("/api/imports/", {"repository": "bad"}, format="json")
    assert response.status_code == 400
    assert response.json()["message"].startswith("repository:")
