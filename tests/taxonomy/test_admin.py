"""Codebooks in the admin: readable, never edited there (files are the source)."""

import pytest

from taxonomy.models import Category, Codebook
from taxonomy.services import codebook_freeze

pytestmark = pytest.mark.django_db


def test_admin_pages_show_codebooks_dimensions_and_categories(client, admin_user, codebook):
    client.force_login(admin_user)
    category = Category.objects.get(key="memory")

    for url in (
        "/admin/taxonomy/codebook/",
        f"/admin/taxonomy/codebook/{codebook.pk}/change/",
        "/admin/taxonomy/dimension/",
        "/admin/taxonomy/category/",
        f"/admin/taxonomy/category/{category.pk}/change/",
    ):
        assert client.get(url).status_code == 200, url


def test_admin_cannot_change_a_category(client, admin_user, codebook):
    client.force_login(admin_user)
    category = Category.objects.get(key="memory")

    response = client.post(
        f"/admin/taxonomy/category/{category.pk}/change/", {"name": "Edited in the admin"}
    )

    assert response.status_code == 403
    category.refresh_from_db()
    assert category.name == "Memory"


def test_codebooks_cannot_be_deleted_in_the_admin(client, admin_user, codebook):
    client.force_login(admin_user)
    codebook_freeze(codebook=codebook)

    response = client.post(f"/admin/taxonomy/codebook/{codebook.pk}/delete/", {"post": "yes"})

    assert response.status_code == 403
    assert Codebook.objects.filter(pk=codebook.pk).exists()
