#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def embedded_database_down():
    """The embedded PostgreSQL when it is the database and is not running, else None."""
    from django.conf import settings

    from config.embedded_db import EmbeddedPostgres

    folder = getattr(settings, "EMBEDDED_DATABASE_DIR", None)
    if folder is None:
        return None
    server = EmbeddedPostgres(folder)
    return None if server.answers() else server


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line
    from django.db import OperationalError

    # The development server meets the database in a thread of its own, where a refused
    # connection is only a traceback: say what to do before it starts.
    if sys.argv[1:2] == ["runserver"] and (server := embedded_database_down()) is not None:
        sys.exit(server.not_running_message())
    try:
        execute_from_command_line(sys.argv)
    except OperationalError:
        server = embedded_database_down()
        if server is None:
            raise
        sys.exit(server.not_running_message())


if __name__ == "__main__":
    main()
