"""GradedNoise: the Δ-periodic window, exact formulas against the staircase, and bad input.

Independent truths: exact rational arithmetic for the window statement (which cell a point and
its shifts land in), the staircase family of Geng & Viswanath (2016) as its own class
(:class:`optmech.Staircase`, whose formulas share nothing with the graded grid's), quadrature of
the density for the cdf, and Monte Carlo with a stated false-failure rate for sampling.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from _families import staircase_as_graded, staircase_graded_keywords
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

import optmech
from optmech._floats import FloatArray
from optmech.certify.noise import noise_epsilon
from optmech.costs import Squared
from optmech.lp.additive.repair import envelope_raise
from optmech.mechanisms.graded import GradedNoise, anchored_integrals
from optmech.privacy import PureDP


def _cell_index(x: Fraction, delta: Fraction, edges: list[Fraction]) -> int:
    """Index ``k·m + i`` of the cell holding ``x`` (cells ``[(k + t_i)Δ, (k + t_(i+1))Δ)``)."""
    y = x / delta
    k = math.floor(y)
    r = y - k
    i = max(j for j in range(len(edges) - 1) if edges[j] <= r)
    return k * (len(edges) - 1) + i


@settings(max_examples=300, deadline=None)
@given(
    widths=st.lists(st.integers(1, 1000), min_size=1, max_size=8),
    delta=st.fractions(min_value=Fraction(1, 100), max_value=100),
    x=st.fractions(min_value=-5, max_value=5),
    d=st.fractions(min_value=-1, max_value=1),
)
def test_periodic_partition_window_is_index_distance_m(widths, delta, x, d) -> None:
    """On a Δ-periodic partition with m cells per period, a shift |d| ≤ Δ moves a point at most
    m cells, and ±Δ moves it exactly m cells: the cell index is non-decreasing in the position,
    so [x − Δ, x + Δ] meets exactly the cells j − m … j + m. Exact rationals: no tolerance."""
    total = sum(widths)
    edges = [Fraction(sum(widths[:i]), total) for i in range(len(widths) + 1)]
    m = len(widths)
    xs, shift = x * delta, d * delta
    j = _cell_index(xs, delta, edges)
    assert abs(_cell_index(xs + shift, delta, edges) - j) <= m
    assert _cell_index(xs + delta, delta, edges) == j + m
    assert _cell_index(xs - delta, delta, edges) == j - m


def _random_graded(rng: np.random.Generator, eps: float, m: int) -> GradedNoise:
    """A random density on a random palindromic partition, raised until ε-DP (window m)."""
    half = rng.uniform(0.05, 1.0, m // 2) ** 3
    widths = np.concatenate([half, half[::-1]])
    values = rng.uniform(0.2, 1.0, 2 * m) * np.exp(rng.normal(0.0, 2.0, 2 * m))
    values = envelope_raise(values, reach=m, period=m, bound=eps)
    b = math.exp(-eps)
    mass = float(
        np.dot(values, np.tile(widths / widths.sum(), 2))
        + (np.dot(values[:m], widths) + np.dot(values[m:], widths)) / widths.sum() * b / (1 - b)
    )
    v = values / mass
    return GradedNoise(
        sensitivity=1.0,
        widths=widths,
        first_period=-1,
        densities=v,
        left_tail=(b * v[:m], b),
        right_tail=(b * v[m:], b),
        privacy=PureDP(eps),
    )


def test_certified_epsilon_bounds_density_ratios_at_random_points(rng) -> None:
    """Random real points and shifts |d| ≤ Δ: f(x)/f(x + d) ≤ e^ε̂ with ε̂ the certificate of the
    densities with reach m. Points within 1e-9 of a cell edge are skipped (a float shift may
    cross an edge by rounding); 1e-12 relative slack covers the two divisions."""
    eps, m = 1.3, 10
    noise = _random_graded(rng, eps, m)
    cert = float(noise_epsilon(**noise.density_description()))
    assert cert <= eps * (1 + 1e-12)
    x = rng.uniform(-6.0, 6.0, 20000)
    d = rng.uniform(-1.0, 1.0, 20000)
    edges = np.concatenate([[0.0], np.cumsum(noise.widths)])

    def near_edge(p: np.ndarray) -> np.ndarray:
        r = p - np.floor(p)
        return np.min(np.abs(r[:, None] - edges[None, :]), axis=1) < 1e-9

    keep = ~(near_edge(x) | near_edge(x + d))
    ratio = np.asarray(noise.pdf(x[keep])) / np.asarray(noise.pdf(x[keep] + d[keep]))
    assert np.max(ratio) <= math.exp(cert) * (1 + 1e-12)
    assert np.max(ratio) >= math.exp(eps) * 0.5  # the window binds somewhere (not vacuous)


def test_a_violation_m_cells_apart_is_certified() -> None:
    """Cells exactly m apart face each other under a shift by Δ: inflating one is seen."""
    b = math.exp(-1.0)
    widths = np.array([0.1, 0.8, 0.1])
    dens = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    dens[0] = 3.0  # cell 0 vs cell 3 (m = 3 apart): ratio 3 > e
    periods = [float(np.dot(dens[:3], widths)), float(np.dot(dens[3:], widths))]
    total = sum(periods) / (1 - b)  # the table plus both geometric tails
    noise = GradedNoise(
        sensitivity=1.0,
        widths=widths,
        first_period=-1,
        densities=dens / total,
        left_tail=(b * dens[:3] / total, b),
        right_tail=(b * dens[3:] / total, b),
        privacy=PureDP(1.0),
    )
    assert noise_epsilon(**noise.density_description()) >= math.log(3.0) - 1e-12
    x = np.array([-0.95])  # in cell 0; x + 0.999 is in cell 3
    assert noise.pdf(x) / noise.pdf(x + 0.999) == pytest.approx(3.0, rel=1e-12)


@pytest.mark.parametrize(("eps", "gamma"), [(1.0, 0.25), (4.0, 0.1), (15.0, 0.02)])
def test_equals_the_staircase_family(eps: float, gamma: float) -> None:
    """Both are exact formulas; points away from the cell edges (where conventions for the
    boundary differ). 1e-12 relative: a few roundings apart."""
    noise, stair = staircase_as_graded(eps, gamma), optmech.Staircase(epsilon=eps, gamma=gamma)
    x = np.linspace(-7.3, 7.3, 997)
    np.testing.assert_allclose(noise.pdf(x), stair.pdf(x), rtol=1e-12)
    np.testing.assert_allclose(noise.cdf(x), stair.cdf(x), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(noise.sf(x), stair.sf(x), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(noise.logpdf(x), stair.logpdf(x), rtol=1e-12)
    q = np.linspace(0.001, 0.999, 101)
    np.testing.assert_allclose(noise.ppf(q), stair.ppf(q), rtol=1e-11, atol=1e-12)
    for cost in ("abs", "squared"):
        assert noise.expected_cost(cost) == pytest.approx(stair.expected_cost(cost), rel=1e-12)


def _one_sided_densities(noise: GradedNoise, x: FloatArray, step: FloatArray) -> FloatArray:
    """Density at ``x > 0`` from the masses of ``[x, x + step]`` (``sf``, right of 0) and of its
    mirror image ``[−x − step, −x]`` (``cdf``), the two as columns; ``step < 0`` measures
    ``[x + step, x]``. Each mass is a difference of two tail masses that keep their relative
    precision, divided by the exact length of the interval."""
    lo, hi = np.minimum(x, x + step), np.maximum(x, x + step)
    width = np.array([float(Fraction(b) - Fraction(a)) for a, b in zip(lo, hi, strict=True)])
    right = (noise.sf(lo) - noise.sf(hi)) / width
    left = (noise.cdf(-lo) - noise.cdf(-hi)) / width
    return np.stack([right, left], axis=1)


def test_narrow_top_step_is_located_on_both_sides_of_zero() -> None:
    """ε = 50: the staircase's top step ends at ±γΔ ≈ ±1.4e-11, and ``1 − γ`` (where a point
    left of 0 sits in its period) has no digits left for offsets of 1e-18. Points a few 1e-18
    from both edges: ``pdf``/``logpdf`` are symmetric, equal the staircase family's own formulas
    and the densities that ``cdf``/``sf`` integrate (one-sided differences within the cell:
    1e-18 inside the step, 1e-11 outside it; relative 1e-4, from the cdf's rounding)."""
    eps = 50.0
    gamma = 1.0 / (1.0 + math.exp(eps / 2.0))
    noise, stair = staircase_as_graded(eps, gamma), optmech.Staircase(epsilon=eps, gamma=gamma)
    offsets = np.array([-1e-15, -1e-16, -1e-17, -3e-18, 3e-18, 1e-17, 1e-16, 1e-15])
    x = gamma + offsets
    np.testing.assert_array_equal(noise.pdf(-x), noise.pdf(x))
    np.testing.assert_allclose(noise.pdf(x), stair.pdf(x), rtol=1e-12)
    np.testing.assert_allclose(noise.logpdf(-x), np.log(stair.pdf(x)), rtol=1e-12)
    np.testing.assert_allclose(noise.logpdf(x), noise.logpdf(-x), rtol=1e-15)
    step = np.where(offsets < 0, -1e-18, 1e-11)
    measured = _one_sided_densities(noise, x, step)
    np.testing.assert_allclose(measured, np.stack([stair.pdf(x)] * 2, axis=1), rtol=1e-4)


def test_tails_are_exact_far_out() -> None:
    """sf and logsf from the right, cdf and logcdf from the left, finite where 1 − cdf is 0;
    against the staircase's own exact tails (1e-12 relative)."""
    noise, stair = staircase_as_graded(3.0, 0.2), optmech.Staircase(epsilon=3.0, gamma=0.2)
    for x in (40.3, 250.6, 5000.1):
        assert noise.logsf(x) == pytest.approx(stair.logsf(x), rel=1e-12)
        assert noise.logcdf(-x) == pytest.approx(stair.logcdf(-x), rel=1e-12)
    assert noise.sf(40.3) == pytest.approx(stair.sf(40.3), rel=1e-12)
    assert 0.0 < noise.sf(40.3) < 1e-50  # 1 − cdf would be 0 here
    assert noise.logpdf(5000.1) == pytest.approx(stair.logpdf(5000.1), rel=1e-12)


def test_cdf_is_the_integrated_density(rng) -> None:
    """Adaptive quadrature of the pdf between cell edges (1e-12 absolute)."""
    noise = _random_graded(rng, 2.0, 6)
    t = np.concatenate([[0.0], np.cumsum(noise.widths)])
    edges = (np.arange(-4, 3)[:, None] + t[None, :-1]).reshape(-1)  # cells of periods −4 … 2
    for upper in (-1.7, -0.31, 0.0, 0.42, 1.9):
        pts = np.concatenate([[-4.0], edges[(edges > -4.0) & (edges < upper)], [upper]])
        area = sum(
            integrate.quad(lambda v: float(noise.pdf(v)), lo, hi, epsabs=1e-14)[0]
            for lo, hi in itertools.pairwise(pts)
        )
        assert noise.cdf(upper) == pytest.approx(area + float(noise.cdf(-4.0)), abs=1e-12)


def test_samples_match_the_expected_cost(rng) -> None:
    """Mean of |X| over n draws against expected_cost('abs'): a z-test with the exact second
    moment; false-failure rate α = 1e-6 (two-sided critical value 4.89), seed fixed."""
    noise = _random_graded(rng, 1.0, 8)
    n = 200_000
    draws = np.asarray(noise.rvs(n, rng=rng))
    mean, second = noise.expected_cost("abs"), noise.expected_cost("squared")
    sd = math.sqrt(second - mean**2)
    assert abs(np.mean(np.abs(draws)) - mean) <= 4.89 * sd / math.sqrt(n)
    assert noise.rvs(rng=1) == noise.rvs(rng=1)  # randomness only through rng


def test_narrow_cells_keep_their_exact_width() -> None:
    """A cell of width 1e-20 just below 1 (not representable in absolute edges) integrates x²
    to w·(1 − w + w²/3) (exact rational), where an antiderivative difference gives 0."""
    w = 1e-20
    got = anchored_integrals(Squared(), np.array([1.0]), np.array([-w]), np.array([0.0]))
    exact = Fraction(w) * (1 - Fraction(w) + Fraction(w) ** 2 / 3)
    assert float(got[0]) == pytest.approx(float(exact), rel=1e-15)
    assert Squared().integral(1.0 - w, 1.0) == 0.0  # why anchors are needed


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"widths": [0.5, 0.0, 0.5]}, ValueError, "positive"),
        ({"densities": np.ones(5)}, ValueError, "whole periods"),
        ({"densities": np.ones(6)}, ValueError, "sum to 1"),
        ({"privacy": 1.0}, TypeError, "privacy"),
        ({"sensitivity": -1.0}, ValueError, "sensitivity"),
        ({"left_tail": (np.ones(2), 0.5)}, ValueError, "left_tail"),
    ],
)
def test_bad_input_is_refused(kwargs, error, match) -> None:
    params = staircase_graded_keywords(1.0, 0.25) | kwargs
    with pytest.raises(error, match=match):
        GradedNoise(**params)
