"""The agreement page, the disagreement queue, the side-by-side page, the majority policy, and
final labels on the study page and the item history: who sees what, and what they show."""

import json
import re

import pytest

from labeler.adjudication.services import item_adjudicate
from labeler.common.roles import Role
from labeler.models import Study
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory, StudyMemberFactory
from tests.labeler.final_labels import items_of, label_all
from tests.labeler.submissions import OTHER_LABELS, submitted

pytestmark = pytest.mark.django_db

AGREEMENT = "/studies/perf/agreement/"
QUEUE = "/studies/perf/adjudicate/"
DETAIL = "/studies/perf/"
THREADING = {
    "value": "threading",
    "rationale": "the trace shows two threads racing",
    "reason": "codebook_ambiguity",
}


def html_of(response):
    return response.content.decode()


def disputed_item(study):
    """The item the two annotators disagree on (root cause: memory/leak or threading)."""
    return items_of(study)[3]


def side_by_side_url(item):
    return f"{QUEUE}{item.pk}/"


@pytest.fixture
def decided_other_annotator(make_user, decided):
    """An annotator of the study who labelled none of its items."""
    user = make_user(Role.ANNOTATOR, username="ann3")
    StudyMemberFactory(study=decided, user=user, role="annotator")
    return user


@pytest.fixture
def outsider_lead(make_user):
    return make_user(Role.LEAD, username="outsider")


# Who plays these roles here: an annotator of the decided study, and a lead outside it.
PLAYED_BY = {"other_annotator": "decided_other_annotator", "outsider": "outsider_lead"}


def user_of(request, who):
    return None if who == "anonymous" else request.getfixturevalue(PLAYED_BY.get(who, who))


def get_as(client, request, who, url):
    user = user_of(request, who)
    if user is not None:
        client.force_login(user)
    return client.get(url)


@pytest.mark.parametrize(
    ("who", "status"),
    [
        ("lead", 200),
        ("researcher", 200),
        ("admin_user", 200),
        ("annotator", 403),
        ("other_annotator", 403),
        ("outsider", 404),
        ("anonymous", 302),
    ],
)
def test_agreement_page_is_for_leads_researchers_and_staff(client, request, decided, who, status):
    assert get_as(client, request, who, AGREEMENT).status_code == status


@pytest.mark.parametrize(
    ("who", "status"),
    [
        ("lead", 200),
        ("admin_user", 200),
        ("researcher", 403),
        ("annotator", 403),
        ("other_annotator", 403),
        ("outsider", 404),
        ("anonymous", 302),
    ],
)
@pytest.mark.parametrize("page", ["queue", "item"])
def test_adjudication_pages_are_for_leads_who_do_not_label(
    client, request, decided, who, status, page
):
    url = QUEUE if page == "queue" else side_by_side_url(disputed_item(decided))
    assert get_as(client, request, who, url).status_code == status


def test_a_lead_who_labels_stays_blind_to_the_queue(client, decided, annotator):
    StudyMemberFactory(study=decided, user=annotator, role="lead")
    client.force_login(annotator)

    assert client.get(QUEUE).status_code == 403
    assert client.get(DETAIL).status_code == 200
    assert 'data-testid="adjudicate-link"' not in html_of(client.get(DETAIL))


