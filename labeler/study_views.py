"""Pages of studies: list, setup, overview, members, label import, labelling, item history.

Views stay thin: they ask labeler.permissions who may see what (non-members get a 404),
validate input with labeler.forms and call one service or selector. The labelling page is
a shell; static/js/label.js drives it through the study API.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db.models import Count, F, Q
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.text import capfirst
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from labeler.forms import (
    BatchForm,
    LabelsImportForm,
    MemberAddForm,
    StudySetupForm,
    add_service_errors,
)
from labeler.frames import STRATA, FrameQuery
from labeler.labels import study_scheme
from labeler.models import Assignment, SkipReason, StudyItem, StudyMember
from labeler.permissions import study_get_for_user, user_can_create_study
from labeler.sampling import SampleMode, SampleSpec, cochran_figures, sample_warnings
from labeler.selectors import (
    ITEM_STATES,
    assignment_list_visible,
    item_history,
    study_item_state_counts,
    study_items_overview,
    study_list_for_user,
    study_progress,
)
from labeler.services.annotation_import import AnnotationImportError, annotation_import
from labeler.services.studies import (
    new_seed,
    plan_warnings,
    study_create,
    study_items_add,
    study_member_remove,
    study_members_add,
    study_sample_preview,
)
from mining.markdown import render_markdown
from mining.selectors import report_for_reading
from mining.tasks import report_patches_request

# The label page's shortcuts, shown in its help overlay and on the study page.
SHORTCUTS = [
    (
        "1 to 9, 10 …",
        "choose the Nth option of the focused dimension; in a list of more than 9, "
        "type two digits quickly for 10 and up (1 then 2: the 12th)",
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
    ("?", "show or hide these shortcuts"),
]


def _require_lead(access) -> None:
    if not access.can_lead:
        raise PermissionDenied("only the study's leads may do this")


@require_GET
def study_list(request):
    studies = (
        study_list_for_user(user=request.user)
        .annotate(
            item_count=Count("items", distinct=True),
            complete_count=Count(
                "items", filter=Q(items__submitted__gte=F("items__needed")), distinct=True
            ),
        )
        .order_by("name")
    )
    roles: dict[int, list[str]] = {}
    for study_id, role in StudyMember.objects.filter(user=request.user).values_list(
        "study_id", "role"
    ):
        roles.setdefault(study_id, []).append(role)
    rows = [{"study": study, "roles": sorted(roles.get(study.pk, []))} for study in studies]
    return render(
        request,
        "labeler/study_list.html",
        {"rows": rows, "can_create": user_can_create_study(request.user)},
    )


def _cochran(sample: SampleSpec, frame_size: int) -> dict | None:
    """The figures behind a confidence-based size, to show how the sample size came about."""
    if sample.mode is not SampleMode.CONFIDENCE:
        return None
    z, initial, corrected = cochran_figures(
        confidence=sample.confidence, margin=sample.margin, population=frame_size
    )
    return {
        "z": z,
        "confidence": sample.confidence,
        "margin": sample.margin,
        "initial": initial,
        "corrected": corrected,
        "population": frame_size,
    }


def _preview(*, plan, frame: FrameQuery, sample: SampleSpec, in_study: bool = False) -> dict:
    """What the preview step shows before anything is drawn."""
    return {
        "plan": plan,
        "cochran": _cochran(sample, plan.frame_size),
        "stratify": STRATA[sample.stratify].label if sample.stratify else None,
        "keywords": frame.keywords,
        "warnings": plan_warnings(plan=plan, frame=frame, sample=sample, in_study=in_study),
    }


def _drawn_text(batch) -> str:
    """The end of a draw's success message: what it did that was not asked for, if anything."""
    warnings = sample_warnings(SampleSpec.from_dict(batch.sampling), batch.frame_size)
    return "".join(f"; {warning}" for warning in warnings) + "."


def _with_seed(request) -> dict:
    """The posted data, with a fresh seed filled in when none was given."""
    data = request.POST.copy()
    if not data.get("seed", "").strip():
        data["seed"] = str(new_seed())
    return data


