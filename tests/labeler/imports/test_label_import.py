"""Importing labels made elsewhere: all rows or none."""

import hashlib

import pytest
from django.contrib.auth import get_user_model

from labeler.common.label_csv import MAX_PROBLEMS
from labeler.imports.label_import import AnnotationImportError, label_import_store
from labeler.labelling.services import assignment_expire_stale, assignment_next
from labeler.models import (
    Annotation,
    AnnotationVersion,
    Assignment,
    StudyBatch,
    StudyItem,
    StudyMember,
)
from labeler.studies.services import study_member_add
from mining.models import BugReport, Repository
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory, UserFactory
from tests.mining.factories import BugReportFactory

pytestmark = pytest.mark.django_db

HEADER = "item,annotator,dimension,value,note\n"


def run(study, text, **options):
    return label_import_store(study=study, data=text.encode(), source="l.csv", **options)


def problems(study, text, **options):
    with pytest.raises(AnnotationImportError) as error:
        run(study, text, **options)
    return error.value.problems


def nothing_written():
    return not (
        Assignment.objects.exists()
        or Annotation.objects.exists()
        or BugReport.objects.filter(is_stub=True).exists()
    )


def annotator_of(study, username):
    user = UserFactory(username=username)
    study_member_add(study=study, user=user, role=StudyMember.Role.ANNOTATOR)
    return user


def test_import_creates_submissions_users_items_and_history(sheet_study):
    annotator_of(sheet_study, "alice")
    summary = run(
        sheet_study,
        HEADER
        + "pytorch/pytorch#1,alice,root-cause,memory/leak,looked at the fix\n"
        + "pytorch/pytorch#1,alice,impact,speed;memory-use,\n"
        + "pytorch/pytorch#1,bob,root-cause,threading,\n"
        + "pytorch/pytorch#2,bob,root-cause,leak,\n",
    )
    assert (summary.rows, summary.submissions, summary.items_added, summary.users_created) == (
        4,
        3,
        1,
        1,
    )
    first = StudyItem.objects.get(study=sheet_study, report__number=1)
    assert (first.claimed, first.submitted) == (2, 2)
    second = StudyItem.objects.get(study=sheet_study, report__number=2)
    assert (second.batch, second.position, second.submitted) == (2, first.position + 1, 1)
    alice = Assignment.objects.get(annotator__username="alice")
    assert (alice.status, alice.version, alice.note) == ("submitted", 1, "looked at the fix")
    assert dict(alice.annotations.values_list("dimension__key", "values")) == {
        "root-cause": ["memory/leak"],
        "impact": ["speed", "memory-use"],
    }
    assert AnnotationVersion.objects.count() == 3
    bob = StudyMember.objects.get(study=sheet_study, user__username="bob")
    assert bob.role == "annotator"
    assert not bob.user.has_usable_password()
    # The imported items are done for alice: next gives her nothing from them.
    assert assignment_next(study=sheet_study, user=alice.annotator).item.report.number == 2


def test_unknown_category_suggests_the_closest_and_writes_nothing(sheet_study):
    found = problems(
        sheet_study,
        HEADER
        + "pytorch/pytorch#1,alice,root-cause,memory/leek,\n"
        + "pytorch/pytorch#1,alice,impakt,speed,\n"
        + "pytorch/pytorch#1,bob,root-cause,memory,\n"
        + "pytorch/pytorch#1,carol,impact,speed,\n",
    )
    assert found == [
        "l.csv:2: pytorch/pytorch#1, alice, root-cause: no category 'memory/leek' in dimension "
        "'root-cause'; did you mean 'memory/leak'?",
        "l.csv:2: pytorch/pytorch#1 would have 3 annotators; the study's overlap is 2 (raise it "
        "first)",
        "l.csv:3: pytorch/pytorch#1, alice, impakt: the study does not label dimension 'impakt' "
        "(it labels: root-cause, impact); did you mean 'impact'?",
        "l.csv:4: pytorch/pytorch#1, bob, root-cause: 'memory' has sub-categories; choose one "
        "of: memory/leak, memory/bloat",
        "l.csv:5: pytorch/pytorch#1, carol: no row for required dimension 'root-cause' "
        "(carol's rows for pytorch/pytorch#1: line 5)",
    ]
    assert nothing_written()


