"""The study with every kind of item an export meets (tests.labeler.exported_study)."""

from tests.labeler.exported_study import labelled_study  # noqa: F401 (fixture)