def test_agreement_page_tables_and_charts(client, decided, lead):
    client.force_login(lead)

    html = html_of(client.get(AGREEMENT))

    for level in ("top", "path"):
        section = f"root-cause-{level}"
        assert f'data-testid="coefficients-{section}"' in html
        assert f'data-testid="pairs-{section}"' in html
        assert f'data-testid="confusion-{section}"' in html
        assert f'data-testid="trend-{section}"' in html
        assert f'data-csv="perf-{section}-categories.csv"' in html
    # Leads see annotators by name, as the agreement API shows them.
    assert "Confusion matrix of ann (rows) and ann2 (columns)" in html
    assert "Krippendorff&#x27;s alpha" in html and "unreliable" in html
    assert html.count('data-chart="heatmap"') == 2 * 3 and "vendor/plotly/plotly.min.js" in html
    # Each band names its scale, and the legend tells both scales' bands.
    table = html[html.index('data-testid="coefficients-root-cause-path"') :]
    table = table[: table.index("</table>")]
    scales = {}
    for row in table.split("<tr")[2:]:
        name = re.search(r'<th scope="row">([^<]+?) ?<', row).group(1)
        scale = re.search(r'data-testid="band-scale">([^<]+)<', row)
        scales[name] = scale and scale.group(1)
    assert scales == {
        "Percent agreement": None,
        "Cohen&#x27;s kappa (mean over pairs)": "Landis and Koch (1977)",
        "Fleiss&#x27; kappa": "Landis and Koch (1977)",
        "Krippendorff&#x27;s alpha": "Krippendorff (2004)",
        "Gwet&#x27;s AC1": "Landis and Koch (1977)",
        # Partial credit has no published scale: no band.
        "Hierarchy alpha (partial credit for the same top category)": None,
    }
    legend = html[html.index('data-testid="band-legend"') :]
    legend = legend[: legend.index("</section>")]
    assert "<strong>Krippendorff (2004)</strong>, for Krippendorff&#x27;s alpha" in legend
    assert "tentative</span> 0.667 to below 0.800" in legend
    assert "reliable</span> 0.800 and above" in legend
    assert "Fleiss&#x27; kappa, Gwet&#x27;s AC1</dt>" in legend
    assert "moderate</span> 0.40 to 0.60" in legend
    # The pairs' heatmaps colour kappas from 0 to 1, whatever the data's range.
    pairs = html.count('data-testid="pairs-')
    assert html.count('data-chart="heatmap" data-z-min="0" data-z-max="1"') == pairs == 3
    assert 'data-testid="agreement-nothing-yet"' not in html
    assert "batch 1" in html


def test_researchers_see_pseudonyms_on_the_agreement_page(client, decided, researcher):
    client.force_login(researcher)

    html = html_of(client.get(AGREEMENT))

    assert "Confusion matrix of A1 (rows) and A2 (columns)" in html
    assert ">ann<" not in html and "ann2" not in html


def test_agreement_over_windows_the_lead_chooses(client, decided, lead):
    client.force_login(lead)

    html = html_of(client.get(AGREEMENT, {"by": "window", "window": 2}))

    assert "Agreement per window of 2 items" in html
    assert "items 1 to 2" in html and "items 5 to 6" in html


def test_agreement_page_counts_the_reasons_of_decisions(client, decided, lead):
    item = disputed_item(decided)
    item_adjudicate(item_id=item.pk, user=lead, decisions={"root-cause": THREADING})
    client.force_login(lead)

    html = html_of(client.get(AGREEMENT))

    table = re.search(r'data-testid="categories-root-cause-path".*?</table>', html, re.S).group(0)
    rows = dict(re.findall(r"<code>([^<]+)</code></th>(.*?)</tr>", table, re.S))
    counts = [int(n) for n in re.findall(r'data-value="(\d+)"', rows["threading"])]
    # Ratings, then codebook ambiguity, annotator slip, report unclear, other, and the total.
    assert counts[1:] == [1, 0, 0, 0, 1]
    assert re.findall(r'data-value="(\d+)"', rows["memory/bloat"])[1:] == ["0"] * 5


def queue_rows(html):
    return re.findall(r'<tr data-item="(\d+)"', html)


def test_queue_lists_the_disputed_item_and_unanimous_ones_apart(client, decided, lead):
    client.force_login(lead)
    item = disputed_item(decided)

    disputed = html_of(client.get(QUEUE))
    unanimous = html_of(client.get(QUEUE, {"show": "unanimous"}))

    assert queue_rows(disputed) == [str(item.pk)]
    assert "to decide (1)" in disputed and "unanimous (4)" in disputed
    assert str(item.pk) not in queue_rows(unanimous) and len(queue_rows(unanimous)) == 4
    assert "✗ split" in disputed


def test_queue_sorts_by_dimension_and_says_what_it_does_not_know(client, decided, lead):
    client.force_login(lead)

    impact = html_of(client.get(QUEUE, {"dimension": "impact"}))
    unknown = html_of(client.get(QUEUE, {"dimension": "colour", "ordering": "sideways"}))

    assert queue_rows(impact) == []  # they agreed on impact
    assert "to decide (1)" in impact  # the tabs count the whole queue
    assert "dimension &#x27;colour&#x27; is not one of root-cause, impact" in unknown
    assert "ordering &#x27;sideways&#x27; is not one of split, -split, position" in unknown
    assert len(queue_rows(unknown)) == 1


