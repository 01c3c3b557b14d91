"""The API's lists refuse what they do not understand: an unknown query parameter, or a bad
value of one they take, is a 400 naming it, never a silently unfiltered list."""

import pytest

from mining.models import BugReport
from tests.labeler.calls import client_for
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory
from tests.mining.factories import BugReportFactory

pytestmark = pytest.mark.django_db

LISTS = [
    "/api/reports/",
    "/api/imports/",
    "/api/studies/",
    "/api/items/",
    "/api/assignments/",
    "/api/annotations/",
    "/api/codebooks/",
]


@pytest.fixture
def client(admin_user):
    study = LabellingStudyFactory(slug="perf")
    StudyItemFactory(study=study)
    return client_for(admin_user)


@pytest.mark.parametrize("url", LISTS)
def test_every_list_refuses_an_unknown_query_parameter_naming_it(client, url):
    response = client.get(url, {"assignment": "17"})

    assert response.status_code == 400, response.json()
    body = response.json()
    assert list(body["fields"]) == ["assignment"]
    assert body["message"].startswith("assignment: unknown query parameter 'assignment'")


@pytest.mark.parametrize("url", LISTS)
def test_every_list_takes_its_page_and_format(client, url):
    response = client.get(url, {"page": "1", "format": "json"})

    assert response.status_code == 200, response.json()


@pytest.mark.parametrize("url", LISTS)
def test_every_list_takes_a_bounded_page_size_said_in_the_schema(client, url):
    assert client.get(url, {"page_size": "1000"}).status_code == 200
    for bad in ("0", "1001", "-3", "ten"):
        response = client.get(url, {"page_size": bad})
        assert response.status_code == 400, (bad, response.json())
        assert response.json()["fields"] == {
            "page_size": [f"{bad!r} is not a page size: a whole number from 1 to 1000"]
        }
    schema = client.get("/api/schema/", {"format": "json"}).json()
    (parameter,) = (
        p for p in schema["paths"][url]["get"]["parameters"] if p["name"] == "page_size"
    )
    assert parameter["schema"] == {"type": "integer", "minimum": 1, "maximum": 1000, "default": 50}


def test_a_script_reads_a_long_list_in_pages_of_its_size(client):
    for number in range(1, 8):
        BugReportFactory(number=number)
    seen, url, pages = [], "/api/reports/?page_size=3", 0
    while url:
        page = client.get(url).json()
        seen += [report["number"] for report in page["results"]]
        url, pages = page["next"], pages + 1
    everything = sorted(BugReport.objects.values_list("number", flat=True))
    assert len(everything) == 8  # the seven and the study's
    assert sorted(seen) == everything and pages == 3


def test_an_unknown_parameter_names_the_closest_known_one(client):
    response = client.get("/api/annotations/", {"anotator": "ann"})

    assert response.json()["fields"] == {
        "anotator": ["unknown query parameter 'anotator': did you mean 'annotator'?"]
    }


@pytest.mark.parametrize(
    ("url", "params", "field", "words"),
    [
        ("/api/reports/", {"created_after": "garbage"}, "created_after", "not a date"),
        ("/api/reports/", {"closed_before": "2024-13-01"}, "closed_before", "not a date"),
        ("/api/reports/", {"has_fix": "maybe"}, "has_fix", "'maybe' is not true or false"),
        ("/api/items/", {"complete": "perhaps"}, "complete", "is not true or false"),
        ("/api/reports/", {"state": "half-open"}, "state", "half-open"),
    ],
)
def test_a_bad_value_is_a_400_naming_its_parameter(client, url, params, field, words):
    response = client.get(url, params)

    assert response.status_code == 400
    assert list(response.json()["fields"]) == [field]
    assert words in response.json()["message"]
    assert response.json()["message"].startswith(f"{field}: ")


@pytest.mark.parametrize(
    ("value", "count"), [("true", 0), ("false", 1), ("1", 0), ("no", 1), ("", 1)]
)
def test_yes_and_no_are_read_in_their_usual_spellings(client, value, count):
    response = client.get("/api/items/", {"complete": value})

    assert response.status_code == 200
    assert response.json()["count"] == count


def test_a_date_alone_filters_from_its_midnight(client):
    BugReportFactory(created_at="2024-05-01T00:00:00Z")
    BugReportFactory(created_at="2024-04-30T23:59:59Z")

    day = client.get("/api/reports/", {"created_after": "2024-05-01"})
    moment = client.get("/api/reports/", {"created_after": "2024-04-30T23:00:00Z"})

    assert day.status_code == 200
    assert {r["created_at"][:10] for r in day.json()["results"]} == {"2024-05-01"}
    assert moment.json()["count"] == 2
