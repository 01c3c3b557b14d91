"""The pages of an open-coding study: the labelling page's codes and memo, the study page's
block with its saturation for leads and researchers, codes in an item's history."""

import re

import pytest
from django.utils import timezone

from labeler.coding.board.cards import codes_merge
from labeler.coding.board.themes import theme_create
from labeler.coding.saturation import Coding, saturation
from labeler.coding.views import saturation_table
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import Board, Code, Study
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


def test_the_open_round_page_shows_its_board_and_none_of_a_closed_studys_controls(
    client, open_study, lead, annotator, second_annotator
):
    coded(open_study, annotator, ["leak", "cache"])
    coded(open_study, second_annotator, ["memory leak"])
    board = Board.objects.get(study=open_study)
    codes_merge(
        board=board,
        code_ids=[Code.objects.get(board=board, name="memory leak").pk],
        into_id=Code.objects.get(board=board, name="leak").pk,
        user=lead,
    )
    theme = theme_create(board=board, dimension_key="root-cause", name="Memory", user=lead)
    theme_create(
        board=board, dimension_key="root-cause", name="Leaks", parent_id=theme.pk, user=lead
    )
    client.force_login(lead)

    html = client.get("/studies/open/").content.decode()

    for closed_only in ('data-testid="policy"', 'data-testid="agreement-link"', "adjudicate"):
        assert closed_only not in html
    assert "Root cause" not in html.split('data-testid="study-coding"')[1].split("</span>")[0]
    assert "open coding of root cause, symptom: no codebook yet" in html
    assert "vopen" not in html
    assert fact(html, "open-coded") == "1 of 3 reports complete · 2 of 6 codings submitted"
    # leak, cache and slow, memory leak merged into leak; 5 uses written on 1 report.
    assert fact(html, "open-codes") == (
        "3 codes on the board (1 more merged into them) · 5 uses on 1 report"
    )
    assert fact(html, "open-categories") == (
        "1 category with 1 sub-category · 3 codes under no category"
    )
    assert fact(html, "open-board-state") == "being sorted: not frozen yet"
    assert 'href="/studies/open/board/"' in html and 'data-testid="saturation"' in html


def fact(html, testid):
    found = html.split(f'data-testid="{testid}">')[1].split("</dd>")[0]
    return re.sub(r"<[^>]+>", "", found).strip()


def test_the_open_round_page_says_what_the_codes_were_frozen_into(client, open_study, annotator):
    frozen = Codebook.objects.create(key="open-sorted", version="1", name="Sorted codes")
    Board.objects.filter(study=open_study).update(frozen_into=frozen, frozen_at=timezone.now())
    client.force_login(annotator)
    html = client.get("/studies/open/").content.decode()
    assert fact(html, "open-board-state").startswith("frozen into codebook Sorted codes v1 on ")
    # Annotators of a round that keeps codes apart read no figure of the others' codes.
    assert 'data-testid="open-codes"' not in html and 'data-testid="board-link"' not in html


def test_a_closed_study_keeps_its_policy_and_agreement(client, lead):
    closed = LabellingStudyFactory(slug="closed")
    StudyMemberFactory(study=closed, user=lead, role="lead")
    client.force_login(lead)
    html = client.get("/studies/closed/").content.decode()
    assert 'data-testid="policy"' in html and 'data-testid="agreement-link"' in html
    assert 'data-testid="adjudicate-link"' in html and 'data-testid="study-coding"' not in html


@pytest.mark.parametrize(
    ("method", "url", "status", "says"),
    [
        ("get", "/studies/open/agreement/", 200, "open-coding"),
        ("get", "/studies/open/adjudicate/", 403, "never adjudicated"),
        ("get", "/studies/open/adjudicate/{item}/", 403, "never adjudicated"),
        ("get", "/studies/open/codebook/1/", 400, "open-coding"),
        ("post", "/studies/open/codebook/1/", 400, "open-coding"),
    ],
)
def test_the_routes_of_a_closed_study_answer_an_open_round_with_a_reason(
    client, open_study, lead, method, url, status, says
):
    Codebook.objects.create(key=open_study.codebook.key, version="1", name="Sorted")
    client.force_login(lead)
    response = getattr(client, method)(url.format(item=open_study.items.first().pk))
    assert response.status_code == status
    assert says in response.content.decode()


def test_an_open_round_takes_no_majority_policy(client, open_study, lead):
    client.force_login(lead)
    response = client.post("/studies/open/policy/", {"majority": "accept"}, follow=True)
    assert response.redirect_chain == [("/studies/open/", 302)]
    assert "it has no majority policy" in response.content.decode()
    assert Study.objects.get(pk=open_study.pk).majority == open_study.majority


def test_the_study_list_calls_an_open_round_open_coding_with_no_version(client, open_study, lead):
    client.force_login(lead)
    html = client.get("/studies/").content.decode()
    row = html.split('href="/studies/open/"')[1].split("</tr>")[0]
    assert '<span class="badge" data-testid="open-coding-badge">open coding</span></td>' in row
    assert "vopen" not in row
