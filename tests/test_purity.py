"""The pure modules (the sources of the "no Django" import contract in pyproject.toml) load
without Django or Celery, checked in a fresh interpreter so nothing else has loaded them."""

import pkgutil
import subprocess
import sys
import tomllib
from importlib.util import find_spec
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FRAMEWORKS = ("django", "rest_framework", "celery")


def pure_modules() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (purity,) = [c for c in contracts if "django" in c.get("forbidden_modules", [])]
    names = []
    for name in purity["source_modules"]:
        names.append(name)
        spec = find_spec(name)
        if spec.submodule_search_locations:
            names += [
                info.name
                for info in pkgutil.walk_packages(spec.submodule_search_locations, f"{name}.")
            ]
    return names


def test_the_contract_names_the_pure_modules():
    assert {
        "mining.linking",
        "labeler.studies.sampling",
        "labeler.revisions.mapping",
        "labeler.agreement.hierarchy",
        "labeler.agreement.intervals",
        "labeler.agreement.planning",
        "taxonomy.codebook_file",
        "taxonomy.diff",
        "labeler.screening.model",
        "labeler.screening.estimate",
    } <= set(pure_modules())


@pytest.mark.parametrize("name", pure_modules())
def test_a_pure_module_loads_no_framework(name):
    probe = (
        "import importlib, sys\n"
        f"module = importlib.import_module({name!r})\n"
        "print(module.__file__)\n"
        f"print(','.join(m for m in {FRAMEWORKS!r} if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    where, loaded = result.stdout.splitlines()
    assert Path(where).is_relative_to(ROOT)
    assert loaded == "", f"{name} loads {loaded}"
