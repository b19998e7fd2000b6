"""Independent references for the local model's tests: the pairwise complete-graph LP solved by
scipy's ``linprog``, written here from the definitions (not from optmech's envelope rows), and a
mutual information / KL evaluated term by term.

The pairwise LP states ε-LDP as ``Q[i, r] − e^ε Q[j, r] ≤ 0`` for every *ordered* pair of
distinct inputs and every output (``n(n − 1)·m`` rows: the formulation the envelope replaces);
the caller's constraints are written as dense rows on ``vec(Q)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linprog

#: linprog's HiGHS stops at relative primal/dual tolerances of about 1e-7: the reference
#: optimum is compared with that slack.
REFERENCE_RTOL = 1e-7


@dataclass
class Rows:
    """Extra rows of the reference LP on ``vec(Q)`` (row-major), as lists."""

    a_eq: list[np.ndarray] = field(default_factory=list)
    b_eq: list[float] = field(default_factory=list)
    a_ub: list[np.ndarray] = field(default_factory=list)
    b_ub: list[float] = field(default_factory=list)


def unbiased_rows(rows: Rows, x: np.ndarray, y: np.ndarray) -> None:
    """``Σ_r Q[i, r] y_r = x_i``."""
    n, m = x.size, y.size
    for i in range(n):
        a = np.zeros((n, m))
        a[i] = y
        rows.a_eq.append(a.ravel())
        rows.b_eq.append(float(x[i]))


def risk_rows(rows: Rows, loss: np.ndarray, bound: float) -> None:
    """``Σ_r Q[i, r] L[i, r] ≤ bound``."""
    n, m = loss.shape
    for i in range(n):
        a = np.zeros((n, m))
        a[i] = loss[i]
        rows.a_ub.append(a.ravel())
        rows.b_ub.append(bound)


def monotone_rows(rows: Rows, n: int, m: int) -> None:
    """``P(Y ≤ y_c | x_{i+1}) ≤ P(Y ≤ y_c | x_i)`` for every c."""
    for i in range(n - 1):
        for c in range(m):
            a = np.zeros((n, m))
            a[i + 1, : c + 1] = 1.0
            a[i, : c + 1] = -1.0
            rows.a_ub.append(a.ravel())
            rows.b_ub.append(0.0)


def tail_rows(rows: Rows, x: np.ndarray, y: np.ndarray, t: float, q: float) -> None:
    """``P(|Y − x_i| > t) ≤ q``."""
    n, m = x.size, y.size
    for i in range(n):
        a = np.zeros((n, m))
        a[i] = (np.abs(y - x[i]) > t).astype(float)
        rows.a_ub.append(a.ravel())
        rows.b_ub.append(q)


def pairwise_optimum(
    prior: np.ndarray | None,
    loss: np.ndarray,
    epsilon: float,
    rows: Rows | None = None,
) -> float:
    """The optimum of the pairwise LP (Bayesian with ``prior``, minimax with ``None``)."""
    n, m = loss.shape
    nm = n * m
    e = math.exp(epsilon)
    priv = []
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            for r in range(m):
                a = np.zeros(nm)
                a[i * m + r] = 1.0
                a[j * m + r] = -e
                priv.append(a)
    rows = rows or Rows()
    a_ub = np.array(priv + rows.a_ub)
    b_ub = np.array([0.0] * len(priv) + rows.b_ub)
    a_eq = np.zeros((n, nm))
    for i in range(n):
        a_eq[i, i * m : (i + 1) * m] = 1.0
    b_eq = [1.0] * n
    if rows.a_eq:
        a_eq = np.vstack([a_eq, np.array(rows.a_eq)])
        b_eq += rows.b_eq
    if prior is not None:
        c = (prior[:, None] * loss).ravel()
        res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=(0, None))
        assert res.status == 0, res.message
        return float(res.fun)
    # minimax: variables [vec(Q), s]; L[i]·Q[i] − s ≤ 0
    c = np.zeros(nm + 1)
    c[-1] = 1.0
    epi = np.zeros((n, nm + 1))
    for i in range(n):
        epi[i, i * m : (i + 1) * m] = loss[i]
        epi[i, -1] = -1.0
    a_ub2 = np.vstack([np.hstack([a_ub, np.zeros((a_ub.shape[0], 1))]), epi])
    b_ub2 = np.concatenate([b_ub, np.zeros(n)])
    a_eq2 = np.hstack([a_eq, np.zeros((a_eq.shape[0], 1))])
    bounds = [(0, None)] * nm + [(None, None)]
    res = linprog(c, A_ub=a_ub2, b_ub=b_ub2, A_eq=a_eq2, b_eq=b_eq, bounds=bounds)
    assert res.status == 0, res.message
    return float(res.fun)


def mutual_information(prior: np.ndarray, mechanism: np.ndarray) -> float:
    """``Σ_x Σ_y p(x) Q(y|x) log(Q(y|x)/P(y))`` term by term."""
    out_law = prior @ mechanism
    total = 0.0
    for x, px in enumerate(prior):
        for y, q in enumerate(mechanism[x]):
            if px > 0 and q > 0:
                total += px * q * math.log(q / out_law[y])
    return total


def kl_divergence(p0: np.ndarray, p1: np.ndarray, mechanism: np.ndarray) -> float:
    """``D(p₀Q ‖ p₁Q)`` term by term."""
    m0, m1 = p0 @ mechanism, p1 @ mechanism
    return sum(a * math.log(a / b) for a, b in zip(m0, m1, strict=True) if a > 0)
