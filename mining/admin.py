from django.contrib import admin

from mining.models import BugReport, Comment, Repository


@admin.register(Repository)
class RepositoryAdmin(admin.ModelAdmin):
    list_display = ["full_name", "default_branch"]
    search_fields = ["full_name"]


class CommentInline(admin.TabularInline):
    model = Comment
    extra = 0
    fields = ["author_login", "created_at", "body"]


@admin.register(BugReport)
class BugReportAdmin(admin.ModelAdmin):
    list_display = ["__str__", "title", "state", "created_at", "closed_at"]
    list_filter = ["repository", "state", "is_stub"]
    search_fields = ["title", "body"]
    raw_id_fields = ["repository"]
    inlines = [CommentInline]


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):
    list_display = ["github_id", "report", "author_login", "created_at"]
    raw_id_fields = ["report"]
