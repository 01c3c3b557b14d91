"""The wall between apps holds in SQL too: no labeler module names a mining or taxonomy table
in raw SQL (labeler reads them through mining.selectors and taxonomy.selectors), and no
mining module names a labeler table. Migrations are history and are left out."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("app", "foreign"), [("labeler", "mining"), ("mining", "labeler")])
def test_an_app_names_no_other_apps_table_in_sql(app, foreign):
    text = {
        str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
        for path in (ROOT / app).rglob("*.py")
        if "migrations" not in path.parts
    }
    crossing = sorted(
        (where, match.group(0))
        for where, source in text.items()
        for match in re.finditer(rf"\b{foreign}_[a-z]+\b", source)
        if re.search(r"\b(FROM|JOIN)\s+" + re.escape(match.group(0)), source)
    )
    assert crossing == []


def test_the_check_sees_a_table_named_in_sql():
    source = "SELECT 1 FROM mining_bugreport report"
    assert re.search(r"\b(FROM|JOIN)\s+mining_bugreport", source)
