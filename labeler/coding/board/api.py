"""API of a study's board, under /api/studies/{slug}/board/: the board (its cards, themes,
history), a card's uses, every change (rename, merge, split, group; themes created, edited,
moved, deleted), undo, the freeze, the start of a revision board, its history and the open
round's carry-over.

Access: the study's leads who do not label in it, and staff (labeler.common.permissions.
access_sorts_board): annotators and researchers get 403, non-members 404. Every change
answers the board as GET does, in the names it asked for (`names=real`: usernames), with
`created` (the new theme's or card's id) when it made one. A change a frozen board refuses
answers 409.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, generics, serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import MAX_ID, RejectUnknownFieldsMixin
from labeler.coding.board.boards import board_revision_start, study_board_current
from labeler.coding.board.cards import code_rename, code_split, codes_merge
from labeler.coding.board.freeze import board_freeze
from labeler.coding.board.selectors import (
    board_carry_over,
    board_get,
    board_history,
    board_state,
    board_state_none,
    code_uses,
    event_row,
)
from labeler.coding.board.themes import (
    codes_group,
    theme_create,
    theme_delete,
    theme_move,
    theme_update,
)
from labeler.coding.board.undo import board_undo
from labeler.common.api import NamesQuerySerializer
from labeler.common.permissions import access_sorts_board, study_get_for_user
from labeler.models import Board, Code, Study

BOARD_ONLY = (
    "only the study's leads sort its board (one who labels in it too, only when the open "
    "round shares its codes)"
)
NO_BOARD = "the study has no board: start a revision board first"
BOARD = {200: OpenApiTypes.OBJECT}
CHANGED = {200: OpenApiTypes.OBJECT, 201: OpenApiTypes.OBJECT}


def _study_sorted(request, slug: str) -> tuple[Study, Board | None]:
    study, access = study_get_for_user(user=request.user, slug=slug)
    if not access_sorts_board(access, study=study):
        raise PermissionDenied(BOARD_ONLY)
    return study, study_board_current(study=study)


def _board(request, slug: str) -> Board:
    _, board = _study_sorted(request, slug)
    if board is None:
        raise exceptions.NotFound(NO_BOARD)
    return board


def _id(value: str) -> int:
    """A numeric id from the path; anything else, or a number too large, names nothing."""
    if not (value.isascii() and value.isdigit()) or len(value) > len(str(MAX_ID)):
        raise exceptions.NotFound()
    number = int(value)
    if number > MAX_ID:
        raise exceptions.NotFound()
    return number


def _real_names(request) -> bool:
    query = NamesQuerySerializer(data=request.query_params)
    query.is_valid(raise_exception=True)
    return query.validated_data["names"] == "real"


def _answer(request, board: Board, *, created: int | None = None) -> Response:
    """The board as it is after a change (read again: a freeze changes the board's row)."""
    state = board_state(board=board_get(pk=board.pk), real_names=_real_names(request))
    if created is None:
        return Response(state)
    return Response({**state, "created": created}, status=status.HTTP_201_CREATED)


def _body(serializer_class, request) -> dict:
    body = serializer_class(data=request.data)
    body.is_valid(raise_exception=True)
    return body.validated_data


def _id_field(**kwargs) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=MAX_ID, **kwargs)


def _ids_field(**kwargs) -> serializers.ListField:
    return serializers.ListField(child=_id_field(), allow_empty=False, max_length=10_000, **kwargs)


class BoardView(APIView):
    """The study's board: the one being sorted, else the latest frozen (an open-coding
    study always has one; a closed study, `board` null until a lead starts a revision).
    Keys: study, board (id, kind, base, frozen, frozen_into, frozen_at, frozen_by,
    created_at), dimensions (with `ungrouped`, how many of its cards are under no theme),
    themes (depth first: id, dimension, parent, key, name, path, depth, position,
    definition, include, exclude, examples, and under it: codes, all_codes, uses, reports),
    codes (id, dimension, name, theme, theme_path, source_path, uses, reports, annotators,
    examples, merged; revision boards also sources, final_labels, reasons, disagreements),
    history (the latest 50), history_total, undo (the change undo takes back), names."""

    @extend_schema(parameters=[NamesQuerySerializer], responses=BOARD)
    def get(self, request, slug):
        study, board = _study_sorted(request, slug)
        real_names = _real_names(request)
        if board is None:
            return Response(board_state_none(study=study, real_names=real_names))
        return Response(board_state(board=board, real_names=real_names))


