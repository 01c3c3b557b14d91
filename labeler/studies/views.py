"""Pages of studies: the list, set-up (preview, then create), the overview, another batch
and labels imported from a CSV file."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, Exists, F, OuterRef, Q
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config.csp import chart_styles_allow
from labeler.adjudication.selectors import final_labels_visible, study_disagreements
from labeler.agreement.ratings import study_double_coding
from labeler.coding.board.views import new_study_initial
from labeler.coding.views import open_coding_context
from labeler.common.permissions import (
    access_adjudicates,
    access_figures_final_only,
    access_sees_agreement,
    study_get_for_user,
    user_can_create_study,
)
from labeler.common.scheme import study_scheme
from labeler.common.views import require_lead
from labeler.labelling.selectors import (
    assignment_list_visible,
    overlap_warning,
    study_items_waiting,
    study_overlap_warning,
)
from labeler.labelling.views import study_shortcuts
from labeler.models import Assignment, Study, StudyMember
from labeler.revisions.selectors import codebook_revisions_after
from labeler.studies.forms import BatchForm, StudySetupForm, add_service_errors
from labeler.studies.frames import STRATA, FrameQuery
from labeler.studies.sampling import SampleMode, SampleSpec, cochran_figures, sample_warnings
from labeler.studies.selectors import (
    RECENT_JOBS,
    label_import_jobs_recent,
    progress_named,
    study_list_for_user,
    study_progress,
)
from labeler.studies.services import (
    new_seed,
    plan_warnings,
    study_create,
    study_items_add,
    study_sample_preview,
)
from mining.markdown import render_markdown


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
        form = StudySetupForm(initial=new_study_initial(request))
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
                preview["overlap_warning"] = overlap_warning(
                    overlap=form.cleaned_data["overlap"], annotators=0
                )
                form.data["previewed"] = fingerprint
    return render(request, "labeler/study_new.html", {"form": form, "preview": preview})


def _study_create(request, form: StudySetupForm, frame: FrameQuery, sample: SampleSpec):
    data = form.cleaned_data
    study, batch = study_create(
        slug=data["slug"],
        name=data["name"],
        codebook=data["codebook"],
        dimension_keys=form.dimension_keys(),
        kind=data["kind"],
        codes_shared=data["codes_shared"],
        dimension_names=form.dimension_name_list() or None,
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
    batches = list(study.batches.all())
    progress = progress_named(
        study_progress(study=study, only_user=None if access.can_view_progress else request.user),
        study=study,
        user=request.user,
        access=access,
    )
    context = {
        "study": study,
        "access": access,
        "progress": progress,
        "mine": next((a for a in progress.per_annotator if a.user_id == request.user.pk), None),
        "dimensions": study.dimensions.order_by("position"),
        "hold_minutes": study.hold_timeout.total_seconds() / 60,
        "batches": batches,
        # For someone who labels here, once a screening model drew a batch: which batches it
        # drew would tell its guess for their items (as in the export's datasheet).
        "batch_draws_hidden": not access.sees_all_labels
        and any(batch.prioritised for batch in batches),
        "frame_summary": _frame_summary(study.frame),
        "guidelines_html": render_markdown(study.guidelines, heading_offset=2),
        "shortcuts": study_shortcuts(study),
        "sees_agreement": access_sees_agreement(access),
        "overlap_warning": study_overlap_warning(study=study),
        # The open round is never adjudicated (labeler.adjudication.services).
        "adjudicates": access_adjudicates(access) and study.kind != Study.Kind.OPEN,
        **open_coding_context(study=study, access=access),
    }
    if context["sees_agreement"]:
        context["double_coding"] = study_double_coding(
            study=study, final_only=access_figures_final_only(access)
        )
    if context["adjudicates"]:
        context["to_decide"] = len(
            study_disagreements(study=study, scheme=study_scheme(study=study))
        )
    if access.can_label:
        context["my_finals"] = _my_final_labels(study=study, user=request.user, access=access)
    if access.can_label:
        context["waiting"] = study_items_waiting(user=request.user, studies=[study]).get(
            study.pk, 0
        )
    if access.can_lead:
        context["skipped"] = (
            assignment_list_visible(user=request.user)
            .filter(study=study, status=Assignment.Status.SKIPPED)
            .order_by("item__position", "annotator__username")
        )
        context["batch_form"] = BatchForm(initial=_batch_initial(study))
        context["label_import_jobs"] = label_import_jobs_recent(study=study)[:RECENT_JOBS]
        if study.kind == Study.Kind.CLOSED:
            context["newer_codebooks"] = codebook_revisions_after(codebook=study.codebook)
    response = render(request, "labeler/study_detail.html", context)
    if context.get("open_coding", {}).get("saturation"):
        chart_styles_allow(response)
    return response


MY_FINALS_SHOWN = 100


def _my_final_labels(*, study, user, access) -> list:
    """The final labels of final items the user labelled, latest first: what annotators learn
    the codebook from once an item is decided, and never before."""
    mine = Assignment.objects.filter(
        item=OuterRef("item"), annotator=user, status=Assignment.Status.SUBMITTED
    )
    labels = final_labels_visible(study=study, user=user, access=access).filter(
        Exists(mine), item__adjudicated_at__isnull=False
    )
    return list(
        labels.order_by("-item__adjudicated_at", "item_id", "dimension__position")[:MY_FINALS_SHOWN]
    )


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
    require_lead(access)
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
