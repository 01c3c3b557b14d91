from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from labeler.models import Study, StudyMember
from labeler.studies.services import study_member_remove, study_members_add


class Command(BaseCommand):
    help = "Add members to a study with a role, or take the role away; lists the members."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        action = parser.add_mutually_exclusive_group()
        action.add_argument("--add", nargs="+", default=[], metavar="USER")
        action.add_argument(
            "--remove",
            nargs="+",
            default=[],
            metavar="USER",
            help="take the role away; their labels stay, marked as by a removed member",
        )
        parser.add_argument("--role", choices=StudyMember.Role.values)
        parser.add_argument(
            "--create-users",
            action="store_true",
            help="create unknown users (without a usable password)",
        )

    def handle(self, *args, slug, add, remove, role, create_users, **options):
        study = Study.objects.filter(slug=slug).first()
        if study is None:
            raise CommandError(f"no study {slug!r}")
        if (add or remove) and not role:
            raise CommandError("--add and --remove need --role")
        if add:
            try:
                study_members_add(study=study, usernames=add, role=role, create_users=create_users)
            except ValidationError as error:
                raise CommandError("; ".join(error.messages)) from None
        for username in remove:
            user = get_user_model().objects.filter(username=username).first()
            if user is None or not study_member_remove(study=study, user=user, role=role):
                raise CommandError(f"{username} is no {role} of {slug}")
        members = study.members.select_related("user").order_by("role", "user__username")
        for member in members:
            self.stdout.write(f"{member.role:<11} {member.user.username}")
        if add:
            users = get_user_model().objects.filter(username__in=add).order_by("username")
            locked_out = [user.username for user in users if not user.has_usable_password()]
            if locked_out:
                self.stdout.write(
                    f"no password yet (cannot sign in): {', '.join(locked_out)}; set one with "
                    "`python manage.py changepassword USER` or on the admin's user page"
                )
