"""The exact binary curve by blocks (``optmech.certify.shuffle_exact``) against truths computed
here another way.

- The pmf windows: binomial pmfs in 40-digit arithmetic (mpmath), within the recurrence's
  stated relative error (SciPy's pmf at the mode, its anchor, allowed 1e-12).
- The curve at n = 3 000: the worst, over every count k of other users at the upper row and
  both directions, of ``Σ_s (P₁(s) − e^ε P₀(s))₊`` for the count
  ``Bin(k, hi) + Bin(n − 1 − k, lo)``, pmfs from ``scipy.stats.binom`` over the whole support
  convolved directly, k by k.
- The threshold reading of each row against the same row summed whole (which needs no
  log-concavity): never below it by more than the rounding charged.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy.signal import fftconvolve
from scipy.stats import binom

from optmech.certify.shuffle_exact import _BlockedBinaryCurve, _windowed_pmfs


def rr_rows(eps0: float) -> tuple[float, float]:
    """(hi, lo) of binary randomized response."""
    a = math.exp(eps0) / (1.0 + math.exp(eps0))
    return a, 1.0 - a


def worst_over_every_k(others: int, hi: float, lo: float, epsilons: list[float]) -> np.ndarray:
    """The exact worst-case curve at each ε: every k, both directions, full pmfs."""
    worst = np.zeros(len(epsilons))
    e = np.exp(np.asarray(epsilons))[:, None]
    for k in range(others + 1):
        left = binom.pmf(np.arange(k + 1), k, hi)
        right = binom.pmf(np.arange(others - k + 1), others - k, lo)
        small = min(left.size, right.size) <= 64
        count = np.convolve(left, right) if small else np.maximum(fftconvolve(left, right), 0.0)
        n0, n1 = np.append(count, 0.0), np.insert(count, 0, 0.0)
        for first, second in ((hi, lo), (lo, hi)):
            p = first * n1 + (1 - first) * n0
            q = second * n1 + (1 - second) * n0
            worst = np.maximum(worst, np.sum(np.maximum(p - e * q, 0.0), axis=1))
    return worst


@pytest.mark.parametrize("p", [0.5, 0.731, 0.0025, 1 - 1e-9])
def test_windowed_pmfs_hold_their_error_bound(p: float) -> None:
    totals = np.array([0, 1, 7, 300, 20_000, 999_999])
    pmf, lengths, outside, _, relative = _windowed_pmfs(totals, p)
    mpmath.mp.dps = 40
    prob = mpmath.mpf(p)

    def exact(total: int, x: int) -> mpmath.mpf:
        return mpmath.binomial(total, x) * prob**x * (1 - prob) ** (total - x)

    for row, total in enumerate(totals.tolist()):
        values = pmf[row, : lengths[row]]
        assert np.all(values > 0.0) and np.all(pmf[row, lengths[row] :] == 0.0)
        # the window's first x: near the pmf's mode less the largest entry's column, the one
        # whose pmf matches the first entry (a mode may be shared by two x)
        top = int(np.argmax(values))
        mode = min(math.floor((total + 1) * p), total)
        low = min(
            (
                x0
                for x0 in range(mode - top - 2, mode - top + 3)
                if 0 <= x0 <= total + 1 - len(values)
            ),
            key=lambda x0: abs(math.log(float(values[0]) / float(exact(total, x0)))),
        )
        inside = mpmath.fsum(exact(total, x) for x in range(low, low + int(lengths[row])))
        assert float(1 - inside) <= outside[row] * (1 + 1e-6) + 1e-15
        for j in np.unique(np.linspace(0, lengths[row] - 1, 12).astype(int)).tolist():
            truth = exact(total, low + j)
            error = abs(mpmath.mpf(float(values[j])) - truth) / truth
            assert float(error) <= relative[row] + 1e-12, (total, low + j)


@pytest.mark.slow  # every k at n = 3 000: about 4 s each
@pytest.mark.parametrize(
    ("hi", "lo", "budget"),
    [
        (*rr_rows(0.5), 1_700_000),
        (*rr_rows(6.0), 1_700_000),
        (0.3, 0.01, 1_700_000),
        # 64 blocks of 47 counts, of which the thinning keeps some at the upper or lower row
        (0.55, 0.5, 40_000),
        (0.5, 0.45, 40_000),
    ],
)
def test_blocked_curve_bounds_every_k_at_three_thousand(hi: float, lo: float, budget: int) -> None:
    """n = 3 000: the blocked curve is at least the exact curve at every ε; with the default
    budget (a block or two per k) it is within 1 % of it."""
    others = 2_999
    curve = _BlockedBinaryCurve(others, hi, lo, budget)
    eps0 = math.log(max(hi / lo, (1 - lo) / (1 - hi)))
    epsilons = [eps0 * x for x in (0.0, 0.002, 0.01, 0.03, 0.06, 0.1, 0.2, 0.5, 0.99)]
    truth = worst_over_every_k(others, hi, lo, epsilons)
    ours = np.array([curve(e) for e in epsilons])
    assert np.all(ours >= truth)
    if budget > 10**6:
        assert curve.dropped <= 2
        assert np.all(ours <= truth * 1.01 + 1e-9)
    else:
        assert 0 < curve.dropped < 46  # fewer than the 46 between a block's ends


@pytest.mark.parametrize("eps0", [0.5, 1.0, 6.0])
@pytest.mark.parametrize("n", [1_001, 200_000])
def test_threshold_reading_is_never_below_the_whole_sum(eps0: float, n: int) -> None:
    """Each row's positive part read at its certified threshold is at least the same row
    summed whole less twice the rounding charged (the whole sum is valid without
    log-concavity), at every ε from 0 to ε₀, near the crossing and far beyond it."""
    hi, lo = rr_rows(eps0)
    curve = _BlockedBinaryCurve(n - 1, hi, lo)
    f = curve.table
    for eps in np.concatenate([[0.0], np.geomspace(1e-4, eps0, 40)]):
        e = math.exp(float(eps))
        for first, second in ((hi, lo), (lo, hi)):
            c1, c0 = first - e * second, (1 - first) - e * (1 - second)
            read = curve._positive_parts(c1, c0)
            whole = np.sum(np.maximum(c1 * f[:, :-1] + c0 * f[:, 1:], 0.0), axis=1)
            slack = 2.0 * (abs(c1) + abs(c0)) * (curve.charge + 1e-12 * curve.mass)
            assert np.all(read >= whole - slack)
