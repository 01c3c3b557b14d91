"""Read, validate and write a codebook file (YAML). Pure: no Django.

Every problem is reported with the file, the line and the path inside the document, and all
problems are collected before anything is written, so a bad file never half-loads.
`codebook_yaml` writes the file `parse_codebook` reads back into an equal spec.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

KEY_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# A codebook's key and version name it in addresses, file names and commands: one rule for
# them at every door (codebook files, the board's freeze, the API, the models behind the admin).
CODEBOOK_KEY_MAX = 100
CODEBOOK_KEY_RULE = (
    f"lowercase letters and digits separated by single hyphens, at most {CODEBOOK_KEY_MAX} "
    "characters"
)
VERSION_MAX = 40
VERSION_PATTERN = re.compile(rf"\A(?!\.)[A-Za-z0-9._-]{{1,{VERSION_MAX}}}\Z")
VERSION_RULE = f"1 to {VERSION_MAX} letters, digits, '.', '_' or '-', not starting with '.'"
PATH_SEPARATOR = "/"
_PARENT_PATH = re.compile(r"(?:^|\.)[^.\[\]]+$|\[\d+\]$")

CODEBOOK_FIELDS = {"key", "name", "version", "description", "source", "revises", "dimensions"}
REVISES_FIELDS = {"version", "mapping"}
DIMENSION_FIELDS = {"key", "name", "help", "multiple", "required", "leaf_only", "categories"}
CATEGORY_FIELDS = {"key", "parent", "name", "definition", "include", "exclude", "examples"}
# A codebook is a few levels deep (dimensions, categories, their fields); far deeper nesting
# is a mistake or an attack, and reading it would exhaust Python's recursion.
MAX_NESTING = 50


@dataclass(frozen=True)
class Problem:
    source: str
    line: int | None
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line else self.source
        return f"{where}: {self.path or '(document)'}: {self.message}"


class CodebookFileError(Exception):
    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(problem) for problem in problems))


@dataclass(frozen=True)
class CategorySpec:
    key: str
    name: str
    parent: str | None = None
    definition: str = ""
    include: str = ""
    exclude: str = ""
    examples: tuple[str, ...] = ()
    path: str = ""


@dataclass(frozen=True)
class DimensionSpec:
    key: str
    name: str
    help: str = ""
    multiple: bool = False
    required: bool = True
    leaf_only: bool = False
    categories: tuple[CategorySpec, ...] = ()


@dataclass(frozen=True)
class RevisesSpec:
    """The version of the same codebook this one revises, and where each of its categories
    went: {dimension key: {old key path: (new key paths)}}; one new path is kept or renamed
    (several old ones to the same: merged), several is split, none is removed."""

    version: str
    mapping: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)


@dataclass(frozen=True)
class CodebookSpec:
    key: str
    name: str
    version: str
    description: str = ""
    source: str = ""
    dimensions: tuple[DimensionSpec, ...] = field(default_factory=tuple)
    revises: RevisesSpec | None = None


class _Refused(yaml.YAMLError):
    """Valid YAML that a codebook file may not use, at a place in the file."""

    def __init__(self, message: str, mark):
        super().__init__(message)
        self.message = message
        self.line = mark.line + 1


class _CodebookLoader(yaml.SafeLoader):
    """The safe loader without aliases and without deep nesting.

    An alias repeats a value by reference: a few lines of them (the "billion laughs") expand
    to gigabytes, and an alias inside its own anchor to a value that contains itself. A
    codebook has no need for them: every value is written out where it is used.
    """

    _depth = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise _Refused(
                f"aliases are not allowed in a codebook file (found *{event.anchor}): "
                "write the value out where it is used",
                event.start_mark,
            )
        if self._depth >= MAX_NESTING:
            raise _Refused(f"nested deeper than {MAX_NESTING} levels", self.peek_event().start_mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _Document:
    """A YAML document turned into plain Python values, remembering each value's line."""

    def __init__(self, source: str):
        self.source = source
        self.lines: dict[str, int] = {}
        self.problems: list[Problem] = []

    def problem(self, path: str, message: str, line: int | None = None) -> None:
        if line is None:
            line = self.line_of(path)
        self.problems.append(Problem(self.source, line, path, message))

    def line_of(self, path: str) -> int | None:
        """The line of `path`, or of its nearest enclosing value the document has."""
        while path not in self.lines and path:
            path = _PARENT_PATH.sub("", path)
        return self.lines.get(path)

    def build(self, node: yaml.Node, path: str = ""):
        self.lines[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            result = {}
            for key_node, value_node in node.value:
                key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
                child = f"{path}.{key}" if path else str(key)
                if key is None:
                    self.problem(
                        path, "mapping keys must be plain names", key_node.start_mark.line + 1
                    )
                    continue
                if key in result:
                    self.problem(
                        child, f"field {key!r} appears twice", key_node.start_mark.line + 1
                    )
                    continue
                result[key] = self.build(value_node, child)
            return result
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, f"{path}[{index}]") for index, item in enumerate(node.value)]
        return yaml.SafeLoader("").construct_object(node, deep=True)


