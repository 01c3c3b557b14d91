"""The default settings, with the embedded PostgreSQL of another data folder
(EMBEDDED_TEST_DATA), so that a test may find it stopped whatever else runs."""

import os
from pathlib import Path

import dj_database_url

from config.embedded_db import EmbeddedPostgres
from config.settings import *  # noqa: F403

EMBEDDED_DATABASE_DIR = Path(os.environ["EMBEDDED_TEST_DATA"])
DATABASES = {"default": dj_database_url.parse(EmbeddedPostgres(EMBEDDED_DATABASE_DIR).url())}