class RevisionStartView(APIView):
    """Start revising the study's codebook version on a board: a theme per category, a card
    per category under it (a closed study with no board being sorted)."""

    parser_classes = [JSONParser]

    @extend_schema(request=None, responses=CHANGED)
    def post(self, request, slug):
        study, _ = _study_sorted(request, slug)
        board = board_revision_start(study=study, user=request.user)
        return _answer(request, board, created=board.pk)


class CodeView(APIView):
    """One card and its uses: who wrote what, on which report (what a split picks from)."""

    @extend_schema(parameters=[NamesQuerySerializer], responses=BOARD)
    def get(self, request, slug, code_id):
        code_id = _id(code_id)  # before the board: a word names nothing
        board = _board(request, slug)
        code = Code.objects.filter(board=board, pk=code_id).first()
        if code is None:
            raise exceptions.NotFound(f"no code {code_id} on this board")
        return Response(code_uses(board=board, code=code, real_names=_real_names(request)))


class CodeRenameSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    name = serializers.CharField(max_length=1000, allow_blank=True, trim_whitespace=False)


class CodeRenameView(APIView):
    parser_classes = [JSONParser]

    @extend_schema(request=CodeRenameSerializer, responses=BOARD)
    def post(self, request, slug, code_id):
        code_id = _id(code_id)  # before the board: a word names nothing
        board = _board(request, slug)
        data = _body(CodeRenameSerializer, request)
        code_rename(board=board, code_id=code_id, name=data["name"], user=request.user)
        return _answer(request, board)


class CodeSplitSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    name = serializers.CharField(max_length=1000, allow_blank=True, trim_whitespace=False)
    uses = _ids_field(required=False, help_text="The uses the new code takes.")
    items = _ids_field(required=False, help_text="Or: the items whose uses it takes.")


class CodeSplitView(APIView):
    """A new card from some of a card's uses, by use or by item (a revision card: a copy
    from the same category); answers 201 with the new card's id as `created`."""

    parser_classes = [JSONParser]

    @extend_schema(request=CodeSplitSerializer, responses=CHANGED)
    def post(self, request, slug, code_id):
        code_id = _id(code_id)  # before the board: a word names nothing
        board = _board(request, slug)
        data = _body(CodeSplitSerializer, request)
        copy = code_split(
            board=board,
            code_id=code_id,
            name=data["name"],
            use_ids=data.get("uses"),
            item_ids=data.get("items"),
            user=request.user,
        )
        return _answer(request, board, created=copy.pk)


class CodesMergeSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    codes = _ids_field(help_text="The cards merged away.")
    into = _id_field(help_text="The card they merge into.")


class CodesMergeView(APIView):
    parser_classes = [JSONParser]

    @extend_schema(request=CodesMergeSerializer, responses=BOARD)
    def post(self, request, slug):
        board = _board(request, slug)
        data = _body(CodesMergeSerializer, request)
        codes_merge(board=board, code_ids=data["codes"], into_id=data["into"], user=request.user)
        return _answer(request, board)


class CodesGroupSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    codes = _ids_field()
    theme = _id_field(allow_null=True, help_text="null: back to ungrouped.")


class CodesGroupView(APIView):
    parser_classes = [JSONParser]

    @extend_schema(request=CodesGroupSerializer, responses=BOARD)
    def post(self, request, slug):
        board = _board(request, slug)
        data = _body(CodesGroupSerializer, request)
        codes_group(board=board, code_ids=data["codes"], theme_id=data["theme"], user=request.user)
        return _answer(request, board)


