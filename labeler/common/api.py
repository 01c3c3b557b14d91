"""What several resources of the API share."""

from __future__ import annotations

from rest_framework import serializers

from config.api import RejectUnknownFieldsMixin

NOT_YOURS = "only the study's leads may do this"


class SchemaSafeMixin:
    """The schema generator builds views without a user; give it an empty queryset."""

    model = None

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return self.model.objects.none()
        return self.visible(self.request.user)


class NamesQuerySerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    names = serializers.ChoiceField(
        choices=["pseudonyms", "real"],
        default="pseudonyms",
        help_text="real: annotators' usernames (leads only); default: pseudonyms A1, A2, …",
    )
