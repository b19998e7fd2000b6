"""GDP density designs against the Gaussian mechanism N(0, Δ²/μ²) (Dong, Roth & Su 2022).

Independent truth: the Gaussian's expected cost in closed form (``σ√(2/π)`` for ``|x|``,
``σ²`` for ``x²``), the grid Gaussian's cell masses from ``scipy.stats.norm``, and the GDP
curve ``δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)`` checked against the returned noise's
hockey-stick divergences, summed here over its cells (each cut in two, so that shifts of a
quarter of Δ are whole sub-cells).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _reference import gdp_curve, hockey_stick_curve
from scipy import stats

import optmech
from optmech.lp.design import design_noise

FLOAT_RTOL = 1e-9


def _cell_masses(noise: object, width: float, span: float) -> tuple[np.ndarray, np.ndarray]:
    """Edges and masses of the cells of ``width`` on [−span, span], from the noise's cdf."""
    edges = np.arange(-span, span + width / 2, width)
    cdf = np.asarray(noise.cdf(edges), dtype=float)  # type: ignore[attr-defined]
    return edges, np.diff(cdf)


def test_gdp_design_certified_and_compared_with_the_gaussian() -> None:
    """Two cells per Δ: the design meets δ(ε) ≤ δ_μ(ε) at shifts Δ/4 .. Δ (direct sums), costs
    no more than the grid Gaussian (its cell masses from the normal cdf, which the design could
    have returned), and reports the Gaussian's own cost and that this coarse grid cannot reach
    it."""
    mu = 1.0
    noise = design_noise(optmech.GaussianDP(mu), sensitivity=1, cost="abs", resolution=2)
    closed = math.sqrt(2.0 / math.pi) / mu
    assert noise.gaussian_cost == pytest.approx(closed, rel=1e-12)
    # The grid Gaussian: cell masses of N(0, 1/μ²) on cells of width 1/2; E|X| per cell is its
    # midpoint's |x| (uniform within the cell, no cell straddles 0).
    lo = np.arange(0.0, 40.0, 0.5)
    mass = stats.norm.cdf(lo + 0.5, scale=1 / mu) - stats.norm.cdf(lo, scale=1 / mu)
    grid_gaussian = 2.0 * float(np.sum(mass * (lo + 0.25)))
    # Within 1e-6: the design's value is rounded up, and the grid Gaussian it may return
    # continues with the grid's geometric tails beyond 7 periods (mass ~1e-12 there).
    assert noise.value <= grid_gaussian * (1 + 1e-6)
    assert noise.lower_bound <= noise.value
    assert noise.worse_than_gaussian is (noise.value > closed)
    assert noise.worse_than_gaussian  # two cells per Δ: the grid Gaussian is 2% above
    assert noise.certified_mu is not None and noise.certified_mu <= mu
    # δ(ε) ≤ δ_μ(ε) over sub-cells of width 1/4: shifts 1..4 sub-cells are d = Δ/4 .. Δ.
    _, masses = _cell_masses(noise, 0.5, 30.0)
    sub = np.repeat(masses / 2.0, 2)
    eps = np.linspace(0.0, 12.0, 2000)
    bound = np.maximum(gdp_curve(mu, eps), 0.0)
    for shift in range(1, 5):
        assert np.all(hockey_stick_curve(sub, shift, eps) <= bound * (1 + FLOAT_RTOL) + 1e-15), (
            shift
        )


def test_gdp_design_stopped_at_the_grid_gaussian() -> None:
    """With a loose accuracy the rounds stop as soon as the lower bound is within it of the
    grid Gaussian, which is then returned: its masses are the normal cdf's on the cells, and
    the certified interval contains its value."""
    mu, accuracy = 1.0, 0.05
    noise = design_noise(
        optmech.GaussianDP(mu), sensitivity=1, cost="abs", resolution=2, accuracy=accuracy
    )
    assert noise.record.source == "reference"
    assert len(noise.provenance.rounds) == 1
    edges, masses = _cell_masses(noise, 0.5, 6.0)
    expected = np.diff(stats.norm.cdf(edges, scale=1 / mu))
    # The returned masses follow the normal cdf inside the grid (7 periods); the tails beyond
    # are the grid's geometric ones, outside this window.
    np.testing.assert_allclose(masses / masses.sum(), expected / expected.sum(), rtol=1e-6)
    assert noise.lower_bound <= noise.value <= noise.lower_bound * (1 + accuracy)


def test_gdp_gaussian_cost_squared() -> None:
    """For x² the Gaussian's cost is σ² = (Δ/μ)²; at μ = 2 and two cells per Δ."""
    noise = design_noise(
        optmech.GaussianDP(2.0), sensitivity=1, cost="squared", resolution=2, accuracy=1e-2
    )
    assert noise.gaussian_cost == pytest.approx(0.25, rel=1e-12)
    assert noise.worse_than_gaussian is (noise.value > 0.25)


def test_gaussian_cost_only_for_gdp() -> None:
    """Other guarantees record no Gaussian comparison."""
    noise = design_noise(
        optmech.PrivacyProfile([0.5, 1.0], [1e-2, 1e-3]), sensitivity=1, cost="abs", resolution=2
    )
    assert noise.gaussian_cost is None and noise.worse_than_gaussian is None