@require_http_methods(["GET", "POST"])
def study_new(request):
    if not user_can_create_study(request.user):
        raise PermissionDenied("creating studies takes the lead or researcher role")
    preview = None
    if request.method == "GET":
        form = StudySetupForm()
    else:
        form = StudySetupForm(_with_seed(request))
        form.is_valid()
        # Every problem at once: the frame and sample are checked even when a field is wrong.
        frame, sample = form.frame_query(), form.sample_spec()
        if not form.errors:
            fingerprint = form.fingerprint()
            ready = request.POST.get("action") == "create"
            if ready and form.cleaned_data["previewed"] != fingerprint:
                messages.warning(request, "The settings changed since the preview: check it again.")
                ready = False
            try:
                if ready:
                    return _study_create(request, form, frame, sample)
                plan = study_sample_preview(
                    frame=frame, sample=sample, seed=form.cleaned_data["seed"]
                )
            except ValidationError as error:
                add_service_errors(form, error)
            else:
                preview = _preview(plan=plan, frame=frame, sample=sample)
                form.data["previewed"] = fingerprint
    return render(request, "labeler/study_new.html", {"form": form, "preview": preview})


def _study_create(request, form: StudySetupForm, frame: FrameQuery, sample: SampleSpec):
    data = form.cleaned_data
    study, batch = study_create(
        slug=data["slug"],
        name=data["name"],
        codebook=data["codebook"],
        dimension_keys=form.dimension_keys(),
        frame=frame,
        sample=sample,
        seed=data["seed"],
        overlap=data["overlap"],
        guidelines=data["guidelines"],
        item_order=data["item_order"],
        hold_timeout=form.hold_timeout(),
        created_by=request.user,
    )
    messages.success(
        request,
        f"Study created: {batch.sample_size} items drawn from {batch.frame_size} reports"
        + _drawn_text(batch),
    )
    return redirect("studies:detail", slug=study.slug)


@require_GET
def study_detail(request, slug: str):
    study, access = study_get_for_user(user=request.user, slug=slug)
    progress = study_progress(
        study=study, only_user=None if access.can_view_progress else request.user
    )
    context = {
        "study": study,
        "access": access,
        "progress": progress,
        "mine": next(
            (a for a in progress.per_annotator if a.username == request.user.get_username()),
            None,
        ),
        "dimensions": study.dimensions.order_by("position"),
        "hold_minutes": study.hold_timeout.total_seconds() / 60,
        "batches": study.batches.all(),
        "frame_summary": _frame_summary(study.frame),
        "guidelines_html": render_markdown(study.guidelines),
        "shortcuts": SHORTCUTS,
    }
    if access.can_lead:
        context["skipped"] = (
            assignment_list_visible(user=request.user)
            .filter(study=study, status=Assignment.Status.SKIPPED)
            .order_by("item__position", "annotator__username")
        )
        context["batch_form"] = BatchForm(initial=_batch_initial(study))
    return render(request, "labeler/study_detail.html", context)


def _frame_summary(frame: dict) -> list[tuple[str, str]]:
    """The frame's filters that are set, as (name, value) text."""
    summary = []
    for name, value in frame.items():
        if value in (None, "", []) or (name == "state" and value == "all"):
            continue
        if isinstance(value, bool):
            value = "yes" if value else "no"
        elif isinstance(value, list):
            value = ", ".join(str(v) for v in value)
        summary.append((name.replace("_", " "), str(value)))
    return summary


def _batch_initial(study) -> dict:
    sampling = study.sampling or {}
    return {
        "sample_mode": sampling.get("mode") or SampleMode.ALL.value,
        "sample_size": sampling.get("size"),
        "confidence": sampling.get("confidence") or 0.95,
        "margin": sampling.get("margin") or 0.05,
        "stratify": sampling.get("stratify") or "",
    }


