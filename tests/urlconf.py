"""The project's URL conf, walked: every route with its address as written, its namespaced
name and the methods its view answers. For the tests that cover every route by construction
(blindness by person, ids that are no ids, NUL in paths), so that a route is covered the day
it is added."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.urls import URLPattern, URLResolver, get_resolver

# What a test sends to a plain function view, whose methods no class lists.
EVERY_METHOD = ("get", "post", "put", "patch", "delete")


@dataclass(frozen=True)
class Walked:
    route: str  # the address as written, its prefixes joined ("api/^studies/(?P<slug>…)/$")
    name: str  # namespaced ("studies:detail"); "" for an unnamed route
    namespace: str  # "admin", "studies", …; "" outside any
    pattern: URLPattern

    @property
    def kwargs(self) -> tuple[str, ...]:
        return tuple(self.pattern.pattern.regex.groupindex)


def url_patterns(patterns=None, *, route: str = "", namespace: str = "") -> Iterator[Walked]:
    """Every pattern of the URL conf (or of `patterns`), depth first."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}:{entry.namespace}" if namespace else entry.namespace or ""
            yield from url_patterns(
                entry.url_patterns, route=route + str(entry.pattern), namespace=inner
            )
            continue
        assert isinstance(entry, URLPattern)
        name = f"{namespace}:{entry.name}" if namespace and entry.name else entry.name or ""
        yield Walked(route + str(entry.pattern), name, namespace, entry)


def methods_of(pattern: URLPattern, *, function_view=EVERY_METHOD) -> tuple[str, ...]:
    """The methods a route answers: a viewset's actions, or the handlers a class-based view
    defines; `function_view` for a plain function, which lists none."""
    callback = pattern.callback
    actions = getattr(callback, "actions", None)
    if actions:
        return tuple(sorted(actions))
    view = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
    if view is None:
        return tuple(function_view)
    return tuple(
        method
        for method in view.http_method_names
        if method not in {"options", "head", "trace"} and hasattr(view, method)
    )
