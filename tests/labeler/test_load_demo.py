"""`load_demo`: accounts, reports and a study whose demo annotators have labelled part of it,
some agreeing and some not, so every page shows what it is for on a newcomer's first run;
loaded twice, nothing doubles."""

import io

import pytest
from django.core.management import call_command

from labeler.models import Annotation, Assignment, Study

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


def test_loading_the_demo_again_adds_nothing(demo):
    counts = (Study.objects.count(), Assignment.objects.count(), Annotation.objects.count())
    again = load_demo()
    assert "(24 labelled by the demo annotators)" in again
    assert (Study.objects.count(), Assignment.objects.count(), Annotation.objects.count()) == counts