@require_POST
def study_batch_add(request, slug: str):
    study, access = study_get_for_user(user=request.user, slug=slug)
    _require_lead(access)
    form = BatchForm(_with_seed(request))
    preview = None
    form.is_valid()
    sample = form.sample_spec()
    if not form.errors:
        frame = FrameQuery.from_dict(study.frame)
        fingerprint = form.fingerprint()
        ready = request.POST.get("action") == "draw"
        if ready and form.cleaned_data["previewed"] != fingerprint:
            messages.warning(request, "The settings changed since the preview: check it again.")
            ready = False
        try:
            if ready:
                batch = study_items_add(
                    study=study,
                    frame=frame,
                    sample=sample,
                    seed=form.cleaned_data["seed"],
                    created_by=request.user,
                )
                messages.success(
                    request,
                    f"Batch {batch.number} drawn: {batch.sample_size} new items "
                    f"from {batch.frame_size} reports not yet in the study" + _drawn_text(batch),
                )
                return redirect("studies:detail", slug=study.slug)
            plan = study_sample_preview(
                frame=frame, sample=sample, study=study, seed=form.cleaned_data["seed"]
            )
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            preview = _preview(plan=plan, frame=frame, sample=sample, in_study=True)
            form.data["previewed"] = fingerprint
    return render(
        request,
        "labeler/study_batch.html",
        {"study": study, "form": form, "preview": preview},
    )


@require_http_methods(["GET", "POST"])
def study_members(request, slug: str):
    study, access = study_get_for_user(user=request.user, slug=slug)
    _require_lead(access)
    form = MemberAddForm()
    if request.method == "POST":
        if request.POST.get("action") == "remove":
            member_id = request.POST.get("member", "")
            member = get_object_or_404(
                StudyMember, study=study, pk=int(member_id) if member_id.isdigit() else 0
            )
            try:
                study_member_remove(study=study, user=member.user, role=member.role)
            except ValidationError as error:
                messages.error(request, capfirst(" ".join(error.messages)) + ".")
            else:
                messages.success(request, f"{member.user} is no longer {member.role} of the study.")
            return redirect("studies:members", slug=study.slug)
        form = MemberAddForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                study_members_add(
                    study=study,
                    usernames=data["usernames"],
                    role=data["role"],
                    create_users=data["create_users"],
                )
            except ValidationError as error:
                add_service_errors(form, error)
            else:
                messages.success(
                    request, f"{', '.join(data['usernames'])}: now {data['role']} of the study."
                )
                return redirect("studies:members", slug=study.slug)
    members = study.members.select_related("user").order_by("user__username", "role")
    return render(
        request,
        "labeler/study_members.html",
        {"study": study, "members": members, "form": form},
    )


@require_http_methods(["GET", "POST"])
def study_import(request, slug: str):
    """Labels made elsewhere, from a CSV upload: every problem listed by line, or all written."""
    study, access = study_get_for_user(user=request.user, slug=slug)
    _require_lead(access)
    form = LabelsImportForm()
    problems: list[str] = []
    problem_count = 0
    if request.method == "POST":
        form = LabelsImportForm(request.POST, request.FILES)
        if form.is_valid():
            upload = form.cleaned_data["file"]
            try:
                summary = annotation_import(
                    study=study,
                    data=upload.read(),
                    source=upload.name,
                    create_missing_reports=form.cleaned_data["create_missing_reports"],
                )
            except AnnotationImportError as error:
                problems, problem_count = error.problems, error.count
            except ValidationError as error:
                problems = error.messages
                problem_count = len(problems)
            else:
                messages.success(
                    request,
                    f"Imported {summary.submissions} submissions ({summary.rows} rows): "
                    f"{summary.items_added} new items, {summary.users_created} new annotators.",
                )
                return redirect("studies:detail", slug=study.slug)
    return render(
        request,
        "labeler/study_import.html",
        {"study": study, "form": form, "problems": problems, "problem_count": problem_count},
    )


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
            "submit": _url_template("assignment-submit"),
            "skip": _url_template("assignment-skip"),
            "report": _url_template("studies:item-report", study.slug),
            "history": _url_template("studies:item-history", study.slug),
        },
        "me": request.user.get_username(),
    }
    return render(
        request,
        "labeler/label.html",
        {"study": study, "config": config, "shortcuts": SHORTCUTS},
    )


