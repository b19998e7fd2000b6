"""The three window forms (optmech.lp.additive.windows) describe the same feasible set and optimum.

Independent truth: the pairwise definition ``g_i ≤ e^ε g_j`` for ``|i − j| ≤ r`` checked by
brute force, and, for the auxiliary forms, an LP feasibility problem in the auxiliaries solved
by scipy's HiGHS (``∃ u ≥ 0 : A_u u ≤ −A_g g``) — not the canonical auxiliaries the module
computes itself. Then the designed LP optimum is the same whichever form builds it, and the
monotone class's collapsed constraints give the unrestricted optimum where the theorem says
the optimum is monotone (the staircase).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

import optmech
from optmech.costs import Asymmetric
from optmech.lp.additive import AdditiveSpec, build_additive_lp
from optmech.lp.additive.windows import (
    PAIRS_MAX_ROWS,
    WINDOW_METHODS,
    choose_window_method,
    window_size,
    window_system,
)
from optmech.lp.design import design_noise


def _pairwise_ok(g: np.ndarray, r: int, factor: float) -> bool:
    n = g.size
    return all(
        g[i] <= factor * g[j] * (1 + 1e-12)
        for i in range(n)
        for j in range(max(0, i - r), min(n, i + r + 1))
    )


def _exists_aux(system, g: np.ndarray) -> bool:
    """LP feasibility of the auxiliaries for a fixed g (scipy HiGHS)."""
    rhs = -(system.a_g @ g)
    if system.num_aux == 0:
        return bool(np.all(rhs >= -1e-10))
    res = optimize.linprog(
        np.zeros(system.num_aux),
        A_ub=system.a_u.toarray(),
        b_ub=rhs + 1e-10,
        bounds=(0, None),
        method="highs",
    )
    return res.status == 0


def _random_points(rng, n, count):
    pts = []
    for _ in range(count):
        walk = np.cumsum(rng.uniform(-1, 1, n)) * rng.uniform(0.0, 0.5)
        pts.append(np.exp(walk))
    return pts


@pytest.mark.parametrize("method", WINDOW_METHODS)
def test_feasible_sets_coincide_on_random_points(method: str) -> None:
    rng = np.random.default_rng(11)
    feasible = infeasible = 0
    for _ in range(60):
        n = int(rng.integers(3, 16))
        r = int(rng.integers(1, 6))
        factor = math.exp(float(rng.uniform(0.2, 1.0)))
        system = window_system(n, r, factor, method=method)
        for g in _random_points(rng, n, 2):
            truth = _pairwise_ok(g, r, factor)
            assert _exists_aux(system, g) == truth
            # The module's own canonical auxiliaries agree (used by WindowSystem.residual).
            res = system.residual(g)
            assert bool(np.all(res <= 1e-10)) == truth
            feasible += truth
            infeasible += not truth
    assert feasible > 10 and infeasible > 10  # both sides of the boundary were exercised


@pytest.mark.parametrize("method", WINDOW_METHODS)
def test_sizes_are_known_before_building(method: str) -> None:
    for n, r in [(10, 3), (57, 8), (200, 25), (31, 40)]:
        system = window_system(n, r, 2.0, method=method)
        rows, aux, nnz = window_size(n, r, method)
        assert system.num_aux == aux
        if method == "blocks":
            assert system.a_g.shape[0] <= rows and system.a_g.nnz + system.a_u.nnz <= nnz + rows
        else:
            assert system.a_g.shape[0] == rows
            assert system.a_g.nnz + system.a_u.nnz == nnz
    # The block form does not grow with the reach; all pairs grow linearly.
    assert window_size(1000, 500, "blocks")[0] == window_size(1000, 5, "blocks")[0]
    assert choose_window_method(10, 2) == "pairs"
    assert window_size(2000, 100, "pairs")[0] > PAIRS_MAX_ROWS
    assert choose_window_method(2000, 100) == "blocks"
    with pytest.raises(ValueError, match="window"):
        window_system(5, 2, 2.0, method="bogus")


def test_same_optimum_with_every_window_form() -> None:
    cost = Asymmetric(over=2, under=1)  # no mirror reduction: the full window is used
    values = []
    for method in WINDOW_METHODS:
        noise = design_noise(
            optmech.PureDP(1.0), sensitivity=1.0, cost=cost, resolution=6, periods=2, window=method
        )
        assert noise.record.window == method
        values.append(noise.value)
    assert max(values) - min(values) <= 1e-9 * min(values)


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_monotone_collapse_keeps_the_staircase_optimum(eps: float) -> None:
    """The staircase is symmetric and non-increasing, so the monotone class loses nothing for
    |e|; the collapsed rows (pairs exactly m apart + monotonicity) give the same optimum as the
    unrestricted window, which a verification must solve too."""
    kw = {"sensitivity": 1.0, "cost": "abs", "resolution": 8, "periods": 2}
    free = design_noise(optmech.PureDP(eps), **kw)
    mono = design_noise(optmech.PureDP(eps), monotone=True, **kw)
    sym_mono = design_noise(optmech.PureDP(eps), symmetric=True, monotone=True, **kw)
    assert mono.record.window == "monotone"
    assert mono.value == pytest.approx(free.value, rel=1e-9)
    assert sym_mono.value == pytest.approx(free.value, rel=1e-9)
    right = mono.densities[mono.num_cells // 2 :]
    assert np.all(np.diff(right) <= 1e-12)


def test_monotone_class_can_cost_more_for_a_non_monotone_optimum() -> None:
    """A cost that rewards errors near ±1 makes the unrestricted optimum non-monotone."""
    cost = optmech.costs.Custom(lambda e: np.minimum(np.abs(np.abs(e) - 1.0), 0.5), name="ring")
    kw = {"sensitivity": 1.0, "cost": cost, "resolution": 4, "periods": 2}
    free = design_noise(optmech.PureDP(2.0), **kw)
    mono = design_noise(optmech.PureDP(2.0), monotone=True, **kw)
    assert free.value < mono.value * (1 - 1e-3)
    assert free.certified_epsilon <= 2.0 * (1 + 1e-9)
    assert mono.certified_epsilon <= 2.0 * (1 + 1e-9)


def test_symmetric_lp_has_half_the_values() -> None:
    kw = {"sensitivity": 1.0, "resolution": 5, "periods": 2}
    asym = Asymmetric(over=2, under=1)
    full = build_additive_lp(AdditiveSpec(optmech.PureDP(1.0), cost=asym, **kw))
    half = build_additive_lp(AdditiveSpec(optmech.PureDP(1.0), cost=asym, symmetric=True, **kw))
    assert full.num_values == 20 and half.num_values == 10
    integer = build_additive_lp(
        AdditiveSpec(optmech.PureDP(1.0), sensitivity=3, cost="abs", integer=True, periods=2)
    )
    assert integer.num_values == 7 and integer.grid.n == 13  # points 0..6 of −6..6
