"""The items of a study: the report of an item for reading while labelling, an item's
history, and the items page of the study's leads."""

import json
import re

import pytest

from labeler.adjudication.services import item_adjudicate
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import StudyItem
from mining.models import Commit
from tests.labeler.conftest import GOOD_LABELS
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory
from tests.labeler.submissions import OTHER_LABELS, submitted
from tests.labeler.ui_factories import HOSTILE_BODY, report_with_fix
from tests.mining.factories import BugReportFactory, CommentFactory

pytestmark = pytest.mark.django_db


def test_report_json_is_rendered_and_sanitized_with_its_fix(client, study, annotator):
    assignment = assignment_next(study=study, user=annotator)
    report = assignment.item.report
    report.body = HOSTILE_BODY
    report.save()
    CommentFactory(report=report, body="Also on **2.1** <b onclick=x()>bold</b>")
    commit, pull_request = report_with_fix(report)
    client.force_login(annotator)

    data = client.get(f"/studies/perf/items/{assignment.item_id}/report/").json()

    assert data["title"] == report.title
    assert "<script" not in data["body_html"] and "&lt;script&gt;" in data["body_html"]
    assert "<img" not in data["body_html"]
    assert 'href="javascript' not in data["body_html"]
    assert '<pre><code class="language-python">for _ in range(10):' in data["body_html"]
    assert data["comments"][0]["body_html"].startswith("<p>Also on <strong>2.1</strong>")
    assert "<b " not in data["comments"][0]["body_html"]
    fixes = {fix["target"]: fix for fix in data["fix_links"]}
    commit_fix = fixes[f"commit:{commit.sha}"]
    assert commit_fix["evidence_display"] == "Closed by commit (timeline)"
    assert commit_fix["commit"]["message"].startswith("Fix the leak")
    assert commit_fix["commit"]["files"][0]["patch"].startswith("@@ -1,3 +1,3 @@")
    assert fixes[f"pr:{pull_request.number}"]["pull_request"]["merged"] is True
    assert "labels" not in json.dumps(data).replace('"labels": ["type:bug"]', "")


def test_report_json_only_for_items_handed_to_the_annotator(client, study, annotator, lead):
    item = study.items.order_by("position").last()
    client.force_login(annotator)
    assert client.get(f"/studies/perf/items/{item.pk}/report/").status_code == 403
    client.force_login(lead)
    assert client.get(f"/studies/perf/items/{item.pk}/report/").status_code == 200


def test_report_of_another_study_is_404(client, study, annotator):
    other = LabellingStudyFactory(slug="other")
    item = StudyItem.objects.create(study=other, report=BugReportFactory(), needed=2)
    client.force_login(annotator)

    assert client.get(f"/studies/perf/items/{item.pk}/report/").status_code == 404


def test_report_json_reads_a_fixed_number_of_queries(
    client, study, annotator, django_assert_max_num_queries
):
    assignment = assignment_next(study=study, user=annotator)
    report = assignment.item.report
    for _ in range(5):
        CommentFactory(report=report)
    for _ in range(3):
        report_with_fix(report)
    client.force_login(annotator)

    with django_assert_max_num_queries(10):
        response = client.get(f"/studies/perf/items/{assignment.item_id}/report/")

    assert len(response.json()["fix_links"]) == 6
    assert len(response.json()["comments"]) == 5


def test_report_json_shows_a_never_imported_pull_request_without_a_state(client, study, annotator):
    assignment = assignment_next(study=study, user=annotator)
    report = assignment.item.report
    _commit, pull_request = report_with_fix(report)
    # What a fix link leaves when it names a pull request no import has fetched: its number.
    pull_request.title = pull_request.html_url = ""
    pull_request.state, pull_request.merged = "open", False
    pull_request.additions = pull_request.deletions = None
    pull_request.save()
    report.repository.html_url = ""
    report.repository.save(update_fields=["html_url"])
    client.force_login(annotator)

    data = client.get(f"/studies/perf/items/{assignment.item_id}/report/").json()

    fixes = {fix["target"]: fix for fix in data["fix_links"]}
    assert fixes[f"pr:{pull_request.number}"]["pull_request"] == {
        "number": pull_request.number,
        "imported": False,
        "title": "",
        "body": "",
        "state": None,
        "merged": False,
        "merge_commit_sha": "",
        "additions": None,
        "deletions": None,
        "html_url": f"https://github.com/{report.repository.full_name}/pull/{pull_request.number}",
    }


