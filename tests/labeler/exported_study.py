"""A study with every kind of item an export meets: final by unanimity, final by a lead's
decision, complete but in dispute, half labelled and untouched; one report with fixes and
candidate flags."""

import pytest

from labeler.adjudication.services import item_adjudicate
from labeler.labelling.services import assignment_next, assignment_submit
from mining.models import FixLink
from taxonomy.models import Category
from tests.labeler.factories import StudyItemFactory, StudyMemberFactory
from tests.mining.factories import FixLinkFactory, PullRequestFactory

LEAK = {"root-cause": "memory/leak", "impact": ["speed"]}
THREADS = {"root-cause": "threading", "impact": ["speed", "memory-use"]}


def labelled(study, user, labels, **fields):
    held = assignment_next(study=study, user=user)
    return assignment_submit(assignment_id=held.pk, user=user, labels=labels, **fields)


@pytest.fixture
def labelled_study(study, annotator, second_annotator, lead, make_user):
    """Items in hand-out order: unanimous, adjudicated, disputed, half labelled, untouched."""
    for category in Category.objects.filter(dimension__codebook=study.codebook):
        category.name = category.key.replace("-", " ").capitalize()
        category.save(update_fields=["name"])
    StudyMemberFactory(study=study, user=make_user(username="ann-unused"), role="annotator")
    untouched = StudyItemFactory(study=study, position=4)
    unanimous = labelled(study, annotator, LEAK, note="clear leak, naïve", seconds=40)
    labelled(study, second_annotator, LEAK, unsure=True, seconds=55)
    adjudicated = labelled(study, annotator, LEAK, seconds=12)
    labelled(study, second_annotator, THREADS, note="locks; see #3", seconds=30)
    item_adjudicate(
        item_id=adjudicated.item_id,
        user=lead,
        decisions={
            "root-cause": {
                "value": "threading",
                "rationale": "the trace shows lock contention",
                "reason": "annotator_slip",
            },
            "impact": {"value": ["speed"], "rationale": "only speed", "reason": "other"},
        },
    )
    disputed = labelled(study, annotator, LEAK, seconds=5)
    labelled(study, second_annotator, THREADS, seconds=6)
    half = labelled(study, annotator, THREADS, seconds=7)

    report = unanimous.item.report
    report.labels = ["type:bug", "module: performance"]
    report.state_reason = "completed"
    report.is_performance_candidate = True
    report.candidate_rules = {"performance": ["label:module: performance", "keyword:slow"]}
    report.fix_hours = 360.0
    report.fix_size = 12
    report.first_comment_hours = 24.0
    report.comment_count = 3
    report.commenter_count = 2
    report.participant_count = 3
    report.save()
    link = FixLinkFactory(report=report)
    FixLinkFactory(
        report=report,
        commit=None,
        pull_request=PullRequestFactory(repository=report.repository, number=77),
        target="pr:77",
        evidence=FixLink.Evidence.CLOSING_REFERENCE,
        strength=FixLink.Strength.WEAK,
        reverted=True,
    )
    return {
        "study": study,
        "unanimous": unanimous.item,
        "adjudicated": adjudicated.item,
        "disputed": disputed.item,
        "half": half.item,
        "untouched": untouched,
        "sha": link.commit.sha,
    }
