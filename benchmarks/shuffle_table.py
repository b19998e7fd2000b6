"""The tables of docs/theory/shuffle.md: how far each general bound of `shuffle_epsilon` is from
the exact central ε on binary randomized response, and from the lower bound (the ε of a
concrete pair of datasets) on k-ary randomized response; δ = 1e-6.

``python -m benchmarks.shuffle_table`` prints both as markdown (a few minutes on two cores).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

import optmech

DELTA = 1e-6
GENERAL = ("blanket", "variation-ratio", "clones")


def randomized_response(eps0: float, k: int) -> npt.NDArray[np.float64]:
    """k-ary randomized response: the truth with probability e^ε₀/(e^ε₀ + k − 1)."""
    e = math.exp(eps0)
    return (e * np.eye(k) + (1 - np.eye(k))) / (e + k - 1)


def _pct(bound: float, ref: float) -> str:
    return f"{bound / ref - 1:.1%}".replace("%", " %")


def binary_table() -> str:
    """Binary RR: each general bound against the exact ε (bound / exact − 1)."""
    lines = [
        "| ε₀ | n | exact ε | " + " | ".join(GENERAL) + " |",
        "| --- | --- | --- | " + " | ".join("---" for _ in GENERAL) + " |",
    ]
    for eps0 in (0.5, 1.0, 2.0, 4.0, 6.0):
        for n in (100, 1_000, 10_000, 1_000_000):
            g = optmech.shuffle_epsilon(randomized_response(eps0, 2), n, DELTA)
            exact = g.bounds["exact"]
            if exact >= g.local_epsilon * (1 - 1e-4):
                continue  # nothing amplified at this δ
            cells = [_pct(g.bounds[m], exact) for m in GENERAL]
            lines.append(f"| {eps0:g} | {n:.0e} | {exact:.5f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def k_ary_table() -> str:
    """k-RR: each general bound against the lower bound (bound / lower − 1)."""
    lines = [
        "| k | ε₀ | n | lower ε | " + " | ".join(GENERAL) + " |",
        "| --- | --- | --- | --- | " + " | ".join("---" for _ in GENERAL) + " |",
    ]
    for k in (3, 8, 32, 64):
        for eps0 in (1.0, 2.0, 4.0):
            for n in (10_000, 1_000_000):
                g = optmech.shuffle_epsilon(randomized_response(eps0, k), n, DELTA)
                low = g.lower_bound
                cells = [_pct(g.bounds[m], low) for m in GENERAL]
                lines.append(
                    f"| {k} | {eps0:g} | {n:.0e} | {low:.5f} | " + " | ".join(cells) + " |"
                )
    return "\n".join(lines)


if __name__ == "__main__":
    print(binary_table())
    print()
    print(k_ary_table())
