"""Brute-force references for the shuffle model, written from the definition alone.

- :func:`histogram_law`: the exact law of the histogram of independent reports, enumerated.
- :func:`brute_delta`: the shuffled histogram's δ(ε), worst over every ordered pair of user 1's
  inputs and every dataset of the other users (exponential in n; n ≤ 5 or so).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import numpy.typing as npt


def histogram_law(rows: list[npt.NDArray[np.float64]]) -> dict[tuple[int, ...], float]:
    """The law of the histogram of independent reports, report i drawn from ``rows[i]``."""
    law: dict[tuple[int, ...], float] = {(0,) * rows[0].size: 1.0}
    for row in rows:
        nxt: dict[tuple[int, ...], float] = {}
        for hist, mass in law.items():
            for y, q in enumerate(row):
                key = (*hist[:y], hist[y] + 1, *hist[y + 1 :])
                nxt[key] = nxt.get(key, 0.0) + mass * q
        law = nxt
    return law


def brute_delta(matrix: npt.NDArray[np.float64], n: int, eps: float) -> float:
    """δ(ε) of the shuffled histogram, worst over every pair and every dataset of the others."""
    inputs = range(matrix.shape[0])
    worst = 0.0
    for others in itertools.combinations_with_replacement(inputs, n - 1):
        for x0, x1 in itertools.permutations(inputs, 2):
            p = histogram_law([matrix[x0], *(matrix[i] for i in others)])
            q = histogram_law([matrix[x1], *(matrix[i] for i in others)])
            worst = max(worst, sum(max(p[h] - math.exp(eps) * q.get(h, 0.0), 0.0) for h in p))
    return worst
