"""plotly.js from its installed package: found, listed and served as vendor/plotly/plotly.min.js,
and hashed unchanged by production's storage."""

import shutil

import pytest
from django.contrib.staticfiles import finders
from django.test import override_settings

from config.staticfiles import PackageFileFinder, package_file
from config.storage import StaticFilesStorage

PLOTLY = "vendor/plotly/plotly.min.js"


def test_the_package_file_is_found_without_a_copy_in_the_repository():
    installed = package_file("plotly/package_data/plotly.min.js")
    finder = PackageFileFinder()

    assert installed.is_file() and "site-packages" in str(installed)
    assert finder.find(PLOTLY) == str(installed)
    assert finder.find(PLOTLY, find_all=True) == [str(installed)]
    assert finder.find("vendor/plotly/widgetbundle.js") is None
    assert finder.find("js/charts.js", find_all=True) == []
    assert finders.find(PLOTLY) == str(installed)  # as the settings list the finder
    assert finder.check() == []


def test_only_the_named_file_is_listed_under_its_prefix():
    (listed,) = PackageFileFinder().list(None)

    name, storage = listed
    assert (storage.prefix, name) == ("vendor/plotly", "plotly.min.js")
    assert storage.path(name) == str(package_file("plotly/package_data/plotly.min.js"))
    assert list(PackageFileFinder().list(["*.js"])) == []


@override_settings(PACKAGE_STATIC_FILES={"vendor/x/x.js": "no_such_package/x.js"})
def test_a_package_that_is_not_installed_fails_the_system_check():
    finder = PackageFileFinder()

    (error,) = finder.check()
    assert error.id == "config.E001"
    assert "'no_such_package/x.js' is not installed" in error.msg
    assert finder.find("vendor/x/x.js") is None
    assert list(finder.list(None)) == []


@pytest.mark.django_db
@override_settings(WHITENOISE_USE_FINDERS=True)  # as in development, where DEBUG turns it on
def test_whitenoise_serves_it_through_the_finders(client):
    response = client.get(f"/static/{PLOTLY}")

    assert response.status_code == 200
    head = b"".join(response.streaming_content)[:40].decode()
    assert head.startswith("/**\n* plotly.js v")


def test_production_storage_hashes_it_unchanged(tmp_path):
    installed = package_file("plotly/package_data/plotly.min.js")
    (tmp_path / "vendor" / "plotly").mkdir(parents=True)
    shutil.copy(installed, tmp_path / PLOTLY)
    storage = StaticFilesStorage(location=tmp_path, base_url="/static/")

    for _name, _hashed, processed in storage.post_process({PLOTLY: (storage, PLOTLY)}):
        assert not isinstance(processed, Exception), processed

    hashed = tmp_path / storage.stored_name(PLOTLY)
    assert hashed.name != "plotly.min.js"
    assert hashed.read_bytes() == installed.read_bytes()
