"""Submissions made through the services, for the study pages to show."""

from labeler.labelling.services import assignment_next, assignment_submit
from tests.labeler.conftest import GOOD_LABELS

OTHER_LABELS = {"root-cause": "threading", "impact": ["memory-use"]}


def submitted(study, user, labels=GOOD_LABELS, note=""):
    assignment = assignment_next(study=study, user=user)
    return assignment_submit(
        assignment_id=assignment.pk, user=user, labels=labels, note=note, seconds=7
    )