def test_unknown_item_without_the_flag_and_with_it(sheet_study):
    text = (
        HEADER
        + "pytorch/pytorch#1,al,root-cause,threading,\n"
        + "keras-team/keras#9,al,root-cause,threading,\n"
    )
    assert problems(sheet_study, text) == [
        "l.csv:3: unknown item keras-team/keras#9 (not imported; import its repository first, "
        "or pass --create-missing-reports to create a stub)"
    ]
    assert nothing_written()

    summary = run(sheet_study, text, create_missing_reports=True)

    assert summary.reports_created == 1
    stub = BugReport.objects.get(repository__full_name="keras-team/keras", number=9)
    assert stub.is_stub
    assert StudyItem.objects.filter(study=sheet_study, report=stub).exists()


def test_someone_who_already_labelled_the_item_is_refused(sheet_study):
    alice = annotator_of(sheet_study, "alice")
    assignment_next(study=sheet_study, user=alice)
    found = problems(sheet_study, HEADER + "pytorch/pytorch#1,alice,root-cause,threading,\n")
    assert found == ["l.csv:2: alice already has pytorch/pytorch#1 in study sheet"]


def test_file_problems_come_through(sheet_study):
    found = problems(
        sheet_study,
        HEADER + "pytorch/pytorch#1,al,root-cause,leak,\npytorch/pytorch#1,al,root-cause,y,\n",
    )
    assert found == ["l.csv:3: al labels root-cause of pytorch/pytorch#1 again (first on line 2)"]


def test_a_file_that_cannot_be_read_is_one_problem(sheet_study):
    data = (HEADER + "pytorch/pytorch#1,J\u00e9r\u00f4me,root-cause,leak,\n").encode("latin-1")

    with pytest.raises(AnnotationImportError) as error:
        label_import_store(study=sheet_study, data=data, source="l.csv")

    assert error.value.problems == ["l.csv:2: not UTF-8 (byte 0xe9); save the file as UTF-8"]
    assert error.value.count == 1
    assert nothing_written()


def table_counts():
    models = (Annotation, AnnotationVersion, Assignment, BugReport, StudyItem, StudyMember)
    counts = {model.__name__: model.objects.count() for model in models}
    counts["User"] = get_user_model().objects.count()
    counts["Repository"] = Repository.objects.count()
    counts["StudyBatch"] = StudyBatch.objects.count()
    return counts


