"""Admin for every mining model. Imported data (pull requests, commits, fix links, sync
state, jobs) is read-only here, since the next import would overwrite any edit; candidate
rules are edited through the same service as the rules page, which reclassifies reports."""

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError

from mining.candidates import RULE_FIELDS
from mining.models import (
    BugReport,
    CandidateRules,
    Comment,
    Commit,
    FixLink,
    ImportJob,
    PullRequest,
    Repository,
    SyncState,
)
from mining.permissions import user_can_manage_imports
from mining.services.candidate_rules import (
    candidate_rules_update,
    candidate_rules_validate,
    reports_reclassify,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """View (and where it makes sense, delete); never add or change."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class CandidateRulesForm(forms.ModelForm):
    class Meta:
        model = CandidateRules
        fields = RULE_FIELDS

    def clean(self):
        cleaned = super().clean()
        try:
            cleaned.update(
                candidate_rules_validate({name: cleaned.get(name, []) for name in RULE_FIELDS})
            )
        except ValidationError as exc:
            for name, messages in exc.message_dict.items():
                for message in messages:
                    self.add_error(name, message)
        return cleaned


class RulesEditedByManagers:
    """Candidate rules are edited, as on the rules page, by those who may manage imports, on
    top of the admin's own model permissions."""

    def has_add_permission(self, request, *args):
        return super().has_add_permission(request, *args) and user_can_manage_imports(request.user)

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and user_can_manage_imports(request.user)


class CandidateRulesInline(RulesEditedByManagers, admin.StackedInline):
    model = CandidateRules
    form = CandidateRulesForm
    can_delete = False
    extra = 0


@admin.register(Repository)
class RepositoryAdmin(admin.ModelAdmin):
    list_display = ["full_name", "default_branch"]
    search_fields = ["full_name"]
    inlines = [CandidateRulesInline]

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        reports_reclassify(repository=form.instance)


@admin.register(CandidateRules)
class CandidateRulesAdmin(RulesEditedByManagers, admin.ModelAdmin):
    form = CandidateRulesForm
    list_display = ["repository"]
    search_fields = ["repository__full_name"]
    raw_id_fields = ["repository"]

    def get_fields(self, request, obj=None):
        return RULE_FIELDS if obj else ["repository", *RULE_FIELDS]

    def save_model(self, request, obj, form, change):
        if not change:
            obj.save()
        candidate_rules_update(
            repository=obj.repository,
            values={name: form.cleaned_data[name] for name in RULE_FIELDS},
        )


class CommentInline(admin.TabularInline):
    model = Comment
    extra = 0
    fields = ["author_login", "created_at", "body"]


@admin.register(BugReport)
class BugReportAdmin(admin.ModelAdmin):
    list_display = ["__str__", "title", "state", "created_at", "closed_at"]
    list_filter = ["repository", "state", "is_stub", "is_performance_candidate", "has_fix"]
    search_fields = ["title", "body"]
    raw_id_fields = ["repository"]
    readonly_fields = ["candidate_rules"]
    inlines = [CommentInline]


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):
    list_display = ["github_id", "report", "author_login", "created_at"]
    raw_id_fields = ["report"]


@admin.register(SyncState)
class SyncStateAdmin(ReadOnlyAdmin):
    """Deleting a repository's sync state makes its next import a full one."""

    list_display = ["repository", "issues_updated_until"]
    search_fields = ["repository__full_name"]


@admin.register(PullRequest)
class PullRequestAdmin(ReadOnlyAdmin):
    list_display = ["__str__", "title", "state", "merged"]
    list_filter = ["state", "repository"]
    search_fields = ["title", "repository__full_name"]

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Commit)
class CommitAdmin(ReadOnlyAdmin):
    list_display = ["__str__", "author_login", "authored_at", "additions", "deletions"]
    list_filter = ["files_fetched", "repository"]
    search_fields = ["sha", "message"]
    exclude = ["files"]

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(FixLink)
class FixLinkAdmin(ReadOnlyAdmin):
    list_display = ["report", "target", "evidence", "strength", "reverted"]
    list_filter = ["evidence", "strength", "reverted"]
    search_fields = ["target", "report__repository__full_name"]

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(ImportJob)
class ImportJobAdmin(ReadOnlyAdmin):
    """Start, cancel and re-run jobs on the imports page, where they are queued properly."""

    list_display = ["pk", "repository", "api", "status", "reports_done", "api_requests"]
    list_filter = ["status", "api"]
    search_fields = ["repository__full_name"]
