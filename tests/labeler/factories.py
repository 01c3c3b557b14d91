import factory
from django.contrib.auth import get_user_model
from django.utils import timezone

from labeler.models import Assignment, Board, Study, StudyItem, StudyMember
from tests.mining.factories import BugReportFactory
from tests.taxonomy.factories import CategoryFactory, CodebookFactory, DimensionFactory

TEST_PASSWORD = "pw-for-tests-123"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    password = factory.PostGenerationMethodCall("set_password", TEST_PASSWORD)

    @factory.post_generation
    def saved(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class StudyFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Study

    name = factory.Sequence(lambda n: f"Study {n}")
    slug = factory.Sequence(lambda n: f"study-{n}")
    codebook = factory.SubFactory(CodebookFactory)
    overlap = 2


class StudyMemberFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = StudyMember

    study = factory.SubFactory(StudyFactory)
    user = factory.SubFactory(UserFactory)
    role = StudyMember.Role.ANNOTATOR


class StudyItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = StudyItem

    study = factory.SubFactory(StudyFactory)
    report = factory.SubFactory(BugReportFactory)
    position = factory.Sequence(int)
    needed = factory.SelfAttribute("study.overlap")


def labelling_codebook(**fields):
    """A small frozen-able codebook: a leaf-only single-choice dimension with a two-level tree
    (root-cause) and an optional multi-choice one (impact)."""
    codebook = CodebookFactory(**fields)
    root_cause = DimensionFactory(
        codebook=codebook, key="root-cause", name="Root cause", leaf_only=True, position=0
    )
    memory = CategoryFactory(dimension=root_cause, key="memory", parent=None, position=0)
    CategoryFactory(dimension=root_cause, key="leak", parent=memory, position=1)
    CategoryFactory(dimension=root_cause, key="bloat", parent=memory, position=2)
    CategoryFactory(dimension=root_cause, key="threading", parent=None, position=3)
    impact = DimensionFactory(
        codebook=codebook, key="impact", name="Impact", multiple=True, required=False, position=1
    )
    CategoryFactory(dimension=impact, key="speed", parent=None, position=0)
    CategoryFactory(dimension=impact, key="memory-use", parent=None, position=1)
    return codebook


class LabellingStudyFactory(StudyFactory):
    """A study over `labelling_codebook` labelling both its dimensions."""

    class Meta:
        skip_postgeneration_save = True

    codebook = factory.LazyFunction(labelling_codebook)

    @factory.post_generation
    def with_dimensions(obj, create, extracted, **kwargs):
        if create:
            obj.dimensions.set(obj.codebook.dimensions.all())


def open_codebook(**fields):
    """A codebook as an open study started from scratch has one: two required dimensions,
    root-cause and symptom, without categories."""
    codebook = CodebookFactory(version="open", **fields)
    DimensionFactory(codebook=codebook, key="root-cause", name="Root cause", position=0)
    DimensionFactory(codebook=codebook, key="symptom", name="Symptom", position=1)
    return codebook


class OpenStudyFactory(LabellingStudyFactory):
    """An open-coding study with its code board: over `open_codebook` by default, or over
    `labelling_codebook` (categories besides codes) when given it."""

    kind = Study.Kind.OPEN
    codebook = factory.LazyFunction(open_codebook)

    @factory.post_generation
    def with_board(obj, create, extracted, **kwargs):
        if create:
            Board.objects.create(study=obj, kind=Board.Kind.OPEN, created_at=timezone.now())


class AssignmentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Assignment

    item = factory.SubFactory(StudyItemFactory)
    study = factory.SelfAttribute("item.study")
    annotator = factory.SubFactory(UserFactory)
    status = Assignment.Status.HELD
    held_at = factory.LazyFunction(timezone.now)
