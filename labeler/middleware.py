from django.contrib.auth.middleware import LoginRequiredMiddleware


class LoginRequiredForPagesMiddleware(LoginRequiredMiddleware):
    """Anonymous visitors see only the sign-in page.

    The API is left to DRF, which authenticates tokens as well as sessions and answers 401/403
    in JSON instead of redirecting to a page.
    """

    api_prefix = "/api/"

    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.path_info.startswith(self.api_prefix):
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)
