"""Shared fixtures: users with roles, API clients, and a real headless Chromium."""

import os
import shutil

import pytest
from django.test import Client
from rest_framework.test import APIClient

from labeler.common.roles import Role, user_grant_role
from tests.fakegithub.fixtures import fake_github  # noqa: F401 (fixture)
from tests.labeler.factories import TEST_PASSWORD, UserFactory

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture
def make_user(db):
    def make(role: Role | None = None, **fields):
        user = UserFactory(**fields)
        if role is not None:
            user_grant_role(user=user, role=role)
        return user

    return make


@pytest.fixture
def annotator(make_user):
    return make_user(Role.ANNOTATOR, username="ann")


@pytest.fixture
def lead(make_user):
    return make_user(Role.LEAD, username="lead")


@pytest.fixture
def researcher(make_user):
    return make_user(Role.RESEARCHER, username="res")


@pytest.fixture
def lead_client(lead):
    """A Django test client signed in as `lead`."""
    client = Client()
    client.force_login(lead)
    return client


@pytest.fixture
def admin_user(make_user):
    return make_user(Role.ADMIN, username="admin")


@pytest.fixture
def api_client():
    return APIClient()


@pytest.fixture
def api_as(api_client):
    def login(user):
        api_client.force_authenticate(user=user)
        return api_client

    return login


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop on this thread; the ORM calls the tests make
    # alongside it are still synchronous.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"Chromium not found at {CHROMIUM}: run `make test`, which installs it")
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield instance
        instance.close()


# What a step may take on a loaded two-core machine (parsing plotly.js alone takes seconds
# there), for actions and for `expect` alike: Playwright's `expect` waits only 5 s unless told.
BROWSER_TIMEOUT_MS = 10_000


def _new_page(browser, base_url):
    """A page in a browser context of its own (its own cookies), waiting as long as a loaded
    machine needs."""
    from playwright.sync_api import expect

    expect.set_options(timeout=BROWSER_TIMEOUT_MS)
    context = browser.new_context(base_url=base_url)
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    return context.new_page()


def _sign_in(page, user, password=TEST_PASSWORD):
    page.goto("/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_selector("[data-testid=username]")
    return page


@pytest.fixture
def page(browser, live_server):
    page = _new_page(browser, live_server.url)
    yield page
    page.context.close()


@pytest.fixture
def sign_in(page):
    def do(user, password=TEST_PASSWORD):
        return _sign_in(page, user, password)

    return do


@pytest.fixture
def page_as(browser, live_server):
    """For people working side by side: `page_as(user)` opens a page in a browser context of
    the user's own, signed in as them."""
    contexts = []

    def open_page(user, password=TEST_PASSWORD):
        page = _new_page(browser, live_server.url)
        contexts.append(page.context)
        return _sign_in(page, user, password)

    yield open_page
    for context in contexts:
        context.close()
