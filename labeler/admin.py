"""Admin pages of studies and labels.

What the services keep consistent is read-only here: a study's codebook and dimensions once
it exists (its scheme is cached as frozen), the items' counters, the draws, and every
assignment, label and version (they change only through handing out and submitting, which
count them on the item and record the history); final labels and their history too (they
change through adjudication), and a study's majority policy (setting it through the API
also decides the items it now allows).

The admin is for staff, who may see everything, but whoever labels in a study stays blind
there too (labeler.common.permissions.labels_hidden_from): the lists of assignments, labels and
versions leave out the others' work on unadjudicated items of the studies they label in.
"""

from django import forms
from django.contrib import admin

from labeler.common.permissions import board_hidden_from, labels_hidden_from
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
    StudyInvitation,
    StudyItem,
    StudyMember,
    StudyMemberRemoval,
    Theme,
    TriageRun,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows to look at, never to add, change or delete by hand."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class BlindAdmin(ReadOnlyAdmin):
    """Rows that carry an annotator's work, hidden from other annotators of the study."""

    def get_queryset(self, request):
        return super().get_queryset(request).exclude(labels_hidden_from(request.user))


class BoardRowsAdmin(ReadOnlyAdmin):
    """A code board's rows, changed only on the board (where every change is kept and can be
    undone), hidden from annotators of the study."""

    study_path = "board__study"

    def get_queryset(self, request):
        return (
            super().get_queryset(request).exclude(board_hidden_from(request.user, self.study_path))
        )


class StudyMemberInline(admin.TabularInline):
    model = StudyMember
    extra = 0
    raw_id_fields = ["user"]


@admin.register(Study)
class StudyAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "codebook", "overlap", "created_at"]
    search_fields = ["slug", "name"]
    filter_horizontal = ["dimensions"]
    inlines = [StudyMemberInline]

    def get_readonly_fields(self, request, obj=None):
        # A study's kind is chosen with its codebook: an open study has its code board.
        return ["codebook", "dimensions", "majority", "kind"] if obj is not None else []


@admin.register(StudyMember)
class StudyMemberAdmin(admin.ModelAdmin):
    list_display = ["study", "user", "role"]
    list_filter = ["study", "role"]
    search_fields = ["user__username", "study__slug"]
    raw_id_fields = ["user"]


@admin.register(StudyBatch)
class StudyBatchAdmin(ReadOnlyAdmin):
    list_display = ["study", "number", "seed", "frame_size", "sample_size", "created_at"]
    list_filter = ["study"]


class StudyItemForm(forms.ModelForm):
    class Meta:
        model = StudyItem
        fields = ["priority", "needed"]

    def clean_needed(self):
        needed = self.cleaned_data["needed"]
        if needed < 1:
            raise forms.ValidationError("an item needs at least 1 annotation")
        # Locked until the admin's transaction ends, so that no claim slips in between this
        # check and the save (the hand-out skips a locked item; a submission waits for it).
        claimed = (
            StudyItem.objects.select_for_update()
            .filter(pk=self.instance.pk)
            .values_list("claimed", flat=True)
            .first()
        )
        if claimed is not None and needed < claimed:
            raise forms.ValidationError(
                f"{claimed} annotators hold or submitted this item: it cannot need fewer "
                f"than {claimed} annotations"
            )
        return needed


@admin.register(StudyItem)
class StudyItemAdmin(admin.ModelAdmin):
    form = StudyItemForm
    list_display = ["study", "report", "batch", "position", "priority", "claimed", "submitted"]
    list_filter = ["study"]
    list_select_related = ["study", "report__repository"]
    raw_id_fields = ["report"]
    readonly_fields = ["study", "report", "batch", "position", "claimed", "submitted"]
    readonly_fields += ["adjudicated_at"]

    def has_add_permission(self, request, obj=None):
        # Items come from a batch's draw.
        return False

    def has_delete_permission(self, request, obj=None):
        # Their assignments and labels would go with them.
        return False


@admin.register(Assignment)
class AssignmentAdmin(BlindAdmin):
    list_display = ["study", "item", "annotator", "status", "held_at", "submitted_at", "version"]
    list_filter = ["study", "status", "skip_reason"]
    search_fields = ["annotator__username"]
    list_select_related = ["study", "item__study", "item__report__repository", "annotator"]


@admin.register(Annotation)
class AnnotationAdmin(BlindAdmin):
    list_display = ["item", "annotator", "dimension", "values", "updated_at"]
    list_filter = ["item__study"]
    search_fields = ["annotator__username"]
    list_select_related = ["item__study", "item__report__repository", "annotator", "dimension"]


