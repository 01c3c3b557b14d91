"""Writes of a repository's candidate rules and of the candidate flags they set on its
reports.

Locks: saving the rules updates their row, which PostgreSQL keeps locked until the
transaction commits, so two saves of one repository's rules (and their reclassifications)
run one after the other. An import running meanwhile classifies its pages with the rules it
read when it started; saving the rules again, or the next import, brings them in line.
"""

from django.core.exceptions import ValidationError
from django.db import transaction

from mining import candidates
from mining.models import BugReport, CandidateRules, Repository

MAX_RULES = 200
MAX_RULE_LENGTH = 100


def candidate_rules_ensure(*, repository: Repository) -> CandidateRules:
    """The repository's rules, created with the defaults if it has none yet."""
    rules, _ = CandidateRules.objects.get_or_create(repository=repository)
    return rules


def candidate_rules_validate(values: dict[str, list]) -> dict[str, list[str]]:
    """Each rule list cleaned (trimmed, empty entries dropped); a ValidationError names the
    field and the entry (1-based) that is wrong."""
    errors: dict[str, list[str]] = {}
    cleaned: dict[str, list[str]] = {}
    for name in candidates.RULE_FIELDS:
        items = values.get(name, [])
        if not isinstance(items, list):
            errors[name] = ["expected a list of texts"]
            continue
        seen: dict[str, int] = {}
        result = []
        for position, item in enumerate(items, start=1):
            if not isinstance(item, str):
                errors.setdefault(name, []).append(f"entry {position}: not a text")
                continue
            text = " ".join(item.split())
            if not text:
                continue
            if len(text) > MAX_RULE_LENGTH:
                errors.setdefault(name, []).append(
                    f"entry {position}: longer than {MAX_RULE_LENGTH} characters"
                )
            elif text.lower() in seen:
                errors.setdefault(name, []).append(
                    f"entry {position}: {text!r} repeats entry {seen[text.lower()]}"
                )
            else:
                seen[text.lower()] = position
                result.append(text)
        if len(result) > MAX_RULES:
            errors.setdefault(name, []).append(f"at most {MAX_RULES} entries")
        cleaned[name] = result
    if errors:
        raise ValidationError(errors)
    return cleaned


def candidate_rules_update(*, repository: Repository, values: dict[str, list]) -> int:
    """Validate and save the repository's rules, then recompute its reports' candidate flags
    (and which rule matched) in the same transaction; returns how many were reclassified."""
    cleaned = candidate_rules_validate(values)
    with transaction.atomic():
        rules = candidate_rules_ensure(repository=repository)
        for name, items in cleaned.items():
            setattr(rules, name, items)
        rules.full_clean()
        rules.save()
        return reports_reclassify(repository=repository)


@transaction.atomic
def reports_reclassify(*, repository: Repository) -> int:
    """Recompute the candidate flags of every report of the repository from its rules."""
    rules = candidates.Rules.of(candidate_rules_ensure(repository=repository))
    reports = list(repository.reports.only("id", "title", "body", "labels"))
    for report in reports:
        flags = candidates.classify(
            title=report.title, body=report.body, labels=report.labels, rules=rules
        )
        report.is_performance_candidate = flags.is_performance
        report.is_accuracy_candidate = flags.is_accuracy
        report.is_non_bug = flags.is_non_bug
        report.candidate_rules = flags.rules
    BugReport.objects.bulk_update(
        reports,
        ["is_performance_candidate", "is_accuracy_candidate", "is_non_bug", "candidate_rules"],
        batch_size=1000,
    )
    return len(reports)
