"""Synthetic bug reports for the screening demo: GitHub REST issue objects with a known truth
(a real performance bug or not), drawn from a fixed seed, so every run makes the same ones.

Every report reads like a performance candidate (each names latency, throughput, memory
usage, a slowdown ...), as a keyword search would return it. The real performance bugs
measure a slowdown or a growth and compare versions, devices or settings, often with a profile;
the others are crashes, wrong results, documentation, questions and feature requests that use
the same words in passing. Some questions and feature requests read much like bugs, so a model
trained on labels of them is good but not perfect.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

REPOSITORY = "demo-org/keras-demo"
REPORTS = 360
SEED = 20260301
PERFORMANCE_SHARE = 0.35

OPS = ["conv2d", "matmul", "embedding lookup", "layer norm", "attention", "scatter_add", "topk"]
COMPONENTS = [
    "the data pipeline",
    "model.fit",
    "model.predict",
    "the SavedModel loader",
    "the mixed-precision optimizer",
    "the distributed strategy",
    "the tokenizer layer",
]
DEVICES = ["an A100", "a T4", "CPU (16 cores)", "an M2 Mac", "a V100", "TPU v3"]
VERSIONS = [("2.12", "2.13"), ("2.13", "2.14"), ("2.14", "2.15"), ("3.0", "3.1")]
PERSONS = ["lchen", "mkowalski", "a-ibrahim", "tnguyen", "rsilva", "jpark-ml", "ofarouk"]

# (title, body, symptom, bug relatedness): the templates, {op}, {component}, {device}, {old},
# {new}, {a}, {b}, {n} filled in, and the labels a careful annotator would give (key paths of
# the dl-bug-reporting codebook's symptom and bug-relatedness dimensions).
SLOW = "performance/low-speed"
MEMORY = "performance/high-memory-usage"
PERFORMANCE = [
    (
        "{op} is {n}x slower on {device} since {new}",
        "After upgrading from {old} to {new}, {op} takes {b} ms per call instead of {a} ms on "
        "{device}. The profiler shows most of the time in a new copy kernel that was not there in "
        "{old}. Same script, same data; a git bisect points to the commit that changed the "
        "layout handling. This is a clear performance regression.",
        SLOW,
        "actual-bug",
    ),
    (
        "Throughput of {component} dropped from {b} to {a} samples/s in {new}",
        "Benchmarking {component} on {device}: {old} reaches {b} samples/s, {new} only {a}. "
        "GPU usage falls to 40% and the trace shows idle gaps between steps. Slowdown is "
        "reproducible with the attached benchmark script.",
        SLOW,
        "actual-bug",
    ),
    (
        "Performance regression in {op} between {old} and {new}",
        "Step time went from {a} ms to {b} ms. Timeline profile attached: {op} launches {n} times "
        "more kernels in {new}. Latency per batch is worse by {n}x; throughput drops accordingly.",
        SLOW,
        "actual-bug",
    ),
    (
        "High latency of {component} for small batches",
        "p99 latency of {component} is {b} ms for batch size 1 on {device}, while batch size "
        "32 takes {a} ms. The profiler shows the time is spent in Python dispatch, not in the "
        "kernels. Slow path for small inputs?",
        SLOW,
        "actual-bug",
    ),
    (
        "Memory usage of {component} grows every epoch (memory leak)",
        "Host memory usage grows by {n}00 MB per epoch until the job is killed. A heap profile "
        "shows tensors from {op} never released. It started with {new}; {old} stays flat. "
        "Each epoch also gets slower as the memory grows.",
        MEMORY,
        "actual-bug",
    ),
    (
        "{op} with mixed precision is slower than float32 on {device}",
        "Expected a speedup, but mixed precision makes {op} take {b} ms instead of {a} ms. The "
        "profile shows casts before and after every call. Throughput of the whole model drops "
        "by {n}0%.",
        SLOW,
        "actual-bug",
    ),
    (
        "Why is {op} so slow on {device}?",
        "Timing {op} alone: {b} ms per call on {device}, while the same op takes {a} ms in {old}. "
        "Profiler output below shows a fallback to the generic kernel. Looks like a regression "
        "in the kernel selection, not my code.",
        SLOW,
        "unclassified",
    ),
    (
        "{component} is slow on {device}",
        "Not sure if this is a bug. It used to be faster, I think, and now my runs take much "
        "longer. Any idea what to check?",
        SLOW,
        "unclassified",
    ),
    (
        "Is it expected that {op} takes longer on {device} than on CPU?",
        "Question: the latency of {op} is {b} ms on {device} and {a} ms on the CPU for the same "
        "input. Is this expected, or should I file it as a bug?",
        SLOW,
        "actual-bug",
    ),
]
OTHER = [
    (
        "Docs: benchmark numbers in the README are from {old}",
        "The README quotes {a} ms per step on {device} measured with {old}. Please rerun the "
        "benchmark for {new} and update the throughput table; the numbers may have changed.",
        "other-or-unclear",
        "expected-behaviour",
    ),
    (
        "Feature request: per-layer time in the {component} profile",
        "The profile shows {b} ms in one kernel but not which layer launched it. Could the "
        "profiler group kernel time by layer? That would make slow layers easy to find.",
        "other-or-unclear",
        "expected-behaviour",
    ),
    (
        "Segfault in {op} on {device} after upgrading to {new}",
        "Since {new}, calling {op} with an empty tensor crashes the process (segmentation fault). "
        "Memory usage looks normal before the crash and it is not slow, it just dies. Worked in "
        "{old}. Stack trace attached.",
        "other-or-unclear",
        "actual-bug",
    ),
    (
        "{component} raises ValueError for ragged inputs",
        "Passing ragged tensors to {component} raises `ValueError: shapes must match`. Nothing "
        "to do with performance or latency; the same input works with dense tensors.",
        "other-or-unclear",
        "actual-bug",
    ),
    (
        "Lower accuracy with {component} after upgrading to {new}",
        "Validation accuracy drops from 0.{b} to 0.{a} with {new}. Throughput and memory usage "
        "are the same, only the results are worse. Seed fixed, same data.",
        "accuracy/accuracy-regression",
        "actual-bug",
    ),
    (
        "Docs: latency section of {component} guide is outdated",
        "The guide still says to set `experimental_slow_mode`, which was removed in {new}. Please "
        "update the latency and throughput section and the code example.",
        "other-or-unclear",
        "expected-behaviour",
    ),
    (
        "How do I measure the latency of {component} on {device}?",
        "I want to report p99 latency and throughput of my model in a paper. Is there a built-in "
        "way, or should I time the calls myself? Not a bug, just a question.",
        "other-or-unclear",
        "user-error",
    ),
    (
        "Feature request: report throughput in the {component} progress bar",
        "It would be nice if the progress bar printed samples/s and memory usage, so that we can "
        "spot a slowdown early. Happy to send a pull request.",
        "other-or-unclear",
        "expected-behaviour",
    ),
    (
        "Which profiler shows the throughput of {component}?",
        "Trying to understand where time goes in my training loop on {device}. Should I use the "
        "built-in profiler or a trace viewer to see throughput per layer? Just learning.",
        "other-or-unclear",
        "user-error",
    ),
    (
        "Add an option to cap the memory usage of {component}",
        "Feature request: a `max_memory` argument so that {component} does not take all GPU "
        "memory at start-up. Not a bug, the allocator works as designed, but it is inconvenient "
        "on shared machines.",
        "other-or-unclear",
        "expected-behaviour",
    ),
    (
        "{op} gives wrong results for float16 on {device}",
        "Results of {op} differ from float32 by more than 1e-2 on {device}. Latency is fine, "
        "the outputs are wrong. Minimal reproduction attached.",
        "accuracy/numerical-error",
        "actual-bug",
    ),
    (
        "Installation on {device} fails with {new}",
        "pip install fails while building the wheel: missing header. Slow download aside, the "
        "build stops with a compiler error. {old} installs fine.",
        "other-or-unclear",
        "environment-issue",
    ),
]
# Sentences any report may carry: the shared vocabulary that keeps the two apart imperfectly.
ASIDES = [
    "This is a regression from {old}.",
    "The profiler output is attached.",
    "Each step takes about {a} ms.",
    "Memory usage is normal.",
    "I measured it with time.perf_counter() around the call.",
    "Tested with batch size {n}2 on {device}.",
    "Python 3.11, CUDA 12.1, {new}.",
    "Repro script below.",
]
PERFORMANCE_LABELS = ["type:performance", "module: performance"]
OTHER_LABELS = ["type:bug", "question", "type:docs-feature", "enhancement", "type:support"]


@dataclass(frozen=True)
class DemoReport:
    number: int
    symptom: str  # the synthetic truth: a real performance bug has one under "performance/"
    relatedness: str
    issue: dict  # the GitHub REST issue object to import

    @property
    def performance(self) -> bool:
        return self.symptom.startswith("performance/")


def demo_reports() -> list[DemoReport]:
    """The demo's reports, the same on every call."""
    draw = random.Random(SEED)
    start = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
    reports = []
    for index in range(REPORTS):
        number = 5001 + index
        performance = draw.random() < PERFORMANCE_SHARE
        templates = PERFORMANCE if performance else OTHER
        template = draw.randrange(len(templates))
        title, body, symptom, relatedness = templates[template]
        old, new = draw.choice(VERSIONS)
        low = draw.randint(8, 60)
        values = {
            "op": draw.choice(OPS),
            "component": draw.choice(COMPONENTS),
            "device": draw.choice(DEVICES),
            "old": old,
            "new": new,
            "a": low,
            "b": low * draw.randint(2, 5),
            "n": draw.randint(2, 6),
        }
        asides = draw.sample(ASIDES, draw.randint(0, 3))
        # Triagers label some reports, now and then wrongly.
        labels = []
        if draw.random() < 0.3:
            labels.append(
                draw.choice(PERFORMANCE_LABELS)
                if performance == (draw.random() < 0.85)
                else draw.choice(OTHER_LABELS)
            )
        created = start + timedelta(hours=draw.randint(0, 24 * 540))
        closed = draw.random() < 0.6
        reports.append(
            DemoReport(
                number=number,
                symptom=symptom,
                relatedness=relatedness,
                issue=_issue(
                    number=number,
                    title=title.format(**values),
                    body=" ".join([body, *asides]).format(**values),
                    labels=labels,
                    author=draw.choice(PERSONS),
                    created=created,
                    closed=created + timedelta(days=draw.randint(1, 90)) if closed else None,
                ),
            )
        )
    return reports


def _issue(*, number, title, body, labels, author, created, closed) -> dict:
    api = f"https://api.github.com/repos/{REPOSITORY}"
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    return {
        "url": f"{api}/issues/{number}",
        "repository_url": api,
        "html_url": f"https://github.com/{REPOSITORY}/issues/{number}",
        "id": 880_000_000 + number,
        "number": number,
        "title": title,
        "body": body,
        "state": "closed" if closed else "open",
        "user": {"login": author, "type": "User"},
        "labels": [{"name": name} for name in labels],
        "comments": 0,
        "created_at": created.strftime(stamp),
        "updated_at": (closed or created).strftime(stamp),
        "closed_at": closed.strftime(stamp) if closed else None,
    }
