"""The Celery app; workers run `celery -A labeler worker`."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "labeler.settings")

app = Celery("labeler")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
