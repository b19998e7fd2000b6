"""Independent references the tests compare optmech against, written once from the papers.

Everything here is derived from the published formulas, never from optmech's own code, so a
test that compares optmech with these can fail. :mod:`test_reference` checks the references
themselves (exact rational identities the papers state).

- :func:`geometric_from_theory` / :func:`geometric_exact`: the range-restricted geometric
  mechanism of Ghosh, Roughgarden & Sundararajan (2012), §2:
  ``G[i, j] = α^|i−j| (1−α)/(1+α)`` for ``0 < j < n``, ``G[i, 0] = α^i/(1+α)``,
  ``G[i, n] = α^(n−i)/(1+α)``, ``α = e^(−ε)``.
- :func:`g_plus_bayes_remap`: the value of ``G`` followed by a user's Bayes-optimal remap,
  ``Σ_z min_r Σ_i p_i G[i, z] L[i, r]`` (GRS §2.2), which GRS Thm. 3.1 proves optimal.
- :data:`FIG2`: the worked example of GRS Fig. 2 (n = 5, ε = ln 2, ``G`` with output 1 sent
  to 2), exactly as the paper prints it.
- :func:`laplace_like`, :func:`two_cell_period_noise`: tabulated noises whose true ε follows
  from their construction, for the certifiers and the tabulated families;
  :func:`normalised_table` scales a table with geometric tails to a given mass;
  :func:`random_tabulated` draws an asymmetric one.
- :data:`LATTICE_COSTS`, :func:`lattice_expectation`, :func:`assert_expected_costs`: expected
  costs of a law on ℤ as sums over its pmf written out by the caller.
- :func:`hockey_stick_curve`: the hockey-stick divergence ``δ(ε)`` of a pmf on ℤ against itself
  shifted, summed directly (the definition of (ε, δ)-DP, Dwork & Roth (2014), Def. 2.4).
- :func:`user_lp_optimum`: the user LP of GRS §2 (Bayesian or minimax, with the declarative
  constraints' rows) written entry by entry for ``scipy.optimize.linprog``.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from scipy import integrate
from scipy.optimize import linprog

from optmech.costs import Asymmetric, Cost, Custom, Power, ZeroOne

__all__ = [
    "FIG2",
    "FIG2_STRINGS",
    "LATTICE_COSTS",
    "assert_expected_costs",
    "fig2_matrix",
    "g_plus_bayes_remap",
    "g_plus_bayes_remap_exact",
    "geometric_exact",
    "geometric_from_theory",
    "lattice_expectation",
]


def geometric_from_theory(n: int, eps: float) -> np.ndarray:
    """The range-restricted geometric mechanism on ``{0..n}`` in floating point (GRS §2)."""
    a = math.exp(-eps)
    idx = np.arange(n + 1)
    g = a ** np.abs(idx[:, None] - idx[None, :]) * (1 - a) / (1 + a)
    g[:, 0] = a**idx / (1 + a)
    g[:, n] = a ** (n - idx) / (1 + a)
    return g


def geometric_exact(n: int, alpha: Fraction) -> list[list[Fraction]]:
    """The same mechanism in exact rationals, for a rational ``α = e^(−ε)`` (e.g. 1/2): the
    end columns collect the mass beyond the range, ``α^|i−j| / (1 + α)``."""

    def entry(i: int, j: int) -> Fraction:
        inner = 1 if j in (0, n) else 1 - alpha
        return alpha ** abs(i - j) * inner / (1 + alpha)

    return [[entry(i, j) for j in range(n + 1)] for i in range(n + 1)]


def g_plus_bayes_remap(prior: np.ndarray, loss: np.ndarray, eps: float) -> float:
    """``Σ_z min_r Σ_i p_i G[i, z] L[i, r]`` (GRS §2.2) in floating point."""
    g = geometric_from_theory(len(prior) - 1, eps)
    posterior_loss = (np.asarray(prior)[:, None] * g).T @ np.asarray(loss)  # (z, r)
    return float(posterior_loss.min(axis=1).sum())


def g_plus_bayes_remap_exact(
    prior: list[Fraction], loss: list[list[Fraction]], alpha: Fraction
) -> Fraction:
    """The same value in exact rationals (GRS Thm. 3.1: the optimum of the user's LP)."""
    n = len(prior) - 1
    g = geometric_exact(n, alpha)
    total = Fraction(0)
    for z in range(n + 1):
        total += min(
            sum((prior[i] * g[i][z] * loss[i][r] for i in range(n + 1)), Fraction(0))
            for r in range(len(loss[0]))
        )
    return total


#: GRS Fig. 2 as printed (rows: inputs 0..5, columns: outputs 0..5).
FIG2_STRINGS: tuple[tuple[str, ...], ...] = (
    ("2/3", "0", "1/4", "1/24", "1/48", "1/48"),
    ("1/3", "0", "1/2", "1/12", "1/24", "1/24"),
    ("1/6", "0", "1/2", "1/6", "1/12", "1/12"),
    ("1/12", "0", "1/4", "1/3", "1/6", "1/6"),
    ("1/24", "0", "1/8", "1/6", "1/3", "1/3"),
    ("1/48", "0", "1/16", "1/12", "1/6", "2/3"),
)
#: The same in exact rationals.
FIG2: tuple[tuple[Fraction, ...], ...] = tuple(
    tuple(Fraction(v) for v in row) for row in FIG2_STRINGS
)


def fig2_matrix() -> np.ndarray:
    """GRS Fig. 2 as a float matrix."""
    return np.array([[float(v) for v in row] for row in FIG2])


def expected_cost_by_quadrature(
    noise: Any, cost: Any, breaks: list[float], *, limit: int = 200
) -> float:
    """``E c(X)`` of a continuous noise by adaptive quadrature of ``c·pdf`` (scipy's QUADPACK),
    piece by piece between sorted ``breaks`` (every kink of the integrand, the support's ends):
    independent of the families' closed-form costs."""
    return sum(
        integrate.quad(
            lambda x: float(cost(x)) * float(noise.pdf(x)),
            lo,
            hi,
            epsabs=0,
            epsrel=1e-13,
            limit=limit,
        )[0]
        for lo, hi in itertools.pairwise(sorted(breaks))
    )


def laplace_like(
    width: float, sensitivity: float, per_cell: float, *, cells: int, claimed_epsilon: float
) -> Any:
    """Piecewise-constant density ∝ ``b^|j + 1/2|`` (``b = e^(−per_cell)``) on ``2·cells``
    cells of ``width`` centred at 0, continued geometrically (period one cell): its true ε is
    ``per_cell`` times the number of cells a shift of ``sensitivity`` can cross, whatever
    ``claimed_epsilon`` (the declared guarantee, which certifiers must not trust)."""
    from optmech.mechanisms.piecewise import PiecewiseConstantNoise
    from optmech.privacy import PureDP

    b = math.exp(-per_cell)
    dens = b ** np.abs(np.arange(-cells, cells) + 0.5)
    dens = dens / (width * (dens.sum() + 2 * dens[0] * b / (1 - b)))
    return PiecewiseConstantNoise(
        start=-cells * width,
        width=width,
        densities=dens,
        period=1,
        left_tail=([dens[0] * b], b),
        right_tail=([dens[-1] * b], b),
        sensitivity=sensitivity,
        privacy=PureDP(claimed_epsilon),
    )


def two_cell_period_noise() -> Any:
    """A symmetric 1-DP piecewise-constant noise (Δ = 1) with a period of two cells.

    Cells of width 1/2 on ``[−1, 1)`` carry densities ∝ ``(b, 1, 1, b)``, ``b = e^(−1)``; each
    tail repeats its two end cells, shrinking by ``b`` per period (one sensitivity): a shift of
    at most Δ changes the density by a factor of at most ``1/b = e``, so the noise is 1-DP.

    Returns
    -------
    PiecewiseConstantNoise
        The noise, its privacy declared as ``PureDP(1.0)``.
    """
    from optmech.mechanisms.piecewise import PiecewiseConstantNoise
    from optmech.privacy import PureDP

    b = math.exp(-1.0)
    dens = np.array([b, 1.0, 1.0, b])
    total = 0.5 * dens.sum() + 0.5 * (dens[:2].sum() + dens[2:].sum()) * b / (1 - b)
    return PiecewiseConstantNoise(
        start=-1.0,
        width=0.5,
        densities=dens / total,
        period=2,
        left_tail=(dens[:2] * b / total, b),
        right_tail=(dens[2:] * b / total, b),
        sensitivity=1.0,
        privacy=PureDP(1.0),
    )


Tail = tuple[np.ndarray, float]


def normalised_table(
    values: np.ndarray, left: Tail, right: Tail, *, width: float = 1.0, mass: float = 1.0
) -> tuple[np.ndarray, Tail, Tail]:
    """``values`` and the two geometric tails ``(base, ratio)`` scaled to total mass ``mass``.

    A tail ``(base, r)`` repeats ``base`` shrunk by ``r`` per period, so it holds
    ``width · Σ base / (1 − r)``; the cells hold ``width · Σ values``.
    """
    total = width * (values.sum() + left[0].sum() / (1 - left[1]) + right[0].sum() / (1 - right[1]))
    scale = mass / total
    return values * scale, (left[0] * scale, left[1]), (right[0] * scale, right[1])


def random_tabulated(
    rng: np.random.Generator,
    cells: int,
    period: int,
    *,
    ratios: tuple[float, float],
    width: float | None = None,
    atom: float = 0.0,
    zero_cells: tuple[int, ...] = (),
    **law: Any,
) -> Any:
    """A random asymmetric law with geometric tails, normalised by :func:`normalised_table`.

    ``cells`` values uniform in [0.1, 1) (zero at ``zero_cells``), then the left and the right
    tail's ``period`` base values uniform in [0.1, 0.5), shrinking by ``ratios = (left, right)``
    per period. With a ``width``: a piecewise-constant density on cells of that width, plus an
    ``atom`` at 0; without: a pmf on the integers. ``law`` gives the rest of the law's
    arguments (``start``, ``sensitivity``, ``privacy``).
    """
    from optmech.mechanisms.piecewise import LatticeNoise, PiecewiseConstantNoise

    values = rng.uniform(0.1, 1.0, cells)
    values[list(zero_cells)] = 0.0
    left, right = (
        (rng.uniform(0.1, 0.5, period), ratios[0]),
        (rng.uniform(0.1, 0.5, period), ratios[1]),
    )
    if width is None:
        pmf, left, right = normalised_table(values, left, right)
        return LatticeNoise(pmf=pmf, period=period, left_tail=left, right_tail=right, **law)
    dens, left, right = normalised_table(values, left, right, width=width, mass=1 - atom)
    return PiecewiseConstantNoise(
        width=width,
        densities=dens,
        period=period,
        left_tail=left,
        right_tail=right,
        atom=atom,
        **law,
    )


#: Costs without a closed form of their own on every family: powers, asymmetric powers, 0-1
#: losses with and without a tolerance, and two custom costs (smooth; asymmetric and kinked).
LATTICE_COSTS: tuple[Cost, ...] = (
    Power(3),
    Power(1.5),
    Asymmetric(over=3.0, under=1.0, p=1.5),
    Asymmetric(over=3.0, under=1.0, p=2),
    ZeroOne(0.0),
    ZeroOne(2.5),
    ZeroOne(2.7),
    Custom(lambda e: np.log1p(np.abs(e))),
    Custom(lambda e: np.where(e > 0, e, 2.0 * e * e)),
)


def lattice_expectation(cost: Cost, support: np.ndarray, pmf: np.ndarray) -> float:
    """``Σ_k pmf[k]·cost(k)`` over the integers ``support``, summed by ``math.fsum``.

    Parameters
    ----------
    cost : Cost
        The cost, called on the integers as floats.
    support : numpy.ndarray
        The integers summed over (far enough out that the rest of the mass is negligible).
    pmf : numpy.ndarray
        The probabilities of ``support``, written out from the law's formula.

    Returns
    -------
    float
        The sum.
    """
    return math.fsum((pmf * np.asarray(cost(support.astype(float)))).tolist())


def assert_expected_costs(noise: Any, costs: Any, support: np.ndarray, pmf: np.ndarray) -> None:
    """Assert ``noise.expected_cost(c)`` equals :func:`lattice_expectation` for each cost (to
    1e-10 relative), ``pmf`` written out independently of ``noise``."""
    for cost in costs:
        reference = lattice_expectation(cost, support, pmf)
        assert noise.expected_cost(cost) == pytest.approx(reference, rel=1e-10, abs=1e-300), cost


def gdp_curve(mu: float, eps: np.ndarray) -> np.ndarray:
    """``δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)`` (Dong, Roth & Su 2022), scipy's Φ."""
    from scipy import stats

    return stats.norm.cdf(-eps / mu + mu / 2) - np.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)


