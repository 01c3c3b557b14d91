"""Creating studies, drawing batches, members."""

import datetime as dt

import pytest
from django.core.exceptions import ValidationError

from labeler.models import Board, Study, StudyBatch, StudyItem, StudyMember
from labeler.studies.frames import Candidates, FrameQuery, StateFilter
from labeler.studies.sampling import SampleMode, SampleSpec
from labeler.studies.services import (
    study_create,
    study_items_add,
    study_member_add,
    study_member_remove,
    study_members_add,
    study_sample_preview,
)
from taxonomy.models import Codebook
from tests.labeler.factories import UserFactory, labelling_codebook
from tests.mining.factories import BugReportFactory, RepositoryFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def sixty_reports():
    torch = RepositoryFactory(owner="pytorch", name="pytorch")
    tf = RepositoryFactory(owner="tensorflow", name="tensorflow")
    made = []
    for number in range(1, 61):
        made.append(
            BugReportFactory(
                repository=torch if number <= 40 else tf,
                number=number,
                is_performance_candidate=number % 2 == 0,
                is_accuracy_candidate=number % 5 == 0,
                state="closed" if number % 3 else "open",
                has_fix=number % 4 == 0,
                labels=["perf"] if number % 6 == 0 else ["type:bug"],
                created_at=dt.datetime(2021, 1, 1, tzinfo=dt.UTC) + dt.timedelta(days=number),
            )
        )
    BugReportFactory(repository=torch, number=999, is_stub=True)
    return made


def create(**overrides):
    fields = {
        "slug": "perf",
        "name": "Performance",
        "codebook": labelling_codebook(),
        "frame": FrameQuery(),
        "sample": SampleSpec(),
        "seed": 42,
    }
    fields.update(overrides)
    return study_create(**fields)


def test_frame_filters_combine(sixty_reports):
    frame = FrameQuery(
        repositories=("pytorch/pytorch",),
        candidates=Candidates.PERFORMANCE,
        state=StateFilter.CLOSED,
        has_fix=True,
        created_to=dt.date(2021, 1, 30),
    )
    plan = study_sample_preview(frame=frame, sample=SampleSpec())
    expected = [
        r
        for r in sixty_reports
        if r.repository.full_name == "pytorch/pytorch"
        and r.is_performance_candidate
        and r.state == "closed"
        and r.has_fix
        and r.created_at.date() <= dt.date(2021, 1, 30)
    ]
    assert plan.frame_size == len(expected) == 5


def test_frame_any_candidate_and_labels(sixty_reports):
    any_kind = study_sample_preview(
        frame=FrameQuery(candidates=Candidates.ANY), sample=SampleSpec()
    )
    assert any_kind.frame_size == sum(
        r.is_performance_candidate or r.is_accuracy_candidate for r in sixty_reports
    )
    labelled = study_sample_preview(frame=FrameQuery(labels=("perf", "x")), sample=SampleSpec())
    assert labelled.frame_size == 10


def test_frame_leaves_out_stubs_and_refuses_unknown_repositories(sixty_reports):
    assert study_sample_preview(frame=FrameQuery(), sample=SampleSpec()).frame_size == 60
    with pytest.raises(ValidationError) as error:
        study_sample_preview(frame=FrameQuery(repositories=("no/such",)), sample=SampleSpec())
    assert "no/such" in error.value.message_dict["repositories"][0]


def test_frame_from_dict_names_bad_fields():
    with pytest.raises(ValidationError) as error:
        FrameQuery.from_dict({"state": "merged"})
    assert "state" in error.value.message_dict
    with pytest.raises(ValidationError) as error:
        FrameQuery.from_dict({"created_from": "2021-13-01"})
    assert "created_from" in error.value.message_dict
    frame = FrameQuery.from_dict({"repositories": ["a/b"], "has_fix": True, "state": "open"})
    assert FrameQuery.from_dict(frame.to_dict()) == frame


