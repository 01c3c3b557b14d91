"""The study pages for every role: annotator, lead, researcher, non-member, anonymous."""

import datetime as dt
import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from labeler.frames import STRATA
from labeler.models import Assignment, Study, StudyBatch, StudyItem, StudyMember
from labeler.roles import Role
from labeler.services.assignment import assignment_next, assignment_skip, assignment_submit
from mining.models import BugReport
from tests.labeler.conftest import GOOD_LABELS
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory, labelling_codebook
from tests.labeler.ui_factories import HOSTILE_BODY, report_with_fix
from tests.mining.factories import BugReportFactory, CommentFactory, RepositoryFactory

pytestmark = pytest.mark.django_db
User = get_user_model()

OTHER_LABELS = {"root-cause": "threading", "impact": ["memory-use"]}


def pages(slug="perf", item_id=1):
    return {
        "detail": reverse("studies:detail", args=[slug]),
        "label": reverse("studies:label", args=[slug]),
        "members": reverse("studies:members", args=[slug]),
        "history": reverse("studies:item-history", args=[slug, item_id]),
        "report": reverse("studies:item-report", args=[slug, item_id]),
        "import": reverse("studies:import", args=[slug]),
        "items": reverse("studies:items", args=[slug]),
    }


def submitted(study, user, labels=GOOD_LABELS, note=""):
    assignment = assignment_next(study=study, user=user)
    return assignment_submit(
        assignment_id=assignment.pk, user=user, labels=labels, note=note, seconds=7
    )


# -- who may open what


@pytest.mark.parametrize(
    "url",
    [
        "/studies/",
        "/studies/new/",
        "/studies/perf/",
        "/studies/perf/label/",
        "/studies/perf/members/",
        "/studies/perf/import/",
        "/studies/perf/items/",
        "/studies/perf/items/1/history/",
        "/studies/perf/items/1/report/",
    ],
)
def test_anonymous_is_sent_to_sign_in(client, study, url):
    response = client.get(url)

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


def test_non_member_gets_404_everywhere_even_for_existing_items(client, study, outsider):
    client.force_login(outsider)
    item = study.items.first()

    for url in pages(item_id=item.pk).values():
        assert client.get(url).status_code == 404, url
    assert client.post(reverse("studies:batch-add", args=["perf"])).status_code == 404
    assert client.get("/studies/no-such-study/").status_code == 404


def test_study_list_shows_only_my_studies_with_my_roles(client, study, annotator):
    LabellingStudyFactory(name="Secret study", slug="secret")
    client.force_login(annotator)

    html = client.get("/studies/").content.decode()

    assert study.name in html
    assert "Secret study" not in html
    assert '<span class="badge">annotator</span>' in html
    assert 'href="/studies/perf/label/"' in html
    assert "New study" not in html


def test_study_list_offers_new_study_to_those_who_may_create(client, study, researcher):
    client.force_login(researcher)

    html = client.get("/studies/").content.decode()

    assert 'href="/studies/new/"' in html
    assert 'href="/studies/perf/label/"' not in html


def test_annotator_sees_overview_guidelines_and_only_own_progress(
    client, study, annotator, second_annotator
):
    study.guidelines = "# Rules\n\nLabel the *root cause*. <script>alert(1)</script>"
    study.save()
    submitted(study, second_annotator)
    submitted(study, annotator)
    client.force_login(annotator)

    html = client.get("/studies/perf/").content.decode()

    assert "<h1>Rules</h1>" in html and "<em>root cause</em>" in html
    assert "<script>alert(1)" not in html and "&lt;script&gt;" in html
    assert 'data-testid="start-labelling"' in html
    assert "You: 1 submitted, 0 skipped." in html
    assert 'data-testid="per-annotator"' not in html
    assert "ann2" not in html
    assert 'data-testid="skipped"' not in html
    assert 'href="/studies/perf/members/"' not in html


