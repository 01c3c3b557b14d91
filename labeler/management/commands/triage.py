"""The triage command lives with its feature, labeler.screening."""

from labeler.screening.command import Command

__all__ = ["Command"]
