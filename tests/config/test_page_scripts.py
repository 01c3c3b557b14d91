"""The pages' scripts are ES modules, one style: every <script> a project template writes loads
a file (no inline script, which the Content-Security-Policy blocks), every page script is loaded
with type="module" (libraries under vendor/ aside), and the scripts share helpers by import,
never through globals set on window."""

import re
from pathlib import Path

from django.conf import settings
from django.template import engines

SCRIPTS = Path(settings.BASE_DIR) / "static" / "js"
SCRIPT_TAG = re.compile(r"<script\b([^>]*)>", re.I)
SOURCE = re.compile(r"""\bsrc=["']\{% static ["']([^"']+)["'] %\}["']""")
IMPORT = re.compile(r'^import .* from "\./([\w.]+)";$', re.M)


def project_templates():
    for folder in engines["django"].template_dirs:
        if Path(folder).is_relative_to(settings.BASE_DIR) and ".venv" not in Path(folder).parts:
            yield from Path(folder).rglob("*.html")


def script_tags():
    for template in project_templates():
        for attributes in SCRIPT_TAG.findall(template.read_text()):
            yield template.relative_to(settings.BASE_DIR), attributes


def classic_page_scripts(tags):
    """The tags of page scripts not loaded as modules, and the tags that load no file at all."""
    wrong = []
    for template, attributes in tags:
        source = SOURCE.search(attributes)
        if not source:
            wrong.append(f"{template}: inline <script{attributes}>")
        elif not source[1].startswith("vendor/") and 'type="module"' not in attributes:
            wrong.append(f'{template}: {source[1]} is not loaded with type="module"')
    return wrong


def test_every_page_script_is_a_module_loaded_from_a_file():
    tags = list(script_tags())

    assert len(tags) >= 10  # the walk found the templates of every app
    assert classic_page_scripts(tags) == []


def test_a_classic_or_inline_script_fails_the_check():
    tags = [
        (Path("a.html"), """ src="{% static 'js/codebook.js' %}" defer"""),
        (Path("b.html"), ""),
        (Path("c.html"), ''' type="module" src="{% static 'js/board.js' %}"'''),
        (Path("d.html"), """ src="{% static 'vendor/plotly/plotly.min.js' %}" defer"""),
    ]

    assert classic_page_scripts(tags) == [
        'a.html: js/codebook.js is not loaded with type="module"',
        "b.html: inline <script>",
    ]


def test_every_script_is_loaded_by_a_page_or_imported_by_one():
    loaded = {
        source[1].removeprefix("js/")
        for _template, attributes in script_tags()
        if (source := SOURCE.search(attributes)) and source[1].startswith("js/")
    }
    reached, todo = set(), list(loaded)
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo.extend(IMPORT.findall((SCRIPTS / name).read_text()))

    assert reached == {path.name for path in SCRIPTS.glob("*.js")}


def test_no_script_hands_a_global_to_another_through_window():
    assigned = {
        path.name: found
        for path in SCRIPTS.glob("*.js")
        if (found := re.findall(r"\bwindow\.\w+\s*=[^=]", path.read_text()))
    }

    assert assigned == {}