def test_lead_sees_progress_per_annotator_skips_with_reasons_and_batch_form(
    client, study, annotator, second_annotator, lead
):
    submitted(study, annotator)
    held = assignment_next(study=study, user=second_annotator)
    assignment_skip(
        assignment_id=held.pk, user=second_annotator, reason="cannot_judge", note="No logs given"
    )
    client.force_login(lead)

    html = client.get("/studies/perf/").content.decode()

    per_annotator = html[html.index('data-testid="per-annotator"') :]
    assert "<td>ann</td><td>1</td><td>0</td><td>0</td>" in per_annotator
    assert "<td>ann2</td><td>0</td><td>0</td><td>1</td>" in per_annotator
    skipped = html[html.index('data-testid="skipped"') :]
    assert "cannot judge" in skipped and "No logs given" in skipped
    assert 'action="/studies/perf/batches/"' in html
    assert 'href="/studies/perf/members/"' in html
    assert 'data-testid="start-labelling"' not in html


def test_researcher_reads_progress_but_does_not_manage_or_label(client, study, researcher):
    client.force_login(researcher)

    html = client.get("/studies/perf/").content.decode()

    assert 'data-testid="per-annotator"' in html
    assert 'data-testid="skipped"' not in html
    assert client.get("/studies/perf/members/").status_code == 403
    assert client.get("/studies/perf/label/").status_code == 403
    assert client.post("/studies/perf/batches/").status_code == 403


def test_label_page_needs_the_annotator_role_in_the_study(client, study, lead, annotator):
    client.force_login(lead)
    assert client.get("/studies/perf/label/").status_code == 403
    client.force_login(annotator)
    assert client.get("/studies/perf/label/").status_code == 200


# -- the labelling page


def label_config(html: str) -> dict:
    match = re.search(r'<script id="label-config" type="application/json">(.*?)</script>', html)
    return json.loads(match.group(1))


def test_label_page_ships_the_scheme_and_api_addresses_but_no_labels(
    client, study, annotator, second_annotator
):
    submitted(study, second_annotator, labels=OTHER_LABELS, note="ann2 thinks threads")
    client.force_login(annotator)

    html = client.get("/studies/perf/label/").content.decode()

    config = label_config(html)
    root_cause, impact = config["dimensions"]
    assert [c["path"] for c in root_cause["categories"]] == [
        "memory",
        "memory/leak",
        "memory/bloat",
        "threading",
    ]
    assert root_cause["categories"][1]["parent"] == "memory"
    assert root_cause["leafOnly"] is True and impact["multiple"] is True
    assert root_cause["categories"][0]["definition"] == "What this category means."
    assert config["urls"]["next"] == "/api/studies/perf/next/"
    assert config["urls"]["submit"] == "/api/assignments/{id}/submit/"
    assert config["urls"]["report"] == "/studies/perf/items/{id}/report/"
    assert [r["value"] for r in config["skipReasons"]] == [
        "not_a_bug",
        "not_enough_information",
        "cannot_judge",
    ]
    assert "ann2 thinks threads" not in html
    assert "ann2" not in html
    assert 'src="/static/js/label.js"' in html
    assert "Keyboard shortcuts" in html


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
    assert "<script" not in data["bodyHtml"] and "&lt;script&gt;" in data["bodyHtml"]
    assert "<img" not in data["bodyHtml"]
    assert 'href="javascript' not in data["bodyHtml"]
    assert '<pre><code class="language-python">for _ in range(10):' in data["bodyHtml"]
    assert data["comments"][0]["bodyHtml"].startswith("<p>Also on <strong>2.1</strong>")
    assert "<b " not in data["comments"][0]["bodyHtml"]
    fixes = {fix["target"]: fix for fix in data["fixes"]}
    commit_fix = fixes[f"commit:{commit.sha}"]
    assert commit_fix["evidence"] == ["Closed by commit (timeline)"]
    assert commit_fix["commit"]["message"].startswith("Fix the leak")
    assert commit_fix["commit"]["files"][0]["patch"].startswith("@@ -1,3 +1,3 @@")
    assert fixes[f"pr:{pull_request.number}"]["pullRequest"]["merged"] is True
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


# -- item history


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


# -- the items of a study, for its leads


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


# -- members


def test_lead_adds_and_removes_members(client, study, lead, make_user):
    newcomer = make_user(Role.ANNOTATOR, username="newcomer")
    client.force_login(lead)

    response = client.post(
        "/studies/perf/members/", {"action": "add", "usernames": "newcomer", "role": "annotator"}
    )

    assert response.status_code == 302
    member = StudyMember.objects.get(study=study, user=newcomer)
    assert member.role == "annotator"
    html = client.get("/studies/perf/members/").content.decode()
    assert "newcomer" in html

    client.post("/studies/perf/members/", {"action": "remove", "member": member.pk})
    assert not StudyMember.objects.filter(study=study, user=newcomer).exists()


