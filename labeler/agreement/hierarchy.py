"""Credit across a codebook's hierarchy: a distance between category paths for Krippendorff's
alpha. No Django here.

Two coders who agree on "memory" but not on "memory/leak" against "memory/use-after-free"
disagree fully on full paths and agree fully on top categories. The hierarchy alpha gives
them partial credit: the distance between two paths is 0 when they are the same path,
`parent_distance` (0.5 unless the study sets another, 0..1) when they differ but share their
top category (the parent of a two-level codebook's paths; for deeper paths, any two paths
under one top category), and 1 otherwise (a path and "no category" included). With
`parent_distance` 1 it is the nominal alpha on full paths; with 0, the nominal alpha on top
categories.
"""

from collections.abc import Sequence

import numpy as np

DEFAULT_PARENT_DISTANCE = 0.5


def check_parent_distance(value: object) -> float:
    """The distance given to two paths under one top category; raises ValueError naming
    `parent_distance` unless it is a number from 0 to 1."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ValueError(f"parent_distance: a number from 0 to 1, got {value!r}")
    return float(value)


def path_distances(paths: Sequence[str], parent_distance: float) -> np.ndarray:
    """The distance between every two of `paths` (see the module docstring)."""
    parent_distance = check_parent_distance(parent_distance)
    tops = np.array([path.split("/", 1)[0] for path in paths], dtype=object)
    same_top = tops[:, np.newaxis] == tops[np.newaxis, :]
    distances = np.where(same_top, parent_distance, 1.0)
    np.fill_diagonal(distances, 0.0)
    return distances


def nested(paths: Sequence[str]) -> bool:
    """Whether some path has a parent, so that the hierarchy can give partial credit."""
    return any("/" in path for path in paths)


def weights(parent_distance: float) -> dict[str, float]:
    """The distances, as the result states them."""
    return {"same_path": 0.0, "same_top_category": parent_distance, "otherwise": 1.0}
