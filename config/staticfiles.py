"""Static files shipped inside installed Python packages, served as the app's own.

`PACKAGE_STATIC_FILES` maps a static path (e.g. `vendor/plotly/plotly.min.js`) to a file inside
an installed package (`plotly/package_data/plotly.min.js`, its first part the package). The
project's install step brings the package, so the file needs no copy in the repository and no
CDN: the pages work offline. Only the named files are exposed (not the rest of the package),
to the development server, WhiteNoise's finders (tests) and `collectstatic` (production).
"""

import posixpath
from importlib.util import find_spec
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import utils
from django.contrib.staticfiles.finders import BaseFinder
from django.core.checks import Error
from django.core.files.storage import FileSystemStorage


def package_file(spec: str) -> Path | None:
    """Where `package/inner/path` is installed, without importing the package; None when the
    package is not installed."""
    package, _, inner = spec.partition("/")
    found = find_spec(package)
    if found is None or not found.submodule_search_locations:
        return None
    return Path(next(iter(found.submodule_search_locations))) / inner


class PackageFileFinder(BaseFinder):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.files = {
            static_path: package_file(spec)
            for static_path, spec in getattr(settings, "PACKAGE_STATIC_FILES", {}).items()
        }

    def check(self, **kwargs):
        specs = getattr(settings, "PACKAGE_STATIC_FILES", {})
        return [
            Error(
                f"PACKAGE_STATIC_FILES[{static_path!r}]: {specs[static_path]!r} is not installed",
                hint="Install the project's pinned dependencies.",
                id="config.E001",
            )
            for static_path, file in self.files.items()
            if file is None or not file.is_file()
        ]

    # RemovedInDjango61Warning: **kwargs takes the deprecated `all` until Django 6.1.
    def find(self, path, find_all=False, **kwargs):
        if kwargs:
            find_all = self._check_deprecated_find_param(find_all=find_all, **kwargs)
        file = self.files.get(posixpath.normpath(path.replace("\\", "/")))
        found = [str(file)] if file is not None and file.is_file() else []
        return found if find_all else next(iter(found), None)

    def list(self, ignore_patterns):
        for static_path, file in self.files.items():
            directory, name = posixpath.split(static_path)
            if file is None or utils.matches_patterns(name, ignore_patterns or []):
                continue
            storage = FileSystemStorage(location=file.parent)
            storage.prefix = directory
            yield name, storage
