"""Setting studies up through the API: bodies are checked key by key, a draw that would take
nothing is refused, one that takes less than asked says so, and the hold time is set; the
study list filters by your role."""

import datetime as dt

import pytest

from labeler.models import Study, StudyBatch
from tests.labeler.calls import assert_error, client_for
from tests.labeler.factories import labelling_codebook
from tests.mining.factories import BugReportFactory, RepositoryFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def repo_reports():
    repo = RepositoryFactory(owner="demo-org", name="torch-demo")
    return [
        BugReportFactory(
            repository=repo,
            number=number,
            created_at=dt.datetime(2021, 1, number, tzinfo=dt.UTC),
        )
        for number in range(1, 6)
    ]


def create_body(study, **fields):
    return {"slug": "new", "name": "New", "codebook": study.codebook.key, "seed": 1, **fields}


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"frame": {"repo": ["x"]}}, "frame.repo", ["'repo'", "did you mean 'repositories'?"]),
        ({"frame": {"stat": "open"}}, "frame.stat", ["did you mean 'state'?"]),
        ({"sample": {"sise": 10}}, "sample.sise", ["'sise'", "did you mean 'size'?"]),
        ({"overlapp": 3}, "overlapp", ["'overlapp'", "did you mean 'overlap'?"]),
        ({"zzz": 1}, "zzz", ["unknown field 'zzz' (known: codebook,"]),
    ],
)
def test_create_refuses_unknown_keys_naming_the_closest_known_one(
    study, lead, repo_reports, body, field, words
):
    response = client_for(lead).post("/api/studies/", create_body(study, **body), format="json")

    assert_error(response, field, *words)
    assert not Study.objects.filter(slug="new").exists()


def test_unknown_keys_are_reported_with_the_other_errors(study, lead):
    body = {"slug": "new", "name": "New", "codebok": study.codebook.key}

    response = client_for(lead).post("/api/studies/", body, format="json")

    fields = response.json()["fields"]
    assert fields["codebok"] == ["unknown field 'codebok': did you mean 'codebook'?"]
    assert fields["codebook"] == ["This field is required."]
    assert (
        response.json()["message"] == "codebok: unknown field 'codebok': did you mean 'codebook'?"
    )


def test_preview_and_batches_refuse_unknown_keys_too(study, lead, repo_reports):
    client = client_for(lead)

    preview = client.post("/api/studies/preview/", {"frame": {"repo": ["x"]}}, format="json")
    batch = client.post("/api/studies/perf/batches/", {"sampel": {}}, format="json")

    assert_error(preview, "frame.repo", "did you mean 'repositories'?")
    assert_error(batch, "sampel", "did you mean 'sample'?")
    assert study.batches.count() == 0


def test_preview_takes_a_create_body_as_it_is(study, lead, repo_reports):
    body = create_body(study, overlap=3, hold_minutes=10, frame={"repositories": []})

    response = client_for(lead).post("/api/studies/preview/", body, format="json")

    assert response.status_code == 200
    assert response.json()["frame_size"] == 5 + study.items.count()


def test_frame_keywords_are_taken(study, lead, repo_reports):
    repo_reports[0].title = "Memory leak in the loader"
    repo_reports[0].save()
    body = create_body(study, frame={"keywords": ["memory leak"]})

    response = client_for(lead).post("/api/studies/", body, format="json")

    assert response.status_code == 201, response.json()
    created = Study.objects.get(slug="new")
    assert created.frame["keywords"] == ["memory leak"]
    assert list(created.items.values_list("report", flat=True)) == [repo_reports[0].pk]


def test_unknown_codebook_is_a_400_naming_it(study, lead, repo_reports):
    labelling_codebook(key="dlperf", version="1.0")
    client = client_for(lead)

    missing = client.post("/api/studies/", create_body(study, codebook="dlpref"), format="json")
    version = client.post(
        "/api/studies/", create_body(study, codebook="dlperf", codebook_version="9"), format="json"
    )

    assert_error(missing, "codebook", "no codebook 'dlpref'", "did you mean 'dlperf'?", "loaded:")
    assert_error(version, "codebook_version", "codebook 'dlperf' has no version '9'", "1.0")
    assert not Study.objects.filter(slug="new").exists()


def test_a_study_over_an_empty_frame_is_refused_naming_the_filters(study, lead, repo_reports):
    body = create_body(
        study, frame={"repositories": ["demo-org/torch-demo"], "created_from": "2030-01-01"}
    )

    response = client_for(lead).post("/api/studies/", body, format="json")

    assert_error(
        response,
        "frame",
        "matched no report (filters: repositories demo-org/torch-demo; created from 2030-01-01)",
    )
    assert not Study.objects.filter(slug="new").exists()
    assert StudyBatch.objects.count() == 0


def test_a_batch_with_nothing_left_to_draw_is_refused(study, lead):
    response = client_for(lead).post("/api/studies/perf/batches/", {}, format="json")

    assert_error(response, "frame", "matched no report not already in the study (no filters)")
    assert study.batches.count() == 0
    assert study.items.count() == 4


def test_preview_of_an_empty_frame_says_why(study, lead, repo_reports):
    body = {"frame": {"created_from": "2030-01-01"}}

    response = client_for(lead).post("/api/studies/preview/", body, format="json")

    assert response.status_code == 200
    assert response.json()["sample_size"] == 0
    assert response.json()["warnings"] == [
        "the frame matched no report (filters: created from 2030-01-01): a study needs at "
        "least one item; widen the frame"
    ]


