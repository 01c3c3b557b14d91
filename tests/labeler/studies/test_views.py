"""The pages of studies: the list, the overview for every role, set-up with its preview,
another batch, labels imported from a CSV file."""

import datetime as dt
import hashlib
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from labeler.labelling.services import assignment_next, assignment_skip
from labeler.models import (
    AnnotationVersion,
    Assignment,
    LabelImport,
    Study,
    StudyBatch,
    StudyMember,
)
from labeler.studies.frames import STRATA
from mining.models import BugReport
from tests.labeler.factories import LabellingStudyFactory, labelling_codebook
from tests.labeler.submissions import submitted
from tests.mining.factories import BugReportFactory, RepositoryFactory

pytestmark = pytest.mark.django_db


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

    # Under the page's "Guidelines" <h2>.
    assert "<h3>Rules</h3>" in html and "<em>root cause</em>" in html
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


def test_researcher_sees_progress_per_annotator_by_pseudonym(
    client, study, annotator, second_annotator, researcher
):
    submitted(study, annotator)
    assignment_next(study=study, user=second_annotator)
    client.force_login(researcher)

    html = client.get("/studies/perf/").content.decode()

    per_annotator = html[html.index('data-testid="per-annotator"') :]
    assert "<td>A1</td><td>1</td><td>0</td><td>0</td>" in per_annotator
    assert "<td>(no submission yet)</td><td>0</td><td>1</td><td>0</td>" in per_annotator
    table = per_annotator[: per_annotator.index("</table>")]
    assert "<td>ann</td>" not in table and "<td>ann2</td>" not in table


# -- setting a study up


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
    RepositoryFactory(owner="pytorch", name="pytorch")
    client.force_login(annotator)
    assert client.get("/studies/new/").status_code == 403
    client.force_login(researcher)
    html = client.get("/studies/new/").content.decode()
    assert 'name="sample_mode"' in html
    assert re.search(r'type="checkbox" name="repositories" value="pytorch/pytorch"', html)
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
    assert "must not be before “Opened from”" in html
    assert "created_from" not in html.split('data-testid="error-created_to"')[1][:200]
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


def test_imported_labels_name_who_imported_them_and_the_file_in_the_history(client, study, lead):
    item = study.items.order_by("position").first()
    ref = f"{item.report.repository.full_name}#{item.report.number}"
    text = f"item,annotator,dimension,value\n{ref},carol,root-cause,memory/leak\n"
    client.force_login(lead)

    client.post("/studies/perf/import/", {"file": csv_upload(text, name="old.csv")})

    version = AnnotationVersion.objects.get(item=item, annotator__username="carol")
    imported = version.imported
    assert (imported.imported_by, imported.file_name, imported.rows) == (lead, "old.csv", 1)
    assert imported.sha256 == hashlib.sha256(text.encode()).hexdigest()
    html = client.get(f"/studies/perf/items/{item.pk}/history/").content.decode()
    line = html[html.index('data-testid="imported"') :]
    assert line.startswith(
        f'data-testid="imported">imported by {lead.username} from old.csv (SHA-256 '
        f"<code>{imported.sha256[:12]}…</code>)"
    )
    (api_version,) = client.get(f"/api/items/{item.pk}/history/").json()
    assert api_version["imported"] == {
        "imported_by": lead.username,
        "file_name": "old.csv",
        "sha256": imported.sha256,
        "created_at": api_version["imported"]["created_at"],
    }


def test_an_upload_past_the_row_cap_is_refused_naming_both(client, study, lead, settings):
    settings.LABEL_IMPORT_MAX_ROWS = 2
    item = study.items.order_by("position").first()
    ref = f"{item.report.repository.full_name}#{item.report.number}"
    rows = "".join(f"{ref},{name},root-cause,memory/leak\n" for name in ("a", "b", "c"))
    client.force_login(lead)

    response = client.post(
        "/studies/perf/import/", {"file": csv_upload("item,annotator,dimension,value\n" + rows)}
    )

    assert (
        "labels.csv: 3 rows; an upload takes at most 2: split the file, or import it with the "
        "import_annotations command" in response.content.decode()
    )
    assert not Assignment.objects.exists()


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


def _written():
    return (
        Assignment.objects.count(),
        AnnotationVersion.objects.count(),
        LabelImport.objects.count(),
        BugReport.objects.count(),
        StudyMember.objects.count(),
    )


