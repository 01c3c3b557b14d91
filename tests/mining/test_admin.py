import pytest

from mining.candidates import RULE_FIELDS
from mining.models import BugReport, CandidateRules, SyncState
from tests.mining import factories

pytestmark = pytest.mark.django_db

MODELS = [
    "repository",
    "bugreport",
    "comment",
    "candidaterules",
    "syncstate",
    "pullrequest",
    "commit",
    "fixlink",
    "importjob",
]
READ_ONLY = ["syncstate", "pullrequest", "commit", "fixlink", "importjob"]


@pytest.fixture
def fix_link():
    link = factories.FixLinkFactory()
    factories.CommentFactory(report=link.report)
    factories.PullRequestFactory(repository=link.report.repository)
    factories.ImportJobFactory(repository=link.report.repository)
    CandidateRules.objects.create(repository=link.report.repository)

    SyncState.objects.create(repository=link.report.repository)
    return link


@pytest.mark.parametrize("model", MODELS)
def test_every_mining_model_has_an_admin_page(admin_client, fix_link, model):
    listing = admin_client.get(f"/admin/mining/{model}/")
    assert listing.status_code == 200
    obj = listing.context["cl"].result_list[0]
    detail = admin_client.get(f"/admin/mining/{model}/{obj.pk}/change/")
    assert detail.status_code == 200
    can_add = admin_client.get(f"/admin/mining/{model}/add/").status_code == 200
    assert can_add == (model not in READ_ONLY)
    if model in READ_ONLY:
        assert b'name="_save"' not in detail.content


def test_candidate_rules_edited_in_the_admin_reclassify_reports(admin_client):
    report = factories.BugReportFactory(title="Conv kernel", body="", labels=["needs triage"])
    rules = CandidateRules.objects.create(repository=report.repository)
    form = {
        "performance_labels": '["needs triage"]',
        "performance_keywords": '["conv kernel"]',
        "accuracy_labels": "[]",
        "accuracy_keywords": "[]",
        "non_bug_labels": "[]",
    }
    response = admin_client.post(f"/admin/mining/candidaterules/{rules.pk}/change/", form)
    assert response.status_code == 302
    report.refresh_from_db()
    assert report.is_performance_candidate
    assert report.candidate_rules == {"performance": ["label:needs triage", "keyword:conv kernel"]}

    bad = {**form, "performance_keywords": '["slow", "SLOW", 3]'}
    response = admin_client.post(f"/admin/mining/candidaterules/{rules.pk}/change/", bad)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors["performance_keywords"]
    assert "entry 2: 'SLOW' repeats entry 1" in errors and "entry 3: not a text" in errors
    rules.refresh_from_db()
    assert rules.performance_keywords == ["conv kernel"]
    assert BugReport.objects.get().is_performance_candidate


def test_only_those_who_manage_imports_edit_candidate_rules_in_the_admin(client, make_user):
    from django.contrib.auth.models import Permission

    rules = CandidateRules.objects.create(repository=factories.RepositoryFactory())
    staff = make_user(is_staff=True)
    staff.user_permissions.set(Permission.objects.filter(content_type__app_label="mining"))
    plain = make_user(is_staff=True)
    plain.user_permissions.set(
        Permission.objects.filter(content_type__app_label="mining").exclude(
            codename="manage_imports"
        )
    )
    url = f"/admin/mining/candidaterules/{rules.pk}/change/"
    form = {name: "[]" for name in RULE_FIELDS} | {"performance_keywords": '["slow"]'}

    client.force_login(plain)
    assert b'name="_save"' not in client.get(url).content
    assert client.post(url, form).status_code == 403
    rules.refresh_from_db()
    assert rules.performance_keywords != ["slow"]

    client.force_login(staff)
    assert client.post(url, form).status_code == 302
    rules.refresh_from_db()
    assert rules.performance_keywords == ["slow"]
