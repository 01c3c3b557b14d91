"""The home page: the codebooks, your roles and your studies."""

from django.shortcuts import render
from django.views.decorators.http import require_GET

from labeler.roles import user_roles
from labeler.selectors import study_list_for_user
from taxonomy.selectors import codebook_list


@require_GET
def home(request):
    return render(
        request,
        "home.html",
        {
            "codebooks": codebook_list(),
            "roles": sorted(r.value for r in user_roles(request.user)),
            "studies": study_list_for_user(user=request.user)[:10],
        },
    )
