"""A lead sets the hierarchy alpha's distance on the agreement page; nobody else may; a bad
value is refused naming the field."""

import pytest

from labeler.models import Study

pytestmark = pytest.mark.django_db

URL = "/studies/perf/agreement/parent-distance/"


def test_a_lead_sets_the_distance(client, study, lead):
    client.force_login(lead)
    page = client.get("/studies/perf/agreement/").content.decode()
    assert 'data-testid="parent-distance-form"' in page

    response = client.post(URL, {"parent_distance": "0.3"}, follow=True)

    assert response.redirect_chain[-1][0] == "/studies/perf/agreement/"
    assert Study.objects.get(slug="perf").parent_distance == 0.3
    assert "now counts 0.3 for a parent match" in response.content.decode()


@pytest.mark.parametrize("value", ["1.5", "-0.1", "half"])
def test_a_bad_distance_is_named_and_nothing_changes(client, study, lead, value):
    client.force_login(lead)
    response = client.post(URL, {"parent_distance": value}, follow=True)
    assert "parent_distance:" in response.content.decode()
    assert Study.objects.get(slug="perf").parent_distance == 0.5


def test_researchers_and_annotators_may_not(client, study, researcher, annotator):
    for user in (researcher, annotator):
        client.force_login(user)
        assert client.post(URL, {"parent_distance": "0.2"}).status_code == 403
    client.force_login(researcher)
    page = client.get("/studies/perf/agreement/").content.decode()
    assert 'data-testid="parent-distance-form"' not in page
    assert Study.objects.get(slug="perf").parent_distance == 0.5
