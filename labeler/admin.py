"""Admin pages of studies and labels.

What the services keep consistent is read-only here: a study's codebook and dimensions once
it exists (its scheme is cached as frozen), the items' counters, the draws, and every
assignment, label and version (they change only through handing out and submitting, which
count them on the item and record the history); final labels and their history too (they
change through adjudication), and a study's majority policy (setting it through the API
also decides the items it now allows).
"""

from django.contrib import admin

from labeler.models import (
    Annotation,
    AnnotationVersion,
    Assignment,
    FinalLabel,
    FinalLabelEvent,
    Study,
    StudyBatch,
    StudyItem,
    StudyMember,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows to look at, never to add, change or delete by hand."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


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
        return ["codebook", "dimensions", "majority"] if obj is not None else []


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


@admin.register(StudyItem)
class StudyItemAdmin(admin.ModelAdmin):
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
class AssignmentAdmin(ReadOnlyAdmin):
    list_display = ["study", "item", "annotator", "status", "held_at", "submitted_at", "version"]
    list_filter = ["study", "status", "skip_reason"]
    search_fields = ["annotator__username"]
    list_select_related = ["study", "item__study", "item__report__repository", "annotator"]


@admin.register(Annotation)
class AnnotationAdmin(ReadOnlyAdmin):
    list_display = ["item", "annotator", "dimension", "values", "updated_at"]
    list_filter = ["item__study"]
    search_fields = ["annotator__username"]
    list_select_related = ["item__study", "item__report__repository", "annotator", "dimension"]


@admin.register(AnnotationVersion)
class AnnotationVersionAdmin(ReadOnlyAdmin):
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
