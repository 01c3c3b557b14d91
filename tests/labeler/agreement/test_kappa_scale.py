"""A lead chooses the scale of the kappas' and AC1's bands on the agreement page; nobody else
may; a bad value is refused naming the field; the page, the API and the datasheet then band
by it and name it."""

import re

import pytest

from labeler.agreement.ratings import study_agreement
from labeler.agreement.statistics import KAPPA_SCALES, kappa_band
from labeler.models import Study

pytestmark = pytest.mark.django_db

PAGE = "/studies/perf/agreement/"
URL = "/studies/perf/agreement/kappa-scale/"
KAPPAS = {
    "Cohen&#x27;s kappa (mean over pairs)": "mean_cohen_kappa",
    "Fleiss&#x27; kappa": "fleiss_kappa",
    "Gwet&#x27;s AC1": "gwet_ac1",
}


def bands_of(html: str) -> dict[str, tuple[str, str]]:
    """Each coefficient's (band, scale) in the full paths' table."""
    table = html[html.index('data-testid="coefficients-root-cause-path"') :]
    table = table[: table.index("</table>")]
    found = {}
    for row in table.split("<tr")[2:]:
        name = re.search(r'<th scope="row">([^<]+?) ?<', row).group(1)
        band = re.search(
            r'<span class="band [^"]+">([^<]+)</span> <span[^>]*data-testid="band-scale">([^<]+)<',
            row,
        )
        found[name] = band and band.groups()
    return found


def test_the_studys_choices_are_the_scales():
    assert dict(Study.KappaScale.choices) == {
        key: scale.name for key, scale in KAPPA_SCALES.items()
    }
    assert Study._meta.get_field("kappa_scale").default == "landis_koch"


def test_a_lead_sets_the_scale_and_the_page_bands_by_it(client, decided, lead):
    client.force_login(lead)
    page = client.get(PAGE).content.decode()
    assert 'data-testid="kappa-scale-form"' in page
    assert '<option value="landis_koch" selected>' in page
    before = bands_of(page)
    assert {before[name][1] for name in KAPPAS} == {"Landis and Koch (1977)"}

    response = client.post(URL, {"kappa_scale": "fleiss"}, follow=True)

    assert response.redirect_chain[-1][0] == PAGE
    assert Study.objects.get(slug="perf").kappa_scale == "fleiss"
    html = response.content.decode()
    assert "bands now come from Fleiss (1981)" in html
    assert '<option value="fleiss" selected>' in html
    (figures,) = (
        entry
        for entry in study_agreement(study=decided, bootstrap=0)["dimensions"]
        if (entry["dimension"], entry["level"]) == ("root-cause", "path")
    )
    after = bands_of(html)
    for name, key in KAPPAS.items():
        assert after[name] == (kappa_band(figures[key], "fleiss"), "Fleiss (1981)")
    # Alpha keeps Krippendorff's.
    assert after["Krippendorff&#x27;s alpha"] == before["Krippendorff&#x27;s alpha"]
    legend = html[html.index('data-testid="band-legend"') :]
    legend = legend[: legend.index("</section>")]
    assert "<strong>Fleiss (1981)</strong>, for Cohen&#x27;s kappa (mean over pairs)" in legend
    assert "poor</span> below 0.40" in legend
    assert "fair to good</span> 0.40 to 0.75" in legend
    assert "excellent</span> 0.75 to 1.00" in legend
    assert "Landis and Koch" not in legend


def test_the_api_and_the_datasheet_name_the_scale(client, decided, lead):
    client.force_login(lead)
    client.post(URL, {"kappa_scale": "altman"})
    body = client.get("/api/studies/perf/agreement/?bootstrap=0").json()
    for entry in body["dimensions"]:
        assert entry["band_scales"] == {
            "krippendorff_alpha": "Krippendorff (2004)",
            "mean_cohen_kappa": "Altman (1991)",
            "fleiss_kappa": "Altman (1991)",
            "gwet_ac1": "Altman (1991)",
        }
        for key in ("mean_cohen_kappa", "fleiss_kappa", "gwet_ac1"):
            assert entry["bands"][key] == kappa_band(entry[key], "altman")


@pytest.mark.parametrize("value", ["", "cohen", "Fleiss (1981)"])
def test_a_bad_scale_is_named_and_nothing_changes(client, study, lead, value):
    client.force_login(lead)
    response = client.post(URL, {"kappa_scale": value}, follow=True)
    assert "kappa_scale:" in response.content.decode()
    assert Study.objects.get(slug="perf").kappa_scale == "landis_koch"


def test_researchers_and_annotators_may_not(client, study, researcher, annotator):
    for user in (researcher, annotator):
        client.force_login(user)
        assert client.post(URL, {"kappa_scale": "fleiss"}).status_code == 403
    client.force_login(researcher)
    page = client.get(PAGE).content.decode()
    assert 'data-testid="kappa-scale-form"' not in page
    assert Study.objects.get(slug="perf").kappa_scale == "landis_koch"
