"""Where Celery's autodiscovery looks for the labeler's tasks: each lives in its feature
(labeler/<feature>/tasks.py) and is imported here so that a worker registers it."""

from labeler.imports.tasks import label_import_run
from labeler.screening.tasks import triage_run

__all__ = ["label_import_run", "triage_run"]