def test_create_pins_codebook_draws_stratified_sample_and_makes_creator_lead(sixty_reports):
    creator = UserFactory()
    sample = SampleSpec(
        mode=SampleMode.CONFIDENCE, confidence=0.95, margin=0.1, stratify="repository"
    )
    study, batch = create(sample=sample, overlap=3, created_by=creator)

    study.codebook.refresh_from_db()
    assert study.codebook.frozen
    assert sorted(study.dimensions.values_list("key", flat=True)) == ["impact", "root-cause"]
    # N = 60: n0 = 96.04, n = 96.04 / (1 + 95.04 / 60) = 37.2 -> 38, split 40:20 -> 25 + 13
    assert (batch.frame_size, batch.sample_size) == (60, 38)
    assert batch.strata == [
        {"key": "pytorch/pytorch", "population": 40, "sample": 25},
        {"key": "tensorflow/tensorflow", "population": 20, "sample": 13},
    ]
    items = list(study.items.order_by("position"))
    assert len(items) == 38
    assert [i.position for i in items] == list(range(38))
    assert {i.needed for i in items} == {3}
    assert sum(i.report.repository.name == "pytorch" for i in items) == 25
    assert StudyMember.objects.get(study=study, user=creator).role == "lead"
    assert study.sampling["stratify"] == "repository"


def test_same_seed_same_items_in_same_order(sixty_reports):
    sample = SampleSpec(mode=SampleMode.SIZE, size=10)
    first, _ = create(slug="a", sample=sample, seed=5)
    again, _ = create(slug="b", sample=sample, seed=5)
    other, _ = create(slug="c", sample=sample, seed=6)

    def order(study):
        return list(study.items.order_by("position").values_list("report_id", flat=True))

    assert order(first) == order(again)
    assert order(first) != order(other)


def test_create_refuses_unknown_dimension_and_duplicate_slug(sixty_reports):
    with pytest.raises(ValidationError) as error:
        create(dimension_keys=["root-cause", "severity"])
    assert "severity" in error.value.message_dict["dimensions"][0]
    create(dimension_keys=["root-cause"])
    with pytest.raises(ValidationError) as error:
        create()
    assert "slug" in error.value.message_dict
    assert Study.objects.count() == 1


@pytest.mark.parametrize("name", ["mood", "author_login", "number", "title", "fix_hours"])
def test_create_refuses_stratifying_by_a_field_outside_the_allow_list(sixty_reports, name):
    with pytest.raises(ValidationError) as error:
        create(sample=SampleSpec(stratify=name))
    assert (
        f"{name!r} is not a field to stratify by (allowed: repository, state,"
        in (error.value.message_dict["stratify"][0])
    )
    assert not Study.objects.exists()


def test_stratify_by_the_year_opened_draws_the_same_items_for_the_same_seed(sixty_reports):
    for report in sixty_reports[:20]:
        report.created_at = report.created_at.replace(year=2019)
        report.save()
    spec = SampleSpec(mode=SampleMode.SIZE, size=15, stratify="created_year")

    study, batch = create(sample=spec, seed=5)
    again = study_sample_preview(frame=FrameQuery(), sample=spec, seed=5)

    assert batch.strata == [
        {"key": 2019, "population": 20, "sample": 5},
        {"key": 2021, "population": 40, "sample": 10},
    ]
    assert again.to_dict()["strata"] == batch.strata
    drawn = sorted(study.items.values_list("report_id", flat=True))
    study.delete()
    study, _ = create(sample=spec, seed=5)
    assert sorted(study.items.values_list("report_id", flat=True)) == drawn


def test_stratify_by_another_report_field(sixty_reports):
    _, batch = create(sample=SampleSpec(mode=SampleMode.SIZE, size=12, stratify="state"))
    assert batch.strata == [
        {"key": "closed", "population": 40, "sample": 8},
        {"key": "open", "population": 20, "sample": 4},
    ]


def test_second_batch_leaves_first_alone(sixty_reports):
    study, _ = create(sample=SampleSpec(mode=SampleMode.SIZE, size=20))
    before = list(study.items.values_list("pk", "report_id", "position", "batch"))

    batch = study_items_add(study=study, sample=SampleSpec(mode=SampleMode.SIZE, size=30), seed=3)

    assert batch.number == 2
    assert batch.frame_size == 40
    assert (
        list(study.items.filter(batch=1).values_list("pk", "report_id", "position", "batch"))
        == before
    )
    second = list(study.items.filter(batch=2).order_by("position"))
    assert len(second) == 30
    assert [i.position for i in second] == list(range(20, 50))
    assert StudyItem.objects.filter(study=study).values("report").distinct().count() == 50
    assert StudyBatch.objects.filter(study=study).count() == 2