def test_report_json_links_pull_requests_over_http_only(client, study, annotator):
    assignment = assignment_next(study=study, user=annotator)
    report = assignment.item.report
    report.repository.html_url = "https://ghe.example.org/octo/engine"
    report.repository.save(update_fields=["html_url"])
    _commit, kept = report_with_fix(report)
    _commit, hostile = report_with_fix(report)
    hostile.html_url = "javascript:alert(1)"
    hostile.save(update_fields=["html_url"])
    client.force_login(annotator)

    data = client.get(f"/studies/perf/items/{assignment.item_id}/report/").json()

    pull_requests = {f["target"]: f["pull_request"] for f in data["fix_links"] if f["pull_request"]}
    rebuilt = pull_requests[f"pr:{hostile.number}"]
    assert rebuilt["html_url"] == f"https://ghe.example.org/octo/engine/pull/{hostile.number}"
    assert (rebuilt["imported"], rebuilt["state"]) == (True, "merged")
    assert pull_requests[f"pr:{kept.number}"]["html_url"] == kept.html_url
    assert kept.html_url.startswith("https://github.com/")


def test_history_is_blind_for_annotators_and_complete_for_leads(
    client, study, annotator, second_annotator, lead
):
    mine = submitted(study, annotator, note="first try")
    assignment_submit(
        assignment_id=mine.pk,
        user=annotator,
        labels={"root-cause": "memory/bloat"},
        note="on second thought",
        seconds=3,
    )
    submitted(study, second_annotator, labels=OTHER_LABELS, note="ann2 note")
    url = f"/studies/perf/items/{mine.item_id}/history/"

    client.force_login(annotator)
    html = client.get(url).content.decode()
    assert html.count('data-testid="version"') == 2
    assert "memory/leak" in html and "memory/bloat" in html
    assert "on second thought" in html
    assert "threading" not in html and "ann2 note" not in html

    client.force_login(lead)
    html = client.get(url).content.decode()
    assert html.count('data-testid="version"') == 3
    assert "threading" in html and "ann2 note" in html


def test_history_names_dimensions_and_categories_in_the_codebooks_order(client, study, annotator):
    mine = submitted(study, annotator, labels={"root-cause": "memory/leak", "impact": ["speed"]})
    assignment_submit(assignment_id=mine.pk, user=annotator, labels={"root-cause": "threading"})
    client.force_login(annotator)

    html = client.get(f"/studies/perf/items/{mine.item_id}/history/").content.decode()

    first = html.index('data-testid="version"')
    version = html[first : html.index('data-testid="version"', first + 1)]
    assert re.search(r"<dt>Root cause</dt><dd>Category \d+ <code>memory/leak</code></dd>", version)
    assert version.index("Root cause") < version.index("Impact")
    changes = html[html.rindex("<tbody>") : html.rindex("</tbody>")]
    assert changes.index("Root cause") < changes.index("Impact")
    assert "(memory/leak)</td>" in changes and "(threading)</td>" in changes


def test_history_shows_every_version_once_adjudicated(client, study, annotator, second_annotator):
    mine = submitted(study, annotator)
    submitted(study, second_annotator, labels=OTHER_LABELS)
    StudyItem.objects.filter(pk=mine.item_id).update(adjudicated_at="2024-01-01T00:00Z")
    client.force_login(annotator)

    html = client.get(f"/studies/perf/items/{mine.item_id}/history/").content.decode()

    assert html.count('data-testid="version"') == 2
    assert "threading" in html


