"""Tail shapes of 2-D designs: hull facets, exact series of mass and cost, exact samplers.

Independent truths, computed here: :class:`scipy.spatial.ConvexHull` for the facets; direct
sums over every cell of a square far larger than the series needs (numpy, no rings, no rest
bound) for the masses and costs; brute-force cell probabilities for the samplers, compared by
a chi-square test at ``ALPHA = 1e-6`` (the false-failure rate of each sampler test; fixed
seeds), the critical value from :func:`scipy.stats.chi2.ppf`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import spatial, stats

from optmech.certify.noise2d import NORMS, footprint
from optmech.costs.norm import Norm
from optmech.mechanisms.piecewise2d import PiecewiseConstantNoise2D
from optmech.mechanisms.tails2d import (
    GaugeTail,
    ProductTail,
    gauge_polygon,
    sample_outside,
    tail_sums,
)

ALPHA = 1e-6


def _gauge(norm: str, m: int, eps: float, gamma: Fraction = Fraction(3, 8)) -> GaugeTail:
    return GaugeTail(*gauge_polygon(footprint(norm, m)), gamma, math.exp(-eps))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("m", [1, 3, 8])
def test_hull_facets_match_scipy(norm: str, m: int) -> None:
    pts = footprint(norm, m)
    normals, heights = gauge_polygon(pts)
    hull = spatial.ConvexHull(pts)
    assert len(heights) == len(hull.vertices)
    assert np.all(pts @ normals.T <= heights)  # every point inside every facet
    for n, h in zip(normals, heights, strict=True):  # every facet touches two hull vertices
        assert np.sum(pts[hull.vertices] @ n == h) == 2


def _direct(shape: object, n0: int, h: float, cost: Norm, radius: int) -> tuple[float, float]:
    """Mass and cost over all cells outside the box within ``max(i', j') < radius``."""
    idx = np.arange(-radius, radius)
    i, j = np.meshgrid(idx, idx, indexing="ij")
    out = ~((i >= -n0) & (i < n0) & (j >= -n0) & (j < n0))
    i, j = i[out], j[out]
    values = shape.values(i, j) * h * h
    lo = np.column_stack([i * h, j * h]).astype(float)
    avg = cost.cell_average(lo, lo + h)
    return float(np.sum(values)), float(np.sum(values * avg))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("order", [1, math.inf])
def test_series_equal_direct_sums(norm: str, order: float) -> None:
    n0, m, eps, h = 6, 3, 1.5, 1.0 / 3.0
    shapes = [_gauge(norm, m, eps), ProductTail(m, 2, math.exp(-eps / 2))]
    cost = Norm(order)
    for shape, sums in zip(shapes, tail_sums(shapes, n0, h, cost), strict=True):
        mass, total = _direct(shape, n0, h, cost, radius=600)
        assert sums.mass <= mass * (1 + 1e-12) and mass <= (sums.mass + sums.mass_rest) * (
            1 + 1e-12
        )
        assert sums.cost_low <= total * (1 + 1e-12) and total <= sums.cost_high * (1 + 1e-12)
        assert sums.cost_high - sums.cost_low <= 1e-11 * total


def test_l2_cost_series_bracket_the_quadrature() -> None:
    """Far cells of the ℓ2 norm use the Taylor bracket; the interval holds the direct sum of
    the cells' quadratures (whose own stated errors are far smaller than the bracket)."""
    n0, m, h = 4, 2, 0.5
    shape = _gauge("l2", m, 1.0)
    sums = tail_sums(shape, n0, h, Norm(2))
    _, total = _direct(shape, n0, h, Norm(2), radius=120)
    assert sums.cost_low <= total * (1 + 1e-12) and total <= sums.cost_high * (1 + 1e-12)
    assert sums.cost_high - sums.cost_low <= 1e-6 * total


