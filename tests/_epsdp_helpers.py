"""Helpers shared by the tests of the ε-DP noise families.

Every statistical helper takes the false-failure rate ``alpha`` of the test it performs and
derives its critical value from it; callers pass a fixed seed, so a failure is reproducible.
:func:`assert_expected_costs` compares the expected costs of a lattice law with sums over its
pmf written out by the caller, for the costs of :data:`LATTICE_COSTS` among others.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pytest
from scipy import stats

from optmech.costs import Asymmetric, Cost, Custom, Power, ZeroOne

#: False-failure rate of each statistical test in these files.
ALPHA = 1e-6

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


def ks_pvalue(samples: np.ndarray, cdf: Callable[[np.ndarray], np.ndarray]) -> float:
    """Two-sided Kolmogorov–Smirnov p-value of ``samples`` against a continuous ``cdf``."""
    return float(stats.kstest(samples, cdf).pvalue)


def chi_square_pvalue(
    samples: np.ndarray, pmf: Callable[[np.ndarray], np.ndarray], *, min_expected: float = 20.0
) -> float:
    """Chi-square goodness of fit of integer ``samples`` to a symmetric unimodal ``pmf`` on ℤ.

    Cells are the integers ``−K..K`` whose expected count is at least ``min_expected``; the two
    tails beyond are merged into one cell each (their probabilities from the pmf summed far
    out), so every cell has a large expected count and the chi-square approximation holds.
    """
    n = samples.size
    k = 0
    while n * float(pmf(np.asarray(k + 1.0))) >= min_expected:
        k += 1
    inner = np.arange(-k, k + 1, dtype=np.float64)
    p_inner = np.asarray(pmf(inner), dtype=np.float64)
    p_tail = (1.0 - p_inner.sum()) / 2.0
    observed_inner = np.array([np.count_nonzero(samples == v) for v in inner])
    observed = np.concatenate(
        [[np.count_nonzero(samples < -k)], observed_inner, [np.count_nonzero(samples > k)]]
    )
    expected = n * np.concatenate([[p_tail], p_inner, [p_tail]])
    if p_tail * n < min_expected:  # tails too light to be cells of their own: merge them
        observed = np.concatenate([[observed[0] + observed[-1]], observed[1:-1]])
        expected = np.concatenate([[expected[0] + expected[-1]], expected[1:-1]])
        if expected[0] < min_expected:
            observed = np.concatenate([[observed[0] + observed[1]], observed[2:]])
            expected = np.concatenate([[expected[0] + expected[1]], expected[2:]])
    statistic = float(np.sum((observed - expected) ** 2 / expected))
    return float(stats.chi2.sf(statistic, df=observed.size - 1))


def privacy_violations(
    counts_a: np.ndarray, counts_b: np.ndarray, epsilon: float, alpha: float = ALPHA
) -> list[tuple[int, float]]:
    """Bins where the counts refute ``P_A(bin) ≤ e^ε P_B(bin)`` or the reverse, at level alpha.

    ``counts_a`` and ``counts_b`` are histograms (same bins) of equally many samples of the
    outputs on two neighbouring inputs. Given ``m = a + b`` samples in a bin, ``a`` is
    Binomial(m, π) with ``π = P_A/(P_A + P_B)``, and ε-DP means ``π ≤ e^ε/(1 + e^ε)``. A bin is
    reported when the one-sided Clopper–Pearson lower confidence bound of π (resp. 1 − π)
    exceeds that value; with a Bonferroni split of alpha over bins and both directions, an
    ε-DP mechanism is reported with probability at most alpha.
    """
    bound = 1.0 / (1.0 + math.exp(-epsilon))
    level = alpha / (2 * counts_a.size)
    bad = []
    for i, (a, b) in enumerate(zip(counts_a.tolist(), counts_b.tolist(), strict=True)):
        m = a + b
        for hits in (a, b):
            if hits == 0:
                continue
            lower = float(stats.beta.ppf(level, hits, m - hits + 1))
            if lower > bound:
                bad.append((i, lower))
    return bad


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


def assert_expected_costs(
    noise: Any, costs: Iterable[Cost], support: np.ndarray, pmf: np.ndarray
) -> None:
    """Assert ``noise.expected_cost(c)`` equals :func:`lattice_expectation` for each cost.

    Parameters
    ----------
    noise : NoiseDistribution
        The lattice law under test.
    costs : iterable of Cost
        The costs compared (to 1e-10 relative).
    support, pmf : numpy.ndarray
        The integers and their probabilities, written out independently of ``noise``.
    """
    for cost in costs:
        reference = lattice_expectation(cost, support, pmf)
        assert noise.expected_cost(cost) == pytest.approx(reference, rel=1e-10, abs=1e-300), cost


def assert_neighbours_private(
    noise: Any,
    epsilon: float,
    *,
    shift: float,
    edges: np.ndarray,
    seeds: tuple[int, int],
    offset: float = 0.0,
) -> None:
    """Assert the outputs on two neighbouring inputs look ``epsilon``-DP, and not ``epsilon/2``-DP.

    300 000 outputs ``offset + X`` and as many ``offset + shift + X`` (the inputs one
    sensitivity apart) are counted in the bins ``edges``; no bin may refute ε-DP
    (:func:`privacy_violations`, false-failure rate :data:`ALPHA`), and some bin must refute
    (ε/2)-DP.

    Parameters
    ----------
    noise : NoiseDistribution
        The law under test.
    epsilon : float
        Its ε.
    shift : float
        The distance of the two inputs (the sensitivity).
    edges : numpy.ndarray
        The bin edges of the histograms.
    seeds : tuple of int
        The seeds of the two samples.
    offset : float, optional
        The first input.
    """
    n = 300_000
    a = offset + noise.rvs(n, rng=seeds[0])
    b = offset + shift + noise.rvs(n, rng=seeds[1])
    ca, _ = np.histogram(a, edges)
    cb, _ = np.histogram(b, edges)
    assert privacy_violations(ca, cb, epsilon) == []
    assert privacy_violations(ca, cb, epsilon / 2) != []
