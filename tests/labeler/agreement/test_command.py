"""`manage.py agreement`: JSON or a readable table, per batch or window."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from labeler.adjudication.services import item_adjudicate
from labeler.agreement.statistics import kappa_band
from labeler.labelling.services import assignment_next, assignment_submit
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory, UserFactory

pytestmark = pytest.mark.django_db

LEAK = {"root-cause": "memory/leak", "impact": ["speed"]}
BLOAT = {"root-cause": "memory/bloat", "impact": ["speed"]}


@pytest.fixture
def two_coder_study():
    study = LabellingStudyFactory(slug="perf", overlap=2)
    for position in range(3):
        StudyItemFactory(study=study, position=position)
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    for answers in ((LEAK, LEAK), (LEAK, BLOAT), (BLOAT, BLOAT)):
        for user, labels in zip((alice, bob), answers, strict=True):
            held = assignment_next(study=study, user=user)
            done = assignment_submit(assignment_id=held.pk, user=user, labels=labels)
    return study, done


def run(*args):
    out = StringIO()
    call_command("agreement", *args, stdout=out)
    return out.getvalue()


def test_json_per_dimension(two_coder_study):
    result = json.loads(run("perf", "--json", "--bootstrap", "50"))
    assert result["study"] == "perf"
    path = result["dimensions"][1]
    assert (path["dimension"], path["level"], path["items"]) == ("root-cause", "path", 3)
    assert path["percent_agreement"] == pytest.approx(2 / 3)
    assert path["cohen_kappa_pairs"][0]["annotators"] == ["alice", "bob"]
    assert len(path["alpha_ci95"]) == 2
    assert result["dimensions"][2]["percent_agreement"] == 1.0


def test_a_readable_table(two_coder_study):
    text = run("perf", "--dimension", "root-cause", "--bootstrap", "0")
    lines = text.splitlines()
    assert lines[0] == "study perf"
    assert lines[1] == (
        "root-cause (top): 3 items, 3 with two or more ratings, 2 annotators, 6 ratings"
    )
    assert any(line.strip().startswith("percent agreement") and "1.000" in line for line in lines)
    assert "root-cause (path): 3 items" in text
    assert "percent agreement" in text and "0.667" in text
    assert "kappa alice / bob:" in text
    assert "impact" not in text


def test_the_table_counts_the_reasons_leads_gave(two_coder_study):
    _, done = two_coder_study
    split = done.item.study.items.order_by("position")[1]
    decision = {"value": "memory/leak", "rationale": "see the fix", "reason": "report_unclear"}
    item_adjudicate(item_id=split.pk, user=UserFactory(), decisions={"root-cause": decision})

    text = run("perf", "--dimension", "root-cause", "--bootstrap", "0")

    assert "memory/leak: 3 ratings, kappa" in text
    assert "adjudicated: report_unclear 1" in text


def test_pseudonyms(two_coder_study):
    result = json.loads(run("perf", "--json", "--pseudonyms", "--bootstrap", "0"))
    assert result["dimensions"][0]["cohen_kappa_pairs"][0]["annotators"] == ["A1", "A2"]


def test_per_batch_and_per_window(two_coder_study):
    result = json.loads(run("perf", "--json", "--by", "batch", "--bootstrap", "0"))
    assert [b["batch"] for b in result["batches"]] == [1]
    text = run("perf", "--by", "batch", "--bootstrap", "0")
    assert "batch 1" in text

    result = json.loads(run("perf", "--json", "--window", "2", "--dimension", "impact"))
    assert [(w["first"], w["last"]) for w in result["dimensions"][0]["windows"]] == [
        (1, 2),
        (3, 3),
    ]
    text = run("perf", "--window", "2", "--dimension", "root-cause")
    assert "root-cause (path), by window:" in text
    assert "1-2" in text and "3-3" in text


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["nope"], "no study 'nope'"),
        (["perf", "--dimension", "root-kause"], "did you mean 'root-cause'"),
        (["perf", "--by", "window"], "--by window needs --window N"),
        (["perf", "--by", "batch", "--window", "3"], "--window goes with --by window"),
        (["perf", "--window", "1"], "at least 2"),
        (["perf", "--bootstrap", "-5"], "0 or more"),
    ],
)
def test_mistakes_are_named(two_coder_study, args, words):
    with pytest.raises(CommandError, match=words):
        run(*args)


def test_the_json_and_the_table_give_every_interval_with_its_method(two_coder_study):
    result = json.loads(run("perf", "--json", "--bootstrap", "60", "--half-width", "0.2"))
    assert result["bootstrap"]["draws"] == 60
    path = result["dimensions"][1]
    assert set(path["intervals"]["gwet_ac1"]) == {"bootstrap", "gwet"}
    assert path["hierarchy_alpha"]["distances"]["same_top_category"] == 0.5
    assert path["double_coding"]["half_width_wanted"] == 0.2
    text = run("perf", "--dimension", "root-cause", "--bootstrap", "60")
    assert "Gwet's AC1" in text and "gwet [" in text and "bootstrap [" in text
    assert "hierarchy alpha" in text and "(same top category: 0.5)" in text


def test_the_half_width_is_checked(two_coder_study):
    with pytest.raises(CommandError, match="--half-width"):
        run("perf", "--half-width", "3")


def test_the_json_bands_the_kappas_by_the_studys_scale_and_names_it(two_coder_study):
    two_coder_study, _ = two_coder_study
    two_coder_study.kappa_scale = "altman"
    two_coder_study.save(update_fields=["kappa_scale"])
    result = json.loads(run("perf", "--json", "--bootstrap", "0"))
    windows = json.loads(run("perf", "--json", "--window", "2", "--bootstrap", "0"))
    entries = result["dimensions"] + [w for d in windows["dimensions"] for w in d["windows"]]
    for entry in entries:
        assert entry["band_scales"]["gwet_ac1"] == "Altman (1991)"
        assert entry["band_scales"]["krippendorff_alpha"] == "Krippendorff (2004)"
        assert entry["bands"]["gwet_ac1"] == kappa_band(entry["gwet_ac1"], "altman")
    # Two of three items agree on root-cause paths: kappas near 0.33, fair on Altman's scale.
    path = result["dimensions"][1]
    assert path["bands"]["fleiss_kappa"] == "fair"