def test_every_kind_of_problem_is_reported_in_one_go_in_line_order(sheet_study):
    UserFactory(username="admin-person")
    before = table_counts()
    text = (
        HEADER
        + "pytorch/pytorch#1,alice,root-cause,memory/leak,\n"  # 2: good
        + "pytorch/pytorch#1,alice,impact,sped,\n"  # 3: unknown category
        + "pytorch/pytorch#2,bob,impact,speed,\n"  # 4: good, but #2 gets 3 annotators
        + "pytorch/pytorch#2,bob,root-cause,threading,\n"  # 5: good
        + "pytorch/pytorch#1,alice,root-cause,threading,\n"  # 6: duplicate of 2
        + "keras-team/keras#9,alice,root-cause,threading,\n"  # 7: unknown item
        + "pytorch/pytorch#2,carol,root-cause,memory,\n"  # 8: a parent, leaf required
        + "pytorch/pytorch#2,dave,impact,speed,\n"  # 9: dave's root-cause misspelt on 11
        + "pytorch/pytorch#2,carol,impakt,speed,\n"  # 10: unknown dimension
        + "pytorch/pytorch#2,dave,rootcause,threading,\n"  # 11: unknown dimension
        + "pytorch/pytorch 2,erin,root-cause,threading,\n"  # 12: not an item
        + "pytorch/pytorch#1,,root-cause,threading,\n"  # 13: no annotator
        + "pytorch/pytorch#1,frank,root-cause\n"  # 14: cells missing
        + "pytorch/pytorch#1,admin-person,root-cause,threading,\n"  # 15: not in the study
    )

    found = problems(sheet_study, text)

    assert found == [
        "l.csv:3: pytorch/pytorch#1, alice, impact: no category 'sped' in dimension 'impact'; "
        "did you mean 'speed'?",
        "l.csv:4: pytorch/pytorch#2 would have 3 annotators; the study's overlap is 2 (raise it "
        "first)",
        "l.csv:6: alice labels root-cause of pytorch/pytorch#1 again (first on line 2)",
        "l.csv:7: unknown item keras-team/keras#9 (not imported; import its repository first, "
        "or pass --create-missing-reports to create a stub)",
        "l.csv:8: pytorch/pytorch#2, carol, root-cause: 'memory' has sub-categories; choose "
        "one of: memory/leak, memory/bloat",
        "l.csv:10: pytorch/pytorch#2, carol, impakt: the study does not label dimension "
        "'impakt' (it labels: root-cause, impact); did you mean 'impact'?",
        "l.csv:11: pytorch/pytorch#2, dave, rootcause: the study does not label dimension "
        "'rootcause' (it labels: root-cause, impact); did you mean 'root-cause'?",
        "l.csv:12: item 'pytorch/pytorch 2' is not owner/name#number",
        "l.csv:13: annotator is empty",
        "l.csv:14: 3 cells, the header has 5",
        "l.csv:15: admin-person is an existing account but not an annotator of study sheet; "
        "add them as an annotator first",
    ]
    assert table_counts() == before
    assert nothing_written()


def test_past_the_cap_problems_are_counted_not_listed(sheet_study):
    rows = "".join(f"pytorch/pytorch#1,a{n},root-cause,leek,\n" for n in range(MAX_PROBLEMS + 5))

    with pytest.raises(AnnotationImportError) as error:
        run(sheet_study, HEADER + "pytorch/pytorch#1,x,root-cause,leak,\n" + rows)

    listed = error.value.problems
    # Each annotator's unknown category, and #1 with more annotators than the overlap.
    assert error.value.count == MAX_PROBLEMS + 6
    assert len(listed) == MAX_PROBLEMS + 1
    assert listed[0] == (
        f"l.csv:2: pytorch/pytorch#1 would have {MAX_PROBLEMS + 6} annotators; the study's "
        "overlap is 2 (raise it first)"
    )
    assert listed[1].startswith("l.csv:3: pytorch/pytorch#1, a0, root-cause: no category 'leek'")
    assert listed[-1] == "l.csv: … and 6 more problems"


def test_an_empty_value_is_no_label_and_for_a_required_dimension_a_problem_on_its_line(sheet_study):
    found = problems(
        sheet_study,
        HEADER
        + "pytorch/pytorch#1,alice,root-cause,,\n"
        + "pytorch/pytorch#1,bob,root-cause,leak,\n"
        + "pytorch/pytorch#1,bob,impact,,\n",
    )
    assert found == ["l.csv:2: pytorch/pytorch#1, alice, root-cause: this dimension is required"]

    run(
        sheet_study,
        HEADER + "pytorch/pytorch#1,bob,root-cause,leak,\npytorch/pytorch#1,bob,impact,,\n",
    )

    assert dict(Annotation.objects.values_list("dimension__key", "values")) == {
        "root-cause": ["memory/leak"]
    }


def test_an_existing_account_outside_the_study_is_not_credited(sheet_study):
    UserFactory(username="admin-person")

    found = problems(sheet_study, HEADER + "pytorch/pytorch#1,admin-person,root-cause,threading,\n")

    assert found == [
        "l.csv:2: admin-person is an existing account but not an annotator of study sheet; "
        "add them as an annotator first"
    ]
    assert nothing_written()
    assert not StudyMember.objects.filter(user__username="admin-person").exists()


