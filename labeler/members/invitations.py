"""Invitation tokens: made at random, given once, kept only as their SHA-256."""

import hashlib
import secrets

TOKEN_BYTES = 32


def invitation_token_new() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def invitation_token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
