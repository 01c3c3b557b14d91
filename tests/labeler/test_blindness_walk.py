"""Blindness by person, tested by construction: every route of the URL conf (pages, API,
admin, downloads), with every method it answers, for every kind of person, with another
annotator's secret label, note and open-coding code planted on items that are not final. The
secret must appear in no response. A route is filled from the planted data by the names of
its parameters, and a parameter the walk cannot fill fails it: a new route is walked the day
it is added."""

import copy
import functools
import re
from dataclasses import dataclass, field
from urllib.parse import urlencode

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, path, resolve
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from rest_framework.authtoken.models import Token

from config import urls as config_urls
from labeler.common.roles import Role
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.members.services import study_invitation_create
from labeler.models import (
    Annotation,
    AnnotationVersion,
    Assignment,
    Board,
    BoardEvent,
    Code,
    CodebookMigration,
    CodeUse,
    FinalLabel,
    FinalLabelEvent,
    LabelImport,
    LabelImportJob,
    Study,
    StudyBatch,
    StudyItem,
    StudyMember,
    StudyMemberRemoval,
    Theme,
    TriageRun,
)
from taxonomy.models import Category, Codebook
from tests.labeler.board_factories import ThemeFactory
from tests.labeler.factories import (
    LabellingStudyFactory,
    OpenStudyFactory,
    StudyItemFactory,
    StudyMemberFactory,
    labelling_codebook,
)
from tests.mining.factories import ImportJobFactory
from tests.taxonomy.factories import CategoryFactory
from tests.urlconf import methods_of, url_patterns

pytestmark = pytest.mark.django_db

SECRET_NOTE = "secret-note-of-the-other-annotator"
SECRET_CODE = "secret-code-of-the-other-annotator"
SECRET_OPEN_NOTE = "secret-open-note-of-the-other-annotator"
# A screening model's score of the planted item and its top word: no annotator (whoever labels
# in the study) and no outsider ever reads a score, a rank or a model's guess.
SECRET_SCORE = 0.987654
SECRET_WORD = "secret-word-of-the-model"
# A category of the codebook, so every scheme lists it: it leaks when a response names it more
# often with the other annotator's label on it than with their label changed to another.
SECRET_CATEGORY = "zq-secret-cause"
# The other annotator's note on a final item the person did not label: an annotator never sees
# it (they see the final labels of their own items only); leads, researchers and staff may.
FINAL_NOTE = "final-note-on-an-item-the-annotator-did-not-label"
FINAL_CATEGORY = "zq-final-cause"
FINAL_NOTE_HIDDEN_FROM = {"annotator", "another-studys-lead", "anonymous"}
OWN_LABELS = {"root-cause": "memory/leak", "impact": ["speed"]}
SECRET_LABELS = {"root-cause": SECRET_CATEGORY, "impact": ["memory-use"]}

PERSONS = [
    "annotator",
    "annotator-and-lead",
    "annotator-and-researcher",
    "annotator-and-staff",
    "superuser-who-annotates",
    "another-studys-lead",
    "anonymous",
]
# Who annotates in the planted studies, with which other role in them.
STUDY_ROLES = {
    "annotator": ("annotator",),
    "annotator-and-lead": ("annotator", "lead"),
    "annotator-and-researcher": ("annotator", "researcher"),
    "annotator-and-staff": ("annotator",),
    "superuser-who-annotates": ("annotator",),
    "another-studys-lead": (),
    "anonymous": (),
    "researcher": ("researcher",),
}
SITE_ROLES = {
    "annotator": Role.ANNOTATOR,
    "annotator-and-lead": Role.LEAD,
    "annotator-and-researcher": Role.RESEARCHER,
    "annotator-and-staff": Role.ANNOTATOR,
    "superuser-who-annotates": Role.ADMIN,
    "another-studys-lead": Role.LEAD,
    "researcher": Role.RESEARCHER,
}

BODY_METHODS = ("post", "put", "patch")


@dataclass
class Target:
    """One planted study: the values its routes' parameters take."""

    study: Study
    item: StudyItem
    assignment: Assignment
    annotation: Annotation | None
    objects: dict = field(default_factory=dict)


@dataclass
class Planted:
    person: object
    other: object
    targets: list[Target]