def test_adjudicated_items_are_refused(sheet_study):
    StudyItem.objects.filter(study=sheet_study).update(adjudicated_at="2026-01-01T00:00:00Z")

    found = problems(sheet_study, HEADER + "pytorch/pytorch#1,newbie,root-cause,threading,\n")

    assert found == [
        "l.csv:2: pytorch/pytorch#1 is adjudicated in study sheet; its labels can no longer change"
    ]
    assert nothing_written()


def test_items_match_reports_whatever_the_case_of_the_repository(sheet_study):
    summary = run(
        sheet_study,
        HEADER
        + "PyTorch/PyTorch#1,al,root-cause,threading,\n"
        + "PYTORCH/pytorch#7,al,root-cause,threading,\n",
        create_missing_reports=True,
    )

    assert summary.reports_created == 1
    assert summary.items_added == 1
    assert StudyItem.objects.filter(study=sheet_study, report__number=1).get().submitted == 1
    stub = BugReport.objects.get(number=7)
    assert stub.repository.full_name == "pytorch/pytorch"
    assert BugReport.objects.values("repository").distinct().count() == 1


def test_an_expired_hold_of_the_annotator_becomes_their_imported_submission(sheet_study):
    alice = annotator_of(sheet_study, "alice")
    held = assignment_next(study=sheet_study, user=alice)
    Assignment.objects.filter(pk=held.pk).update(held_at="2000-01-01T00:00:00Z")
    assignment_expire_stale(study=sheet_study)
    assert Assignment.objects.get(pk=held.pk).status == "expired"

    run(sheet_study, HEADER + "pytorch/pytorch#1,alice,root-cause,threading,\n")

    (assignment,) = Assignment.objects.filter(annotator=alice)
    assert (assignment.pk, assignment.status, assignment.version) == (held.pk, "submitted", 1)
    assert AnnotationVersion.objects.filter(assignment=assignment).count() == 1


def test_labels_credited_to_an_existing_annotator_record_the_import(sheet_study):
    alice = annotator_of(sheet_study, "alice")
    data = (HEADER + "pytorch/pytorch#1,alice,root-cause,threading,\n").encode()

    label_import_store(study=sheet_study, data=data, source="old.csv")

    version = AnnotationVersion.objects.get(annotator=alice)
    assert (version.imported.imported_by, version.imported.file_name) == (None, "old.csv")
    assert version.imported.sha256 == hashlib.sha256(data).hexdigest()
    assert version.imported.created_at == version.created_at


def test_the_row_cap_counts_bad_rows_too_and_writes_nothing(sheet_study):
    text = HEADER + "pytorch/pytorch#1,alice,root-cause,threading,\nbad,bob,root-cause,x,\n"
    assert problems(sheet_study, text, max_rows=1) == [
        "l.csv: 2 rows; an upload takes at most 1: split the file, or import it with the "
        "import_annotations command"
    ]
    assert nothing_written()
    run(
        sheet_study,
        text.splitlines(keepends=True)[0] + text.splitlines(keepends=True)[1],
        max_rows=1,
    )
    assert Assignment.objects.count() == 1


def test_a_misspelt_dimension_is_one_problem_not_also_a_missing_one(sheet_study):
    found = problems(sheet_study, HEADER + "pytorch/pytorch#1,alice,root-cuase,threading,\n")

    assert found == [
        "l.csv:2: pytorch/pytorch#1, alice, root-cuase: the study does not label dimension "
        "'root-cuase' (it labels: root-cause, impact); did you mean 'root-cause'?"
    ]


def test_a_misspelt_item_is_one_problem_naming_the_item_it_stands_for(sheet_study):
    found = problems(
        sheet_study,
        HEADER
        + "pytorch/pytorch#1,alice,root-cause,threading,\n"
        + "pytorch/pytorch#11,alice,impact,speed,\n"
        + "pytorch/pytorch#1,bob,root-cause,threading,\n",
    )

    # Not also: alice lacks root-cause for #11, and #11 is not imported.
    assert found == [
        "l.csv:3: item pytorch/pytorch#11 looks like a typo of pytorch/pytorch#1: alice gives "
        "only impact for it and only root-cause for pytorch/pytorch#1 (line 2)"
    ]


