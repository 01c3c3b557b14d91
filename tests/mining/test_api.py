import pytest

from mining.models import FixLink, ImportJob, PullRequest, Repository
from tests.mining import factories

pytestmark = pytest.mark.django_db
ROLES = ["annotator", "lead", "researcher", "admin_user"]


@pytest.fixture
def slow_and_crash_reports():
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
def test_every_role_reads_reports(request, api_as, slow_and_crash_reports, role):
    client = api_as(request.getfixturevalue(role))
    response = client.get("/api/reports/")
    assert response.status_code == 200
    assert response.json()["count"] == 2
    detail = client.get(f"/api/reports/{slow_and_crash_reports[0].pk}/").json()
    assert detail["fix_links"][0]["evidence"] == "closed_by_commit"
    assert detail["fix_links"][0]["commit"]["files"][0]["patch"].startswith("@@")
    assert len(detail["comments"]) == 1


def test_anonymous_gets_401_json(api_client, slow_and_crash_reports):
    response = api_client.get("/api/reports/")
    assert response.status_code == 401
    assert set(response.json()) == {"message", "fields"}


@pytest.mark.parametrize(
    ("query", "numbers"),
    [
        ("candidate=performance", [1]),
        ("candidate=none", [2]),
        ("has_fix=false", [2]),
        ("state=open", [2]),
        ("label=module: performance", [1]),
        ("q=crash", [2]),
        ("repository=PyTorch/pytorch", [1, 2]),
        ("created_after=2021-01-01T00:00:00Z&closed_before=2030-01-01T00:00:00Z", [1, 2]),
    ],
)
def test_report_filters(api_as, lead, slow_and_crash_reports, query, numbers):
    data = api_as(lead).get(f"/api/reports/?{query}").json()
    assert sorted(r["number"] for r in data["results"]) == numbers


def test_report_list_query_count_is_constant(
    api_as, lead, slow_and_crash_reports, django_assert_max_num_queries
):
    for number in range(10, 40):
        factories.BugReportFactory(repository=slow_and_crash_reports[0].repository, number=number)
    client = api_as(lead)
    with django_assert_max_num_queries(4):
        assert client.get("/api/reports/").status_code == 200
    with django_assert_max_num_queries(6):
        assert client.get(f"/api/reports/{slow_and_crash_reports[0].pk}/").status_code == 200


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


def test_an_import_job_may_ask_for_patches_during_the_import(api_as, lead, fake_github):
    client = api_as(lead)
    lazy = client.post("/api/imports/", {"repository": "octo/a"}, format="json").json()
    assert lazy["patches"] == "lazy"
    job = client.post("/api/imports/", {"repository": "octo/b", "patches": "all"}, format="json")
    assert job.json()["patches"] == "all"
    client.post(f"/api/imports/{job.json()['id']}/cancel/")
    rerun = client.post(f"/api/imports/{job.json()['id']}/rerun/").json()
    assert rerun["patches"] == "all"
    bad = client.post("/api/imports/", {"repository": "octo/c", "patches": "some"}, format="json")
    assert bad.status_code == 400 and "patches" in bad.json()["fields"]


def test_import_create_validation_message(api_as, lead):
    response = api_as(lead).post("/api/imports/", {"repository": "bad"}, format="json")
    assert response.status_code == 400
    assert response.json()["message"].startswith("repository:")


NOT_GITHUB_NAMES = [
    "../..",
    "octo/..",
    "octo/.",
    "../repo",
    "-octo/repo",
    "octo/re po",
    "octo/repo/issues",
    "octo\\repo",
    "a" * 40 + "/repo",
    "octo/" + "r" * 101,
    "octo/",
    "/repo",
]


@pytest.mark.parametrize("name", NOT_GITHUB_NAMES)
def test_an_import_of_a_name_github_does_not_allow_is_a_400_and_queues_nothing(api_as, lead, name):
    response = api_as(lead).post("/api/imports/", {"repository": name}, format="json")

    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["repository"]
    assert "OWNER/NAME as GitHub allows" in response.json()["message"]
    assert not ImportJob.objects.exists()
    assert not Repository.objects.exists()