def _text(doc: _Document, data: dict, name: str, path: str, required: bool) -> str:
    value = data.get(name)
    where = f"{path}.{name}" if path else name
    if value is None:
        if required:
            doc.problem(path, f"missing required field {name!r}")
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        doc.problem(where, f"{name!r} must be text, not {type(value).__name__}")
        return ""
    text = str(value).strip()
    if required and not text:
        doc.problem(where, f"{name!r} must not be empty")
    return text


def _flag(doc: _Document, data: dict, name: str, path: str, default: bool) -> bool:
    value = data.get(name, default)
    if not isinstance(value, bool):
        doc.problem(f"{path}.{name}", f"{name!r} must be true or false, not {value!r}")
        return default
    return value


def codebook_key_problem(key) -> str | None:
    """What is wrong with `key` as a codebook's key; None when nothing is."""
    if not isinstance(key, str) or len(key) > CODEBOOK_KEY_MAX or not KEY_PATTERN.fullmatch(key):
        return f"key {key!r} must be {CODEBOOK_KEY_RULE}"
    return None


def version_problem(version) -> str | None:
    """What is wrong with `version` as the name of a codebook's version; None when nothing
    is."""
    if not isinstance(version, str) or not VERSION_PATTERN.match(version):
        return f"version {version!r} must be {VERSION_RULE}"
    return None


def _version(doc: _Document, data: dict, path: str) -> str:
    version = _text(doc, data, "version", path, required=True)
    problem = version_problem(version) if version else None
    if problem:
        doc.problem(f"{path}.version" if path else "version", problem)
    return version


def _key(doc: _Document, data: dict, path: str) -> str:
    key = _text(doc, data, "key", path, required=True)
    if key and not KEY_PATTERN.match(key):
        doc.problem(
            f"{path}.key" if path else "key",
            f"key {key!r} must be lowercase letters and digits separated by single hyphens",
        )
    return key


def _codebook_key(doc: _Document, data: dict) -> str:
    key = _text(doc, data, "key", "", required=True)
    problem = codebook_key_problem(key) if key else None
    if problem:
        doc.problem("key", problem)
    return key


def _check_fields(doc: _Document, data, path: str, allowed: set[str], what: str) -> bool:
    if not isinstance(data, dict):
        doc.problem(path, f"{what} must be a mapping of fields, not {type(data).__name__}")
        return False
    for name in data:
        if name not in allowed:
            doc.problem(
                f"{path}.{name}" if path else name,
                f"unknown field {name!r} in {what} (allowed: {', '.join(sorted(allowed))})",
            )
    return True


def _category(doc: _Document, data, path: str) -> CategorySpec | None:
    if not _check_fields(doc, data, path, CATEGORY_FIELDS, "a category"):
        return None
    examples = data.get("examples", [])
    if isinstance(examples, str):
        examples = [examples]
    if not isinstance(examples, list) or not all(isinstance(e, str) for e in examples):
        doc.problem(f"{path}.examples", "'examples' must be a list of texts")
        examples = []
    parent = data.get("parent")
    if parent is not None and not isinstance(parent, str):
        doc.problem(f"{path}.parent", "'parent' must be the key of another category")
        parent = None
    return CategorySpec(
        key=_key(doc, data, path),
        name=_text(doc, data, "name", path, required=True),
        parent=parent.strip() if parent else None,
        definition=_text(doc, data, "definition", path, required=False),
        include=_text(doc, data, "include", path, required=False),
        exclude=_text(doc, data, "exclude", path, required=False),
        examples=tuple(e.strip() for e in examples),
    )


