"""The floor of bench/label_load.py: Django answering one empty view, and nothing else.

No middleware, no database, no authentication, no apps: the least work any Django view can
do. label_load.py serves it under the same gunicorn settings as the real app and drives it
with the same clients, so its latency is what the machine, the server and Django itself
cost at that load, before any of this project's code runs.

    gunicorn --pythonpath bench floor_app
"""

from django.conf import settings

settings.configure(
    DEBUG=False,
    ALLOWED_HOSTS=["127.0.0.1"],
    ROOT_URLCONF=__name__,
    MIDDLEWARE=[],
    INSTALLED_APPS=[],
    DATABASES={},
)

from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.urls import path  # noqa: E402


def ping(request):
    return HttpResponse(b'{"pong": true}', content_type="application/json")


urlpatterns = [path("api/ping/", ping)]
application = get_wsgi_application()