def test_lead_adds_several_users_at_once(client, study, lead, make_user):
    for name in ("amy", "bob", "cy"):
        make_user(Role.ANNOTATOR, username=name)
    client.force_login(lead)

    response = client.post(
        "/studies/perf/members/",
        {"action": "add", "usernames": "amy, bob\ncy  amy", "role": "researcher"},
        follow=True,
    )

    added = study.members.filter(role="researcher", user__username__in=["amy", "bob", "cy"])
    assert sorted(added.values_list("user__username", flat=True)) == ["amy", "bob", "cy"]
    assert "amy, bob, cy: now researcher of the study." in response.content.decode()


def test_unknown_users_without_the_box_are_named_and_nobody_is_added(
    client, study, lead, make_user
):
    make_user(Role.ANNOTATOR, username="amy")
    client.force_login(lead)

    response = client.post(
        "/studies/perf/members/",
        {"action": "add", "usernames": "amy ghost phantom", "role": "annotator"},
    )

    assert response.status_code == 200
    html = response.content.decode()
    error = re.search(r'data-testid="error-usernames">([^<]*)<', html).group(1)
    assert "ghost, phantom" in error
    assert study.members.count() == 3
    assert not User.objects.filter(username__in=["ghost", "phantom"]).exists()


def test_unknown_users_with_the_box_are_created_without_a_usable_password(
    client, study, lead, make_user
):
    make_user(Role.ANNOTATOR, username="amy")
    client.force_login(lead)

    response = client.post(
        "/studies/perf/members/",
        {"action": "add", "usernames": "amy,ghost", "role": "annotator", "create_users": "on"},
    )

    assert response.status_code == 302
    ghost = User.objects.get(username="ghost")
    assert not ghost.has_usable_password()
    members = study.members.filter(role="annotator", user__username__in=["amy", "ghost"])
    assert members.count() == 2


@pytest.mark.parametrize(
    ("usernames", "message"),
    [
        ("  , ", "enter at least one username"),
        ("amy bad/name", "not a valid username: bad/name"),
        ("x" * 151, "not a valid username: " + "x" * 151),
    ],
)
def test_wrong_usernames_are_refused_before_anything_is_written(
    client, study, lead, usernames, message
):
    client.force_login(lead)

    response = client.post(
        "/studies/perf/members/",
        {"action": "add", "usernames": usernames, "role": "annotator", "create_users": "on"},
    )

    assert response.status_code == 200
    assert message in response.content.decode()
    assert study.members.count() == 3
    assert not User.objects.filter(username="amy").exists()


def test_the_last_lead_cannot_be_removed(client, study, lead):
    client.force_login(lead)
    member = StudyMember.objects.get(study=study, user=lead)

    response = client.post(
        "/studies/perf/members/", {"action": "remove", "member": member.pk}, follow=True
    )

    assert "A study keeps at least one lead" in response.content.decode()
    assert StudyMember.objects.filter(pk=member.pk).exists()


def test_annotator_cannot_manage_members(client, study, annotator, outsider):
    client.force_login(annotator)

    response = client.post(
        "/studies/perf/members/", {"action": "add", "usernames": "outsider", "role": "lead"}
    )

    assert response.status_code == 403
    assert not StudyMember.objects.filter(user=outsider).exists()


# -- setting a study up


@pytest.fixture
def frame_reports():
    torch = RepositoryFactory(owner="pytorch", name="pytorch")
    tf = RepositoryFactory(owner="tensorflow", name="tensorflow")
    for number in range(1, 301):
        BugReportFactory(
            repository=torch if number <= 200 else tf,
            number=number,
            state="closed" if number % 3 else "open",
        )
    return torch, tf


def setup_data(codebook, **overrides):
    data = {
        "name": "Performance bugs",
        "slug": "perf-bugs",
        "codebook": codebook.pk,
        "state": "all",
        "sample_mode": "confidence",
        "confidence": "0.95",
        "margin": "0.05",
        "stratify": "repository",
        "seed": "7",
        "overlap": "2",
        "item_order": "random",
        "guidelines": "Read the *whole* thread.",
    }
    data.update(overrides)
    return data


