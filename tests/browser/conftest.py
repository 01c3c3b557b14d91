"""What the browser tests share: the pages (offline, wide) and the studies they open."""

import io
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command

from taxonomy.models import Codebook
from tests.labeler.factories import StudyFactory, StudyItemFactory, StudyMemberFactory


@pytest.fixture
def offline(page, live_server):
    """Fail any request that leaves the app's own server (a CDN, a font, a map tile)."""
    server = urlsplit(live_server.url).netloc
    outside = []

    def only_local(route):
        if urlsplit(route.request.url).netloc in (server, ""):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    assert outside == [], outside
    assert errors == [], errors


@pytest.fixture
def wide(page):
    """The page at 1400x900, a desktop's window."""
    page.set_viewport_size({"width": 1400, "height": 900})
    return page


@pytest.fixture
def make_study(annotator):
    """Makes a study of `reports` (its items, in that order) that `annotator` labels, and
    `lead` leads when given: made by `factory` with `fields`, labelling the `dimensions` of its
    codebook, or every dimension of the built-in codebook `builtin` (loaded)."""

    def make(reports, *, factory=StudyFactory, builtin=None, dimensions=None, lead=None, **fields):
        if builtin:
            call_command("load_codebook", "--builtin", builtin, stdout=io.StringIO())
            fields["codebook"] = Codebook.objects.get(key=builtin)
            dimensions = fields["codebook"].dimensions.all()
        study = factory(**fields)
        if dimensions is not None:
            study.dimensions.set(dimensions)
        for position, report in enumerate(reports):
            StudyItemFactory(study=study, report=report, position=position)
        StudyMemberFactory(study=study, user=annotator, role="annotator")
        if lead is not None:
            StudyMemberFactory(study=study, user=lead, role="lead")
        return study

    return make


@pytest.fixture
def add_second_annotator(make_user):
    """`add_second_annotator(study)`: a second annotator ("ann2") of `study`."""

    def add(study):
        user = make_user(username="ann2")
        StudyMemberFactory(study=study, user=user, role="annotator")
        return user

    return add