def test_leads_see_every_item_by_state_with_counts_and_no_labels(
    client, study, annotator, second_annotator, lead, django_assert_max_num_queries
):
    done = submitted(study, annotator)
    # The same item: now complete, and not final, as the two disagree.
    submitted(study, second_annotator, labels=OTHER_LABELS)
    assignment_next(study=study, user=annotator)  # the next item: in progress
    client.force_login(lead)

    with django_assert_max_num_queries(9):  # the same with 4 items or 40
        html = client.get("/studies/perf/items/").content.decode()

    states = html[html.index('data-testid="item-states"') :]
    assert "all (4)" in states and "open (2)" in states
    assert "in progress (1)" in states and "complete (1)" in states
    rows = re.findall(r'<tr data-item="(\d+)">(.*?)</tr>', html, re.S)
    assert len(rows) == 4
    first = dict(rows)[str(done.item_id)]
    assert "2 of 2" in first and '<span class="badge">complete</span>' in first
    assert f"/studies/perf/items/{done.item_id}/history/" in first
    assert "memory/leak" not in html  # labels stay on the history page

    html = client.get("/studies/perf/items/?state=open").content.decode()
    assert len(re.findall(r'<tr data-item="', html)) == 2
    html = client.get("/studies/perf/items/?state=nonsense").content.decode()
    assert "state &#x27;nonsense&#x27; is not one of open, in-progress" in html
    assert len(re.findall(r'<tr data-item="', html)) == 4


def test_a_final_item_says_how_it_became_final(
    client, study, annotator, second_annotator, lead, django_assert_max_num_queries
):
    agreed = submitted(study, annotator)
    submitted(study, second_annotator)  # the same labels: final, unanimous
    split = submitted(study, annotator)
    submitted(study, second_annotator, labels=OTHER_LABELS)
    half = submitted(study, annotator)
    submitted(study, second_annotator, labels={**GOOD_LABELS, "root-cause": "threading"})
    decision = {"value": "threading", "rationale": "the trace", "reason": "annotator_slip"}
    item_adjudicate(
        item_id=split.item_id,
        user=lead,
        decisions={"root-cause": decision, "impact": {**decision, "value": ["speed"]}},
    )
    item_adjudicate(item_id=half.item_id, user=lead, decisions={"root-cause": decision})
    client.force_login(lead)

    with django_assert_max_num_queries(9):
        html = client.get("/studies/perf/items/").content.decode()

    rows = dict(re.findall(r'<tr data-item="(\d+)">(.*?)</tr>', html, re.S))
    state = {
        item: re.search(r'<span class="badge">([^<]*)</span>', rows[str(item)]).group(1)
        for item in (agreed.item_id, split.item_id, half.item_id)
    }
    assert state == {
        agreed.item_id: "final: unanimous",
        split.item_id: "final: adjudicated",
        half.item_id: "final: unanimous, adjudicated",
    }
    assert "final (3)" in html[html.index('data-testid="item-states"') :]
    html = client.get("/studies/perf/items/?state=final").content.decode()
    assert len(re.findall(r'<tr data-item="', html)) == 3


def test_the_items_page_costs_the_same_queries_for_many_items(
    client, study, lead, django_assert_max_num_queries
):
    for position in range(4, 140):
        StudyItemFactory(study=study, position=position)
    client.force_login(lead)

    with django_assert_max_num_queries(9):
        html = client.get("/studies/perf/items/?page=2").content.decode()

    assert len(re.findall(r'<tr data-item="', html)) == 40
    assert "Page 2 of 2" in html


def test_only_leads_see_the_items_page(client, study, annotator, researcher):
    for user in (annotator, researcher):
        client.force_login(user)
        assert client.get("/studies/perf/items/").status_code == 403


def test_report_json_says_when_patches_are_being_fetched(client, study, annotator):
    assignment = assignment_next(study=study, user=annotator)
    commit, _ = report_with_fix(assignment.item.report)
    client.force_login(annotator)
    url = f"/studies/perf/items/{assignment.item_id}/report/"
    assert client.get(url).json()["patches"] == {"pending": False, "error": ""}
    Commit.objects.filter(pk=commit.pk).update(files_fetched=False, files=[])
    # The fetch is queued (it runs once this test's transaction would commit): pending.
    assert client.get(url).json()["patches"] == {"pending": True, "error": ""}
    Commit.objects.filter(pk=commit.pk).update(files_error="could not reach GitHub")
    assert client.get(url).json()["patches"] == {
        "pending": False,
        "error": "could not reach GitHub",
    }
