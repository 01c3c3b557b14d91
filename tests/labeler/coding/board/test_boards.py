"""Which board a study has: the open study's board, made when missing, and the current one."""

import pytest

from labeler.coding.board.boards import study_board_current
from labeler.models import Board
from tests.labeler.board_factories import open_study_with_items
from tests.taxonomy.factories import CodebookFactory

pytestmark = pytest.mark.django_db


def test_an_open_study_gets_its_board_when_it_has_none(make_user):
    study, board = open_study_with_items(count=1)
    assert study_board_current(study=study) == board
    board.delete()
    made = study_board_current(study=study)
    assert (made.kind, made.study, made.frozen_into) == (Board.Kind.OPEN, study, None)
    assert study_board_current(study=study) == made


def test_the_current_board_is_the_one_being_sorted_else_the_latest_frozen(make_user):
    study, first = open_study_with_items(count=1)
    first.frozen_into = CodebookFactory()
    first.frozen_at = first.created_at
    first.save()
    assert study_board_current(study=study) == first
    second = Board.objects.create(study=study, kind="open", created_at=first.created_at)
    assert study_board_current(study=study) == second