def test_side_by_side_page_carries_the_addresses_and_scheme(client, decided, lead):
    item = disputed_item(decided)
    client.force_login(lead)

    html = html_of(client.get(side_by_side_url(item)))

    config = json.loads(
        re.search(r'id="adjudicate-config" type="application/json">(.*?)</script>', html).group(1)
    )
    assert config["item"] == item.pk
    # Templates: the desk shows one item after another without a page load.
    assert config["urls"]["adjudicate"] == "/api/items/{id}/adjudicate/"
    assert config["urls"]["report"] == "/studies/perf/items/{id}/report/"
    assert config["urls"]["page"] == "/studies/perf/adjudicate/{id}/"
    assert config["urls"]["next"] == "/api/studies/perf/disagreements/next/"
    assert [d["key"] for d in config["dimensions"]] == ["root-cause", "impact"]
    assert {r["value"] for r in config["reasons"]} == {
        "codebook_ambiguity",
        "annotator_slip",
        "report_unclear",
        "other",
    }
    # Nobody's labels are in the page itself: the script reads them from the API.
    assert "memory/leak" in html  # a category of the scheme
    assert "ann2" not in html


def test_study_page_links_agreement_and_adjudication_with_counts(client, decided, lead):
    client.force_login(lead)

    html = html_of(client.get(DETAIL))

    assert 'href="/studies/perf/agreement/"' in html
    assert "Adjudicate (1 to decide)" in html
    assert 'data-testid="policy"' in html


@pytest.mark.parametrize("who", ["researcher", "annotator"])
def test_study_page_links_by_role(client, decided, request, who):
    client.force_login(request.getfixturevalue(who))

    html = html_of(client.get(DETAIL))

    assert ('href="/studies/perf/agreement/"' in html) is (who == "researcher")
    assert 'data-testid="adjudicate-link"' not in html
    assert 'data-testid="policy"' not in html


def test_lead_sets_the_majority_policy(client, decided, lead):
    client.force_login(lead)

    response = client.post("/studies/perf/policy/", {"majority": "auto", "back": "queue"})
    bad = client.post("/studies/perf/policy/", {"majority": "sometimes"}, follow=True)

    assert response.status_code == 302 and response["Location"] == QUEUE
    assert Study.objects.get(pk=decided.pk).majority == "auto"
    assert "majority policy &#x27;sometimes&#x27; is not one of auto, lead" in html_of(bad)
    assert Study.objects.get(pk=decided.pk).majority == "auto"


@pytest.mark.parametrize(("who", "status"), [("researcher", 403), ("annotator", 403)])
def test_only_leads_set_the_policy(client, decided, request, who, status):
    client.force_login(request.getfixturevalue(who))

    assert client.post("/studies/perf/policy/", {"majority": "auto"}).status_code == status
    assert Study.objects.get(pk=decided.pk).majority == "lead"


def test_annotators_see_final_labels_of_their_items_only_once_final(
    client, decided, lead, annotator, decided_other_annotator
):
    item = disputed_item(decided)
    history = f"/studies/perf/items/{item.pk}/history/"
    client.force_login(annotator)
    before_page = html_of(client.get(DETAIL))
    before_history = html_of(client.get(history))

    item_adjudicate(item_id=item.pk, user=lead, decisions={"root-cause": THREADING})
    after_page = html_of(client.get(DETAIL))
    after_history = html_of(client.get(history))
    client.force_login(decided_other_annotator)
    other_history = html_of(client.get(history))
    other_page = html_of(client.get(DETAIL))

    assert THREADING["rationale"] not in before_page
    assert 'data-testid="final-labels"' not in before_history
    # The unanimous items were final before: their labels show, with no rationale.
    assert "No item you labelled is final yet." not in before_page
    assert THREADING["rationale"] in after_page
    assert 'data-testid="final-labels"' in after_history
    assert THREADING["rationale"] in after_history and "✗ Root cause" in after_history
    assert "codebook ambiguity" in after_history
    assert 'data-testid="final-labels"' not in other_history
    assert "No item you labelled is final yet." in other_page