def _url_template(name: str, *args) -> str:
    """The URL with `{id}` where the object's id goes, for the page's script to fill in."""
    head, _, tail = reverse(name, args=[*args, 0]).rpartition("/0/")
    return f"{head}/{{id}}/{tail}"


def _item_for(request, slug: str, item_id: int):
    study, access = study_get_for_user(user=request.user, slug=slug)
    item = get_object_or_404(
        StudyItem.objects.select_related("report__repository"), study=study, pk=item_id
    )
    return study, access, item


ITEMS_PER_PAGE = 100


@require_GET
def study_items(request, slug: str):
    """Every item of the study with its counts, filtered by state, for the study's leads."""
    study, access = study_get_for_user(user=request.user, slug=slug)
    _require_lead(access)
    state = request.GET.get("state") or None
    if state is not None and state not in ITEM_STATES:
        known = ", ".join(ITEM_STATES)
        messages.error(request, f"state {state!r} is not one of {known}; showing every item")
        state = None
    items = study_items_overview(study=study, state=state)
    page = Paginator(items, ITEMS_PER_PAGE).get_page(request.GET.get("page"))
    counts = study_item_state_counts(study=study)
    states = [("", "all", "every item", counts["all"])] + [
        (name, name.replace("-", " "), what, counts[name])
        for name, (what, _) in ITEM_STATES.items()
    ]
    return render(
        request,
        "labeler/study_items.html",
        {
            "study": study,
            "page": page,
            "state": state or "",
            "states": states,
            "query": urlencode({"state": state or ""}),
        },
    )


@require_GET
def item_history_page(request, slug: str, item_id: int):
    study, access, item = _item_for(request, slug, item_id)
    names = _LabelNames(study_scheme(study=study))
    versions = [
        {
            "version": version,
            "labels": names.labels(version.labels),
            "changes": names.changes(version.changes),
        }
        for version in item_history(item=item, user=request.user, access=access)
    ]
    return render(
        request,
        "labeler/item_history.html",
        {"study": study, "access": access, "item": item, "versions": versions},
    )


def _as_text(value) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "(none)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value) if value not in (None, "") else "(empty)"


class _LabelNames:
    """Stored labels (dimension keys, category key paths) as people read them: names, in the
    codebook's order of dimensions, each category with its path."""

    def __init__(self, scheme) -> None:
        self.scheme = scheme
        self.dimensions = {d.key: (position, d) for position, d in enumerate(scheme.dimensions)}

    def _order(self, key: str) -> tuple[int, str]:
        return (self.dimensions.get(key, (len(self.dimensions),))[0], key)

    def _dimension_name(self, key: str) -> str:
        return self.dimensions[key][1].name if key in self.dimensions else key

    def _category_name(self, key: str, path: str) -> str:
        """The category's name; its path when the scheme no longer has it."""
        if key not in self.dimensions:
            return path
        category = self.scheme.by_path(self.dimensions[key][1]).get(path)
        return category.name if category is not None else path

    def _named(self, key: str, paths) -> object:
        if not isinstance(paths, list):
            return paths  # the note or the unsure flag
        return [f"{self._category_name(key, path)} ({path})" for path in paths]

    def labels(self, labels: dict) -> list[tuple[str, list[tuple[str, str]]]]:
        """[(dimension name, [(category name, path)])]."""
        return [
            (
                self._dimension_name(key),
                [(self._category_name(key, path), path) for path in labels[key]],
            )
            for key in sorted(labels, key=self._order)
        ]

    def changes(self, changes: dict) -> list[tuple[str, str, str]]:
        """What a revision changed, as (what, from, to) text."""
        return [
            (
                self._dimension_name(key),
                _as_text(self._named(key, changes[key].get("from"))),
                _as_text(self._named(key, changes[key].get("to"))),
            )
            for key in sorted(changes, key=self._order)
        ]


