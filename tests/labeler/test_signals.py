"""A new password, an unusable one or a deactivation revokes the user's API tokens; other
saves of the user keep them."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.test import Client
from rest_framework.authtoken.models import Token

from tests.labeler.factories import TEST_PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def user():
    user = UserFactory(username="ann")
    Token.objects.create(user=user)
    return get_user_model().objects.get(pk=user.pk)


def has_token(user) -> bool:
    return Token.objects.filter(user=user).exists()


def test_a_new_password_revokes_the_token(user):
    user.set_password("a-new-password-123")
    user.save()

    assert not has_token(user)


def test_an_unusable_password_revokes_the_token(user):
    user.set_unusable_password()
    user.save()

    assert not has_token(user)


def test_a_deactivation_revokes_the_token(user):
    user.is_active = False
    user.save(update_fields=["is_active"])

    assert not has_token(user)


def test_other_changes_keep_the_token(user):
    user.email = "ann@example.com"
    user.is_staff = True
    user.save()
    user.is_active = True
    user.save()

    assert has_token(user)


def test_signing_in_keeps_the_token(user):
    response = Client().post("/accounts/login/", {"username": "ann", "password": TEST_PASSWORD})

    assert response.status_code == 302
    assert has_token(user)


def test_a_rehash_of_the_same_password_on_sign_in_keeps_the_token(settings, user):
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
        "django.contrib.auth.hashers.MD5PasswordHasher",
    ]
    get_user_model().objects.filter(pk=user.pk).update(
        password=make_password(TEST_PASSWORD, hasher="md5")
    )

    response = Client().post("/accounts/login/", {"username": "ann", "password": TEST_PASSWORD})

    assert response.status_code == 302
    assert get_user_model().objects.get(pk=user.pk).password.startswith("pbkdf2_sha256$")
    assert has_token(user)


def test_the_admin_password_form_revokes_the_token(admin_client, user):
    response = admin_client.post(
        f"/admin/auth/user/{user.pk}/password/",
        {"password1": "a-new-password-123", "password2": "a-new-password-123"},
    )

    assert response.status_code == 302
    assert not has_token(user)


def test_the_admin_deactivating_a_user_revokes_the_token(admin_client, user):
    # The change form as the admin sends it with "active" unticked (an unticked box is left out).
    data = {
        "username": "ann",
        "email": user.email,
        "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
        "date_joined_1": user.date_joined.strftime("%H:%M:%S"),
    }

    response = admin_client.post(f"/admin/auth/user/{user.pk}/change/", data)

    assert response.status_code == 302
    assert not get_user_model().objects.get(pk=user.pk).is_active
    assert not has_token(user)
