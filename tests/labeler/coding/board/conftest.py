"""The board's tests share one coded open study, and the people who call its pages and API."""

import pytest

from labeler.common.roles import Role
from tests.labeler.board_factories import code_uses, items_of, open_study_with_items


@pytest.fixture
def coded(make_user):
    """Two annotators' codes on four reports of an open study.

    ann: "slow loop" on items 0, 1; "Slow-loop" on 2; "cache miss" on 1 (symptom: "hangs").
    ann2: "slow loop" on 0; "inefficient loop" on 2, 3; "lock contention" on 3.
    """
    ann, ann2 = make_user(username="ann"), make_user(username="ann2")
    lead = make_user(username="lead")
    study, board = open_study_with_items(
        members=[(ann, "annotator"), (ann2, "annotator"), (lead, "lead")]
    )
    items = items_of(study)
    code_uses(board, annotator=ann, item=items[0], names=["slow loop"])
    code_uses(board, annotator=ann, item=items[1], names=["slow loop", "cache miss"])
    code_uses(board, annotator=ann, item=items[1], dimension="symptom", names=["hangs"])
    code_uses(board, annotator=ann, item=items[2], names=["Slow-loop"])
    code_uses(board, annotator=ann2, item=items[0], names=["slow loop"])
    code_uses(board, annotator=ann2, item=items[2], names=["inefficient loop"])
    code_uses(board, annotator=ann2, item=items[3], names=["inefficient loop", "lock contention"])
    return {"board": board, "study": study, "items": items, "ann": ann, "ann2": ann2, "lead": lead}


@pytest.fixture
def board_people(make_user):
    """Someone for each kind of caller; other_annotator is ann3."""
    return {
        "annotator": make_user(Role.ANNOTATOR, username="ann"),
        "other_annotator": make_user(Role.ANNOTATOR, username="ann3"),
        "lead": make_user(Role.LEAD, username="lead"),
        "researcher": make_user(Role.RESEARCHER, username="res"),
        "outsider": make_user(Role.ANNOTATOR, username="outsider"),
        "staff": make_user(Role.ADMIN, username="admin"),
    }