def test_members_add_and_remove(sixty_reports):
    study, _ = create()
    user = UserFactory()
    study_member_add(study=study, user=user, role="annotator")
    study_member_add(study=study, user=user, role="annotator")
    assert StudyMember.objects.filter(study=study, user=user).count() == 1
    with pytest.raises(ValidationError):
        study_member_add(study=study, user=user, role="boss")
    assert study_member_remove(study=study, user=user, role="annotator")
    assert not study_member_remove(study=study, user=user, role="annotator")


def test_the_last_lead_stays(sixty_reports):
    founder = UserFactory()
    study, _ = create(created_by=founder)
    with pytest.raises(ValidationError) as error:
        study_member_remove(study=study, user=founder, role="lead")
    assert "at least one lead" in error.value.message_dict["role"][0]
    assert StudyMember.objects.filter(study=study, user=founder, role="lead").exists()

    # With a second lead, either may go, but not both.
    second = UserFactory()
    study_member_add(study=study, user=second, role="lead")
    study_member_add(study=study, user=second, role="annotator")
    assert study_member_remove(study=study, user=founder, role="lead")
    with pytest.raises(ValidationError):
        study_member_remove(study=study, user=second, role="lead")
    # The last lead's other roles may still go.
    assert study_member_remove(study=study, user=second, role="annotator")
    assert list(StudyMember.objects.filter(study=study).values_list("user", "role")) == [
        (second.pk, "lead")
    ]


def test_members_add_by_name_all_or_nothing(sixty_reports):
    study, _ = create()
    UserFactory(username="alice")
    with pytest.raises(ValidationError) as error:
        study_members_add(study=study, usernames=["alice", "bob"], role="annotator")
    assert "bob" in error.value.messages[0]
    assert not StudyMember.objects.filter(study=study).exists()

    members = study_members_add(
        study=study, usernames=["alice", "bob"], role="annotator", create_users=True
    )
    assert [m.user.username for m in members] == ["alice", "bob"]
    assert not members[1].user.has_usable_password()


def test_a_study_over_an_empty_frame_is_refused_and_nothing_is_written(sixty_reports):
    frame = FrameQuery(repositories=("pytorch/pytorch",), created_from=dt.date(2030, 1, 1))
    codebook = labelling_codebook()

    with pytest.raises(ValidationError) as error:
        create(frame=frame, codebook=codebook, created_by=UserFactory())

    assert error.value.message_dict["frame"] == [
        "matched no report (filters: repositories pytorch/pytorch; created from 2030-01-01): "
        "a study needs at least one item; widen the frame"
    ]
    assert not Study.objects.exists()
    assert not StudyMember.objects.exists()
    codebook.refresh_from_db()
    assert not codebook.frozen


def test_a_batch_with_no_report_left_is_refused_and_nothing_is_written(sixty_reports):
    study, _ = create(frame=FrameQuery(state=StateFilter.OPEN))

    with pytest.raises(ValidationError) as error:
        study_items_add(study=study, seed=3)

    assert error.value.message_dict["frame"] == [
        "matched no report not already in the study (filters: state open): a batch needs at "
        "least one new item"
    ]
    assert list(study.batches.values_list("number", flat=True)) == [1]
    assert study.items.count() == 20


@pytest.mark.parametrize(
    ("minutes", "accepted"), [(1, True), (1440, True), (0, False), (-30, False), (1441, False)]
)
def test_hold_timeout_must_lie_between_a_minute_and_a_day(sixty_reports, minutes, accepted):
    hold = dt.timedelta(minutes=minutes)
    if accepted:
        study, _ = create(hold_timeout=hold)
        assert study.hold_timeout == hold
        return
    with pytest.raises(ValidationError) as error:
        create(hold_timeout=hold)
    assert error.value.message_dict["hold_timeout"] == [
        "must be between 1 and 1440 minutes (24 hours)"
    ]
    assert not Study.objects.exists()


