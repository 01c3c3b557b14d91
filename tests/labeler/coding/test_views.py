"""The pages of an open-coding study: the labelling page's codes and memo, the study page's
block with its saturation for leads and researchers, codes in an item's history."""

import re

import pytest
from django.utils import timezone

from labeler.coding.saturation import Coding, saturation
from labeler.coding.views import saturation_table
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import Board, Study
from taxonomy.models import Codebook
from tests.labeler.factories import (
    LabellingStudyFactory,
    StudyMemberFactory,
)
from tests.labeler.labelling.test_views import label_config

pytestmark = pytest.mark.django_db


def coded(study, user, root_causes, note=""):
    held = assignment_next(study=study, user=user)
    codes = {"root-cause": root_causes, "symptom": ["slow"]}
    return assignment_submit(assignment_id=held.pk, user=user, labels={}, codes=codes, note=note)


def test_the_label_page_of_an_open_study_writes_codes_and_a_memo(client, open_study, annotator):
    client.force_login(annotator)
    html = client.get("/studies/open/label/").content.decode()
    config = label_config(html)
    assert config["open"] is True
    assert config["urls"]["codes"] == "/api/studies/open/codes/"
    assert (config["codeMax"], config["codesPerDimension"]) == (120, 20)
    assert [d["categories"] for d in config["dimensions"]] == [[], []]
    assert re.search(r'<label for="note" class="note-label">Memo ', html)
    shortcuts = html.split('data-testid="shortcuts"')[1]
    assert "<kbd>c</kbd>" in shortcuts
    assert "<kbd>Backspace in an empty code</kbd>" in shortcuts
    assert "write a memo" in shortcuts


def test_the_label_page_of_a_closed_study_has_no_codes(client, annotator):
    closed = LabellingStudyFactory(slug="closed")
    StudyMemberFactory(study=closed, user=annotator, role="annotator")
    client.force_login(annotator)
    html = client.get("/studies/closed/label/").content.decode()
    assert label_config(html)["open"] is False
    assert "<kbd>c</kbd>" not in html
    assert "Note or rationale" in html


def saturation_rows(html):
    table = html.split('data-testid="saturation-table"')[1].split("</table>")[0]
    head = re.findall(r'<th scope="col"[^>]*>([^<]*)</th>', table)
    rows = [
        [cell for cell in re.findall(r"<t[hd][^>]*>([^<]*)</t[hd]>", row)]
        for row in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1])
    ]
    return head, rows


@pytest.mark.parametrize(
    ("role", "names"), [("lead", ["ann", "ann2"]), ("researcher", ["A1", "A2"])]
)
def test_leads_and_researchers_see_the_saturation_chart_with_its_table(
    client, request, open_study, annotator, second_annotator, role, names
):
    coded(open_study, annotator, ["leak", "cache"])
    coded(open_study, second_annotator, ["leak"])
    coded(open_study, annotator, ["lock"])
    client.force_login(request.getfixturevalue(role))

    html = client.get("/studies/open/").content.decode()

    assert 'data-testid="open-coding"' in html
    assert 'data-testid="codes-independent"' in html
    assert 'data-chart="line"' in html and "js/charts_page.js" in html
    assert 'data-csv="open-saturation.csv"' in html
    assert "after renames and merges" in html
    head, rows = saturation_rows(html)
    assert head == ["Reports coded", "team", *names]
    # Report 1: leak, cache, slow (ann), leak, slow (ann2); report 2: lock.
    assert rows == [["1", "3", "3", "2"], ["2", "4", "4", "—"]]


def test_annotators_see_how_the_round_runs_but_no_saturation(client, open_study, annotator):
    coded(open_study, annotator, ["leak"])
    client.force_login(annotator)
    html = client.get("/studies/open/").content.decode()
    assert 'data-testid="open-coding"' in html
    assert 'data-testid="saturation"' not in html
    assert "<kbd>c</kbd>" in html  # the shortcuts the study page lists for its annotators


def test_a_closed_study_page_has_no_open_coding_block(client, lead):
    closed = LabellingStudyFactory(slug="closed")
    StudyMemberFactory(study=closed, user=lead, role="lead")
    client.force_login(lead)
    assert 'data-testid="open-coding"' not in client.get("/studies/closed/").content.decode()


def test_the_table_leaves_an_annotator_blank_past_their_reports():
    found = saturation(
        [
            Coding("A", 1, frozenset({"x"})),
            Coding("B", 1, frozenset({"y"})),
            Coding("A", 2, frozenset({"z"})),
        ]
    )
    assert saturation_table(found) == {
        "annotators": ["A", "B"],
        "rows": [
            {"reports": 1, "team": 2, "cells": [1, 1]},
            {"reports": 2, "team": 3, "cells": [2, None]},
        ],
    }


def test_the_item_history_shows_the_codes_and_what_a_revision_changed(
    client, open_study, annotator
):
    first = coded(open_study, annotator, ["leak", "cache"], note="memo one")
    assignment_submit(
        assignment_id=first.pk,
        user=annotator,
        labels={},
        codes={"root-cause": ["leak", "lock"], "symptom": ["slow"]},
    )
    client.force_login(annotator)

    html = client.get(f"/studies/open/items/{first.item_id}/history/").content.decode()

    codes = re.findall(r'data-testid="version-codes">(.*?)</dd>', html)
    assert [re.findall(r'<span class="tag">([^<]*)</span>', row) for row in codes] == [
        ["leak", "cache"],
        ["slow"],
        ["leak", "lock"],
        ["slow"],
    ]
    assert '<td>Root cause: codes</td><td class="removed">leak, cache</td>' in html
    assert "memo one" in html


def test_the_study_page_links_the_codebook_the_codes_were_frozen_into(client, open_study, lead):
    frozen = Codebook.objects.create(key="open-sorted", version="1", name="Sorted codes")
    Board.objects.filter(study=open_study).update(frozen_into=frozen, frozen_at=timezone.now())
    Study.objects.filter(pk=open_study.pk).update(codes_shared=True)
    client.force_login(lead)
    html = client.get("/studies/open/").content.decode()
    frozen_block = html.split('data-testid="codes-frozen"')[1].split("</p>")[0]
    assert 'href="/codebooks/open-sorted/1/"' in frozen_block
    assert "Sorted codes v1" in frozen_block
    assert 'data-testid="codes-shared"' in html


@pytest.mark.parametrize(("role", "board_link"), [("lead", True), ("researcher", False)])
def test_the_analysis_page_of_an_open_study_says_where_its_result_is(
    client, request, open_study, role, board_link
):
    """An open round has no final labels to analyse (a from-scratch codebook has no categories
    either): the page answers, and points to the saturation and the board, not a 400."""
    client.force_login(request.getfixturevalue(role))

    response = client.get("/studies/open/analysis/")

    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="analysis-open-round"' in html
    assert ('data-testid="analysis-board-link"' in html) is board_link


def test_annotators_still_may_not_see_the_analysis_of_an_open_study(client, open_study, annotator):
    client.force_login(annotator)

    assert client.get("/studies/open/analysis/").status_code == 403