def test_setup_page_only_for_those_who_may_create_studies(client, annotator, researcher):
    client.force_login(annotator)
    assert client.get("/studies/new/").status_code == 403
    client.force_login(researcher)
    html = client.get("/studies/new/").content.decode()
    assert 'name="sample_mode"' in html and 'name="repositories"' in html
    assert 'data-testid="create-study"' not in html


def test_preview_shows_cochran_size_and_strata_and_writes_nothing(
    client, researcher, frame_reports
):
    codebook = labelling_codebook()
    client.force_login(researcher)

    response = client.post("/studies/new/", {**setup_data(codebook), "action": "preview"})

    html = response.content.decode()
    assert response.status_code == 200
    # n0 = 1.96^2 * 0.25 / 0.05^2 = 384.1; n = 384.1 / (1 + 383.1 / 300) = 168.7 -> 169
    assert 'data-testid="frame-size">300<' in html
    assert 'data-testid="sample-size">169<' in html
    assert "384.1" in html and "168.7" in html
    strata = html[html.index('data-testid="strata"') :]
    assert "<td>pytorch/pytorch</td><td>200</td><td>113</td>" in strata
    assert "<td>tensorflow/tensorflow</td><td>100</td><td>56</td>" in strata
    assert 'data-testid="create-study"' in html
    assert not Study.objects.exists()


def test_stratify_offers_each_allowed_field_once_with_its_label(client, researcher):
    client.force_login(researcher)

    html = client.get("/studies/new/").content.decode()

    select = html[
        html.index('name="stratify"') : html.index("</select>", html.index('name="stratify"'))
    ]
    values = re.findall(r'<option value="([^"]*)"', select)
    assert values == ["", *STRATA]
    assert '<option value="created_year">year opened</option>' in select


def test_stratifying_by_a_near_unique_field_is_refused_next_to_the_field(
    client, researcher, frame_reports
):
    codebook = labelling_codebook()
    client.force_login(researcher)

    response = client.post(
        "/studies/new/", {**setup_data(codebook, stratify="author_login"), "action": "preview"}
    )

    html = response.content.decode()
    error = re.search(r'data-testid="error-stratify">([^<]*)<', html).group(1)
    assert error.startswith("author_login is not a field to stratify by (allowed: repository,")
    assert 'data-testid="strata"' not in html


def test_preview_by_year_names_the_stratum_by_its_label(client, researcher, frame_reports):
    codebook = labelling_codebook()
    client.force_login(researcher)

    response = client.post(
        "/studies/new/", {**setup_data(codebook, stratify="created_year"), "action": "preview"}
    )

    strata = response.content.decode().split('data-testid="strata"')[1]
    assert "Strata by year opened" in strata
    assert "<td>2021</td><td>300</td><td>169</td>" in strata


def test_create_after_preview_draws_what_was_previewed(client, researcher, frame_reports):
    codebook = labelling_codebook()
    client.force_login(researcher)
    data = setup_data(codebook, dimensions=[codebook.dimensions.get(key="impact").pk])
    html = client.post("/studies/new/", {**data, "action": "preview"}).content.decode()
    previewed = re.search(r'name="previewed" value="([0-9a-f]+)"', html).group(1)

    response = client.post("/studies/new/", {**data, "action": "create", "previewed": previewed})

    assert response.status_code == 302
    assert response["Location"] == "/studies/perf-bugs/"
    study = Study.objects.get(slug="perf-bugs")
    assert study.items.count() == 169
    assert [d.key for d in study.dimensions.all()] == ["impact"]
    assert study.seed == 7 and study.guidelines == "Read the *whole* thread."
    assert StudyMember.objects.filter(study=study, user=researcher, role="lead").exists()
    assert StudyBatch.objects.get(study=study).strata[0]["sample"] == 113


def test_create_with_settings_changed_since_the_preview_shows_the_preview_again(
    client, researcher, frame_reports
):
    codebook = labelling_codebook()
    client.force_login(researcher)
    data = setup_data(codebook)
    html = client.post("/studies/new/", {**data, "action": "preview"}).content.decode()
    previewed = re.search(r'name="previewed" value="([0-9a-f]+)"', html).group(1)

    response = client.post(
        "/studies/new/",
        {**data, "margin": "0.1", "action": "create", "previewed": previewed},
    )

    assert response.status_code == 200
    assert "The settings changed since the preview" in response.content.decode()
    assert not Study.objects.exists()