def _iso(moment) -> str | None:
    return moment.isoformat() if moment else None


def _fix_json(links) -> list[dict]:
    """The report's fixes, one entry per commit or pull request with all its evidence."""
    fixes: dict[str, dict] = {}
    for link in links:
        fix = fixes.get(link.target)
        if fix is None:
            fix = fixes[link.target] = {
                "target": link.target,
                "strength": link.strength,
                "reverted": link.reverted,
                "evidence": [],
                "commit": _commit_json(link.commit) if link.commit else None,
                "pullRequest": _pull_request_json(link.pull_request) if link.pull_request else None,
            }
        fix["evidence"].append(link.get_evidence_display())
        fix["reverted"] = fix["reverted"] or link.reverted
        if link.strength == "strong":
            fix["strength"] = "strong"
    return list(fixes.values())


def _commit_json(commit) -> dict:
    return {
        "sha": commit.sha,
        "message": commit.message,
        "author": commit.author_login or commit.author_name,
        "authoredAt": _iso(commit.authored_at),
        "additions": commit.additions,
        "deletions": commit.deletions,
        "changedFiles": commit.changed_files,
        "url": commit.html_url,
        "files": [
            {
                "filename": f.get("filename", ""),
                "status": f.get("status", ""),
                "additions": f.get("additions"),
                "deletions": f.get("deletions"),
                "patch": f.get("patch") or "",
                "patchTruncated": bool(f.get("patch_truncated")),
            }
            for f in commit.files or []
        ],
    }


def _pull_request_json(pull_request) -> dict:
    """A fixing pull request. One only named by a link and never fetched is a bare row (no
    GitHub id, no title): it claims no state, and links to GitHub by its repository."""
    imported = pull_request.github_id is not None or bool(pull_request.title)
    web_schemes = ("https://", "http://")
    url = pull_request.html_url
    if not url.lower().startswith(web_schemes):
        repository = pull_request.repository
        web = repository.html_url.rstrip("/")
        if not web.lower().startswith(web_schemes):
            web = f"https://github.com/{repository.full_name}"
        url = f"{web}/pull/{pull_request.number}"
    return {
        "number": pull_request.number,
        "imported": imported,
        "title": pull_request.title,
        "state": pull_request.state if imported else None,
        "merged": pull_request.merged,
        "additions": pull_request.additions,
        "deletions": pull_request.deletions,
        "url": url,
    }


@require_GET
def item_report(request, slug: str, item_id: int):
    """The item's report for reading while labelling: Markdown already rendered and sanitized.

    Annotators read only items they were handed; leads and researchers read any item.
    Nothing here carries anyone's labels.
    """
    _study, access, item = _item_for(request, slug, item_id)
    if (
        not access.can_view_progress
        and not item.assignments.filter(annotator=request.user).exists()
    ):
        raise PermissionDenied("this item was not handed to you")
    patches = report_patches_request(report_id=item.report_id)
    report = report_for_reading(item.report_id)
    return JsonResponse(
        {
            "item": item.pk,
            "repository": report.repository.full_name,
            "number": report.number,
            "title": report.title,
            "url": report.html_url,
            "state": report.state,
            "stateReason": report.state_reason,
            "author": report.author_login,
            "labels": list(report.labels or []),
            "milestone": report.milestone,
            "createdAt": _iso(report.created_at),
            "closedAt": _iso(report.closed_at),
            "updatedAt": _iso(report.updated_at),
            "bodyHtml": render_markdown(report.body),
            "comments": [
                {
                    "author": comment.author_login,
                    "createdAt": _iso(comment.created_at),
                    "bodyHtml": render_markdown(comment.body),
                }
                for comment in report.comments.all()
            ],
            "fixes": _fix_json(report.fix_links.all()),
            "patches": patches,
        }
    )
