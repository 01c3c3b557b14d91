"""A study with final labels (the `decided` fixture): two annotators agree on every dimension
of most items, on one item they dispute the root cause only, and one item is still short of
an annotation."""

import datetime as dt

from labeler.common.roles import Role
from labeler.labelling.services import assignment_next, assignment_submit
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory, StudyMemberFactory
from tests.mining.factories import BugReportFactory, RepositoryFactory

LEAK = {"root-cause": "memory/leak", "impact": ["speed"]}
# Per item: (repository, fix size, fix hours, opened (year, month), first's labels, second's
# labels or None when the second annotator has not labelled it yet).
ITEMS = [
    ("octo/torch", 10, 24.0, (2021, 1), LEAK, LEAK),
    (
        "octo/torch",
        30,
        72.0,
        (2021, 2),
        {"root-cause": "memory/bloat", "impact": ["speed", "memory-use"]},
        {"root-cause": "memory/bloat", "impact": ["memory-use", "speed"]},
    ),
    ("octo/tf", 5, 12.0, (2021, 3), {"root-cause": "threading"}, {"root-cause": "threading"}),
    ("octo/tf", None, 240.0, (2021, 4), LEAK, {"root-cause": "threading", "impact": ["speed"]}),
    (
        "octo/tf",
        50,
        480.0,
        (2021, 5),
        {"root-cause": "threading", "impact": ["memory-use"]},
        {"root-cause": "threading", "impact": ["memory-use"]},
    ),
    ("octo/torch", 7, 6.0, (2021, 6), LEAK, None),
]


def label_all(study, user, labels_for):
    """Label every item the user is handed, until `labels_for(item)` says None."""
    while (assignment := assignment_next(study=study, user=user)) is not None:
        labels = labels_for(assignment.item)
        if labels is None:
            return
        assignment_submit(assignment_id=assignment.pk, user=user, labels=labels)


def decided_study(*, annotator, lead, researcher, make_user):
    """The study "perf" over ITEMS, labelled by `annotator` and a second annotator "ann2"."""
    second = make_user(Role.ANNOTATOR, username="ann2")
    study = LabellingStudyFactory(slug="perf", overlap=2)
    items = []
    for position, (repository, size, hours, (year, month), *_labels) in enumerate(ITEMS):
        opened = dt.datetime(year, month, 10, 12, tzinfo=dt.UTC)
        report = BugReportFactory(
            repository=RepositoryFactory(full_name=repository, name=repository.split("/")[1]),
            has_fix=size is not None,
            fix_size=size,
            fix_hours=hours,
            created_at=opened,
            closed_at=opened + dt.timedelta(hours=hours),
        )
        items.append(StudyItemFactory(study=study, report=report, position=position))
    for user, role in (
        (annotator, "annotator"),
        (second, "annotator"),
        (lead, "lead"),
        (researcher, "researcher"),
    ):
        StudyMemberFactory(study=study, user=user, role=role)
    index = {item.pk: number for number, item in enumerate(items)}
    label_all(study, annotator, lambda item: ITEMS[index[item.pk]][4])
    label_all(study, second, lambda item: ITEMS[index[item.pk]][5])
    return study


def items_of(study):
    return list(study.items.order_by("position").select_related("report__repository"))