def test_a_misspelt_annotator_is_one_problem_naming_the_annotator_they_stand_for(sheet_study):
    annotator_of(sheet_study, "alice")
    annotator_of(sheet_study, "bob")
    found = problems(
        sheet_study,
        HEADER
        + "pytorch/pytorch#1,alcie,root-cause,threading,\n"
        + "pytorch/pytorch#1,alice,impact,speed,\n"
        + "pytorch/pytorch#1,bob,root-cause,threading,\n",
    )

    # Not also: two missing dimensions, and #1 with 3 annotators at overlap 2. Alice is an
    # annotator of the study: the misspelling is alcie, though it comes first.
    assert found == [
        "l.csv:2: annotator 'alcie' looks like a typo of 'alice': for pytorch/pytorch#1, alcie "
        "gives only root-cause and alice only impact (line 3)"
    ]


def test_two_annotators_who_each_miss_a_dimension_are_no_typo(sheet_study):
    found = problems(
        sheet_study,
        HEADER
        + "pytorch/pytorch#1,alice,impact,speed,\n"
        + "pytorch/pytorch#1,bob,impact,speed,\n",
    )

    assert len(found) == 2
    assert all("no row for required dimension 'root-cause'" in problem for problem in found)


def test_the_web_page_names_its_own_way_to_create_missing_reports(sheet_study):
    text = HEADER + "keras-team/keras#9,al,root-cause,threading,\n"

    found = problems(sheet_study, text, create_missing_hint="tick the box below")

    assert found == [
        "l.csv:2: unknown item keras-team/keras#9 (not imported; import its repository first, "
        "or tick the box below)"
    ]


@pytest.mark.parametrize("key", ["dl-performance-root-causes", "dl-bug-reporting", "dlperf"])
def test_the_example_for_a_study_is_a_file_it_imports(key):
    from django.core.management import call_command

    from labeler.imports.label_import import labels_csv_example
    from taxonomy.models import Codebook

    call_command("load_codebook", "--builtin", key, verbosity=0)
    codebook = Codebook.objects.get(key=key)
    study = LabellingStudyFactory(slug="example", codebook=codebook, overlap=2)
    study.dimensions.set(codebook.dimensions.all())
    StudyItemFactory(study=study, report=BugReportFactory(number=7))
    example = labels_csv_example(study=study)

    summary = label_import_store(study=study, data=example.encode(), source="example.csv")

    assert summary.submissions == 2
    assert summary.rows == 2 * codebook.dimensions.count()
    assert any("/" in line.split(",")[3] for line in example.splitlines()[1:])


def test_groups_with_the_same_values_each_get_their_categories_and_progress_is_told(
    sheet_study, monkeypatch
):
    monkeypatch.setattr("labeler.imports.label_import.CHECK_PROGRESS_EVERY", 2)
    told = []
    lines = [
        f"pytorch/pytorch#{number},{annotator},{dimension},{value},"
        for number in (1, 2)
        for annotator in ("ann", "ben")
        for dimension, value in (("root-cause", "memory/leak"), ("impact", "speed;memory-use"))
    ]
    summary = run(sheet_study, HEADER + "\n".join(lines) + "\n", progress=told.append)

    assert summary.submissions == 4
    assert told[0] == 0 and told[-1] == 8 and told == sorted(told) and len(told) >= 4
    for annotation in Annotation.objects.all():
        assert sorted(annotation.categories.values_list("path", flat=True)) == sorted(
            annotation.values
        )
    assert Annotation.objects.filter(dimension__key="impact").count() == 4
    assert [version.labels for version in AnnotationVersion.objects.all()] == [
        {"root-cause": ["memory/leak"], "impact": ["speed", "memory-use"]}
    ] * 4
