"""What several resources of the API share."""

from __future__ import annotations

from mining.models import BugReport

NOT_YOURS = "only the study's leads may do this"


class SchemaSafeMixin:
    """The schema generator builds views without a user; give it an empty queryset."""

    model = None

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return self.model.objects.none()
        return self.visible(self.request.user)


def report_ref(report: BugReport) -> str:
    return f"{report.repository.full_name}#{report.number}"