def plant(make_user, person_kind: str) -> Planted:
    """Two studies, each with an item the person labelled and the other annotator labelled
    differently (so it is not final): a closed study (secret label and note) and an open-coding
    one (secret code and note)."""
    other = make_user(Role.ANNOTATOR, username="other-annotator")
    person = None
    if person_kind != "anonymous":
        person = make_user(SITE_ROLES[person_kind], username="person")
        if person_kind == "annotator-and-staff":
            person.is_staff = True
            person.save(update_fields=["is_staff"])

    codebook = labelling_codebook(key="walk-codebook")
    for key in (SECRET_CATEGORY, FINAL_CATEGORY):
        CategoryFactory(dimension=codebook.dimensions.get(key="root-cause"), key=key, parent=None)
    closed = LabellingStudyFactory(slug="closed", overlap=2, codebook=codebook)
    labelling_codebook(key="walk-codebook", version="2.0")
    opened = OpenStudyFactory(slug="opened", overlap=2)
    theirs = LabellingStudyFactory(slug="theirs", overlap=2)
    if person_kind == "another-studys-lead":
        StudyMemberFactory(study=theirs, user=person, role="lead")

    targets = []
    for study in (closed, opened):
        item = StudyItemFactory(study=study, position=0)
        StudyMemberFactory(study=study, user=other, role="annotator")
        for role in STUDY_ROLES[person_kind]:
            StudyMemberFactory(study=study, user=person, role=role)
        is_open = study.kind == Study.Kind.OPEN
        held = assignment_next(study=study, user=other)
        assignment_submit(
            assignment_id=held.pk,
            user=other,
            labels={} if is_open else SECRET_LABELS,
            codes={"root-cause": [SECRET_CODE], "symptom": ["slow"]} if is_open else None,
            note=SECRET_OPEN_NOTE if is_open else SECRET_NOTE,
        )
        if "annotator" in STUDY_ROLES[person_kind]:
            own = assignment_next(study=study, user=person)
            assignment_submit(
                assignment_id=own.pk,
                user=person,
                labels={} if is_open else OWN_LABELS,
                codes={"root-cause": ["my own code"], "symptom": ["fast"]} if is_open else None,
                note="my own note",
            )
        item.refresh_from_db()
        assert item.adjudicated_at is None, "the planted item must not be final"
        target = Target(
            study=study,
            item=item,
            assignment=Assignment.objects.get(pk=held.pk),
            annotation=Annotation.objects.filter(assignment=held).first(),
        )
        target.objects = {
            "job": LabelImportJob.objects.create(
                study=study,
                imported_by=other,
                file_name="labels.csv",
                sha256="0" * 64,
                data=b"",
                rows=1,
            ),
            "version": AnnotationVersion.objects.get(assignment=held),
        }
        board = Board.objects.filter(study=study).first()
        if board is not None:
            target.objects["board"] = board
            target.objects["code"] = Code.objects.get(board=board, name=SECRET_CODE)
            target.objects["codeuse"] = CodeUse.objects.get(code=target.objects["code"])
            target.objects["theme"] = ThemeFactory(board=board)
        target.objects["import"] = ImportJobFactory(repository=item.report.repository)
        target.objects["triage_run"] = TriageRun.objects.create(
            study=study,
            dimension="root-cause",
            positive="memory",
            keyword_rule="any",
            state=TriageRun.State.DONE,
            result={"model": {"top_words": {"positive": [{"word": SECRET_WORD}]}}},
            scores=[[item.report.pk, SECRET_SCORE]],
        )
        invitation, link, _ = study_invitation_create(
            study=study, role="annotator", link_for=lambda token: token
        )
        target.objects["invitation"], target.objects["invitation_token"] = invitation, link
        targets.append(target)
    Token.objects.create(user=other)
    final, assignment = plant_the_rest(closed=closed, opened=opened, other=other)
    closed_target = targets[0]
    objects = {
        **closed_target.objects,
        "version": AnnotationVersion.objects.get(assignment=assignment),
    }
    targets.append(
        Target(
            study=closed,
            item=final,
            assignment=assignment,
            annotation=Annotation.objects.filter(assignment=assignment).first(),
            objects=objects,
        )
    )
    return Planted(person=person, other=other, targets=targets)


