"""The double-coding plan page: the study's leads and researchers (and staff) plan, before
labelling, how many items to double-code; the answer is the simulation's (the same as the
API's), with its method and seed; a bad share is named."""

import re

import pytest
from django.test import Client

from labeler.agreement.planning import plan_before
from tests.labeler.role_calls import statuses

pytestmark = pytest.mark.django_db

URL = "/studies/perf/agreement/plan/"
QUERY = {
    "coefficient": "fleiss_kappa",
    "expected": "0.8",
    "shares": "0.3, 0.7",
    "half_width": "0.1",
    "annotators": "3",
    "seed": "4",
}


@statuses(
    annotator=403,
    other_annotator=403,
    lead=200,
    researcher=200,
    outsider=404,
    anonymous=302,
    staff=200,
)
def test_who_may_plan(request, study, other_annotator, role, expected):
    client = Client()
    if role != "anonymous":
        client.force_login(request.getfixturevalue(role))
    response = client.get(URL)
    assert response.status_code == expected
    if expected == 200:
        page = response.content.decode()
        assert 'data-testid="plan-form"' in page
        assert 'data-testid="plan-result"' not in page


def test_the_plan_is_the_simulations(client, study, researcher):
    client.force_login(researcher)
    page = client.get(URL, QUERY).content.decode()
    plan = plan_before(
        expected=0.8,
        shares=[0.3, 0.7],
        half_width_wanted=0.1,
        annotators=3,
        coefficient="fleiss_kappa",
        seed=4,
    )
    assert re.search(r'data-testid="plan-items">(\d+)<', page).group(1) == str(plan["items"])
    found = re.search(r'data-testid="plan-half-width">([\d.]+)<', page).group(1)
    assert found == f"{plan['half_width']:.3f}"
    assert "seed 4" in page and f"{plan['draws']} bootstrap draws" in page
    assert "Fleiss&#x27; kappa expected at 0.80" in page
    rounds = re.findall(r'<td class="num" data-value="(\d+)">', page)
    assert rounds == [str(r["items"]) for r in plan["rounds"]]


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [("shares", "0.5", "2 to 50 positive shares"), ("shares", "a,b", "numbers separated")],
)
def test_a_bad_field_is_named(client, study, lead, field, value, words):
    client.force_login(lead)
    page = client.get(URL, QUERY | {field: value}).content.decode()
    assert f'data-testid="error-{field}"' in page and words in page
    assert 'data-testid="plan-result"' not in page


def test_the_agreement_page_links_to_it(client, study, lead):
    client.force_login(lead)
    page = client.get("/studies/perf/agreement/").content.decode()
    assert f'href="{URL}" data-testid="plan-link"' in page
