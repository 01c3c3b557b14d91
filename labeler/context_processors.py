from labeler.common.roles import user_roles


def roles(request):
    user = getattr(request, "user", None)
    names = sorted(role.value for role in user_roles(user)) if user is not None else []
    return {"user_role_names": names}
