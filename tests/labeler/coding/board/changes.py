"""Looking at a board before and after a change: its cards, their uses, its latest event."""

from django.core.exceptions import ValidationError

from labeler.coding.board.undo import board_undo
from labeler.models import BoardEvent, Code, CodeUse, Theme


def code(board, name) -> Code:
    return Code.objects.get(board=board, name=name)


def uses_of(board, name) -> list[tuple[int, str]]:
    """(item position, written as) of the code's uses, sorted."""
    return sorted(
        CodeUse.objects.filter(code=code(board, name)).values_list("item__position", "written_as")
    )


def snapshot(board) -> dict:
    """Everything a change may alter on the board, to compare before and after an undo."""
    return {
        "codes": list(
            Code.objects.filter(board=board)
            .order_by("pk")
            .values_list("pk", "name", "merged_into", "theme", "position")
        ),
        "themes": list(
            Theme.objects.filter(board=board)
            .order_by("pk")
            .values_list(
                "pk",
                "parent",
                "key",
                "name",
                "definition",
                "include",
                "exclude",
                "examples",
                "position",
            )
        ),
        "uses": list(
            CodeUse.objects.filter(code__board=board).order_by("pk").values_list("pk", "code")
        ),
    }


def latest(board) -> BoardEvent:
    return board.events.order_by("-created_at", "-pk").first()


def undone(board, user, before):
    """Undo the latest change and check the board is back as it was."""
    board_undo(board=board, user=user)
    assert snapshot(board) == before
    event = latest(board)
    assert event.action == "undo"
    assert event.user == user


def errors_of(error: ValidationError) -> dict:
    return error.value.message_dict
