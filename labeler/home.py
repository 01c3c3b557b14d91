"""The home page: what is waiting for you to label, the codebooks, your roles and your
studies with your roles in each."""

from django.shortcuts import render
from django.views.decorators.http import require_GET

from labeler.common.roles import user_roles
from labeler.labelling.selectors import study_items_waiting
from labeler.members.selectors import user_study_roles
from labeler.models import StudyMember
from labeler.studies.selectors import study_list_for_user
from taxonomy.selectors import codebook_list


@require_GET
def home(request):
    labelling = list(
        study_list_for_user(user=request.user)
        .filter(members__user=request.user, members__role=StudyMember.Role.ANNOTATOR)
        .order_by("name")
    )
    waiting = study_items_waiting(user=request.user, studies=labelling)
    study_roles = user_study_roles(user=request.user)
    studies = list(study_list_for_user(user=request.user)[:10])
    return render(
        request,
        "home.html",
        {
            "codebooks": codebook_list(),
            "roles": sorted(r.value for r in user_roles(request.user)),
            "studies": [(study, study_roles.get(study.pk, [])) for study in studies],
            "in_studies": len(study_roles),
            "labelling": [(study, waiting.get(study.pk, 0)) for study in labelling],
        },
    )
