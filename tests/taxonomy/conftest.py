"""The codebook the taxonomy tests read (tests.taxonomy.test_codebook_file's GOOD), loaded."""

import pytest

from taxonomy.codebook_file import parse_codebook
from taxonomy.services import codebook_load
from tests.taxonomy.test_codebook_file import GOOD


@pytest.fixture
def codebook():
    return codebook_load(spec=parse_codebook(GOOD))[0]