@pytest.mark.parametrize(
    "shape",
    [_gauge("l1", 3, 0.8), _gauge("linf", 2, 2.0), ProductTail(3, 1, math.exp(-0.6))],
    ids=["gauge-l1", "gauge-linf", "product"],
)
def test_samplers_draw_the_shape_outside_the_box(shape: object) -> None:
    n0, n = 6, 200_000
    i, j = sample_outside(shape, n0, n, np.random.default_rng(1))
    assert np.all(~((i >= -n0) & (i < n0) & (j >= -n0) & (j < n0)))
    ring = np.maximum(np.where(i >= 0, i, -1 - i), np.where(j >= 0, j, -1 - j))
    level = (ring - n0) // 2  # bins of two rings, the last one open
    top = 12
    counts = np.bincount(np.minimum(level, top), minlength=top + 1)
    idx = np.arange(-400, 400)
    ii, jj = np.meshgrid(idx, idx, indexing="ij")
    out = ~((ii >= -n0) & (ii < n0) & (jj >= -n0) & (jj < n0))
    fold = np.maximum(np.where(ii >= 0, ii, -1 - ii), np.where(jj >= 0, jj, -1 - jj))[out]
    weights = shape.values(ii[out], jj[out])
    probs = np.bincount(np.minimum((fold - n0) // 2, top), weights=weights, minlength=top + 1)
    expected = probs / probs.sum() * n
    keep = expected > 5
    chi2 = float(np.sum((counts[keep] - expected[keep]) ** 2 / expected[keep]))
    assert chi2 < stats.chi2.ppf(1 - ALPHA, int(keep.sum()) - 1)


def test_noise_samples_follow_its_density() -> None:
    """Box cells and tails together: a chi-square over rings of ``max(|i'|, |j'|)``."""
    n0, m, h, eps = 4, 2, 0.5, 1.0
    gauge, product = _gauge("linf", m, eps), ProductTail(m, 1, math.exp(-eps / 2))
    idx = np.arange(-n0, n0)
    i, j = np.meshgrid(idx, idx, indexing="ij")
    rng = np.random.default_rng(2)
    dens = gauge.values(i, j) * np.exp(rng.uniform(-0.2, 0.2, i.shape))
    noise = PiecewiseConstantNoise2D(
        dens, width=h, sensitivity=1.0, norm="linf", tails=[(gauge, 0.7), (product, 0.3)], epsilon=1
    )
    x = noise.rvs(200_000, rng=np.random.default_rng(3))
    cell = np.floor(x / h).astype(np.int64)
    fold = np.where(cell >= 0, cell, -1 - cell).max(axis=1)
    top = 14
    counts = np.bincount(np.minimum(fold, top), minlength=top + 1)
    big = np.arange(-300, 300)
    ii, jj = np.meshgrid(big, big, indexing="ij")
    mass = noise.pdf(np.stack([(ii + 0.5) * h, (jj + 0.5) * h], axis=-1)) * h * h
    ring = np.maximum(np.where(ii >= 0, ii, -1 - ii), np.where(jj >= 0, jj, -1 - jj))
    probs = np.bincount(np.minimum(ring, top).ravel(), weights=mass.ravel(), minlength=top + 1)
    assert probs.sum() == pytest.approx(1.0, abs=1e-9)
    expected = probs * x.shape[0]
    chi2 = float(np.sum((counts - expected) ** 2 / expected))
    assert chi2 < stats.chi2.ppf(1 - ALPHA, top)


@pytest.mark.parametrize("symmetry", ["reflections", "none"])
def test_costs_with_smaller_groups_sum_every_image(symmetry: str) -> None:
    """The ℓ1 norm given as a callable with a smaller declared group: the same series as the
    exact norm (the images of each octant cell are summed one by one)."""
    from optmech.costs.vector import VectorCustom

    shape = _gauge("l2", 2, 4.0)
    exact = tail_sums(shape, 4, 0.5, Norm(1))
    cost = VectorCustom(lambda x: np.abs(x).sum(axis=-1), symmetry=symmetry, growth=(2, 1))
    got = tail_sums(shape, 4, 0.5, cost)
    assert got.cost_low <= exact.cost_low * (1 + 1e-12)
    assert exact.cost_high <= got.cost_high * (1 + 1e-12)
    assert got.cost_high - got.cost_low <= 1e-9 * exact.cost_high
