from types import SimpleNamespace

from mining.candidates import RULE_FIELDS, Rules, classify, matching_keywords
from mining.models import DEFAULT_PERFORMANCE_KEYWORDS

SEED = Rules(
    performance_labels=("module: performance", "type:performance"),
    performance_keywords=tuple(DEFAULT_PERFORMANCE_KEYWORDS),
    accuracy_labels=("type:accuracy",),
    accuracy_keywords=("wrong result",),
    non_bug_labels=("enhancement", "question"),
)


def test_default_list_is_the_29_keywords_of_the_seed_study():
    assert len(DEFAULT_PERFORMANCE_KEYWORDS) == 29
    assert len(set(DEFAULT_PERFORMANCE_KEYWORDS)) == 29


def test_keywords_match_on_word_boundaries_case_insensitive_multiword():
    text = "Training is SLOW and there is a Memory\n  Leak; slowly fine; slowdowns aren't"
    assert matching_keywords(text, SEED.performance_keywords) == ["slow", "memory leak"]


def test_label_rule_and_keyword_rule_are_recorded():
    result = classify(
        title="conv2d slower on GPU",
        body="",
        labels=["Type:Performance", "bug"],
        rules=SEED,
    )
    assert result.is_performance and not result.is_accuracy and not result.is_non_bug
    assert result.rules == {"performance": ["label:type:performance", "keyword:slower"]}


def test_accuracy_and_non_bug():
    result = classify(title="Wrong  result in matmul", body="", labels=["question"], rules=SEED)
    assert result.is_accuracy and result.is_non_bug and not result.is_performance
    assert result.rules["non_bug"] == ["label:question"]


def test_no_match():
    result = classify(title="Crash on import", body="Segfault", labels=[], rules=SEED)
    assert result.rules == {} and not result.is_performance


def test_rules_are_read_from_anything_holding_the_rule_lists():
    stored = SimpleNamespace(
        performance_labels=["perf"],
        performance_keywords=["slow", "hangs"],
        accuracy_labels=[],
        accuracy_keywords=["wrong result"],
        non_bug_labels=["question"],
    )

    rules = Rules.of(stored)

    assert rules == Rules(
        performance_labels=("perf",),
        performance_keywords=("slow", "hangs"),
        accuracy_keywords=("wrong result",),
        non_bug_labels=("question",),
    )
    assert tuple(vars(stored)) == RULE_FIELDS