def test_members_add_names_unknown_users_under_usernames(sixty_reports):
    study, _ = create()

    with pytest.raises(ValidationError) as error:
        study_members_add(study=study, usernames=["nobody"], role="annotator")

    assert list(error.value.message_dict) == ["usernames"]


def test_drawn_reports_get_their_fix_commits_patches_once_the_draw_commits(
    sixty_reports, monkeypatch, django_capture_on_commit_callbacks
):
    from mining import tasks as mining_tasks
    from mining.models import Commit
    from tests.mining.factories import CommitFactory, FixLinkFactory

    for report in sixty_reports[:30]:
        commit = CommitFactory(repository=report.repository, files=[], files_fetched=False)
        FixLinkFactory(report=report, commit=commit)
    fetched = []
    monkeypatch.setattr(
        mining_tasks.commit_patches_fetch,
        "apply_async",
        lambda args: fetched.extend(args[0]),
    )
    with django_capture_on_commit_callbacks(execute=True):
        study, _ = create(sample=SampleSpec(mode=SampleMode.SIZE, size=20))
        assert fetched == []  # nothing before the draw commits
    # The fix commits of the drawn reports, and of no other report.
    drawn = study.items.values_list("report_id", flat=True)
    expected = Commit.objects.filter(fix_links__report_id__in=drawn).values_list("pk", flat=True)
    assert fetched and sorted(fetched) == sorted(expected)


def test_an_open_study_from_scratch_pins_a_codebook_of_the_named_dimensions_and_has_a_board(
    sixty_reports,
):
    creator = UserFactory()
    study, batch = create(
        slug="perf-open",
        codebook=None,
        kind="open",
        dimension_names=["root cause", "symptom"],
        codes_shared=True,
        created_by=creator,
    )

    assert (study.kind, study.codes_shared, batch.sample_size) == ("open", True, 60)
    codebook = Codebook.objects.get(pk=study.codebook_id)
    assert (codebook.key, codebook.version, codebook.frozen) == ("perf-open", "open", True)
    assert list(study.dimensions.order_by("position").values_list("key", flat=True)) == [
        "root-cause",
        "symptom",
    ]
    board = Board.objects.get(study=study)
    assert (board.kind, board.frozen_into, board.created_by) == ("open", None, creator)


def test_an_open_study_may_pin_a_codebook_and_a_closed_one_has_no_board(sixty_reports):
    opened, _ = create(slug="open", kind="open", dimension_keys=["root-cause"])
    closed, _ = create(slug="closed")
    assert opened.codes_shared is False
    assert list(opened.dimensions.values_list("key", flat=True)) == ["root-cause"]
    assert Board.objects.get(study=opened).kind == "open"
    assert not Board.objects.filter(study=closed).exists()


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"codebook": None}, "codebook", "closed-coding study labels with a codebook"),
        ({"codes_shared": True}, "codes_shared", "only an open-coding study"),
        ({"dimension_names": ["symptom"]}, "dimension_names", "only an open-coding study"),
        ({"kind": "open", "codebook": None}, "codebook", "or names the dimensions it codes"),
        ({"kind": "open", "dimension_names": ["symptom"]}, "dimension_names", "the pinned one"),
        (
            {"kind": "open", "codebook": None, "dimension_names": [" "]},
            "dimension_names[0]",
            "a dimension needs a name",
        ),
        (
            {"kind": "open", "codebook": None, "dimension_names": ["x"], "dimension_keys": ["x"]},
            "dimensions",
            "codes every dimension it names",
        ),
        ({"kind": "opened"}, "kind", "not one of closed, open"),
    ],
)
def test_kind_and_codebook_must_go_together(sixty_reports, fields, field, words):
    with pytest.raises(ValidationError) as error:
        create(**fields)
    assert words in error.value.message_dict[field][0]
    assert not Study.objects.exists()
    assert not Codebook.objects.filter(version="open").exists()


def test_a_failed_open_study_from_scratch_leaves_no_codebook(sixty_reports):
    frame = FrameQuery(repositories=("pytorch/pytorch",), created_from=dt.date(2030, 1, 1))
    with pytest.raises(ValidationError):
        create(kind="open", codebook=None, dimension_names=["symptom"], frame=frame)
    assert not Codebook.objects.filter(version="open").exists()
    assert not Board.objects.exists()
