"""Tabulated grid noise (optmech.mechanisms.piecewise): cdf, pmf/pdf and exact costs.

Independent truths: explicit expansion of the geometric tails over many periods (the family
sums them in closed form) and scipy quadrature of pdf and of cost × pdf on each cell. What every
family shares (goodness of fit, empirical privacy, bad parameters, quantiles, tails, repr) is
checked by the conformance battery, ``test_family_battery``, whose registry holds tables of
each kind.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _reference import random_tabulated, two_cell_period_noise
from scipy import integrate

from optmech.costs import Absolute, Asymmetric, Squared
from optmech.mechanisms.piecewise import LatticeNoise, PiecewiseConstantNoise
from optmech.privacy import ApproxDP, PureDP


def _continuous(atom: float = 0.0, seed: int = 0) -> PiecewiseConstantNoise:
    """Cells of 1/4 from −1 (a zero cell inside the grid), tails of period 3, Δ = 3 cells."""
    return random_tabulated(
        np.random.default_rng(seed),
        10,
        3,
        ratios=(0.6, 0.4),
        width=0.25,
        atom=atom,
        zero_cells=(4,),
        start=-1.0,
        sensitivity=0.75,
        privacy=ApproxDP(1.0, 0.5),
    )


def _cells(noise: PiecewiseConstantNoise, periods: int = 120):
    """Explicit (left edges, densities) of grid and tails, `periods` tail periods each side."""
    h, p = noise.width, noise.period
    lb, lr = noise.left_tail
    rb, rr = noise.right_tail
    edges, dens = [], []
    for k in range(periods - 1, -1, -1):
        edges.append(noise.start - (k + 1) * p * h + h * np.arange(p))
        dens.append(lb * lr**k)
    edges.append(noise.edges[:-1])
    dens.append(noise.densities)
    end = noise.edges[-1]
    for k in range(periods):
        edges.append(end + k * p * h + h * np.arange(p))
        dens.append(rb * rr**k)
    return np.concatenate(edges), np.concatenate(dens)


@pytest.mark.parametrize("atom", [0.0, 0.2])
def test_cdf_equals_explicit_sum_and_quadrature(atom: float) -> None:
    noise = _continuous(atom)
    left, dens = _cells(noise)
    h = noise.width
    xs = np.array([-9.0, -3.1, -1.6, -1.0, -0.3, 0.0, 0.4, 1.5, 2.2, 6.0])
    for x in xs:
        frac = np.clip((x - left) / h, 0.0, 1.0)
        explicit = float(np.sum(dens * h * frac)) + (atom if x >= 0 else 0.0)
        assert noise.cdf(x) == pytest.approx(explicit, abs=1e-14)
    # Inside the grid: cdf increments are integrals of the pdf.
    a, b = -0.9, 1.3
    inc, _ = integrate.quad(noise.pdf, a, b, points=list(noise.edges), limit=200)
    assert noise.cdf(b) - noise.cdf(a) == pytest.approx(inc + atom, abs=1e-10)
    assert noise.cdf(-np.inf) == 0.0 and noise.cdf(np.inf) == pytest.approx(1.0, abs=1e-15)


def test_pdf_reads_cells_and_tails() -> None:
    noise = _continuous()
    left, dens = _cells(noise)
    centres = left + noise.width / 2
    pick = np.abs(centres) < 8
    np.testing.assert_allclose(noise.pdf(centres[pick]), dens[pick], rtol=1e-13, atol=0)


@pytest.mark.parametrize("cost", [Absolute(), Squared(), Asymmetric(over=3, under=1)])
def test_expected_cost_equals_cellwise_quadrature(cost) -> None:
    noise = _continuous(atom=0.1)
    left, dens = _cells(noise, periods=90)
    h = noise.width
    parts = [d * integrate.quad(cost, a, a + h)[0] for a, d in zip(left, dens, strict=True)]
    truth = math.fsum(parts) + 0.1 * float(cost(0.0))
    assert noise.expected_cost(cost) == pytest.approx(truth, rel=1e-11)


def _lattice() -> LatticeNoise:
    eps, delta = 1.0, 3
    b = math.exp(-eps)
    rng = np.random.default_rng(5)
    pmf = rng.uniform(0.2, 1.0, 2 * 2 * delta + 1)
    left = pmf[:delta] * b
    right = pmf[-delta:] * b
    total = pmf.sum() + (left.sum() + right.sum()) / (1 - b)
    return LatticeNoise(
        start=-2 * delta,
        pmf=pmf / total,
        period=delta,
        left_tail=(left / total, b),
        right_tail=(right / total, b),
        sensitivity=delta,
        privacy=PureDP(1.0),
    )


def _lattice_points(noise: LatticeNoise, periods: int = 200):
    p = noise.period
    lb, lr = noise.left_tail
    rb, rr = noise.right_tail
    pts, probs = [], []
    for k in range(periods - 1, -1, -1):
        pts.append(noise.start - (k + 1) * p + np.arange(p))
        probs.append(lb * lr**k)
    pts.append(noise.points)
    probs.append(noise.probabilities)
    last = noise.points[-1] + 1
    for k in range(periods):
        pts.append(last + k * p + np.arange(p))
        probs.append(rb * rr**k)
    return np.concatenate(pts), np.concatenate(probs)


def test_lattice_pmf_cdf_and_cost_are_the_explicit_sums() -> None:
    noise = _lattice()
    pts, probs = _lattice_points(noise)
    sel = np.abs(pts) <= 20
    np.testing.assert_allclose(noise.pmf(pts[sel]), probs[sel], rtol=1e-12, atol=0)
    assert noise.pmf(0.5) == 0.0
    for x in (-30, -7, -6.5, 0, 2.2, 7, 40):
        assert noise.cdf(x) == pytest.approx(float(probs[pts <= x].sum()), abs=1e-14)
    for cost in (Absolute(), Squared(), Asymmetric(over=2, under=1)):
        truth = math.fsum(probs * cost(pts.astype(float)))
        assert noise.expected_cost(cost) == pytest.approx(truth, rel=1e-12)


def test_description_and_symmetry() -> None:
    noise = _continuous(atom=0.1)
    d = noise.grid_description()
    lb, lr = d.left_tail
    rb, rr = d.right_tail
    total = d.masses.sum() + lb.sum() / (1 - lr) + rb.sum() / (1 - rr) + d.atom
    assert total == pytest.approx(1.0, abs=1e-14)
    assert d.reach == pytest.approx(3.0)
    assert not noise.is_symmetric
    assert _lattice().grid_description().reach == 3
    sym = two_cell_period_noise()
    assert sym.is_symmetric
    assert "PiecewiseConstantNoise(" in repr(sym) and "LatticeNoise(" in repr(_lattice())