@admin.register(AnnotationVersion)
class AnnotationVersionAdmin(BlindAdmin):
    list_display = ["item", "annotator", "number", "created_at"]
    list_filter = ["item__study"]
    search_fields = ["annotator__username"]
    list_select_related = ["item__study", "item__report__repository", "annotator"]


@admin.register(FinalLabel)
class FinalLabelAdmin(ReadOnlyAdmin):
    list_display = ["item", "dimension", "values", "method", "decided_by", "decided_at"]
    list_filter = ["item__study", "method", "reason"]
    list_select_related = ["item__study", "item__report__repository", "dimension", "decided_by"]


@admin.register(FinalLabelEvent)
class FinalLabelEventAdmin(ReadOnlyAdmin):
    list_display = ["item", "dimension", "kind", "values", "method", "user", "created_at"]
    list_filter = ["item__study", "kind", "method"]
    list_select_related = ["item__study", "item__report__repository", "dimension", "user"]


@admin.register(LabelImport)
class LabelImportAdmin(ReadOnlyAdmin):
    list_display = ["file_name", "study", "imported_by", "rows", "sha256", "created_at"]
    list_filter = ["study"]
    list_select_related = ["study", "imported_by"]


@admin.register(LabelImportJob)
class LabelImportJobAdmin(ReadOnlyAdmin):
    list_display = ["file_name", "study", "imported_by", "rows", "state", "created_at"]
    list_filter = ["study", "state"]
    list_select_related = ["study", "imported_by"]
    # The file itself (bytes, until the job ends) is not for the admin's pages.
    exclude = ["data"]

    def get_queryset(self, request):
        return super().get_queryset(request).defer("data")


@admin.register(CodebookMigration)
class CodebookMigrationAdmin(ReadOnlyAdmin):
    list_display = ["study", "from_codebook", "to_codebook", "migrated_by", "created_at"]
    list_filter = ["study"]
    list_select_related = ["study", "from_codebook", "to_codebook", "migrated_by"]


@admin.register(Board)
class BoardAdmin(BoardRowsAdmin):
    study_path = "study"
    list_display = ["study", "kind", "base", "frozen_into", "frozen_at", "created_at"]
    list_filter = ["study", "kind"]
    list_select_related = ["study", "base", "frozen_into"]


@admin.register(Theme)
class ThemeAdmin(BoardRowsAdmin):
    list_display = ["board", "dimension", "key", "name", "parent", "position"]
    list_filter = ["board__study"]
    list_select_related = ["board__study", "dimension", "parent"]


@admin.register(Code)
class CodeAdmin(BoardRowsAdmin):
    list_display = ["board", "dimension", "name", "theme", "merged_into", "created_at"]
    list_filter = ["board__study"]
    search_fields = ["name"]
    list_select_related = ["board__study", "dimension", "theme", "merged_into"]


@admin.register(CodeUse)
class CodeUseAdmin(BlindAdmin):
    list_display = ["code", "item", "annotator", "written_as", "created_at"]
    list_filter = ["item__study"]
    search_fields = ["written_as", "annotator__username"]
    list_select_related = ["code", "item__study", "item__report__repository", "annotator"]


@admin.register(BoardEvent)
class BoardEventAdmin(BoardRowsAdmin):
    list_display = ["board", "user", "action", "description", "created_at", "undone_at"]
    list_filter = ["board__study", "action"]
    list_select_related = ["board__study", "user"]


@admin.register(StudyInvitation)
class StudyInvitationAdmin(ReadOnlyAdmin):
    """Made, revoked and used on the study's Members page; the link is never stored."""

    list_display = ["study", "role", "email", "created_by", "created_at", "expires_at", "used_by"]
    list_filter = ["study", "role"]
    list_select_related = ["study", "created_by", "used_by"]
    exclude = ["token_hash"]


@admin.register(StudyMemberRemoval)
class StudyMemberRemovalAdmin(ReadOnlyAdmin):
    list_display = ["study", "user", "role", "removed_at"]
    list_filter = ["study", "role"]
    list_select_related = ["study", "user"]


@admin.register(TriageRun)
class TriageRunAdmin(ReadOnlyAdmin):
    """Started on the study's screening page. Its scores and results stay there, for the leads
    who do not label: a site admin who labels in the study must not see a score or a rank."""

    list_display = ["study", "dimension", "positive", "state", "created_by", "created_at"]
    list_filter = ["study", "state"]
    list_select_related = ["study", "created_by"]
    exclude = ["scores", "result"]
