"""Boards, themes, codes and their uses, made directly (as the open round's submissions make
codes and uses), and an open-coding study to sort them in."""

import factory
from django.utils import timezone

from labeler.models import Assignment, Board, Code, CodeUse, Study, Theme
from tests.labeler.factories import (
    AssignmentFactory,
    StudyFactory,
    StudyItemFactory,
    StudyMemberFactory,
)
from tests.mining.factories import BugReportFactory, RepositoryFactory
from tests.taxonomy.factories import CodebookFactory, DimensionFactory


def open_codebook(**fields):
    """A codebook made for open coding: its dimensions and no category yet."""
    codebook = CodebookFactory(**fields)
    DimensionFactory(codebook=codebook, key="root-cause", name="Root cause", position=0)
    DimensionFactory(
        codebook=codebook,
        key="symptom",
        name="Symptom",
        help_text="What the user saw.",
        multiple=True,
        required=False,
        position=1,
    )
    return codebook


class OpenStudyFactory(StudyFactory):
    """An open-coding study over `open_codebook`, coding both its dimensions."""

    class Meta:
        skip_postgeneration_save = True

    kind = Study.Kind.OPEN
    codebook = factory.LazyFunction(open_codebook)

    @factory.post_generation
    def with_dimensions(obj, create, extracted, **kwargs):
        if create:
            obj.dimensions.set(obj.codebook.dimensions.all())


class BoardFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Board

    study = factory.SubFactory(OpenStudyFactory)
    kind = Board.Kind.OPEN
    created_at = factory.LazyFunction(timezone.now)


def dimension_of(board, key):
    return board.study.dimensions.get(key=key)


class ThemeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Theme

    board = factory.SubFactory(BoardFactory)
    dimension = factory.LazyAttribute(lambda t: dimension_of(t.board, "root-cause"))
    key = factory.Sequence(lambda n: f"theme-{n}")
    name = factory.Sequence(lambda n: f"Theme {n}")
    position = factory.Sequence(int)


class CodeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Code

    board = factory.SubFactory(BoardFactory)
    dimension = factory.LazyAttribute(lambda c: dimension_of(c.board, "root-cause"))
    name = factory.Sequence(lambda n: f"code {n}")
    created_at = factory.LazyFunction(timezone.now)


def submitted(item, annotator):
    """The annotator's submitted assignment on the item (made when missing)."""
    assignment = Assignment.objects.filter(item=item, annotator=annotator).first()
    if assignment is None:
        assignment = AssignmentFactory(
            item=item,
            annotator=annotator,
            status=Assignment.Status.SUBMITTED,
            submitted_at=timezone.now(),
            version=1,
        )
    return assignment


def code_uses(board, *, annotator, item, dimension="root-cause", names=()):
    """The annotator's codes on the item, as a submission writes them: each name resolves
    to the board's code of that name whatever its case (following a merge), or a new one."""
    assignment = submitted(item, annotator)
    uses = []
    for name in names:
        code = (
            Code.objects.filter(board=board, dimension__key=dimension, name__iexact=name)
            .select_related("merged_into")
            .first()
        )
        if code is None:
            code = CodeFactory(board=board, dimension=dimension_of(board, dimension), name=name)
        code = code.merged_into or code
        uses.append(
            CodeUse.objects.create(
                code=code,
                assignment=assignment,
                item=item,
                annotator=annotator,
                written_as=name,
                created_at=timezone.now(),
            )
        )
    return uses


def open_study_with_items(*, slug="open", count=4, members=()):
    """An open-coding study with `count` items (reports of octo/torch numbered 1, 2, …), its
    board and its members ((user, role) pairs)."""
    study = OpenStudyFactory(slug=slug, name="Open round")
    repository = RepositoryFactory(full_name="octo/torch", name="torch")
    for position in range(count):
        StudyItemFactory(
            study=study,
            position=position,
            report=BugReportFactory(
                repository=repository, number=position + 1, title=f"Slow step {position + 1}"
            ),
        )
    for user, role in members:
        StudyMemberFactory(study=study, user=user, role=role)
    return study, BoardFactory(study=study)


def items_of(study):
    return list(study.items.order_by("position"))
