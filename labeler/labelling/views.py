"""The labelling page: a shell with the study's scheme and the API's addresses;
static/js/label.js drives it through the study API."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from labeler.common.permissions import study_get_for_user
from labeler.common.scheme import CODE_MAX, CODES_PER_DIMENSION, NOTE_MAX, study_scheme
from labeler.common.views import url_template
from labeler.models import SkipReason, Study

# The label page's shortcuts, shown in its help overlay and on the study page.
SHORTCUTS = [
    (
        "1 to 9",
        "choose the Nth option of the focused dimension; choosing never moves the focus",
    ),
    (
        "01 to 99",
        "in a list of more than 9 options every option has two digits, as shown beside it: "
        "0 then 7 chooses the 7th, 1 then 2 the 12th",
    ),
    ("the chosen option's number", "un-choose it (Space on a chosen option too)"),
    ("Delete", "clear every choice of the focused dimension"),
    (
        "Tab / Shift+Tab",
        "next / previous dimension; after the last one, the note, then Unsure and Submit "
        "(never back to the first dimension); Shift+Tab in the note comes back",
    ),
    ("↑ ↓", "move the highlight; Space chooses the highlighted option"),
    ("→", "open the highlighted option's sub-categories without choosing it"),
    ("Backspace / Esc", "back up to the parent category"),
    ("Shift+↓ / Shift+↑", "scroll a long definition"),
    ("u", "mark as unsure (or not)"),
    ("n", "write a note; Ctrl+Enter submits from the note, Esc leaves it"),
    ("Enter", "submit the labels"),
    ("s", "skip the item, then 1 to 3 picks the reason"),
    ("p", "reopen your previous submission to revise it"),
    ("h", "this item's history (your versions) in a new tab"),
    ("l", "look again for an item, when others hold the last ones"),
    ("?", "show or hide these shortcuts"),
]
# An open-coding study's own: its codes, written from the keyboard, and the note is a memo.
CODE_SHORTCUTS = [
    (
        "c",
        "write a code for the focused dimension; the codes in use are offered as you type",
    ),
    ("Enter in a code", "add it (or the highlighted code offered)"),
    ("↑ ↓ in a code", "highlight one of the codes offered"),
    ("Backspace in an empty code", "remove the dimension's last code"),
    ("Tab / Shift+Tab in a code", "the next / previous dimension's code; after the last, the memo"),
    ("Esc in a code", "close the codes offered, then leave the code"),
    ("Ctrl+Enter in a code", "submit (a code still typed is added)"),
]
MEMO = "n", "write a memo; Ctrl+Enter submits from the memo, Esc leaves it"


def study_shortcuts(study: Study) -> list[tuple[str, str]]:
    """The label page's shortcuts for the study: an open-coding study's codes come after the
    choices of a dimension, and its note is a memo."""
    if study.kind != Study.Kind.OPEN:
        return SHORTCUTS
    shortcuts: list[tuple[str, str]] = []
    for keys, what in SHORTCUTS:
        shortcuts.append(MEMO if keys == "n" else (keys, what))
        if keys == "Delete":
            shortcuts.extend(CODE_SHORTCUTS)
    return shortcuts


def _category_json(category, parents: dict[int, str]) -> dict:
    return {
        "path": category.path,
        "key": category.key,
        "name": category.name,
        "parent": parents.get(category.parent_id),
        "definition": category.definition,
        "include": category.include,
        "exclude": category.exclude,
        "examples": list(category.examples or []),
    }


@require_GET
def study_label(request, slug: str):
    study, access = study_get_for_user(user=request.user, slug=slug)
    if not access.can_label:
        raise PermissionDenied("only the study's annotators label its items")
    scheme = study_scheme(study=study)
    dimensions = []
    for dimension in scheme.dimensions:
        categories = scheme.categories[dimension.pk]
        parents = {category.pk: category.path for category in categories}
        dimensions.append(
            {
                "key": dimension.key,
                "name": dimension.name,
                "help": dimension.help_text,
                "multiple": dimension.multiple,
                "required": dimension.required,
                "leafOnly": dimension.leaf_only,
                "categories": [_category_json(c, parents) for c in categories],
            }
        )
    config = {
        "study": {"slug": study.slug, "name": study.name},
        "dimensions": dimensions,
        "skipReasons": [{"value": value, "label": label} for value, label in SkipReason.choices],
        "urls": {
            "next": reverse("study-next", kwargs={"slug": study.slug}),
            "progress": reverse("study-progress", kwargs={"slug": study.slug}),
            "previous": reverse("study-previous", kwargs={"slug": study.slug}),
            "assignment": url_template("assignment-detail"),
            "submit": url_template("assignment-submit"),
            "skip": url_template("assignment-skip"),
            "report": url_template("studies:item-report", study.slug),
            "history": url_template("studies:item-history", study.slug),
            "codes": reverse("study-codes", kwargs={"slug": study.slug}),
        },
        "me": request.user.get_username(),
        "noteMax": NOTE_MAX,
        "open": study.kind == Study.Kind.OPEN,
        "codeMax": CODE_MAX,
        "codesPerDimension": CODES_PER_DIMENSION,
    }
    return render(
        request,
        "labeler/label.html",
        {"study": study, "config": config, "shortcuts": study_shortcuts(study)},
    )