@pytest.mark.parametrize(
    "name", ["pytorch/pytorch", "octo/.github", "Octo-Org/repo.name_x-1", "octo_acme/x", "a/_"]
)
def test_names_github_allows_are_imported(api_as, lead, name, fake_github):
    response = api_as(lead).post("/api/imports/", {"repository": name}, format="json")

    assert response.status_code == 201
    assert Repository.objects.get().full_name == name


@pytest.fixture
def varied_reports():
    """Reports that each filter tells apart: two repositories, states, candidate kinds,
    fixes, labels, creation and closing times, words in title or body."""
    import datetime as dt

    def at(day):
        return dt.datetime(2022, 1, day, tzinfo=dt.UTC)

    torch = factories.RepositoryFactory(owner="pytorch", name="pytorch")
    tf = factories.RepositoryFactory(owner="tensorflow", name="tensorflow")
    specs = [
        (torch, 1, dict(title="Conv is slow", is_performance_candidate=True, has_fix=True,
                        labels=["module: performance"], created_at=at(1), closed_at=at(5))),
        (torch, 2, dict(title="NaN loss", body="wrong results with amp", state="open",
                        is_accuracy_candidate=True, labels=["module: amp"], created_at=at(10),
                        closed_at=None)),
        (tf, 3, dict(title="Add an op", is_non_bug=True, labels=["type:feature"],
                     created_at=at(20), closed_at=at(28))),
    ]  # fmt: skip
    return {
        number: factories.BugReportFactory(repository=repo, number=number, **fields)
        for repo, number, fields in specs
    }


@pytest.mark.parametrize(
    ("query", "numbers"),
    [
        ("", [1, 2, 3]),
        ("repository=tensorflow/TensorFlow", [3]),
        ("repository=pytorch/pytorch", [1, 2]),
        ("state=closed", [1, 3]),
        ("state=open", [2]),
        ("candidate=performance", [1]),
        ("candidate=accuracy", [2]),
        ("candidate=non_bug", [3]),
        ("has_fix=true", [1]),
        ("has_fix=false", [2, 3]),
        ("label=module: amp", [2]),
        ("label=type:feature", [3]),
        ("created_after=2022-01-10T00:00:00Z", [2, 3]),
        ("created_before=2022-01-10T00:00:00Z", [1]),
        ("created_after=2022-01-02T00:00:00Z&created_before=2022-01-15T00:00:00Z", [2]),
        ("closed_after=2022-01-06T00:00:00Z", [3]),
        ("closed_before=2022-01-06T00:00:00Z", [1]),
        ("q=WRONG RESULTS", [2]),  # in the body, any case
        ("q=conv", [1]),  # in the title
        ("repository=pytorch/pytorch&state=closed&has_fix=true", [1]),
    ],
)
def test_each_report_filter_selects_its_reports(api_as, lead, varied_reports, query, numbers):
    response = api_as(lead).get(f"/api/reports/?{query}")
    assert response.status_code == 200
    assert sorted(r["number"] for r in response.json()["results"]) == numbers


def test_bad_filter_values_are_a_400_naming_the_field(api_as, lead, varied_reports):
    response = api_as(lead).get("/api/reports/?candidate=fast&created_after=yesterday")
    assert response.status_code == 400
    body = response.json()
    assert set(body["fields"]) == {"candidate", "created_after"}


def test_report_list_is_paginated(api_as, lead, varied_reports, settings):
    page_size = settings.REST_FRAMEWORK["PAGE_SIZE"]
    repository = varied_reports[1].repository
    for number in range(100, 100 + page_size):
        factories.BugReportFactory(repository=repository, number=number)
    first = api_as(lead).get("/api/reports/").json()
    assert first["count"] == page_size + 3 and len(first["results"]) == page_size
    second = api_as(lead).get(first["next"]).json()
    assert len(second["results"]) == 3 and second["next"] is None


