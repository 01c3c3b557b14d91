"""A study's codebook migration, and a board's freeze, meeting other requests at once, on
real PostgreSQL: each request in a thread of its own, with its own connection."""

import threading
import time

import pytest
from django.db import connection, transaction

from labeler.coding.board.themes import theme_create
from labeler.common.permissions import study_get_for_user
from labeler.common.scheme import _FROZEN_SCHEMES, study_scheme
from labeler.labelling import api as labelling_api
from labeler.models import AnnotationVersion, Board, CodebookMigration, Study
from labeler.revisions import services as revision_services
from labeler.revisions.services import study_revise
from taxonomy.models import Codebook
from taxonomy.services import codebook_freeze
from tests.labeler.board_factories import BoardFactory, OpenStudyFactory, open_study_with_items
from tests.labeler.calls import client_for
from tests.labeler.factories import StudyItemFactory, StudyMemberFactory

pytestmark = pytest.mark.django_db(transaction=True)

PATH = "/api/studies/perf/codebook-migration/2.0/"
NEXT = "/api/studies/perf/next/"


def lock_waiters() -> int:
    """How many other connections wait for a lock right now."""
    with connection.cursor() as cursor:
        # The activity view is read once per transaction unless asked again.
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


def wait_until(condition, what: str) -> None:
    for _ in range(1000):
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting until {what}")


def in_threads(*calls):
    """Run each call in a thread of its own (its own connection); their results in order."""
    results: list = [None] * len(calls)

    def run(index, call):
        try:
            results[index] = call()
        except Exception as error:  # reported to the main thread, which fails the test
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=item) for item in enumerate(calls)]
    for thread in threads:
        thread.start()
    return threads, results


def rows_locked(rows):
    """A lock for meet_at_lock: the rows, locked for update."""
    return lambda: list(rows.select_for_update())


def meet_at_lock(lock, *calls) -> list:
    """Run the calls in threads while `lock()` holds its lock, let them go once every call
    waits for a lock (so that they meet there for sure), and return their results in order."""
    with transaction.atomic():
        lock()
        threads, results = in_threads(*calls)
        wait_until(lambda: lock_waiters() >= len(calls), "every call waits for the lock")
    for thread in threads:
        thread.join(timeout=60)
    return results


def test_two_migrations_posted_at_once_one_migrates_the_other_is_told_why(labelled_with_v2, lead):
    clients = [client_for(lead), client_for(lead)]
    # Both requests reach the study's lock while it is held, so they meet there for sure.
    responses = meet_at_lock(
        rows_locked(Study.objects.filter(pk=labelled_with_v2.pk)),
        *(lambda c=c: c.post(PATH) for c in clients),
    )

    statuses = sorted(response.status_code for response in responses)
    assert statuses == [201, 400], [getattr(r, "content", r) for r in responses]
    refused = next(response for response in responses if response.status_code == 400)
    assert "the study is on perf v2.0 already" in refused.json()["message"]
    # One migration, written once.
    assert CodebookMigration.objects.count() == 1
    record = CodebookMigration.objects.get()
    assert AnnotationVersion.objects.filter(migration=record).count() == (
        AnnotationVersion.objects.exclude(migration=None).count()
    )
    assert Study.objects.get(pk=labelled_with_v2.pk).codebook.version == "2.0"


def test_next_answers_a_re_label_item_with_the_new_versions_dimensions(
    labelled_with_v2, annotator, lead, monkeypatch
):
    """`next` read the study, a migration committed, and then `next` handed out the item the
    migration flagged for re-labelling: its dimensions must be the new version's, though the
    process still holds the old version's scheme (as every other server process does: only
    the one that migrated forgets it)."""
    codebook_freeze(codebook=labelled_with_v2.codebook)
    old_scheme = study_scheme(
        study=Study.objects.select_related("codebook").get(pk=labelled_with_v2.pk)
    )
    study_read, migrated = threading.Event(), threading.Event()

    def study_read_then_wait(**kwargs):
        found = study_get_for_user(**kwargs)
        study_read.set()
        assert migrated.wait(timeout=60)
        return found

    monkeypatch.setattr(labelling_api, "study_get_for_user", study_read_then_wait)
    threads, responses = in_threads(lambda: client_for(annotator).post(NEXT))
    assert study_read.wait(timeout=60)
    study_revise(
        study=labelled_with_v2, codebook=Codebook.objects.get(key="perf", version="2.0"), user=lead
    )
    _FROZEN_SCHEMES[labelled_with_v2.pk] = old_scheme
    migrated.set()
    threads[0].join(timeout=60)

    response = responses[0]
    assert response.status_code == 200, getattr(response, "content", response)
    body = response.json()
    assert set(body["relabel"]) == {"root-cause"}
    root_cause = next(d for d in body["dimensions"] if d["key"] == "root-cause")
    paths = {category["path"] for category in root_cause["categories"]}
    assert "memory/overuse" in paths and "threading/race" in paths
    assert "memory/bloat" not in paths


