"""Statistical helpers shared by the tests of the ε-DP noise families.

Every helper takes the false-failure rate ``alpha`` of the test it performs and derives its
critical value from it; callers pass a fixed seed, so a failure is reproducible.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import stats

#: False-failure rate of each statistical test in these files.
ALPHA = 1e-6


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
