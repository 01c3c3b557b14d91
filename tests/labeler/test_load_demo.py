"""`load_demo`: accounts, reports and a study whose demo annotators have labelled part of it,
some agreeing and some not, so every page shows what it is for on a newcomer's first run; a
second study with enough final labels for a screening model to learn; loaded twice, nothing
doubles."""

import io

import pytest
from django.core.management import call_command

from labeler.demo.screening_reports import demo_reports
from labeler.models import Annotation, Assignment, Study, StudyMember, TriageRun
from labeler.screening.selectors import triage_labels
from labeler.screening.services import triage_run_create, triage_run_execute

pytestmark = pytest.mark.django_db


def load_demo() -> str:
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    return out.getvalue()


@pytest.fixture
def demo():
    call_command("load_codebook", "--builtin", "all", stdout=io.StringIO())
    return load_demo()


def test_the_demo_annotators_have_labelled_part_of_the_study_agreeing_and_not(demo):
    study = Study.objects.get(slug="demo")
    assert "41 items (24 labelled by the demo annotators)" in demo
    submitted = Assignment.objects.filter(item__study=study, submitted_at__isnull=False)
    assert {a.annotator.username for a in submitted} == {"annotator", "annotator2"}
    both = {}
    for annotation in Annotation.objects.filter(item__study=study, dimension__key="root-cause"):
        both.setdefault(annotation.item_id, []).append(tuple(annotation.values))
    assert len(both) == 24 and all(len(values) == 2 for values in both.values())
    agreeing = sum(first == second for first, second in both.values())
    assert 0 < agreeing < len(both)
    assert study.items.count() > len(both)  # part of the study, not all of it


def test_the_demo_pages_have_something_to_show(demo, client):
    client.post("/accounts/login/", {"username": "lead", "password": "demo-lead"})
    agreement = client.get("/studies/demo/agreement/").content.decode()
    assert "Krippendorff" in agreement and "24 items" in agreement
    queue = client.get("/studies/demo/adjudicate/").content.decode()
    assert "to decide" in queue


def test_the_screening_demo_has_final_labels_that_follow_the_synthetic_truth(demo):
    study = Study.objects.get(slug="screening-demo")
    roles = {(m.user.username, m.role) for m in StudyMember.objects.filter(study=study)}
    assert {("lead", StudyMember.Role.LEAD), ("annotator", StudyMember.Role.ANNOTATOR)} <= roles
    assert ("annotator2", StudyMember.Role.ANNOTATOR) in roles
    finals = triage_labels(study=study, dimension="symptom", positive="performance")
    positives = sum(item.truth for item in finals)
    assert 100 <= len(finals) <= 150 and 0.25 < positives / len(finals) < 0.5
    assert f"({len(finals)} with final labels, {positives} of them performance bugs)" in demo
    truth = {report.number: report.performance for report in demo_reports()}
    numbers = dict(study.items.values_list("report_id", "report__number"))
    agree = sum(truth[numbers[item.report_id]] == item.truth for item in finals)
    assert 0.8 < agree / len(finals) < 1  # the labels follow the truth, with some noise
    assert study.items.filter(adjudicated_at__isnull=True, submitted=2).exists()  # to decide


def test_a_screening_model_learns_from_the_screening_demo(demo):
    study = Study.objects.get(slug="screening-demo")
    run = triage_run_create(study=study, dimension="symptom", positive="performance")
    run = triage_run_execute(run_id=run.pk)
    assert run.state == TriageRun.State.DONE, run.error
    cv = run.result["model"]["cv"]
    keyword = run.result["model"]["keyword_rule"]
    assert 0.8 < cv["auc"] < 1 and cv["average_precision"] > 0.7
    assert cv["precision"] > keyword["precision"]  # better than the keyword search it screens


def test_loading_the_demo_again_adds_nothing(demo):
    counts = (Study.objects.count(), Assignment.objects.count(), Annotation.objects.count())
    again = load_demo()
    assert "(24 labelled by the demo annotators)" in again
    assert (Study.objects.count(), Assignment.objects.count(), Annotation.objects.count()) == counts
    assert again.splitlines()[1] == demo.splitlines()[1]  # the screening demo's line