def test_setup_page_offers_the_seed_studys_keywords(client, researcher):
    client.force_login(researcher)

    html = client.get("/studies/new/").content.decode()

    assert '<textarea name="keywords"' in html
    button = re.search(r'<button[^>]*data-testid="seed-keywords"[^>]*>([^<]*)<', html)
    assert button.group(1) == "Fill in the seed study's 29 keywords"
    assert 'data-keywords="performance regression\nregression in performance' in button.group(0)


def test_preview_and_study_use_the_study_keywords(client, researcher, frame_reports):
    torch, _ = frame_reports
    BugReport.objects.filter(repository=torch, number__in=[1, 2, 3]).update(
        title="Memory  leak in the loader"
    )
    BugReport.objects.filter(repository=torch, number=4).update(
        is_performance_candidate=True,
        candidate_rules={"performance": ["label:module: performance"]},
    )
    BugReport.objects.filter(repository=torch, number=5).update(
        is_performance_candidate=True, candidate_rules={"performance": ["keyword:slower"]}
    )
    codebook = labelling_codebook()
    client.force_login(researcher)
    data = setup_data(
        codebook,
        sample_mode="all",
        stratify="",
        candidates="performance",
        keywords="memory leak\r\n\r\nout of memory\r\n",
    )

    html = client.post("/studies/new/", {**data, "action": "preview"}).content.decode()
    previewed = re.search(r'name="previewed" value="([0-9a-f]+)"', html).group(1)
    response = client.post("/studies/new/", {**data, "action": "create", "previewed": previewed})

    # 1 to 3 by the keyword, 4 by its label rule; 5 only by the repository's own keyword.
    assert 'data-testid="frame-size">4<' in html
    assert 'data-testid="preview-keywords">memory leak, out of memory<' in html
    study = Study.objects.get(slug="perf-bugs")
    assert study.frame["keywords"] == ["memory leak", "out of memory"]
    assert sorted(study.items.values_list("report__number", flat=True)) == [1, 2, 3, 4]
    detail = client.get(response["Location"]).content.decode()
    assert "keywords: memory leak, out of memory" in detail


def test_duplicate_keywords_are_shown_on_their_field(client, researcher, frame_reports):
    codebook = labelling_codebook()
    client.force_login(researcher)

    data = setup_data(codebook, keywords="slow\nmemory leak\nSlow")
    html = client.post("/studies/new/", {**data, "action": "preview"}).content.decode()

    errors = re.findall(r'data-testid="error-keywords">([^<]*)<', html)
    assert errors == ["entry 3: &#x27;Slow&#x27; repeats entry 1"]
    assert 'data-testid="sample-preview"' not in html


def test_setup_errors_are_shown_next_to_their_fields(client, researcher, frame_reports):
    codebook = labelling_codebook()
    other = labelling_codebook()
    LabellingStudyFactory(slug="taken")
    client.force_login(researcher)

    html = client.post(
        "/studies/new/",
        {
            **setup_data(codebook),
            "created_from": "2021-02-01",
            "created_to": "2021-01-01",
            "dimensions": [other.dimensions.first().pk],
            "action": "preview",
        },
    ).content.decode()

    assert 'data-testid="error-created_to"' in html
    assert "must not be before created_from" in html
    assert 'data-testid="error-dimensions"' in html
    assert 'data-testid="create-study"' not in html

    data = setup_data(codebook, slug="taken", sample_mode="size", sample_size="")
    html = client.post("/studies/new/", {**data, "action": "preview"}).content.decode()
    assert 'data-testid="error-sample_size"' in html
    assert not Study.objects.filter(slug="perf-bugs").exists()


def test_lead_previews_then_draws_a_second_batch(client, study, lead):
    for _ in range(6):
        BugReportFactory()
    client.force_login(lead)
    data = {"sample_mode": "size", "sample_size": "5", "seed": "3"}

    html = client.post("/studies/perf/batches/", {**data, "action": "preview"}).content.decode()

    assert 'data-testid="frame-size">6<' in html
    assert 'data-testid="sample-size">5<' in html
    assert study.items.count() == 4
    previewed = re.search(r'name="previewed" value="([0-9a-f]+)"', html).group(1)
    response = client.post(
        "/studies/perf/batches/", {**data, "action": "draw", "previewed": previewed}
    )
    assert response.status_code == 302
    assert study.items.count() == 9
    assert study.batches.get().sample_size == 5
    assert Assignment.objects.count() == 0


# -- importing labels made elsewhere


