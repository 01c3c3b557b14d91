"""The Members page's forms and the invitation's: who joins with which role, and the invitee's
username and password."""

from __future__ import annotations

import re

from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from labeler.models import StudyMember


class InvitationForm(forms.Form):
    """A link for someone without an account: they choose a username and password on it."""

    role = forms.ChoiceField(choices=StudyMember.Role.choices, initial=StudyMember.Role.ANNOTATOR)
    email = forms.EmailField(
        label="E-mail (optional)",
        required=False,
        help_text="The link is sent there when the site's e-mail is set up; copy it in any case.",
    )


class MemberRoleForm(forms.Form):
    role = forms.ChoiceField(choices=StudyMember.Role.choices)


class InvitationAcceptForm(forms.Form):
    """The invitee's username and password; the service checks both (Django's validators)."""

    username = forms.CharField(
        max_length=150, help_text="Letters, digits and @ . + - _; at most 150."
    )
    password = forms.CharField(widget=forms.PasswordInput(render_value=False))
    password_again = forms.CharField(
        label="Password again", widget=forms.PasswordInput(render_value=False)
    )

    def clean(self) -> dict:
        data = super().clean()
        if data.get("password") and data.get("password") != data.get("password_again"):
            self.add_error("password_again", "the two passwords differ")
        return data


class MemberAddForm(forms.Form):
    """Several users at once, as the study_members command takes them."""

    MAX_USERNAMES = 200

    usernames = forms.CharField(
        label="Usernames",
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One or more, separated by spaces, commas or new lines.",
    )
    role = forms.ChoiceField(choices=StudyMember.Role.choices)
    create_users = forms.BooleanField(
        label="Create accounts that do not exist yet (they sign in after an admin sets a password)",
        required=False,
    )

    def clean_usernames(self) -> list[str]:
        text = self.cleaned_data["usernames"]
        names = [name for name in dict.fromkeys(re.split(r"[\s,]+", text)) if name]
        if not names:
            raise ValidationError("enter at least one username")
        if len(names) > self.MAX_USERNAMES:
            raise ValidationError(f"at most {self.MAX_USERNAMES} usernames at a time")
        user_model = get_user_model()
        max_length = user_model._meta.get_field(user_model.USERNAME_FIELD).max_length
        invalid = []
        for name in names:
            try:
                user_model.username_validator(name)
            except ValidationError:
                invalid.append(name)
            else:
                if len(name) > max_length:
                    invalid.append(name)
        if invalid:
            raise ValidationError(
                f"not a valid username: {', '.join(invalid)} (at most {max_length} letters, "
                "digits and @ . + - _)"
            )
        return names