def plant_the_rest(*, closed: Study, opened: Study, other) -> tuple[StudyItem, Assignment]:
    """A row of every labeler model the admin shows, so that each admin page has one to open:
    a batch, an import, a migration, a board event, and a final item with its final labels,
    labelled by the other annotator alone (returned with their assignment)."""
    now = timezone.now()
    StudyBatch.objects.create(
        study=closed, number=1, seed=1, frame_size=2, sample_size=2, created_by=other
    )
    LabelImport.objects.create(
        study=closed,
        imported_by=other,
        file_name="labels.csv",
        sha256="0" * 64,
        rows=1,
        created_at=now,
    )
    CodebookMigration.objects.create(
        study=closed,
        from_codebook=closed.codebook,
        to_codebook=Codebook.objects.get(key=closed.codebook.key, version="2.0"),
        migrated_by=other,
        created_at=now,
    )
    BoardEvent.objects.create(
        board=Board.objects.get(study=opened),
        user=other,
        action="rename",
        description="-",
        created_at=now,
    )
    StudyMemberRemoval.objects.create(study=closed, user=other, role="lead", removed_at=now)
    final = StudyItemFactory(study=closed, position=1, needed=1)
    held = assignment_next(study=closed, user=other)
    assert held.item == final
    labels = {"root-cause": FINAL_CATEGORY, "impact": ["speed"]}
    assignment_submit(assignment_id=held.pk, user=other, labels=labels, note=FINAL_NOTE)
    final.refresh_from_db()
    assert final.adjudicated_at is not None, "the second item must be final"
    return final, Assignment.objects.get(pk=held.pk)


PARAMETER = re.compile(r"<(?:(?P<converter>\w+):)?(?P<name>\w+)>|\(\?P<(?P<group>\w+)>[^)]*\)")


def route_parameters(route: str) -> list[str]:
    return [match["name"] or match["group"] for match in PARAMETER.finditer(route)]


# The collection a `pk` belongs to is the path segment before it.
PK_COLLECTION = re.compile(r"(\w[\w-]*)/(?:\^)?[^/]*\(\?P<pk>|(\w[\w-]*)/<(?:\w+:)?pk>")


def fill(route: str, pattern: URLPattern, name: str, target: Target) -> str | None:
    """The planted value of the route's parameter `name`; None when the walk cannot fill it."""
    study, item = target.study, target.item
    repository = item.report.repository
    codebook = study.codebook
    if name == "pk":
        match = PK_COLLECTION.search(route)
        collection = match and (match[1] or match[2])
        return {
            "items": item.pk,
            "assignments": target.assignment.pk,
            "annotations": target.annotation.pk if target.annotation else target.assignment.pk,
            "codebooks": codebook.pk,
            "reports": item.report.pk,
            "imports": target.objects["import"].pk,
        }.get(collection)
    model_admin = getattr(pattern.callback, "model_admin", None)
    if name == "content_type_id":  # the admin's "view on site" of the secret version
        return ContentType.objects.get_for_model(AnnotationVersion).pk
    if name == "object_id" and model_admin is None:
        return target.objects["version"].pk
    if name in ("object_id", "id") and model_admin is not None:
        model = model_admin.model
        planted = {
            Annotation: target.annotation,
            AnnotationVersion: target.objects["version"],
            Assignment: target.assignment,
            StudyItem: item,
            Study: study,
            LabelImportJob: target.objects["job"],
            Board: target.objects.get("board"),
            Code: target.objects.get("code"),
            CodeUse: target.objects.get("codeuse"),
        }.get(model)
        if planted is None:
            planted = model._default_manager.order_by("pk").first()
        if planted is None and model._meta.app_label != "labeler":
            return 0  # an empty table outside the labeler holds no label
        return None if planted is None else planted.pk
    values = {
        "slug": study.slug,
        "item_id": item.pk,
        "job_id": target.objects["job"].pk,
        "version": "2.0" if study.codebook.key == "walk-codebook" else codebook.version,
        "key": codebook.key,
        "old": codebook.version,
        "new": codebook.version,
        "repository_id": repository.pk,
        "id": None,
        "app_label": "labeler",
        "url": "no-such-page/",
        "path": "no-such-route/",  # the API's catch-all JSON 404
        # The open study's code and theme, for the closed study's board routes too.
        "code_id": Code.objects.get(name=SECRET_CODE).pk,
        "theme_id": Theme.objects.get().pk,
        "run_id": target.objects["triage_run"].pk,
        # The other annotator's membership, and an open invitation to the study with its link.
        "member_id": StudyMember.objects.get(study=study, user=target.assignment.annotator).pk,
        "invitation_id": target.objects["invitation"].pk,
        "token": target.objects["invitation_token"],
    }
    return values.get(name)