def _with_paths(doc: _Document, categories: list[CategorySpec], path: str) -> list[CategorySpec]:
    """Resolve each category's key path through its parents; report missing parents and cycles."""
    index_of: dict[str, int] = {}
    for index, category in enumerate(categories):
        if category.key in index_of:
            first = index_of[category.key]
            doc.problem(
                f"{path}.categories[{index}].key",
                f"duplicate category key {category.key!r} (first used at categories[{first}])",
            )
        else:
            index_of[category.key] = index
    by_key = {c.key: c for c in categories}

    resolved: list[CategorySpec] = []
    for index, category in enumerate(categories):
        where = f"{path}.categories[{index}]"
        chain = [category.key]
        parent = category.parent
        broken = False
        while parent is not None:
            if parent not in by_key:
                doc.problem(
                    f"{where}.parent",
                    f"parent {parent!r} of category {category.key!r} is not a category "
                    "of this dimension",
                )
                broken = True
                break
            if parent in chain:
                cycle = " -> ".join([*chain, parent])
                doc.problem(f"{where}.parent", f"categories form a cycle: {cycle}")
                broken = True
                break
            chain.append(parent)
            parent = by_key[parent].parent
        if not broken:
            resolved.append(
                CategorySpec(**{**category.__dict__, "path": PATH_SEPARATOR.join(reversed(chain))})
            )
    return resolved


def _dimension(doc: _Document, data, path: str) -> DimensionSpec | None:
    if not _check_fields(doc, data, path, DIMENSION_FIELDS, "a dimension"):
        return None
    raw_categories = data.get("categories")
    categories: list[CategorySpec] = []
    if raw_categories is None or raw_categories == []:
        doc.problem(path, "a dimension needs at least one category under 'categories'")
    elif not isinstance(raw_categories, list):
        doc.problem(f"{path}.categories", "'categories' must be a list")
    else:
        for index, item in enumerate(raw_categories):
            category = _category(doc, item, f"{path}.categories[{index}]")
            if category is not None:
                categories.append(category)
    return DimensionSpec(
        key=_key(doc, data, path),
        name=_text(doc, data, "name", path, required=True),
        help=_text(doc, data, "help", path, required=False),
        multiple=_flag(doc, data, "multiple", path, default=False),
        required=_flag(doc, data, "required", path, default=True),
        leaf_only=_flag(doc, data, "leaf_only", path, default=False),
        categories=tuple(_with_paths(doc, categories, path)),
    )


def _revises(doc: _Document, data, path: str) -> RevisesSpec | None:
    if not _check_fields(doc, data, path, REVISES_FIELDS, "the 'revises' block"):
        return None
    version = _version(doc, data, path)
    raw = data.get("mapping")
    if not isinstance(raw, dict):
        doc.problem(
            f"{path}.mapping" if raw is not None else path,
            "'mapping' must map each dimension key to {old key path: [new key paths]}",
        )
        return None
    mapping: dict[str, dict[str, tuple[str, ...]]] = {}
    for dimension, paths in raw.items():
        where = f"{path}.mapping.{dimension}"
        if not isinstance(paths, dict):
            doc.problem(where, "must map each old key path to a list of new key paths")
            continue
        mapping[dimension] = {}
        for old, new in paths.items():
            if isinstance(new, str):
                new = [new]
            if not isinstance(new, list) or not all(isinstance(p, str) and p.strip() for p in new):
                doc.problem(f"{where}.{old}", "must be a list of new key paths ([] if removed)")
                continue
            mapping[dimension][old] = tuple(p.strip() for p in new)
    return RevisesSpec(version=version, mapping=mapping)


