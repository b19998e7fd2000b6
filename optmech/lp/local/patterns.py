"""The staircase-pattern LP of Kairouz, Oh & Viswanath (2016) and its certified interval.

For a sublinear utility ``U(Q) = Σ_y μ(Q[:, y])`` (`optmech.utilities`) the
best ε-LDP randomizer over k inputs is a *staircase* mechanism (their staircase theorem):
every column is ``θ_j S_j`` with a pattern ``S_j ∈ {1, e^ε}^k``. Since ``μ`` is positively
homogeneous the utility is linear in the weights, and the optimum is the LP over the ``2^k``
patterns (their linear-programming theorem):

    maximise  Σ_j μ(S_j) θ_j   subject to   Σ_j θ_j S_j = 1   (one row per input),   θ ≥ 0.

A vertex (simplex) uses at most k patterns. For any multipliers ``λ`` of the k rows, weak duality
gives ``optimum ≤ Σ_x λ_x + max(0, max_j (μ(S_j) − λ · S_j))`` — every feasible θ has
``Σ_j θ_j ≤ 1`` because ``S_j ≥ 1``. `pattern_bound` evaluates it with outward
rounding at the ratio ``e^ε`` rounded *up* (the optimum grows with the ratio), so it is an upper
bound on the optimum over ε-LDP mechanisms whatever the solver's accuracy.
"""

from __future__ import annotations

import math

import numpy as np

from optmech._floats import FloatArray
from optmech.exceptions import ProblemTooLargeError
from optmech.utilities import Utility

__all__ = ["MAX_PATTERN_INPUTS", "check_pattern_size", "pattern_bound", "patterns"]

#: Largest number of inputs of the exact pattern LP: ``2^14 = 16,384`` patterns. Measured with
#: simplex on 2 shared cores (mutual information, random priors, ε ∈ {0.1, 1, 5}): k = 12 in
#: 0.3–0.4 s, k = 13 in 0.7–0.8 s, k = 14 in 1.7–3.5 s, k = 16 in 19–60 s.
MAX_PATTERN_INPUTS = 14


def check_pattern_size(k: int) -> None:
    """Refuse more than `MAX_PATTERN_INPUTS` inputs, before building anything."""
    if k > MAX_PATTERN_INPUTS:
        raise ProblemTooLargeError(
            f"the staircase-pattern LP over {k} inputs has 2^{k} = {2**k} patterns, more than "
            f"the 2^{MAX_PATTERN_INPUTS} = {2**MAX_PATTERN_INPUTS} it solves exactly; refused "
            "before building anything. Merge inputs (the utility of a merged input is a lower "
            "bound) or use the binary or randomized-response mechanism."
        )


def patterns(k: int) -> FloatArray:
    """The ``(k, 2^k)`` 0/1 matrix whose column j is the binary expansion of j (input x high
    when bit x is set)."""
    j = np.arange(2**k, dtype=np.int64)
    return ((j[None, :] >> np.arange(k)[:, None]) & 1).astype(np.float64)


def pattern_columns(bits: FloatArray, ratio: float) -> FloatArray:
    """``S_j = 1 + (ratio − 1)·bits_j``."""
    return 1.0 + (ratio - 1.0) * bits


def _dot_interval(lam: FloatArray, columns: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``λ · S_j`` enclosed (γ_k of the magnitude each way)."""
    k = columns.shape[0]
    value = lam @ columns
    slack = 1.01 * (k + 1) * 2.0**-53 * (np.abs(lam) @ columns) + 5e-324
    return np.nextafter(value - slack, -np.inf), np.nextafter(value + slack, np.inf)


def pattern_bound(utility: Utility, epsilon: float, multipliers: FloatArray) -> float:
    """``Σ λ + max(0, max_j μ(S_j) − λ·S_j)`` at ratio ``e^ε`` rounded up, rounded up (module
    docstring); ``inf`` for non-finite multipliers."""
    lam = np.asarray(multipliers, dtype=np.float64)
    if not np.all(np.isfinite(lam)):
        return math.inf
    ratio = math.nextafter(math.exp(epsilon), math.inf)
    columns = pattern_columns(patterns(lam.size), ratio)
    _, mu_hi = utility.column_interval(columns, columns)
    dot_lo, _ = _dot_interval(lam, columns)
    reduced = float(np.max(np.nextafter(mu_hi - dot_lo, np.inf)))
    total = math.fsum(lam.tolist())
    total_hi = math.nextafter(total + abs(total) * 2.0**-52, math.inf)
    return math.nextafter(total_hi + max(0.0, reduced) * (1.0 + 2.0**-52), math.inf)
