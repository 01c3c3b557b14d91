from django.contrib import admin

from taxonomy.models import Category, Codebook, Dimension


class DimensionInline(admin.TabularInline):
    model = Dimension
    extra = 0
    fields = ["position", "key", "name", "multiple", "required", "leaf_only"]


@admin.register(Codebook)
class CodebookAdmin(admin.ModelAdmin):
    list_display = ["key", "version", "name", "frozen", "updated_at"]
    list_filter = ["frozen"]
    search_fields = ["key", "name", "description"]
    readonly_fields = ["content_hash", "created_at", "updated_at"]
    inlines = [DimensionInline]


@admin.register(Dimension)
class DimensionAdmin(admin.ModelAdmin):
    list_display = ["key", "name", "codebook", "multiple", "required", "leaf_only"]
    list_filter = ["codebook"]
    search_fields = ["key", "name"]


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ["path", "name", "dimension"]
    list_filter = ["dimension__codebook", "dimension"]
    search_fields = ["key", "path", "name", "definition"]
    raw_id_fields = ["parent"]
