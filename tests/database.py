"""The test database as a DATABASE_URL, for the processes a test starts."""

from urllib.parse import quote

from django.db import connection


def database_url() -> str:
    """A Unix socket folder (the embedded PostgreSQL's) goes in the host part, quoted."""
    database = connection.settings_dict
    host = quote(database["HOST"] or "", safe="")
    port = f":{database['PORT']}" if database["PORT"] else ""
    return f"postgres://{database['USER']}@{host}{port}/{database['NAME']}"
