"""The benchmarks' own PostgreSQL database, and what goes in it.

- `database_arguments(parser, name)`: its command-line options;
- `database(args, action)` / `database_at(url, action)`: drop it, and make it afresh;
- `django_on_database(args)`: Django set up on a database of its own, dropped after;
- `study_with_reports(...)`, `study_labels(...)`, `database_settle()`: the study of synthetic
  reports that bench/label_load.py and bench/adjudication_bench.py run the app on.
"""

from __future__ import annotations

import os
from contextlib import contextmanager


def database_arguments(parser, name: str) -> None:
    """--pg, --database (`name` by default) and --keep-db, as `database()` and
    `django_on_database()` read them."""
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432", help="server URL")
    parser.add_argument("--database", default=name)
    parser.add_argument("--keep-db", action="store_true")


def database_at(url: str, action: str) -> None:
    """Drop the database `url` names if it exists; with action "create", make it anew on the
    same server."""
    import dj_database_url
    import psycopg2
    from psycopg2 import sql

    config = dj_database_url.parse(url)
    connection = psycopg2.connect(
        dbname="postgres",
        user=config["USER"] or "postgres",
        password=config["PASSWORD"] or None,
        host=config["HOST"] or "127.0.0.1",
        port=config["PORT"] or 5432,
    )
    connection.autocommit = True
    name = sql.Identifier(config["NAME"])
    with connection.cursor() as cursor:
        cursor.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))
        if action == "create":
            cursor.execute(sql.SQL("CREATE DATABASE {}").format(name))
    connection.close()


def database(args, action: str) -> None:
    """Drop `args.database` on the server at `args.pg` if it exists; with action "create",
    make it anew."""
    database_at(f"{args.pg}/{args.database}", action)


@contextmanager
def django_on_database(args, *, create: bool = True):
    """Django set up on `args.database` (made afresh first unless `create` is false); on
    leaving, its connections closed and the database dropped unless `args.keep_db`."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ["DATABASE_URL"] = f"{args.pg}/{args.database}"
    os.environ["CELERY_BROKER_URL"] = ""
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    if create:
        database(args, "create")
    try:
        import django

        django.setup()
        yield
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep_db:
            database(args, "drop")


def study_with_reports(items: int, overlap: int, repositories: tuple[str, ...]):
    """Migrate, load the built-in codebook "dl-performance-root-causes", store `items`
    performance reports (number 1 to `items`, spread in turn over the `repositories`, each
    named "owner/name") and make the study "bench" of all of them at `overlap`; returns it.
    Django must be set up."""
    from django.core.management import call_command

    from labeler.studies.frames import FrameQuery
    from labeler.studies.sampling import SampleSpec
    from labeler.studies.services import study_create
    from mining.models import BugReport, Repository
    from taxonomy.models import Codebook

    call_command("migrate", verbosity=0)
    call_command("load_codebook", builtin=["dl-performance-root-causes"], verbosity=0)
    codebook = Codebook.objects.get(key="dl-performance-root-causes")
    stored = [
        Repository.objects.create(owner=owner, name=name, full_name=f"{owner}/{name}")
        for owner, name in (full_name.split("/") for full_name in repositories)
    ]
    BugReport.objects.bulk_create(
        (
            BugReport(
                repository=stored[number % len(stored)],
                number=number,
                title=f"Step {number} gets slower after upgrading",
                body="Steps to reproduce:\n\n```python\nmodel.fit(x)\n```\n" * 5,
                state=BugReport.State.CLOSED,
                labels=["type:performance"],
                is_performance_candidate=True,
            )
            for number in range(1, items + 1)
        ),
        batch_size=5000,
    )
    study, _ = study_create(
        slug="bench",
        name="Bench",
        codebook=codebook,
        frame=FrameQuery(),
        sample=SampleSpec(),
        seed=1,
        overlap=overlap,
    )
    return study


def study_labels(study, first_dimension_leaf: int = 0) -> dict:
    """An answer to every dimension of the study, as submitted: a leaf category each (a list
    of one on a multi-select), the first leaf but on the first dimension, where it is the
    `first_dimension_leaf`-th."""
    from labeler.common.scheme import study_scheme

    labels = {}
    scheme = study_scheme(study=study)
    for number, dimension in enumerate(scheme.dimensions):
        parents = {c.parent_id for c in scheme.categories[dimension.pk]}
        leaves = [c for c in scheme.categories[dimension.pk] if c.pk not in parents]
        leaf = leaves[first_dimension_leaf if number == 0 else 0]
        labels[dimension.key] = [leaf.path] if dimension.multiple else leaf.path
    return labels


def database_settle() -> None:
    """Ready a freshly loaded database to be measured, and close Django's connections."""
    from django.db import connections

    # A live database has planner statistics and a visibility map; a freshly loaded one gets
    # them now, and writes its pages out, so that no checkpoint of the load lands in a run.
    with connections["default"].cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
        cursor.execute("CHECKPOINT")
    # Processes forked from this one afterwards may share no open connection.
    connections.close_all()
