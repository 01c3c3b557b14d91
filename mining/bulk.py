"""Bulk upserts on a natural key: one INSERT ... ON CONFLICT DO UPDATE per call.

On PostgreSQL the rows go from plain dicts straight to psycopg2's quoting (Django's
bulk_create prepares every value of a model instance per field, which dominated import time),
and RETURNING tells which rows were new: `xmax = 0` holds only for a row this statement
inserted. Other databases fall back to bulk_create(update_conflicts=True), which cannot tell
new rows from updated ones, so every row counts as updated there.
"""

from django.db import connection, models
from psycopg2.extras import Json

PAGE_SIZE = 1000


def _columns(model: type[models.Model], names: list[str]) -> list[str]:
    return [f'"{model._meta.get_field(name).column}"' for name in names]


def upsert(
    model: type[models.Model],
    rows: list[dict],
    *,
    unique: list[str],
    update: list[str],
) -> dict[tuple, tuple[int, bool]]:
    """Insert or update `rows` (field attnames -> values; every row has the same keys and no
    two the same key). Fields a row leaves out get their model default in new rows and keep
    their value in existing ones. Returns {natural key: (pk, created)}."""
    if not rows:
        return {}
    given = set(rows[0])
    defaults = {
        field.attname: field.get_default()
        for field in model._meta.concrete_fields
        if not field.primary_key and field.attname not in given
    }
    if defaults:
        rows = [{**defaults, **row} for row in rows]
    names = list(rows[0])
    json_positions = [
        i
        for i, name in enumerate(names)
        if isinstance(model._meta.get_field(name), models.JSONField)
    ]
    keys = _columns(model, unique)
    # With nothing to update, a no-op assignment still makes RETURNING report existing rows.
    assignments = ", ".join(f"{c} = EXCLUDED.{c}" for c in _columns(model, update or unique[:1]))
    # Table and column names come from the model, never from input.
    columns = ", ".join(_columns(model, names))
    head = f'INSERT INTO "{model._meta.db_table}" AS t ({columns}) VALUES '  # noqa: S608
    tail = (
        f" ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {assignments} "
        f"RETURNING t.id, (t.xmax = 0), {', '.join(f't.{c}' for c in keys)}"
    )
    template = "(" + ", ".join(["%s"] * len(names)) + ")"
    result = []
    with connection.cursor() as cursor:
        for start in range(0, len(rows), PAGE_SIZE):
            values = []
            for row in rows[start : start + PAGE_SIZE]:
                value = [row[name] for name in names]
                for i in json_positions:
                    value[i] = Json(value[i])
                values.append(cursor.cursor.mogrify(template, value).decode())
            # Values are quoted by psycopg2 (as execute_values does); executing through
            # Django's cursor keeps the statement visible to query counts and logging.
            cursor.execute(head + ", ".join(values) + tail)
            result += cursor.fetchall()
    return {tuple(key): (pk, created) for pk, created, *key in result}
