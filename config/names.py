"""The known name a mistyped one most likely means, for errors that say "did you mean …?".
It imports nothing of Django (though its package, `config`, loads the Celery app)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest_name(name: str, known: Iterable[str]) -> str | None:
    """The known name `name` most likely misspells or abbreviates, if any is close."""
    known = sorted(known)
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if close:
        return close[0]
    return next((k for k in known if k.startswith(name) or name.startswith(k)), None)