def url_of(route: str, values: dict) -> str:
    def value_of(match):
        return str(values[match["name"] or match["group"]])

    path = PARAMETER.sub(value_of, route).replace("^", "").replace("$", "")
    return "/" + path


@dataclass(frozen=True)
class Call:
    route: str
    method: str
    url: str
    query: tuple[tuple[str, str], ...] = ()


@functools.cache
def schema_queries() -> dict[tuple, list[dict]]:
    """(view, method) -> the query parameters the OpenAPI schema gives the operation."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    queries = {}
    for address, operations in schema["paths"].items():
        view = resolve(re.sub(r"\{\w+\}", "1", address)).func
        for method, operation in operations.items():
            parameters = operation.get("parameters", [])
            queries[view, method] = [p for p in parameters if p["in"] == "query"]
    return queries


def query_values(parameter: dict, target: Target, other) -> list[str]:
    """The values a query parameter is tried with: each of a choice's, both of a yes/no, and
    the planted study, item, annotator and dimension; none for a free text the walk does not
    plant (leaving it out is what the walk calls without a query)."""
    schema = parameter["schema"]
    if schema.get("enum"):
        return [str(value) for value in schema["enum"]]
    if schema.get("type") == "boolean":
        return ["true", "false"]
    planted = {
        "study": target.study.slug,
        "item": str(target.item.pk),
        # The adjudication desk's next disagreement after the planted item.
        "after": str(target.item.pk),
        "annotator": other.username,
        "dimension": "root-cause",
        "batch": "1",
    }
    return [planted[parameter["name"]]] if parameter["name"] in planted else []


def calls(planted: Planted) -> tuple[list[Call], list[str]]:
    """Every (route, method, url) to call, and the routes with a parameter the walk cannot
    fill."""
    unfilled, seen, found = [], set(), []
    for walked in url_patterns():
        route, pattern = walked.route, walked.pattern
        names = route_parameters(route)
        for target in planted.targets:
            values = {}
            for name in names:
                values[name] = fill(route, pattern, name, target)
                if name == "id" and values[name] is None:  # an API token: the other annotator's
                    values[name] = planted.other.pk
            missing = [name for name, value in values.items() if value is None]
            if missing:
                unfilled.append(f"{route}: {', '.join(missing)}")
                break
            url = url_of(route, values)
            assert resolve(url).func == pattern.callback, f"{url} does not reach {route}"
            for method in methods_of(pattern):
                queries = [()]
                for parameter in schema_queries().get((pattern.callback, method), []):
                    for value in query_values(parameter, target, planted.other):
                        queries.append(((parameter["name"], value),))
                for query in queries:
                    if (method, url, query) not in seen:
                        seen.add((method, url, query))
                        found.append(Call(route, method, url, query))
    return found, unfilled


def body_of(response) -> str:
    if getattr(response, "streaming", False):
        content = b"".join(response.streaming_content)
    else:
        content = response.content
    return content.decode("utf-8", errors="replace")


def answer(client: Client, call: Call, *, before=None) -> tuple[int, str]:
    """The response to the call, its writes undone. `before` runs first, in the same
    transaction."""
    cookies = copy.deepcopy(client.cookies)  # a sign-out must not sign the walk out
    with transaction.atomic():
        if before is not None:
            before()
        send = getattr(client, call.method)
        url = call.url + ("?" + urlencode(call.query) if call.query else "")
        if call.method in BODY_METHODS:
            response = send(url, data="{}", content_type="application/json")
        else:
            response = send(url)
        text = body_of(response)
        transaction.set_rollback(True)
    client.cookies = cookies
    return response.status_code, text


def labels_made_plain(planted: Planted):
    """The other annotator's secret labels (and the final labels made of them) replaced by
    the person's: the control that tells a scheme listing a secret category from a leak."""
    for target in planted.targets:
        codebook = target.study.codebook
        if codebook.key != "walk-codebook":
            continue
        leak = Category.objects.get(dimension__codebook=codebook, path="memory/leak")
        for rows in (
            Annotation.objects.filter(item=target.item, dimension__key="root-cause"),
            FinalLabel.objects.filter(item=target.item, dimension__key="root-cause"),
        ):
            rows.update(values=["memory/leak"])
            for row in rows:
                row.categories.set([leak])
        FinalLabelEvent.objects.filter(item=target.item, dimension__key="root-cause").update(
            values=["memory/leak"]
        )
        for version in AnnotationVersion.objects.filter(item=target.item):
            version.labels = {**version.labels, "root-cause": ["memory/leak"]}
            version.changes = {}
            version.save(update_fields=["labels", "changes"])


