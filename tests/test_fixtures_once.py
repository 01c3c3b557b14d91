"""Each pytest fixture is defined once in the suite (issue #25): a name means one set-up wherever
a test asks for it, and a fixture that several files use lives in their nearest conftest.py."""

import ast
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _is_fixture(decorator: ast.expr) -> bool:
    if isinstance(decorator, ast.Call):
        decorator = decorator.func
    if isinstance(decorator, ast.Attribute):
        return decorator.attr == "fixture"
    return isinstance(decorator, ast.Name) and decorator.id == "fixture"


def _fixture_name(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The name tests ask for: the function's, or the one given with `name=`."""
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call) and _is_fixture(decorator):
            for keyword in decorator.keywords:
                if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                    return keyword.value.value
    return function.name


def fixtures_defined(root: Path) -> dict[str, list[str]]:
    """Each fixture name under `root` and the files (relative to it) that define it."""
    where = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                _is_fixture(decorator) for decorator in node.decorator_list
            ):
                where[_fixture_name(node)].append(str(path.relative_to(root)))
    return dict(where)


def defined_more_than_once(where: dict[str, list[str]]) -> dict[str, list[str]]:
    return {name: files for name, files in where.items() if len(set(files)) > 1}


def fixtures_imported_from_test_modules(root: Path) -> list[str]:
    """`file: module.name` for each fixture a file imports from a test module (test_*.py): a
    fixture that several files use belongs in their nearest conftest.py."""
    fixtures_of = {}
    for path in sorted(root.rglob("test_*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        fixtures_of[module] = {
            _fixture_name(node)
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and any(_is_fixture(decorator) for decorator in node.decorator_list)
        }
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ImportFrom) and node.module in fixtures_of:
                found += [
                    f"{path.relative_to(root)}: {node.module}.{alias.name}"
                    for alias in node.names
                    if alias.name in fixtures_of[node.module]
                ]
    return found


def test_no_fixture_is_imported_from_a_test_module():
    assert fixtures_imported_from_test_modules(TESTS) == []


def test_every_fixture_name_is_defined_in_one_file():
    assert defined_more_than_once(fixtures_defined(TESTS)) == {}


def test_the_scan_sees_the_shared_fixtures():
    where = fixtures_defined(TESTS)
    assert where["make_user"] == ["conftest.py"]
    assert where["study"] == ["labeler/conftest.py"]
    assert where["sheet_study"] == ["labeler/imports/conftest.py"]
    assert where["done"] == ["labeler/screening/conftest.py"]
    assert where["client_as"] == ["labeler/screening/conftest.py"]


def test_a_name_defined_in_two_files_is_found(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "test_one.py").write_text(
        "import pytest\n\n@pytest.fixture\ndef study():\n    return 1\n\n"
        "@pytest.fixture(name='lead')\ndef _lead():\n    return 2\n"
    )
    (tmp_path / "test_two.py").write_text(
        "from pytest import fixture\n\n@fixture(scope='module')\ndef study():\n    return 3\n\n"
        "def lead():\n    return 4\n\nclass TestThing:\n    @fixture\n    def lead(self):\n"
        "        return 5\n"
    )

    assert defined_more_than_once(fixtures_defined(tmp_path)) == {
        "study": ["a/test_one.py", "test_two.py"],
        "lead": ["a/test_one.py", "test_two.py"],
    }


def test_a_fixture_imported_from_a_test_module_is_found(tmp_path):
    root = tmp_path / "tests"
    (root / "a").mkdir(parents=True)
    (root / "a" / "test_one.py").write_text(
        "import pytest\n\n@pytest.fixture\ndef study():\n    return 1\n\n"
        "def helper():\n    return 2\n"
    )
    (root / "test_two.py").write_text("from tests.a.test_one import helper, study\n")

    assert fixtures_imported_from_test_modules(root) == ["test_two.py: tests.a.test_one.study"]