def truncated_laplace_cost(epsilon: float, delta: float, cost: str, sensitivity: float = 1.0):
    """E|X| or E X² of the truncated Laplace (Geng, Ding, Guo & Kumar 2020), in closed form."""
    lam = sensitivity / epsilon
    a = lam * math.log1p(math.expm1(epsilon) / (2.0 * delta))
    tail = math.exp(-a / lam) / -math.expm1(-a / lam)  # e^(−A/λ) / (1 − e^(−A/λ))
    if cost == "abs":
        return lam - a * tail
    return 2.0 * lam * lam - (a * a + 2.0 * a * lam) * tail


def hockey_stick_curve(p: np.ndarray, shift: int, eps: np.ndarray) -> np.ndarray:
    """max over ±shift (in cells) of ``Σ (p_k − e^ε p_(k+shift))₊``, for each ε of ``eps``."""
    out = np.zeros(eps.shape)
    for a_, b_ in ((p[:-shift], p[shift:]), (p[shift:], p[:-shift])):
        vals = np.maximum(a_[None, :] - np.exp(eps)[:, None] * b_[None, :], 0.0).sum(axis=1)
        out = np.maximum(out, vals)
    return out


def user_lp_optimum(
    loss: np.ndarray,
    epsilon: float,
    edges: list[tuple[int, int]],
    *,
    prior: np.ndarray | None = None,
    means: np.ndarray | None = None,
    outputs: np.ndarray | None = None,
    max_risk: float | None = None,
    monotone: bool = False,
    tail: tuple[np.ndarray, float] | None = None,
    rows: list[int] | None = None,
) -> float:
    """The optimum of the user LP (GRS §2) by linprog, written entry by entry: variables
    ``vec(X)`` (row-major) and, for a minimax objective (``prior`` None), the worst risk ``s``
    last.

    ``loss[i, r]`` is the loss of output ``r`` on input ``i``; ``edges`` the neighbouring inputs;
    ``prior`` the Bayesian weights (None: minimax over the inputs ``rows``, every input by
    default). The optional constraints: each input's mean output ``means[i]`` over the output
    values ``outputs`` (unbiased), each input's risk at most ``max_risk``, a monotone mechanism
    (cumulative sums non-increasing in the input), and ``tail = (w, q)``: ``Σ_r w[i, r] X[i, r]
    ≤ q`` for each input.
    """
    n, m = loss.shape
    size = n * m + (prior is None)

    def entry(i: int, r: int) -> int:
        return i * m + r

    a_ub, b_ub, a_eq, b_eq = [], [], [], []
    e = math.exp(epsilon)
    for a, b in edges:
        for u, v in ((a, b), (b, a)):
            for r in range(m):
                row = np.zeros(size)
                row[entry(u, r)], row[entry(v, r)] = 1.0, -e
                a_ub.append(row)
                b_ub.append(0.0)
    for i in range(n):
        row = np.zeros(size)
        row[i * m : (i + 1) * m] = 1.0
        a_eq.append(row)
        b_eq.append(1.0)
        if means is not None:
            row = np.zeros(size)
            row[i * m : (i + 1) * m] = outputs
            a_eq.append(row)
            b_eq.append(means[i])
        if max_risk is not None:
            row = np.zeros(size)
            row[i * m : (i + 1) * m] = loss[i]
            a_ub.append(row)
            b_ub.append(max_risk)
        if tail is not None:
            row = np.zeros(size)
            row[i * m : (i + 1) * m] = tail[0][i]
            a_ub.append(row)
            b_ub.append(tail[1])
        if prior is None and (rows is None or i in rows):
            row = np.zeros(size)
            row[i * m : (i + 1) * m] = loss[i]
            row[-1] = -1.0
            a_ub.append(row)
            b_ub.append(0.0)
    if monotone:  # P(Y ≤ y_c | i + 1) ≤ P(Y ≤ y_c | i): cumulative sums, dense
        for i in range(n - 1):
            for c in range(m):
                row = np.zeros(size)
                row[i * m : i * m + c + 1] = -1.0
                row[(i + 1) * m : (i + 1) * m + c + 1] = 1.0
                a_ub.append(row)
                b_ub.append(0.0)
    cost = np.zeros(size)
    if prior is None:
        cost[-1] = 1.0
    else:
        cost[: n * m] = (prior[:, None] * loss).ravel()
    res = linprog(
        cost,
        A_ub=np.array(a_ub),
        b_ub=np.array(b_ub),
        A_eq=np.array(a_eq),
        b_eq=np.array(b_eq),
        bounds=(0, None),
        method="highs",
    )
    assert res.status == 0, res.message
    return float(res.fun)


def benchmark_report(rows: list[dict], **fields: object) -> dict:
    """A benchmark report around ``rows`` as ``python -m benchmarks`` writes it (start, mode,
    loads, versions), for the tests of its markdown; ``fields`` add to or replace those."""
    return {
        "started": "now",
        "mode": "quick",
        "load_start": 0.5,
        "load_end": 0.5,
        "versions": {"optmech": "test"},
        "rows": rows,
        **fields,
    }


def staircase_cost_by_periods(eps: float, gamma: float, cost: str, periods: int = 4000) -> float:
    """``E c(X)`` of ``f_γ`` (Δ = 1): ``2 Σ_k [a b^k ∫_k^{k+γ} c + a b^{k+1} ∫_{k+γ}^{k+1} c]``."""
    b = math.exp(-eps)
    a = (1 - b) / (2 * (gamma + (1 - gamma) * b))
    power = 1 if cost == "abs" else 2
    terms = []
    for k in range(periods):
        inner = ((k + gamma) ** (power + 1) - k ** (power + 1)) / (power + 1)
        outer = ((k + 1) ** (power + 1) - (k + gamma) ** (power + 1)) / (power + 1)
        terms.append(2 * a * b**k * (inner + b * outer))
    return math.fsum(terms)