def csv_upload(text, name="labels.csv"):
    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")


def test_lead_imports_labels_from_a_csv(client, study, lead):
    item = study.items.order_by("position").first()
    ref = f"{item.report.repository.full_name}#{item.report.number}"
    client.force_login(lead)
    text = (
        "item,annotator,dimension,value,note\n"
        f"{ref},carol,root-cause,memory/leak,from the pilot\n"
        f"{ref},carol,impact,speed;memory-use,\n"
    )

    response = client.post("/studies/perf/import/", {"file": csv_upload(text)})

    assert response.status_code == 302
    assignment = Assignment.objects.get(item=item, annotator__username="carol")
    assert assignment.status == "submitted" and assignment.note == "from the pilot"
    assert dict(assignment.annotations.values_list("dimension__key", "values")) == {
        "root-cause": ["memory/leak"],
        "impact": ["speed", "memory-use"],
    }


def test_import_lists_every_problem_with_its_line_and_writes_nothing(client, study, lead):
    item = study.items.order_by("position").first()
    ref = f"{item.report.repository.full_name}#{item.report.number}"
    client.force_login(lead)
    text = (
        "item,annotator,dimension,value\n"
        f"{ref},carol,root-cause,memory/leak\n"
        f"{ref},dave,root-cause,memory\n"
        "not-an-item,dave,root-cause,threading\n"
    )

    response = client.post("/studies/perf/import/", {"file": csv_upload(text)})

    html = response.content.decode()
    assert response.status_code == 200
    problems = html[html.index('data-testid="import-problems"') :]
    assert "labels.csv:4: item &#x27;not-an-item&#x27; is not owner/name#number" in problems
    assert not Assignment.objects.exists()
    assert not StudyMember.objects.filter(user__username="carol").exists()

    text = "item,annotator,dimension,value\n" + f"{ref},dave,root-cause,memory\n"
    html = client.post("/studies/perf/import/", {"file": csv_upload(text)}).content.decode()
    assert "labels.csv:2:" in html and "has sub-categories" in html
    assert not Assignment.objects.exists()


def test_import_page_counts_every_problem_past_the_listed_ones(client, study, lead):
    client.force_login(lead)
    rows = "".join(f"nowhere/{n},dave,root-cause,threading\n" for n in range(60))

    response = client.post(
        "/studies/perf/import/", {"file": csv_upload("item,annotator,dimension,value\n" + rows)}
    )

    html = response.content.decode()
    assert "Nothing was imported: 60 problems" in html
    assert "labels.csv: … and 10 more problems" in html
    assert not Assignment.objects.exists()


def test_only_leads_import(client, study, annotator, researcher):
    for user in (annotator, researcher):
        client.force_login(user)
        assert client.get("/studies/perf/import/").status_code == 403
        response = client.post("/studies/perf/import/", {"file": csv_upload("item\n")})
        assert response.status_code == 403


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

    assert len(response.json()["fixes"]) == 6
    assert len(response.json()["comments"]) == 5


