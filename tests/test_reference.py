"""The references of ``_reference`` agree with what the papers state about them, exactly."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from _reference import (
    FIG2,
    fig2_matrix,
    g_plus_bayes_remap,
    g_plus_bayes_remap_exact,
    geometric_exact,
    geometric_from_theory,
    random_tabulated,
)

from optmech.privacy import PureDP


@pytest.mark.parametrize("n", [1, 2, 5, 9])
@pytest.mark.parametrize("alpha", [Fraction(1, 2), Fraction(1, 3), Fraction(9, 10)])
def test_exact_geometric_is_stochastic_and_exactly_private(n: int, alpha: Fraction) -> None:
    """Rows sum to 1 and neighbouring rows differ by at most 1/α, exactly (GRS §2)."""
    g = geometric_exact(n, alpha)
    assert all(sum(row) == 1 for row in g)
    for i in range(n):
        for j in range(n + 1):
            assert g[i][j] <= g[i + 1][j] / alpha and g[i + 1][j] <= g[i][j] / alpha


@pytest.mark.parametrize("n", [1, 4, 30])
def test_float_geometric_matches_the_exact_one(n: int) -> None:
    """At ε = ln 2 the float formula equals the rational one to rounding (1e-15 relative)."""
    exact = np.array([[float(v) for v in row] for row in geometric_exact(n, Fraction(1, 2))])
    np.testing.assert_allclose(geometric_from_theory(n, math.log(2)), exact, rtol=1e-13)


def test_fig2_is_g_followed_by_the_remap_one_to_two() -> None:
    """GRS Fig. 2: G (n = 5, ε = ln 2) with output 1 sent to 2, in exact rationals."""
    g = geometric_exact(5, Fraction(1, 2))
    remapped = [[row[0], Fraction(0), row[1] + row[2], row[3], row[4], row[5]] for row in g]
    assert [list(r) for r in FIG2] == remapped
    np.testing.assert_array_equal(fig2_matrix(), np.array(remapped, dtype=float))


def test_bayes_remap_value_float_and_exact_agree() -> None:
    """The two implementations of ``Σ_z min_r Σ_i p_i G[i, z] L[i, r]`` agree (rel. 1e-14)."""
    prior = [
        Fraction(1, 5),
        Fraction(0),
        Fraction(1, 5),
        Fraction(1, 5),
        Fraction(1, 5),
        Fraction(1, 5),
    ]
    loss = [[Fraction(abs(i - r)) for r in range(6)] for i in range(6)]
    exact = g_plus_bayes_remap_exact(prior, loss, Fraction(1, 2))
    flt = g_plus_bayes_remap(
        np.array([float(p) for p in prior]),
        np.abs(np.subtract.outer(range(6), range(6))),
        math.log(2),
    )
    assert flt == pytest.approx(float(exact), rel=1e-14)


#: The start, sensitivity and privacy of the random tabulated laws below.
LAW = {"start": -2, "sensitivity": 1, "privacy": PureDP(1.0)}


@pytest.mark.parametrize("atom", [0.0, 0.3])
def test_a_random_tabulated_law_holds_its_mass_where_asked(atom: float) -> None:
    """Cells plus both tails' geometric series (summed here term by term) plus the atom make 1,
    and a cell asked to be empty is."""
    rng = np.random.default_rng(3)
    noise = random_tabulated(
        rng, 6, 2, ratios=(0.5, 0.25), width=0.5, atom=atom, zero_cells=(2,), **LAW
    )
    (lb, lr), (rb, rr) = noise.left_tail, noise.right_tail
    tails = sum(
        math.fsum(base * ratio**k) for base, ratio in ((lb, lr), (rb, rr)) for k in range(200)
    )
    assert 0.5 * math.fsum(noise.densities) + 0.5 * tails + atom == pytest.approx(1.0, abs=1e-14)
    assert noise.densities[2] == 0.0 and noise.atom == atom
    lattice = random_tabulated(rng, 5, 3, ratios=(0.5, 0.5), **LAW)
    (lb, _), (rb, _) = lattice.left_tail, lattice.right_tail
    assert math.fsum(lattice.probabilities) + 2 * (lb.sum() + rb.sum()) == pytest.approx(
        1.0, abs=1e-14
    )
