"""Revisions of tests.labeler.factories.labelling_codebook, for codebook migrations.

Version 2.0: root-cause keeps memory/leak, renames memory/bloat to memory/overuse and splits
threading into threading/lock and threading/race; impact (multi-select) merges speed and
memory-use into cost. Version 3.0 (of 2.0) renames memory/leak to memory/retention.
"""

from labeler.labelling.services import assignment_next, assignment_submit
from taxonomy.codebook_file import CategorySpec, CodebookSpec, DimensionSpec
from taxonomy.services import codebook_revise
from tests.labeler.factories import (
    LabellingStudyFactory,
    StudyItemFactory,
    StudyMemberFactory,
    labelling_codebook,
)

V2_MAPPING = {
    "root-cause": {
        "memory": ["memory"],
        "memory/leak": ["memory/leak"],
        "memory/bloat": ["memory/overuse"],
        "threading": ["threading/lock", "threading/race"],
    },
    "impact": {"speed": ["cost"], "memory-use": ["cost"]},
}
V3_MAPPING = {
    "root-cause": {
        "memory": ["memory"],
        "memory/leak": ["memory/retention"],
        "memory/overuse": ["memory/overuse"],
        "threading": ["threading"],
        "threading/lock": ["threading/lock"],
        "threading/race": ["threading/race"],
    },
    "impact": {"cost": ["cost"]},
}


def _category(key, parent=None):
    return CategorySpec(
        key=key, name=key.title(), parent=parent, path=f"{parent}/{key}" if parent else key
    )


def _spec(base, version, memory_children):
    return CodebookSpec(
        key=base.key,
        name=base.name,
        version=version,
        dimensions=(
            DimensionSpec(
                key="root-cause",
                name="Root cause",
                leaf_only=True,
                categories=(
                    _category("memory"),
                    *(_category(key, "memory") for key in memory_children),
                    _category("threading"),
                    _category("lock", "threading"),
                    _category("race", "threading"),
                ),
            ),
            DimensionSpec(
                key="impact",
                name="Impact",
                multiple=True,
                required=False,
                categories=(_category("cost"),),
            ),
        ),
    )


def revise_v2(base):
    return codebook_revise(
        base=base, spec=_spec(base, "2.0", ("leak", "overuse")), mapping=V2_MAPPING
    )


def revise_v3(v2):
    return codebook_revise(
        base=v2, spec=_spec(v2, "3.0", ("retention", "overuse")), mapping=V3_MAPPING
    )


LEAK = {"root-cause": "memory/leak", "impact": ["speed"]}
BLOAT = {"root-cause": "memory/bloat", "impact": ["speed", "memory-use"]}
THREADS = {"root-cause": "threading"}
# Per item: the first annotator's labels, the second's.
LABELS = [
    (LEAK, LEAK),
    (BLOAT, BLOAT),
    (THREADS, THREADS),
    (LEAK, {**THREADS, "impact": ["speed"]}),
]


def labelled_study(*, annotator, second, lead):
    """Study "perf" on version 1.0 of codebook "perf": four items labelled by `annotator` and
    `second`, the first three unanimously (final), the last disputed on its root cause (its
    impact final, the item not)."""
    study = LabellingStudyFactory(slug="perf", overlap=2, codebook=labelling_codebook(key="perf"))
    StudyMemberFactory(study=study, user=lead, role="lead")
    for user in (annotator, second):
        StudyMemberFactory(study=study, user=user, role="annotator")
    for position in range(len(LABELS)):
        StudyItemFactory(study=study, position=position)
    for index, user in enumerate((annotator, second)):
        for labels in LABELS:
            held = assignment_next(study=study, user=user)
            assignment_submit(assignment_id=held.pk, user=user, labels=labels[index])
    return study


def labelled_with_v2(*, annotator, second, lead):
    """labelled_study, with version 2.0 of its codebook there to migrate to."""
    study = labelled_study(annotator=annotator, second=second, lead=lead)
    revise_v2(study.codebook)
    return study
