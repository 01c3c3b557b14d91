"""Which database the app runs on, asked at call time (tests switch it to run both paths).

Hot paths run as single plain-SQL statements on PostgreSQL, and through the ORM elsewhere (the
SQLite file a laptop install uses).
"""

from django.db import connection


def is_postgresql() -> bool:
    return connection.vendor == "postgresql"