def parse_codebook(text: str, source: str = "<codebook>") -> CodebookSpec:
    """Parse a codebook document; raise CodebookFileError listing every problem found."""
    doc = _Document(source)
    try:
        node = yaml.compose(text, Loader=_CodebookLoader)
    except _Refused as error:
        raise CodebookFileError([Problem(source, error.line, "", error.message)]) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark else None
        reason = getattr(error, "problem", None) or str(error)
        raise CodebookFileError([Problem(source, line, "", f"not valid YAML: {reason}")]) from None
    if node is None:
        raise CodebookFileError([Problem(source, None, "", "the file is empty")])
    try:
        data = doc.build(node)
    except yaml.YAMLError as error:
        raise CodebookFileError([Problem(source, None, "", f"not valid YAML: {error}")]) from None

    if not _check_fields(doc, data, "", CODEBOOK_FIELDS, "a codebook"):
        raise CodebookFileError(doc.problems)

    dimensions: list[DimensionSpec] = []
    raw_dimensions = data.get("dimensions")
    if not isinstance(raw_dimensions, list) or not raw_dimensions:
        doc.problem("dimensions", "a codebook needs a non-empty list of 'dimensions'")
    else:
        seen: dict[str, int] = {}
        for index, item in enumerate(raw_dimensions):
            dimension = _dimension(doc, item, f"dimensions[{index}]")
            if dimension is None:
                continue
            if dimension.key in seen:
                doc.problem(
                    f"dimensions[{index}].key",
                    f"duplicate dimension key {dimension.key!r} "
                    f"(first used at dimensions[{seen[dimension.key]}])",
                )
            seen.setdefault(dimension.key, index)
            dimensions.append(dimension)

    spec = CodebookSpec(
        key=_codebook_key(doc, data),
        name=_text(doc, data, "name", "", required=True),
        version=_version(doc, data, ""),
        description=_text(doc, data, "description", "", required=False),
        source=_text(doc, data, "source", "", required=False),
        dimensions=tuple(dimensions),
        revises=_revises(doc, data["revises"], "revises") if "revises" in data else None,
    )
    if doc.problems:
        raise CodebookFileError(doc.problems)
    return spec


def read_codebook_file(path: Path | str) -> CodebookSpec:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CodebookFileError([Problem(str(path), None, "", "no such file")]) from None
    except IsADirectoryError:
        raise CodebookFileError([Problem(str(path), None, "", "a folder, not a file")]) from None
    except UnicodeDecodeError as error:
        raise CodebookFileError(
            [Problem(str(path), None, "", f"not UTF-8 text (byte {error.start})")]
        ) from None
    except OSError as error:
        raise CodebookFileError(
            [Problem(str(path), None, "", error.strerror or str(error))]
        ) from None
    return parse_codebook(text, str(path))


class _Dumper(yaml.SafeDumper):
    """Lists indented under their key, and texts of several lines as literal blocks."""

    def increase_indent(self, flow=False, indentless=False):
        return super().increase_indent(flow, False)


def _represent_text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    return dumper.represent_scalar(
        "tag:yaml.org,2002:str", text, style="|" if "\n" in text else None
    )


_Dumper.add_representer(str, _represent_text)


def _category_data(category: CategorySpec) -> dict:
    data: dict = {"key": category.key}
    if category.parent:
        data["parent"] = category.parent
    data["name"] = category.name
    for name in ("definition", "include", "exclude"):
        if getattr(category, name):
            data[name] = getattr(category, name)
    if category.examples:
        data["examples"] = list(category.examples)
    return data


def codebook_yaml(spec: CodebookSpec) -> str:
    """The codebook file of `spec`: every field written out, empty texts left out."""
    data: dict = {"key": spec.key, "name": spec.name, "version": spec.version}
    if spec.description:
        data["description"] = spec.description
    if spec.source:
        data["source"] = spec.source
    if spec.revises is not None:
        data["revises"] = {
            "version": spec.revises.version,
            "mapping": {
                dimension: {old: list(new) for old, new in paths.items()}
                for dimension, paths in spec.revises.mapping.items()
            },
        }
    data["dimensions"] = []
    for dimension in spec.dimensions:
        entry: dict = {"key": dimension.key, "name": dimension.name}
        if dimension.help:
            entry["help"] = dimension.help
        entry["multiple"] = dimension.multiple
        entry["required"] = dimension.required
        entry["leaf_only"] = dimension.leaf_only
        entry["categories"] = [_category_data(category) for category in dimension.categories]
        data["dimensions"].append(entry)
    return yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )
