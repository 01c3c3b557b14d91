"""No figure computed over nothing: an open-coding round has no agreement, said at every door
(page, API, command, datasheet), and a dimension nobody chose a category in has no
coefficient."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from labeler.agreement.ratings import OPEN_CODING, AgreementNotApplicable, study_agreement
from labeler.export.dataset import ExportOptions
from labeler.export.markdown import datasheet_markdown
from labeler.export.pipeline import Export
from labeler.labelling.services import assignment_next, assignment_submit
from tests.labeler.factories import (
    LabellingStudyFactory,
    OpenStudyFactory,
    StudyItemFactory,
    StudyMemberFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

COEFFICIENTS = ("percent_agreement", "mean_cohen_kappa", "fleiss_kappa", "gwet_ac1")


@pytest.fixture
def diverging_open_study(lead):
    """Two annotators who wrote different codes on every item, and no category."""
    study = OpenStudyFactory(slug="pilot", overlap=2)
    StudyMemberFactory(study=study, user=lead, role="lead")
    for position in range(3):
        StudyItemFactory(study=study, position=position)
    for user, code in ((UserFactory(username="alice"), "leak"), (UserFactory(), "lock")):
        for _ in range(3):
            held = assignment_next(study=study, user=user)
            codes = {"root-cause": [code], "symptom": ["slow"]}
            assignment_submit(assignment_id=held.pk, user=user, labels={}, codes=codes)
    return study


def test_the_service_refuses_to_measure_an_open_round(diverging_open_study):
    with pytest.raises(AgreementNotApplicable, match="open-coding round has no agreement"):
        study_agreement(study=diverging_open_study, bootstrap=0)


def test_the_page_says_why_and_shows_no_figure(client, diverging_open_study, lead):
    client.force_login(lead)
    response = client.get("/studies/pilot/agreement/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="agreement-not-applicable"' in html
    assert "An open-coding round has no agreement" in html
    assert "Percent agreement" not in html
    assert "data-csv" not in html
    assert "(none)" not in html


@pytest.mark.parametrize("query", ["", "?by=batch", "?window=2", "?dimension=root-cause"])
def test_the_api_answers_409_with_the_reason(diverging_open_study, lead, query):
    client = APIClient()
    client.force_authenticate(lead)
    response = client.get(f"/api/studies/pilot/agreement/{query}")
    assert response.status_code == 409
    assert response.json() == {"message": OPEN_CODING, "fields": {}, "applicable": False}


@pytest.mark.parametrize("args", [(), ("--json",), ("--by", "batch", "--json")])
def test_the_command_says_why_in_one_line_and_fails(diverging_open_study, args):
    out = StringIO()
    with pytest.raises(CommandError) as raised:
        call_command("agreement", "pilot", *args, stdout=out)
    assert str(raised.value) == f"pilot: {OPEN_CODING}"
    assert "\n" not in str(raised.value)
    assert out.getvalue() == ""


def test_the_datasheet_says_why_in_json_and_markdown(diverging_open_study):
    export = Export(
        study=diverging_open_study, fmt="json", options=ExportOptions(include_annotators=True)
    )
    sheet = json.loads("".join(export.pieces()))["datasheet"]
    assert sheet["agreement"] == {
        "study": "pilot",
        "applicable": False,
        "reason": OPEN_CODING,
        "dimensions": [],
    }
    markdown = datasheet_markdown(sheet)
    assert "## Agreement\n\nAn open-coding round has no agreement" in markdown
    assert "% agreement" not in markdown


def test_a_dimension_where_nobody_chose_a_category_has_no_coefficient():
    """The optional multi-select `impact` left empty by both annotators on every item."""
    study = LabellingStudyFactory(slug="perf", overlap=2)
    for position in range(3):
        StudyItemFactory(study=study, position=position)
    for user in (UserFactory(), UserFactory()):
        for _ in range(3):
            held = assignment_next(study=study, user=user)
            labels = {"root-cause": "memory/leak", "impact": []}
            assignment_submit(assignment_id=held.pk, user=user, labels=labels)
    result = study_agreement(study=study, bootstrap=0)
    (impact,) = [entry for entry in result["dimensions"] if entry["dimension"] == "impact"]
    assert impact["ratings"] == 6
    for key in (*COEFFICIENTS, "krippendorff_alpha"):
        assert impact[key] is None, key
    assert any("no category chosen" in note for note in impact["notes"])
    # A category everyone chose is still perfect percent agreement.
    (leak,) = [e for e in result["dimensions"] if e["dimension"] == "root-cause"][-1:]
    assert leak["percent_agreement"] == 1.0