def test_two_freezes_of_one_board_at_once_one_freezes_the_other_is_told_why(make_user):
    lead = make_user(username="lead-a")
    study, board = open_study_with_items(members=[(lead, "lead")])
    for key in study.codebook.dimensions.values_list("key", flat=True):
        theme_create(board=board, dimension_key=key, name="Loops", user=lead)

    def freeze(version):
        return client_for(lead).post(
            f"/api/studies/{study.slug}/board/freeze/",
            {"key": "open-perf", "version": version, "name": "P", "leave_out_ungrouped": True},
            format="json",
        )

    responses = meet_at_lock(
        rows_locked(Board.objects.filter(pk=board.pk)), lambda: freeze("1"), lambda: freeze("2")
    )

    statuses = sorted(response.status_code for response in responses)
    assert statuses == [200, 409], [getattr(r, "content", r) for r in responses]
    refused = next(response for response in responses if response.status_code == 409)
    assert "the board was frozen into codebook open-perf v" in refused.json()["message"]
    assert Codebook.objects.filter(key="open-perf").count() == 1


def test_next_that_waited_for_a_migration_hands_out_a_new_item_in_the_new_version(
    labelled_with_v2, make_user, lead, monkeypatch
):
    """`next` asked while a migration held the study's items: it waited for them, and the
    item it then handed out is labelled in the version the migration moved the study to."""
    newcomer = make_user(username="ann3")
    StudyMemberFactory(study=labelled_with_v2, user=newcomer, role="annotator")
    StudyItemFactory(study=labelled_with_v2, position=10)
    codebook_freeze(codebook=labelled_with_v2.codebook)
    _FROZEN_SCHEMES[labelled_with_v2.pk] = study_scheme(
        study=Study.objects.select_related("codebook").get(pk=labelled_with_v2.pk)
    )
    # As in every server process but the one that migrated: the old scheme stays loaded.
    monkeypatch.setattr(revision_services, "scheme_forget", lambda **kwargs: None)
    locked, go = threading.Event(), threading.Event()
    plan = revision_services.study_revision_plan

    def plan_once_the_items_are_locked(**kwargs):
        locked.set()
        assert go.wait(timeout=60)
        return plan(**kwargs)

    monkeypatch.setattr(revision_services, "study_revision_plan", plan_once_the_items_are_locked)
    target = Codebook.objects.get(key="perf", version="2.0")
    migrating, _ = in_threads(
        lambda: study_revise(study=labelled_with_v2, codebook=target, user=lead)
    )
    assert locked.wait(timeout=60)
    asking, responses = in_threads(lambda: client_for(newcomer).post(NEXT))
    wait_until(lambda: lock_waiters() >= 1, "next waits for the migration's locks")
    go.set()
    for thread in (*migrating, *asking):
        thread.join(timeout=60)

    assert Study.objects.get(pk=labelled_with_v2.pk).codebook_id == target.pk
    response = responses[0]
    assert response.status_code == 200, getattr(response, "content", response)
    root_cause = next(d for d in response.json()["dimensions"] if d["key"] == "root-cause")
    assert "memory/overuse" in {category["path"] for category in root_cause["categories"]}


def test_two_boards_freezing_into_one_new_key_at_once(make_user):
    """Both check that the key and version are free, then write: the second must see the
    first's version (it answered 500 on the unique key and version)."""
    lead = make_user(username="lead-a")
    boards = []
    for slug in ("round-a", "round-b"):
        study = OpenStudyFactory(slug=slug)
        StudyMemberFactory(study=study, user=lead, role="lead")
        board = BoardFactory(study=study)
        for key in study.codebook.dimensions.values_list("key", flat=True):
            theme_create(board=board, dimension_key=key, name="Loops", user=lead)
        boards.append(board)

    def freeze(slug):
        return client_for(lead).post(
            f"/api/studies/{slug}/board/freeze/",
            {"key": "shared", "version": "1", "name": "P", "leave_out_ungrouped": True},
            format="json",
        )

    def key_locked():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext('codebook:shared'))")

    responses = meet_at_lock(key_locked, lambda: freeze("round-a"), lambda: freeze("round-b"))

    statuses = sorted(response.status_code for response in responses)
    assert statuses == [200, 400], [getattr(r, "content", r) for r in responses]
    refused = next(response for response in responses if response.status_code == 400)
    assert refused.json()["fields"]["version"] == [
        "codebook shared v1 exists already: pick a new version"
    ]
    assert Codebook.objects.filter(key="shared").count() == 1
    assert Board.objects.filter(frozen_into__isnull=False).count() == 1
