"""In a real headless Chromium: after a codebook migration split a category, the annotator's
label page offers the flagged item again, says what they had, and their submission clears
the flag."""

import pytest
from playwright.sync_api import expect

from labeler.models import Assignment
from labeler.revisions.services import study_revise
from tests.labeler.codebook_revisions import labelled_study, revise_v2

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_flagged_label_comes_back_with_its_old_value_as_context(
    page, sign_in, annotator, lead, make_user
):
    study = labelled_study(annotator=annotator, second=make_user(username="ann2"), lead=lead)
    study_revise(study=study, codebook=revise_v2(study.codebook), user=lead)
    flagged = Assignment.objects.get(item=study.items.order_by("position")[2], annotator=annotator)
    sign_in(annotator)
    page.goto("/studies/perf/label/")

    expect(page.locator("#label-app")).to_have_attribute("data-state", "label")
    expect(page.get_by_test_id("relabel")).to_have_text(
        "The codebook changed since you labelled this item; label again Root cause: you had "
        "“threading” (now Threading \u203a Lock or Threading \u203a Race)."
    )
    expect(page.get_by_test_id("revising")).to_be_visible()
    page.keyboard.press("2")  # root cause: threading, which reveals its sub-categories
    page.keyboard.press("1")  # threading/lock
    page.keyboard.press("Enter")

    expect(page.get_by_test_id("status")).to_contain_text("Revision saved as version 3")
    expect(page.get_by_test_id("relabel")).to_be_hidden()
    flagged.refresh_from_db()
    assert flagged.relabel == {}
    assert dict(flagged.annotations.values_list("dimension__key", "values")) == {
        "root-cause": ["threading/lock"]
    }