def test_a_fixed_size_larger_than_the_frame_says_it_was_capped(study, lead, repo_reports):
    client = client_for(lead)
    frame = {"repositories": ["demo-org/torch-demo"]}
    sample = {"mode": "size", "size": 1000}

    preview = client.post(
        "/api/studies/preview/", {"frame": frame, "sample": sample}, format="json"
    )
    created = client.post(
        "/api/studies/", create_body(study, frame=frame, sample=sample), format="json"
    )
    batch = client.post("/api/studies/perf/batches/", {"sample": sample}, format="json")

    capped = ["sample capped at the frame size: 5 (asked for 1000)"]
    assert preview.json()["warnings"] == capped
    assert created.status_code == 201
    assert created.json()["batch"]["sample_size"] == 5
    assert created.json()["batch"]["warnings"] == capped
    # The perf study's frame is every report: the 5 new ones are not in it yet.
    assert batch.json()["warnings"] == capped
    smaller = client.post(
        "/api/studies/",
        create_body(study, slug="small", frame=frame, sample={"mode": "size", "size": 2}),
        format="json",
    )
    assert smaller.json()["batch"]["warnings"] == []


def test_hold_minutes_set_the_studys_hold_timeout(study, lead, repo_reports):
    client = client_for(lead)

    response = client.post("/api/studies/", create_body(study, hold_minutes=90), format="json")
    default = client.post("/api/studies/", create_body(study, slug="default"), format="json")

    assert response.status_code == 201
    assert response.json()["study"]["hold_minutes"] == 90
    assert Study.objects.get(slug="new").hold_timeout == dt.timedelta(minutes=90)
    assert default.json()["study"]["hold_minutes"] == 30
    listed = {row["slug"]: row for row in client.get("/api/studies/").json()["results"]}
    assert listed["new"]["hold_minutes"] == 90
    assert "hold_timeout_seconds" not in listed["new"]


def test_the_schema_names_the_hold_time_as_a_create_takes_it(study, lead):
    schema = client_for(lead).get("/api/schema/", {"format": "json"}).json()["components"]

    answered = schema["schemas"]["Study"]["properties"]
    assert answered["hold_minutes"]["type"] == "number"
    assert "hold_timeout_seconds" not in answered
    assert schema["schemas"]["StudyCreate"]["properties"]["hold_minutes"]["type"] == "integer"


@pytest.mark.parametrize("minutes", [0, -5, 1441, 100_000])
def test_hold_minutes_out_of_range_are_refused(study, lead, repo_reports, minutes):
    response = client_for(lead).post(
        "/api/studies/", create_body(study, hold_minutes=minutes), format="json"
    )

    assert_error(response, "hold_minutes", "must be between 1 and 1440 minutes (24 hours)")
    assert not Study.objects.filter(slug="new").exists()


def test_study_list_filters_by_my_role(study, annotator, lead):
    assert client_for(lead).get("/api/studies/?role=lead").json()["count"] == 1
    assert client_for(annotator).get("/api/studies/?role=lead").json()["count"] == 0


def test_create_refuses_bad_sampling_with_the_field_named(study, lead):
    body = {
        "slug": "x",
        "name": "X",
        "codebook": study.codebook.key,
        "sample": {"mode": "confidence", "confidence": 1.5, "margin": 0.05},
    }
    response = client_for(lead).post("/api/studies/", body, format="json")
    assert response.status_code == 400
    assert "sample.confidence" in response.json()["fields"]


def test_a_study_names_its_sample_as_a_preview_takes_it(study, lead, repo_reports):
    client = client_for(lead)
    sample = {"mode": "size", "size": 2, "stratify": "repository"}
    created = client.post("/api/studies/", create_body(study, sample=sample), format="json")
    assert created.status_code == 201, created.json()

    read = client.get("/api/studies/new/").json()
    again = client.post(
        "/api/studies/preview/",
        {name: read[name] for name in ("frame", "sample", "seed")},
        format="json",
    )

    assert "sampling" not in read
    assert read["sample"]["mode"] == "size" and read["sample"]["size"] == 2
    assert again.status_code == 200, again.json()
    assert again.json()["sample_size"] == created.json()["batch"]["sample_size"]


EDGE_SAMPLES = [
    ({"margin": 1e-300, "confidence": 0.95}, "sample.margin", ["0.005 and 0.5", "1e-300"]),
    ({"margin": 0.05, "confidence": 0.9999999999999999}, "sample.confidence", ["0.5 and 0.999"]),
    ({"margin": 0.6, "confidence": 0.95}, "sample.margin", ["0.005 and 0.5"]),
    ({"margin": 0.05, "confidence": 0.1}, "sample.confidence", ["0.5 and 0.999"]),
]


@pytest.mark.parametrize(("sample", "field", "words"), EDGE_SAMPLES)
@pytest.mark.parametrize("door", ["preview", "create", "batches"])
def test_sampling_at_the_edges_is_a_400_naming_the_field(
    study, lead, repo_reports, sample, field, words, door
):
    body = {"frame": {"repositories": ["demo-org/torch-demo"]}, "sample": {"mode": "confidence"}}
    body["sample"].update(sample)
    path = {
        "preview": "/api/studies/preview/",
        "create": "/api/studies/",
        "batches": "/api/studies/perf/batches/",
    }[door]
    if door != "batches":
        body = create_body(study, **body)
    before = (Study.objects.count(), StudyBatch.objects.count())

    response = client_for(lead).post(path, body, format="json")

    assert_error(response, field, *words)
    assert (Study.objects.count(), StudyBatch.objects.count()) == before


def test_sampling_within_the_bounds_draws(study, lead, repo_reports):
    body = create_body(
        study,
        frame={"repositories": ["demo-org/torch-demo"]},
        sample={"mode": "confidence", "confidence": 0.999, "margin": 0.005},
    )

    response = client_for(lead).post("/api/studies/preview/", body, format="json")

    assert response.status_code == 200
    assert response.json()["sample_size"] == 5
