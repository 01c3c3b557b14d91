from django.db.models import Prefetch
from rest_framework import serializers, viewsets

from config.api import IdLookupMixin
from taxonomy.models import Category, Codebook, Dimension


class CategorySerializer(serializers.ModelSerializer):
    parent = serializers.SlugRelatedField(slug_field="key", read_only=True)

    class Meta:
        model = Category
        fields = ["key", "path", "name", "parent", "definition", "include", "exclude", "examples"]


class DimensionSerializer(serializers.ModelSerializer):
    categories = CategorySerializer(many=True, read_only=True)

    class Meta:
        model = Dimension
        fields = ["key", "name", "help_text", "multiple", "required", "leaf_only", "categories"]


class CodebookSerializer(serializers.ModelSerializer):
    dimensions = DimensionSerializer(many=True, read_only=True)

    class Meta:
        model = Codebook
        fields = ["id", "key", "version", "name", "description", "source", "frozen", "dimensions"]


class CodebookViewSet(IdLookupMixin, viewsets.ReadOnlyModelViewSet):
    """Codebooks with their dimensions and category trees; readable by anyone signed in."""

    serializer_class = CodebookSerializer
    filterset_fields = ["key", "version"]

    def get_queryset(self):
        categories = Category.objects.select_related("parent").order_by("position")
        dimensions = Dimension.objects.order_by("position").prefetch_related(
            Prefetch("categories", queryset=categories)
        )
        return Codebook.objects.prefetch_related(Prefetch("dimensions", queryset=dimensions))
