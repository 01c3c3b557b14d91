"""Writes of agreement: a study's settings of the hierarchy alpha and of the kappas' bands."""

from labeler.models import Study


def study_parent_distance_set(*, study: Study, parent_distance: float) -> Study:
    """Set the hierarchy alpha's distance between two different paths under one top category
    (labeler.agreement.hierarchy); ValidationError naming `parent_distance` unless 0 to 1."""
    study.parent_distance = parent_distance
    study.full_clean(validate_unique=False, validate_constraints=False)
    Study.objects.filter(pk=study.pk).update(parent_distance=parent_distance)
    return study


def study_kappa_scale_set(*, study: Study, kappa_scale: str) -> Study:
    """Set the scale of the bands of the kappas and Gwet's AC1
    (labeler.agreement.statistics.KAPPA_SCALES); ValidationError naming `kappa_scale` for a
    scale there is none of."""
    study.kappa_scale = kappa_scale
    study.full_clean(validate_unique=False, validate_constraints=False)
    Study.objects.filter(pk=study.pk).update(kappa_scale=kappa_scale)
    return study
