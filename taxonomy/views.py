from django.http import HttpResponse
from django.shortcuts import render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET

from taxonomy.codebook_file import codebook_yaml
from taxonomy.models import Codebook
from taxonomy.selectors import (
    category_tree,
    codebook_list,
    codebook_newest,
    codebook_spec,
    codebook_with_tree,
)


def _missing(request, key: str, version: str):
    return render(
        request,
        "taxonomy/codebook_missing.html",
        {"key": key, "version": version},
        status=404,
    )


@require_GET
def codebook_index(request):
    return render(request, "taxonomy/codebook_list.html", {"codebooks": codebook_list()})


@require_GET
def codebook_detail(request, key: str, version: str):
    try:
        codebook = codebook_with_tree(key=key, version=version)
    except Codebook.DoesNotExist:
        return _missing(request, key, version)
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


@require_GET
def codebook_file(request, key: str, version: str):
    """The version as the codebook file `load_codebook` reads, to download."""
    codebook = codebook_newest(key=key, version=version)
    if codebook is None:
        return _missing(request, key, version)
    response = HttpResponse(
        codebook_yaml(codebook_spec(codebook=codebook)),
        content_type="application/yaml; charset=utf-8",
    )
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=f"{codebook.key}-{codebook.version}.yaml"
    )
    return response