def test_lead_sees_decisions_on_the_history_as_they_are_made(client, decided, lead):
    item = disputed_item(decided)
    client.force_login(lead)

    html = html_of(client.get(f"/studies/perf/items/{item.pk}/history/"))

    assert 'data-testid="final-labels"' in html and "not final yet" in html
    assert "The annotators disagreed on: <strong" in html


@pytest.mark.parametrize(
    ("who", "shown"),
    [("lead", ["ann", "ann2"]), ("researcher", ["A1", "A2"]), ("annotator", ["A2", "ann"])],
)
def test_history_of_a_final_item_names_annotators_only_to_leads(
    client, decided, lead, request, who, shown
):
    item = disputed_item(decided)
    item_adjudicate(item_id=item.pk, user=lead, decisions={"root-cause": THREADING})
    client.force_login(request.getfixturevalue(who))

    html = html_of(client.get(f"/studies/perf/items/{item.pk}/history/"))

    names = re.findall(r'data-testid="version-annotator">([^<]+)<', html)
    assert sorted(names) == shown
    assert THREADING["rationale"] in html


def disputed_study(size, annotator, second, lead):
    """The study "split" of `size` items, each labelled memory/leak by one annotator and
    threading by the other."""
    study = LabellingStudyFactory(slug="split", overlap=2)
    for position in range(size):
        StudyItemFactory(study=study, position=position)
    for user, role in ((annotator, "annotator"), (second, "annotator"), (lead, "lead")):
        StudyMemberFactory(study=study, user=user, role=role)
    label_all(study, annotator, lambda item: {"root-cause": "memory/leak"})
    label_all(study, second, lambda item: {"root-cause": "threading"})
    return study


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("/studies/split/adjudicate/", "to decide (12)"),
        ("/studies/split/agreement/", "12 items · 24 ratings"),
        ("/studies/split/", "Adjudicate (12 to decide)"),
    ],
)
def test_pages_query_counts_do_not_grow_with_the_items(
    client, make_user, annotator, lead, url, says, django_assert_max_num_queries
):
    second = make_user(Role.ANNOTATOR, username="ann2")
    small = disputed_study(2, annotator, second, lead)
    client.force_login(lead)
    with django_assert_max_num_queries(60) as few:
        assert client.get(url).status_code == 200
    small.delete()
    disputed_study(12, annotator, second, lead)

    with django_assert_max_num_queries(len(few.captured_queries)):
        response = client.get(url)

    assert response.status_code == 200
    assert says in html_of(response)


def test_pages_of_a_study_nobody_labelled_yet(client, study, lead):
    client.force_login(lead)

    agreement = html_of(client.get(AGREEMENT, {"by": "window", "window": 5, "pair": "x / y"}))
    queue = html_of(client.get(QUEUE))

    nothing = agreement[agreement.index('data-testid="agreement-nothing-yet"') :]
    assert "No annotator has submitted a label yet. Agreement compares" in nothing
    assert 'data-testid="coefficients-' not in agreement  # no table of dashes
    assert 'data-testid="band-legend"' not in agreement
    assert "no pair yet" in agreement
    assert "Nothing to decide" in queue


def test_the_agreement_page_says_why_it_has_nothing_yet(client, study, annotator, lead, make_user):
    second = make_user(Role.ANNOTATOR, username="ann2")
    StudyMemberFactory(study=study, user=second, role="annotator")
    submitted(study, annotator)
    submitted(study, annotator)
    client.force_login(lead)

    html = html_of(client.get(AGREEMENT))
    assert "No item has been labelled by two annotators yet (2 items labelled by one so far)" in (
        html
    )

    submitted(study, second, labels=OTHER_LABELS)  # a disagreement: not final
    html = html_of(client.get(AGREEMENT))
    assert 'data-testid="agreement-nothing-yet"' not in html
    assert 'data-testid="coefficients-root-cause-top"' in html

    # A lead who labels sees figures over final items only: none is final yet.
    StudyMemberFactory(study=study, user=annotator, role="lead")
    client.force_login(annotator)
    html = html_of(client.get(AGREEMENT))
    assert "You label in this study, so its agreement counts only the final items, and no " in (
        html
    )
