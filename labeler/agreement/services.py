"""Writes of agreement: a study's setting of the hierarchy alpha."""

from labeler.models import Study


def study_parent_distance_set(*, study: Study, parent_distance: float) -> Study:
    """Set the hierarchy alpha's distance between two different paths under one top category
    (labeler.agreement.hierarchy); ValidationError naming `parent_distance` unless 0 to 1."""
    study.parent_distance = parent_distance
    study.full_clean(validate_unique=False, validate_constraints=False)
    Study.objects.filter(pk=study.pk).update(parent_distance=parent_distance)
    return study