def _texts():
    return serializers.CharField(
        max_length=100_000, allow_blank=True, trim_whitespace=False, required=False
    )


class ThemeFieldsSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    name = serializers.CharField(max_length=1000, allow_blank=True, required=False)
    key = serializers.CharField(max_length=1000, allow_blank=True, required=False)
    definition = _texts()
    include = _texts()
    exclude = _texts()
    examples = serializers.ListField(
        child=serializers.CharField(max_length=100_000, allow_blank=True),
        max_length=1000,
        required=False,
    )


class ThemeCreateSerializer(ThemeFieldsSerializer):
    dimension = serializers.CharField(max_length=100)
    name = serializers.CharField(max_length=1000, allow_blank=True)
    parent = _id_field(allow_null=True, required=False, help_text="A sub-category of this theme.")
    position = serializers.IntegerField(min_value=0, max_value=MAX_ID, required=False)


class ThemesView(APIView):
    """Create a category (with `parent`, a sub-category); answers 201 with its id as
    `created`. The key is made from the name when not given."""

    parser_classes = [JSONParser]

    @extend_schema(request=ThemeCreateSerializer, responses=CHANGED)
    def post(self, request, slug):
        board = _board(request, slug)
        data = _body(ThemeCreateSerializer, request)
        theme = theme_create(
            board=board,
            dimension_key=data["dimension"],
            name=data["name"],
            key=data.get("key", ""),
            parent_id=data.get("parent"),
            definition=data.get("definition", ""),
            include=data.get("include", ""),
            exclude=data.get("exclude", ""),
            examples=data.get("examples", []),
            position=data.get("position"),
            user=request.user,
        )
        return _answer(request, board, created=theme.pk)


class ThemeView(APIView):
    """Edit a theme (only the fields given), or delete it with its sub-categories (their
    codes go back to ungrouped)."""

    parser_classes = [JSONParser]

    @extend_schema(request=ThemeFieldsSerializer, responses=BOARD)
    def patch(self, request, slug, theme_id):
        theme_id = _id(theme_id)  # before the board: a word names nothing
        board = _board(request, slug)
        data = _body(ThemeFieldsSerializer, request)
        theme_update(board=board, theme_id=theme_id, user=request.user, **data)
        return _answer(request, board)

    @extend_schema(request=None, responses=BOARD)
    def delete(self, request, slug, theme_id):
        theme_id = _id(theme_id)  # before the board: a word names nothing
        board = _board(request, slug)
        theme_delete(board=board, theme_id=theme_id, user=request.user)
        return _answer(request, board)


class ThemeMoveSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    parent = _id_field(allow_null=True, help_text="null: the top level.")
    position = serializers.IntegerField(
        min_value=0, max_value=MAX_ID, required=False, help_text="Among its new siblings, from 0."
    )


class ThemeMoveView(APIView):
    parser_classes = [JSONParser]

    @extend_schema(request=ThemeMoveSerializer, responses=BOARD)
    def post(self, request, slug, theme_id):
        theme_id = _id(theme_id)  # before the board: a word names nothing
        board = _board(request, slug)
        data = _body(ThemeMoveSerializer, request)
        theme_move(
            board=board,
            theme_id=theme_id,
            parent_id=data["parent"],
            position=data.get("position"),
            user=request.user,
        )
        return _answer(request, board)


class UndoView(APIView):
    """Undo the latest change not undone yet; 409 when there is none."""

    parser_classes = [JSONParser]

    @extend_schema(request=None, responses=BOARD)
    def post(self, request, slug):
        board = _board(request, slug)
        board_undo(board=board, user=request.user)
        return _answer(request, board)


class BoardFreezeSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    key = serializers.CharField(max_length=1000, allow_blank=True)
    version = serializers.CharField(max_length=1000, allow_blank=True)
    name = serializers.CharField(max_length=1000, allow_blank=True)
    leave_out_ungrouped = serializers.BooleanField(
        default=False, help_text="Freeze though codes are under no theme: they go into none."
    )