@pytest.mark.parametrize("create_missing_reports", [False, True])
def test_an_item_number_past_the_largest_is_named_by_line_and_nothing_written(
    client, study, lead, create_missing_reports
):
    item = study.items.order_by("position").first()
    ref = f"{item.report.repository.full_name}#{item.report.number}"
    client.force_login(lead)
    text = (
        "item,annotator,dimension,value\n"
        f"{ref},carol,root-cause,memory/leak\n"
        "pytorch/pytorch#18446744073709551616,carol,root-cause,memory/leak\n"
    )
    before = _written()
    form = {"file": csv_upload(text)}
    if create_missing_reports:
        form["create_missing_reports"] = "on"

    response = client.post("/studies/perf/import/", form)

    assert response.status_code == 200
    problems = response.content.decode().split('data-testid="import-problems"')[1]
    assert (
        "labels.csv:3: item &#x27;pytorch/pytorch#18446744073709551616&#x27;: the number is past "
        "2,147,483,647" in problems
    )
    assert _written() == before


@pytest.mark.parametrize(
    "text", ["item,annotator,dimension,value\n", "item,annotator,dimension,value\n,,,\n"]
)
def test_a_labels_file_without_rows_is_refused_and_nothing_written(client, study, lead, text):
    client.force_login(lead)
    before = _written()

    response = client.post("/studies/perf/import/", {"file": csv_upload(text)})

    html = response.content.decode()
    assert response.status_code == 200
    assert "Imported" not in html
    assert "labels.csv: no labels: the file has its header and no row" in html
    assert _written() == before


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


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("margin", "1e-300", "must be between 0.005 and 0.5, e.g. 0.05 (not 1e-300)"),
        ("confidence", "0.9999999999999999", "must be between 0.5 and 0.999, e.g. 0.95"),
    ],
)
@pytest.mark.parametrize("action", ["preview", "create"])
def test_sampling_out_of_bounds_is_shown_on_its_field_in_the_apis_words(
    client, researcher, frame_reports, field, value, expected, action
):
    """The page and the API share the sampling module's bounds and words."""
    client.force_login(researcher)
    data = setup_data(labelling_codebook(), **{field: value})

    html = client.post("/studies/new/", {**data, "action": action}).content.decode()

    error = re.search(rf'data-testid="error-{field}">([^<]*)<', html).group(1)
    assert error.startswith(expected)
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


def test_an_open_study_from_scratch_is_previewed_then_created(client, researcher, frame_reports):
    client.force_login(researcher)
    html = client.get("/studies/new/").content.decode()
    assert 'name="kind"' in html and 'name="dimension_names"' in html
    assert 'name="codes_shared"' in html
    data = {
        **setup_data(labelling_codebook(), sample_mode="size", sample_size="10"),
        "codebook": "",
        "kind": "open",
        "dimension_names": "root cause, symptom",
        "codes_shared": "on",
    }
    html = client.post("/studies/new/", {**data, "action": "preview"}).content.decode()
    previewed = re.search(r'name="previewed" value="([0-9a-f]+)"', html).group(1)

    response = client.post("/studies/new/", {**data, "action": "create", "previewed": previewed})

    assert response.status_code == 302
    study = Study.objects.get(slug="perf-bugs")
    assert (study.kind, study.codes_shared, study.codebook.version) == ("open", True, "open")
    assert [d.name for d in study.dimensions.order_by("position")] == ["root cause", "symptom"]
    assert study.boards.get().kind == "open"


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"codebook": ""}, "codebook", "closed-coding study labels with a codebook"),
        ({"codes_shared": "on"}, "codes_shared", "only an open-coding study"),
        ({"kind": "open", "codebook": ""}, "codebook", "names the dimensions it codes"),
        (
            {"kind": "open", "codebook": "", "dimension_names": "cause, Cause"},
            "dimension_names",
            "'Cause' is the same dimension as 'cause'",
        ),
    ],
)
def test_open_coding_settings_are_checked_at_the_preview_next_to_their_fields(
    client, researcher, frame_reports, fields, field, words
):
    client.force_login(researcher)
    data = {**setup_data(labelling_codebook()), **fields, "action": "preview"}
    html = client.post("/studies/new/", data).content.decode()
    error = re.search(rf'data-testid="error-{field}">([^<]*)<', html)
    assert error is not None, html
    assert words in error.group(1).replace("&#x27;", "'")
    assert 'data-testid="create-study"' not in html
