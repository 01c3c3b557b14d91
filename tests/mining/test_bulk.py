import pytest

from mining import bulk
from mining.models import Commit, PullRequest
from tests.mining import factories

pytestmark = pytest.mark.django_db


def rows(repository, *shas, message="m"):
    return [{"repository_id": repository.pk, "sha": sha, "message": message} for sha in shas]


def test_upsert_inserts_then_updates_and_tells_which_rows_are_new():
    repository = factories.RepositoryFactory()
    first = bulk.upsert(
        Commit, rows(repository, "a", "b"), unique=["repository_id", "sha"], update=["message"]
    )
    assert {key[1]: created for key, (_, created) in first.items()} == {"a": True, "b": True}
    second = bulk.upsert(
        Commit,
        rows(repository, "b", "c", message="new"),
        unique=["repository_id", "sha"],
        update=["message"],
    )
    assert {key[1]: created for key, (_, created) in second.items()} == {"b": False, "c": True}
    assert second[(repository.pk, "b")][0] == first[(repository.pk, "b")][0]
    assert dict(Commit.objects.values_list("sha", "message")) == {"a": "m", "b": "new", "c": "new"}
    # Fields a row leaves out: the model default in new rows (NOT NULL columns need one).
    assert Commit.objects.get(sha="c").files == [] and not Commit.objects.get(sha="c").files_fetched


def test_upsert_without_updates_keeps_existing_rows_and_returns_their_ids():
    repository = factories.RepositoryFactory()
    pr = factories.PullRequestFactory(repository=repository, number=5, title="Faster conv")
    keys = bulk.upsert(
        PullRequest,
        [{"repository_id": repository.pk, "number": n} for n in (5, 6)],
        unique=["repository_id", "number"],
        update=[],
    )
    assert keys[(repository.pk, 5)] == (pr.pk, False)
    assert keys[(repository.pk, 6)][1] is True
    assert PullRequest.objects.get(number=5).title == "Faster conv"
