from django.shortcuts import render
from django.views.decorators.http import require_GET

from taxonomy.models import Codebook
from taxonomy.selectors import category_tree, codebook_list, codebook_with_tree


@require_GET
def codebook_index(request):
    return render(request, "taxonomy/codebook_list.html", {"codebooks": codebook_list()})


@require_GET
def codebook_detail(request, key: str, version: str):
    try:
        codebook = codebook_with_tree(key=key, version=version)
    except Codebook.DoesNotExist:
        return render(
            request,
            "taxonomy/codebook_missing.html",
            {"key": key, "version": version},
            status=404,
        )
    query = request.GET.get("q", "").strip()
    dimensions = [
        {"dimension": dimension, "tree": category_tree(dimension, query)}
        for dimension in codebook.dimensions.all()
    ]
    versions = Codebook.objects.filter(key=key).values_list("version", flat=True)
    return render(
        request,
        "taxonomy/codebook_detail.html",
        {"codebook": codebook, "dimensions": dimensions, "query": query, "versions": versions},
    )
