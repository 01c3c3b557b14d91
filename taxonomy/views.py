from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET

from taxonomy.codebook_file import codebook_yaml
from taxonomy.diff import lineage_text
from taxonomy.models import Codebook
from taxonomy.selectors import (
    category_tree,
    codebook_list,
    codebook_newest,
    codebook_spec,
    codebook_versions,
    codebook_versions_diff,
    codebook_with_tree,
)


def _missing(request, key: str, version: str, *, status: int = 404, message: str = ""):
    return render(
        request,
        "taxonomy/codebook_missing.html",
        {"key": key, "version": version, "message": message},
        status=status,
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


@require_GET
def codebook_diff_pick(request, key: str, version: str):
    """The codebook page's form: the diff between this version and the one chosen, the one
    loaded first on the left."""
    against = request.GET.get("against", "").strip()
    versions = codebook_versions(key=key)
    if version not in versions:
        return _missing(request, key, version)
    if not against:
        return _missing(
            request,
            key,
            version,
            status=400,
            message="Choose the version to compare with (the field “against”).",
        )
    if against not in versions:
        return _missing(request, key, against)
    older, newer = sorted((version, against), key=versions.index)
    return redirect("taxonomy:codebook-diff", key=key, old=older, new=newer)


@require_GET
def codebook_diff(request, key: str, old: str, new: str):
    codebooks = []
    for version in (old, new):
        codebook = codebook_newest(key=key, version=version)
        if codebook is None:
            return _missing(request, key, version)
        codebooks.append(codebook)
    diff = codebook_versions_diff(old=codebooks[0], new=codebooks[1])
    return render(
        request,
        "taxonomy/codebook_diff.html",
        {"diff": diff, "codebook": codebooks[1], "lineage": lineage_text(diff)},
    )
