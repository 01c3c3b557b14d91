"""A study labelled on version 1.0 of its codebook with version 2.0 there to migrate to
(tests.labeler.codebook_revisions)."""

import pytest

from tests.labeler import codebook_revisions


@pytest.fixture
def labelled_with_v2(annotator, ann2, lead):
    return codebook_revisions.labelled_with_v2(annotator=annotator, second=ann2, lead=lead)
