"""What a management command that only reads the database checks before it runs.

Django runs every system check before a command by default. Importing the URL conf to check
it (every view, the API, PyGithub) is most of that: 0.6 s of each run of a command that
serves no URL, paid again by every script that exports or measures a study in a loop. The
commands that only read (export_dataset, agreement, compare_reports) check what they use:
the models and the database. `manage.py check`, `migrate` and the server run them all.
"""

from django.core.checks import Tags

READING_COMMAND_CHECKS = [Tags.models, Tags.database]
