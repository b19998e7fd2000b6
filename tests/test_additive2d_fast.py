"""The faster paths of the 2-D designer agree with independent computations: the shared gauge
of a polygon's tails with the certificate's own tail values, the vectorised Pareto filter of the
band rows with a brute-force one, and the interior-point solve (the ``additive2d`` default) with
a simplex vertex of the same LP."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import optmech
from optmech.certify.noise2d import footprint, tail_values
from optmech.lp.additive2d import lp as lp2d
from optmech.lp.solve import default_options
from optmech.mechanisms.tails2d import (
    GaugeTail,
    ProductTail,
    gauge_fraction,
    gauge_polygon,
    shape_values,
)


@pytest.mark.parametrize("ball", ["l1", "l2", "linf"])
@pytest.mark.parametrize("m", [1, 5, 20])
def test_shared_gauge_matches_the_certificates_tail_values(ball: str, m: int) -> None:
    """Every gauge tail of one polygon (all step positions, and a fine one) and a product tail,
    evaluated through one shared gauge, equal the certificate's per-shape integer levels."""
    normals, heights = gauge_polygon(footprint(ball, m))
    gammas = [Fraction(2 * g + 1, 2 * m) for g in range(m)] + [Fraction(12345, 1 << 20)]
    tails = [GaugeTail(normals, heights, g, 0.37) for g in gammas] + [ProductTail(m, 1, 0.6)]
    rng = np.random.default_rng(7)
    i = rng.integers(-40 * m, 40 * m, 4000)
    j = rng.integers(-40 * m, 40 * m, 4000)
    got = shape_values(tails, i, j)
    for row, tail in zip(got, tails, strict=True):
        assert np.array_equal(row, tail_values(tail.description(1.0), i, j))


def test_gauge_fraction_is_the_largest_facet_ratio() -> None:
    """``num/den`` equals ``max_l n_l·v/(2h_l)`` computed in exact rationals."""
    normals, heights = gauge_polygon(footprint("l2", 7))
    rng = np.random.default_rng(3)
    i, j = rng.integers(-500, 500, 300), rng.integers(-500, 500, 300)
    num, den = gauge_fraction(normals, heights, i, j)
    for a, b, n, d in zip(i.tolist(), j.tolist(), num.tolist(), den.tolist(), strict=True):
        best = max(
            Fraction(n1 * (2 * a + 1) + n2 * (2 * b + 1), 2 * h)
            for (n1, n2), h in zip(normals.tolist(), heights.tolist(), strict=True)
        )
        assert d > 0 and Fraction(n, d) == best


def _pareto_brute(owner: np.ndarray, keys: np.ndarray) -> set[tuple[int, tuple[float, ...]]]:
    """(owner, keys) of the rows no other row of the same owner beats in every key."""
    rows = {(int(o), tuple(k.tolist())) for o, k in zip(owner, keys, strict=True)}
    return {
        (o, k)
        for o, k in rows
        if not any(
            p == o and q != k and all(x <= y for x, y in zip(q, k, strict=True)) for p, q in rows
        )
    }


@pytest.mark.parametrize("chunk", [1 << 22, 40])
def test_pareto_filter_matches_brute_force(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Random owners and small integer keys (many ties and duplicates), with chunks large and
    tiny: the kept rows are exactly the brute-force Pareto minima, each once."""
    monkeypatch.setattr(lp2d, "_PARETO_CHUNK", chunk)
    rng = np.random.default_rng(11)
    for _ in range(60):
        n, k = int(rng.integers(0, 120)), int(rng.integers(1, 4))
        owner = rng.integers(0, int(rng.integers(1, 12)), n)
        keys = rng.integers(0, 4, (n, k)).astype(np.float64)
        who, where = lp2d._pareto(owner, keys)
        assert np.array_equal(who, owner[where])
        got = [(int(o), tuple(keys[r].tolist())) for o, r in zip(who, where, strict=True)]
        assert len(got) == len(set(got))
        assert set(got) == _pareto_brute(owner, keys)


def test_additive2d_default_is_interior_point_without_crossover_on_large_lps() -> None:
    """The 2-D family's HiGHS options ask for the interior point without crossover from 1,000
    variables; below, HiGHS's own choice (dual simplex), which is faster there."""
    for opts in (
        default_options("HIGHS", "additive2d"),
        default_options("HIGHS", "additive2d", num_variables=1_000),
    ):
        assert opts["highs_options"] == {"solver": "ipm"}
        assert opts["run_crossover"] == "off"
    small = default_options("HIGHS", "additive2d", num_variables=999)
    assert "highs_options" not in small and "run_crossover" not in small


@pytest.mark.parametrize("ball", ["l1", "linf"])
def test_interior_point_design_agrees_with_a_simplex_vertex(ball: str) -> None:
    """The large LPs' interior-point design and a dual-simplex design of the same LP: both
    certified ε-DP, and each certified interval contains the other's value."""
    args = dict(
        sensitivity=1.0, cost="l1", dimension=2, sensitivity_norm=ball, resolution=3, periods=2
    )
    ipm = optmech.design_noise(
        optmech.PureDP(1.0), solver_options=default_options("HIGHS", "additive2d"), **args
    )
    vertex = optmech.design_noise(
        optmech.PureDP(1.0),
        solver_options={"highs_options": {"solver": "simplex"}, "run_crossover": "on"},
        **args,
    )
    for noise in (ipm, vertex):
        assert noise.certified_epsilon <= 1.0 + 1e-9
    assert ipm.lower_bound <= vertex.value and vertex.lower_bound <= ipm.value
    assert ipm.value - ipm.lower_bound <= 1e-6 * ipm.value