def test_report_detail_has_measures_comments_and_fix_evidence(api_as, lead, db):
    import datetime as dt

    from mining.services.reports import report_measures_refresh

    t0 = dt.datetime(2022, 3, 1, tzinfo=dt.UTC)
    report = factories.BugReportFactory(
        author_login="alice", created_at=t0, closed_at=t0 + dt.timedelta(hours=30)
    )
    for k, login in enumerate(["alice", "bob", "carol", "bob", ""]):
        factories.CommentFactory(
            report=report, author_login=login, created_at=t0 + dt.timedelta(hours=k + 1)
        )
    for sha, adds in (("a" * 40, 10), ("b" * 40, 5)):
        commit = factories.CommitFactory(
            repository=report.repository, sha=sha, additions=adds, deletions=1
        )
        factories.FixLinkFactory(report=report, commit=commit, target=f"commit:{sha}")
    report_measures_refresh(report_ids=[report.pk])

    data = api_as(lead).get(f"/api/reports/{report.pk}/").json()
    assert data["fix_hours"] == 30
    assert data["fix_size"] == 17  # two fix commits, one patch: 10+1 and 5+1
    assert data["first_comment_hours"] == 2  # bob's, the first by someone else
    assert (data["commenter_count"], data["participant_count"]) == (3, 3)
    assert len(data["comments"]) == 5 and data["comments"][4]["author_login"] == ""
    assert {link["evidence"] for link in data["fix_links"]} == {"closed_by_commit"}
    assert {
        (link["strength"], link["evidence_display"], link["reverted"]) for link in data["fix_links"]
    } == {("strong", "Closed by commit (timeline)", False)}
    assert {link["commit"]["sha"] for link in data["fix_links"]} == {"a" * 40, "b" * 40}


def test_report_detail_gives_the_body_sanitised_beside_the_markdown(api_as, lead, db):
    report = factories.BugReportFactory(body="**bold** <script>alert(1)</script>")
    report.repository.html_url = "javascript:alert(1)"
    report.repository.save(update_fields=["html_url"])
    factories.CommentFactory(report=report, body="[x](javascript:alert(1)) *yes*")
    # A pull request a link names but no import fetched: only its number is known.
    bare = PullRequest.objects.create(repository=report.repository, number=7)
    factories.FixLinkFactory(
        report=report,
        commit=None,
        pull_request=bare,
        target="pr:7",
        evidence=FixLink.Evidence.CLOSED_BY_PULL_REQUEST,
    )

    data = api_as(lead).get(f"/api/reports/{report.pk}/").json()

    assert data["body"] == "**bold** <script>alert(1)</script>"
    assert data["body_html"].startswith("<p><strong>bold</strong> &lt;script&gt;")
    comment = data["comments"][0]["body_html"]
    assert "<em>yes</em>" in comment and 'href="javascript' not in comment
    link = data["fix_links"][0]
    assert link["target"] == "pr:7"
    assert (link["pull_request"]["imported"], link["pull_request"]["state"]) == (False, None)
    full_name = report.repository.full_name
    assert link["pull_request"]["html_url"] == f"https://github.com/{full_name}/pull/7"


def test_a_bodys_headings_come_under_the_pages_own(api_as, lead, db):
    """An issue template's `# Bug` is not a second <h1> on the report or labelling page."""
    report = factories.BugReportFactory(body="# Bug\n\n## To Reproduce\n\nrun it")
    factories.CommentFactory(report=report, body="# Same here")

    data = api_as(lead).get(f"/api/reports/{report.pk}/").json()

    assert data["body_html"].startswith("<h3>Bug</h3>\n<h4>To Reproduce</h4>")
    assert data["comments"][0]["body_html"].startswith("<h3>Same here</h3>")
