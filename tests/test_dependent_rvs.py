"""Releases of the query-dependent noise follow its pmf (tails and repair included)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy import stats

import optmech


@pytest.fixture(scope="module")
def noise() -> optmech.DependentNoiseResult:
    return optmech.dependent_noise_lp(1.0, sensitivity=2, period=2)


@pytest.mark.parametrize("t", [4, 7])
def test_releases_follow_the_phase_pmf(noise: optmech.DependentNoiseResult, t: int) -> None:
    """Chi-square goodness of fit of 20,000 releases against `pmf` (cells beyond ±12 pooled).
    Seeded; at the 1e-4 level the false-failure rate of a correct sampler is 1e-4."""
    draws = noise.rvs(t, size=20_000, rng=random.Random(12345 + t)) - t
    k = np.arange(-12, 13)
    p = noise.pmf(t, k)
    observed = np.array([np.sum(draws == v) for v in k] + [np.sum(np.abs(draws) > 12)])
    expected = 20_000 * np.append(p, max(1.0 - p.sum(), 0.0))
    keep = expected > 5  # pool the sparse cells into the last one
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    assert stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > 1e-4


def test_the_tails_are_reached(noise: optmech.DependentNoiseResult) -> None:
    draws = noise.rvs(0, size=20_000, rng=random.Random(1))
    tail = noise.pmf(0, np.arange(noise.half_width + 1, noise.half_width + 200)).sum()
    # The far right tail's count is Binomial(20000, tail): within 5 standard deviations (plus
    # one count) of its mean; a sampler ignoring the tails gives 0 (false failure ~6e-7).
    far = np.sum(draws > noise.half_width)
    assert abs(far - 20_000 * tail) <= 5 * np.sqrt(20_000 * tail) + 1


def test_a_non_integer_true_value_is_refused(noise: optmech.DependentNoiseResult) -> None:
    with pytest.raises(TypeError, match="`true_value`"):
        noise.rvs(1.5)
    assert isinstance(noise.rvs(3, rng=random.Random(0)), int)
