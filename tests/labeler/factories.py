import factory
from django.contrib.auth import get_user_model

from labeler.models import Study, StudyItem, StudyMember
from tests.mining.factories import BugReportFactory
from tests.taxonomy.factories import CodebookFactory

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