def test_removing_a_member_with_a_malformed_id_is_a_404(client, study, lead):
    client.force_login(lead)

    response = client.post("/studies/perf/members/", {"action": "remove", "member": "abc"})

    assert response.status_code == 404


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

    fixes = {fix["target"]: fix for fix in data["fixes"]}
    assert fixes[f"pr:{pull_request.number}"]["pullRequest"] == {
        "number": pull_request.number,
        "imported": False,
        "title": "",
        "state": None,
        "merged": False,
        "additions": None,
        "deletions": None,
        "url": f"https://github.com/{report.repository.full_name}/pull/{pull_request.number}",
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

    pull_requests = {f["target"]: f["pullRequest"] for f in data["fixes"] if f["pullRequest"]}
    rebuilt = pull_requests[f"pr:{hostile.number}"]
    assert rebuilt["url"] == f"https://ghe.example.org/octo/engine/pull/{hostile.number}"
    assert (rebuilt["imported"], rebuilt["state"]) == (True, "merged")
    assert pull_requests[f"pr:{kept.number}"]["url"] == kept.html_url
    assert kept.html_url.startswith("https://github.com/")


# -- empty draws, capped samples and the hold time


def preview_then(client, url, data, action):
    """Preview, then confirm with the fingerprint the preview gave: (preview html, response)."""
    html = client.post(url, {**data, "action": "preview"}).content.decode()
    previewed = re.search(r'name="previewed" value="([0-9a-f]*)"', html).group(1)
    return html, client.post(url, {**data, "action": action, "previewed": previewed}, follow=True)


def test_setup_sets_the_hold_time_and_the_study_page_shows_it(client, researcher, frame_reports):
    codebook = labelling_codebook()
    client.force_login(researcher)
    assert 'name="hold_minutes"' in client.get("/studies/new/").content.decode()

    _, response = preview_then(
        client, "/studies/new/", setup_data(codebook, hold_minutes="45"), "create"
    )

    assert Study.objects.get(slug="perf-bugs").hold_timeout == dt.timedelta(minutes=45)
    hold = re.search(r'data-testid="hold-time">([^<]*)<', response.content.decode()).group(1)
    assert hold.startswith("45 minutes: an item held this long")


def test_setup_without_a_hold_time_keeps_thirty_minutes(client, researcher, frame_reports):
    client.force_login(researcher)

    _, response = preview_then(client, "/studies/new/", setup_data(labelling_codebook()), "create")

    assert Study.objects.get(slug="perf-bugs").hold_timeout == dt.timedelta(minutes=30)
    assert 'data-testid="hold-time">30 minutes:' in response.content.decode()


@pytest.mark.parametrize("minutes", ["0", "1441", "-3"])
def test_a_hold_time_out_of_range_is_shown_on_its_field(client, researcher, frame_reports, minutes):
    client.force_login(researcher)
    data = setup_data(labelling_codebook(), hold_minutes=minutes)

    html = client.post("/studies/new/", {**data, "action": "preview"}).content.decode()

    error = re.search(r'data-testid="error-hold_minutes">([^<]*)<', html).group(1)
    assert error == "must be between 1 and 1440 minutes (24 hours)"
    assert not Study.objects.exists()


def test_an_empty_frame_is_explained_and_no_study_is_created(client, researcher, frame_reports):
    client.force_login(researcher)
    data = setup_data(
        labelling_codebook(),
        repositories=["pytorch/pytorch"],
        created_from="2030-01-01",
        sample_mode="all",
        stratify="",
    )

    html, response = preview_then(client, "/studies/new/", data, "create")

    warning = re.search(r'data-testid="preview-warning">([^<]*)<', html).group(1)
    assert warning == (
        "the frame matched no report (filters: repositories pytorch/pytorch; created from "
        "2030-01-01): a study needs at least one item; widen the frame"
    )
    assert 'data-testid="create-study"' not in html
    errors = response.content.decode().split('data-testid="form-errors"')[1]
    assert "frame: matched no report (filters: repositories pytorch/pytorch;" in errors
    assert not Study.objects.exists()


def test_a_sample_larger_than_the_frame_says_it_was_capped(client, researcher, frame_reports):
    client.force_login(researcher)
    data = setup_data(
        labelling_codebook(),
        repositories=["tensorflow/tensorflow"],
        sample_mode="size",
        sample_size="1000",
        stratify="",
    )

    html, response = preview_then(client, "/studies/new/", data, "create")

    assert "sample capped at the frame size: 100 (asked for 1000)" in html
    page = response.content.decode()
    assert (
        "Study created: 100 items drawn from 100 reports; sample capped at the frame size: 100 "
        "(asked for 1000)." in page
    )


def test_a_batch_with_nothing_left_is_explained_and_not_drawn(client, study, lead):
    client.force_login(lead)
    data = {"sample_mode": "all", "seed": "3"}

    html, response = preview_then(client, "/studies/perf/batches/", data, "draw")

    assert "the frame matched no report not already in the study (no filters)" in html
    assert 'data-testid="draw-batch"' not in html
    assert "frame: matched no report not already in the study" in response.content.decode()
    assert study.batches.count() == 0 and study.items.count() == 4


def test_a_capped_batch_says_so(client, study, lead):
    for _ in range(3):
        BugReportFactory()
    client.force_login(lead)
    data = {"sample_mode": "size", "sample_size": "10", "seed": "3"}

    html, response = preview_then(client, "/studies/perf/batches/", data, "draw")

    assert "sample capped at the frame size: 3 (asked for 10)" in html
    assert (
        "Batch 2 drawn: 3 new items from 3 reports not yet in the study; sample capped at the "
        "frame size: 3 (asked for 10)." in response.content.decode()
    )
