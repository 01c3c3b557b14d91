"""The labeler's tables, one module per feature; every model is re-exported here, so
`labeler.models.Study` and the app label and table names stay as they were."""

from labeler.models.adjudication import (
    AUTOMATIC_METHODS,
    DisagreementReason,
    FinalLabel,
    FinalLabelEvent,
    FinalMethod,
)
from labeler.models.board import Board, BoardEvent, Code, CodeUse, Theme
from labeler.models.imports import LabelImport, LabelImportJob
from labeler.models.labelling import Annotation, AnnotationVersion, Assignment, SkipReason
from labeler.models.members import StudyInvitation, StudyMemberRemoval
from labeler.models.revisions import CodebookMigration
from labeler.models.screening import TriageRun
from labeler.models.studies import Study, StudyBatch, StudyItem, StudyMember

__all__ = [
    "AUTOMATIC_METHODS",
    "Annotation",
    "AnnotationVersion",
    "Assignment",
    "Board",
    "BoardEvent",
    "Code",
    "CodeUse",
    "CodebookMigration",
    "DisagreementReason",
    "FinalLabel",
    "FinalLabelEvent",
    "FinalMethod",
    "LabelImport",
    "LabelImportJob",
    "SkipReason",
    "Study",
    "StudyBatch",
    "StudyInvitation",
    "StudyItem",
    "StudyMember",
    "StudyMemberRemoval",
    "Theme",
    "TriageRun",
]