@pytest.mark.parametrize("person_kind", PERSONS)
def test_no_route_shows_another_annotators_secret(make_user, person_kind):
    planted = plant(make_user, person_kind)
    client = Client()
    if planted.person is not None:
        client.force_login(planted.person)
    found, unfilled = calls(planted)
    assert not unfilled, f"routes with a parameter the walk cannot fill: {unfilled}"

    leaks = []
    for call in found:
        status, text = answer(client, call)
        secrets = [s for s in (SECRET_NOTE, SECRET_CODE, SECRET_OPEN_NOTE) if s in text]
        secrets += [s for s in (str(SECRET_SCORE), SECRET_WORD) if s in text]
        if person_kind in FINAL_NOTE_HIDDEN_FROM and FINAL_NOTE in text:
            secrets.append(FINAL_NOTE)
        hidden = [SECRET_CATEGORY]
        if person_kind in FINAL_NOTE_HIDDEN_FROM:
            hidden.append(FINAL_CATEGORY)
        if any(category in text for category in hidden):
            _, control = answer(client, call, before=lambda: labels_made_plain(planted))
            secrets += [
                f"label {category}"
                for category in hidden
                if text.count(category) > control.count(category)
            ]
        if secrets:
            query = "?" + urlencode(call.query) if call.query else ""
            leaks.append(
                f"{call.method.upper()} {call.url}{query} ({status}): {', '.join(secrets)}"
            )
    assert not leaks, f"{person_kind} sees another annotator's secret:\n" + "\n".join(leaks)


# Who is in a study is not who labelled what: the members list names the team.
MEMBERS_LIST = "/members/"


def test_a_researcher_knows_annotators_by_pseudonym_on_every_route(make_user):
    """Researchers (who do not label) read labels, but never whose: no route names the other
    annotator to them but the study's list of members."""
    planted = plant(make_user, "researcher")
    client = Client()
    client.force_login(planted.person)
    found, unfilled = calls(planted)
    assert not unfilled, f"routes with a parameter the walk cannot fill: {unfilled}"

    # The username as a word: the planted secrets end with it ("...-of-the-other-annotator").
    username = re.compile(r"(?<![\w-])" + re.escape(planted.other.username) + r"(?![\w-])")
    named = []
    for call in found:
        if call.url.endswith(MEMBERS_LIST):
            continue
        status, text = answer(client, call)
        if username.search(text):
            query = "?" + urlencode(call.query) if call.query else ""
            named.append(f"{call.method.upper()} {call.url}{query} ({status})")
    assert not named, "a researcher reads the annotator's username:\n" + "\n".join(named)


def mystery(request, mystery_id):
    raise AssertionError("never called: the walk stops at the parameter it cannot fill")


# The project's URL conf and a route whose parameter no planted row fills, as a new route
# would be the day it is added.
urlpatterns = [*config_urls.urlpatterns, path("mystery/<int:mystery_id>/", mystery)]


def test_a_route_the_walk_cannot_fill_fails_it(make_user, settings):
    planted = plant(make_user, "annotator")
    settings.ROOT_URLCONF = __name__

    _, unfilled = calls(planted)

    assert unfilled == ["mystery/<int:mystery_id>/: mystery_id"]
