from django.contrib import admin

from labeler.models import Study, StudyItem, StudyMember


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


@admin.register(StudyItem)
class StudyItemAdmin(admin.ModelAdmin):
    list_display = ["study", "report", "batch", "position"]
    list_filter = ["study"]
    raw_id_fields = ["report"]