class FreezeView(APIView):
    """Freeze the board into a new codebook version (a revision board: the next version of
    the one it revises); the board then shows `frozen_into`. Every problem is named at once
    (`ungrouped` lists the codes under no theme)."""

    parser_classes = [JSONParser]

    @extend_schema(request=BoardFreezeSerializer, responses=BOARD)
    def post(self, request, slug):
        board = _board(request, slug)
        data = _body(BoardFreezeSerializer, request)
        board_freeze(board=board, user=request.user, **data)
        return _answer(request, board)


class BoardEventSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    action = serializers.CharField()
    description = serializers.CharField()
    user = serializers.CharField(allow_null=True)
    at = serializers.DateTimeField()
    undone_at = serializers.DateTimeField(allow_null=True)
    undone_by = serializers.CharField(allow_null=True)


class HistoryView(generics.GenericAPIView):
    """Every change on the board, latest first: who, when, what, and who undid it when."""

    serializer_class = BoardEventSerializer
    filter_backends = []

    def get(self, request, slug):
        board = _board(request, slug)
        page = self.paginate_queryset(board_history(board=board))
        return self.get_paginated_response([event_row(event) for event in page])


class CarriedSerializer(serializers.Serializer):
    name = serializers.CharField()
    annotators = serializers.IntegerField(help_text="Annotators who wrote it on the report.")
    category = serializers.CharField(allow_null=True, help_text="Key path it was sorted into.")


class CarryRowSerializer(serializers.Serializer):
    item = serializers.IntegerField()
    report = serializers.CharField()
    title = serializers.CharField()
    dimension = serializers.CharField()
    codes = CarriedSerializer(many=True)
    categories = serializers.ListField(child=serializers.CharField())
    unsorted = serializers.ListField(child=serializers.CharField())


class CarryOverView(generics.GenericAPIView):
    """The open round's result: each coded report's codes per dimension (as resolved on the
    board now) and the categories they were sorted into. A record only: these are no labels
    of any study."""

    serializer_class = CarryRowSerializer
    filter_backends = []

    def get(self, request, slug):
        study, board = _study_sorted(request, slug)
        if study.kind != Study.Kind.OPEN:
            raise exceptions.NotFound("a carry-over is the result of an open-coding round")
        page = self.paginate_queryset(board_carry_over(board=board))
        return self.get_paginated_response(CarryRowSerializer(page, many=True).data)


BOARD_PATH = "studies/<slug:slug>/board/"
urlpatterns = [
    path(BOARD_PATH, BoardView.as_view(), name="study-board"),
    path(f"{BOARD_PATH}revision/", RevisionStartView.as_view(), name="study-board-revision"),
    path(f"{BOARD_PATH}undo/", UndoView.as_view(), name="study-board-undo"),
    path(f"{BOARD_PATH}freeze/", FreezeView.as_view(), name="study-board-freeze"),
    path(f"{BOARD_PATH}history/", HistoryView.as_view(), name="study-board-history"),
    path(f"{BOARD_PATH}carry-over/", CarryOverView.as_view(), name="study-board-carry-over"),
    path(f"{BOARD_PATH}codes/merge/", CodesMergeView.as_view(), name="study-board-merge"),
    path(f"{BOARD_PATH}codes/group/", CodesGroupView.as_view(), name="study-board-group"),
    path(f"{BOARD_PATH}codes/<str:code_id>/", CodeView.as_view(), name="study-board-code"),
    path(
        f"{BOARD_PATH}codes/<str:code_id>/rename/",
        CodeRenameView.as_view(),
        name="study-board-rename",
    ),
    path(
        f"{BOARD_PATH}codes/<str:code_id>/split/", CodeSplitView.as_view(), name="study-board-split"
    ),
    path(f"{BOARD_PATH}themes/", ThemesView.as_view(), name="study-board-themes"),
    path(f"{BOARD_PATH}themes/<str:theme_id>/", ThemeView.as_view(), name="study-board-theme"),
    path(
        f"{BOARD_PATH}themes/<str:theme_id>/move/",
        ThemeMoveView.as_view(),
        name="study-board-theme-move",
    ),
]
