"""Codebooks in the admin are for reading: their content comes from codebook files.

Editing a codebook here would bypass the file's validation and the content hash that makes
reloading an unchanged file a no-op, and could change a version that a study has pinned.
Change the file and run `python manage.py load_codebook FILE` instead.
"""

from django.contrib import admin

from taxonomy.models import Category, Codebook, Dimension


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class DimensionInline(admin.TabularInline):
    model = Dimension
    extra = 0
    fields = ["position", "key", "name", "multiple", "required", "leaf_only"]
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Codebook)
class CodebookAdmin(ReadOnlyAdmin):
    list_display = ["key", "version", "name", "owner", "frozen", "updated_at"]
    list_filter = ["frozen"]
    search_fields = ["key", "name", "description"]
    inlines = [DimensionInline]


@admin.register(Dimension)
class DimensionAdmin(ReadOnlyAdmin):
    list_display = ["key", "name", "codebook", "multiple", "required", "leaf_only"]
    list_filter = ["codebook"]
    search_fields = ["key", "name"]


@admin.register(Category)
class CategoryAdmin(ReadOnlyAdmin):
    list_display = ["path", "name", "dimension"]
    list_filter = ["dimension__codebook", "dimension"]
    search_fields = ["key", "path", "name", "definition"]
