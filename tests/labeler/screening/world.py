"""A world with known truth: reports whose words carry a known signal."""

import numpy as np

SIGNAL = ["slow", "latency", "throughput", "regression", "memory", "leak", "cuda", "kernel"]
NOISE = [f"word{i}" for i in range(400)]


def synthetic_reports(count: int, *, prevalence: float = 0.2, seed: int = 1):
    """(texts, truth): a positive report draws a third of its words from SIGNAL."""
    rng = np.random.default_rng(seed)
    truth = (rng.random(count) < prevalence).astype(int)
    texts = []
    for positive in truth:
        words = list(rng.choice(NOISE, 30))
        if positive:
            words += list(rng.choice(SIGNAL, 10))
        elif rng.random() < 0.2:
            words += list(rng.choice(SIGNAL, 2))
        texts.append(" ".join(words))
    return texts, truth
