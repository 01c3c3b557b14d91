"""Whether the study page links to the study's board: `{% if access|sorts_board:study %}`."""

from django import template

from labeler.common.permissions import access_sorts_board

register = template.Library()


@register.filter
def sorts_board(access, study) -> bool:
    return access_sorts_board(access, study=study)
