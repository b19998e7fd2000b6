"""The certified interval [lower_bound, value] of every design, and the spec's clear refusals.

Independent truths: the same LP's matrices solved by ``scipy.optimize.linprog(method="highs")``
(another solver path, no cvxpy, tight tolerances 1e-10, so its optimum is within ~1e-9
relative of the exact one: that is the tolerance of the containment checks); the continuous
optimum V* of the staircase (Geng & Viswanath 2016), which no grid density beats; and the cost
of the staircase with γ* rounded to a grid edge, a feasible point of the LP, computed here by
exact cell integrals over 400 periods (the LP's optimum is at most that).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import optimize

import optmech
from optmech.lp.additive import AdditiveSpec, build_additive_lp, finish_design
from optmech.lp.additive.grid import uniform_width
from optmech.lp.additive.repair import cell_reach
from optmech.lp.additive.rows import RowRecord
from optmech.lp.design import design_noise
from optmech.lp.solve import solve

CASES = [
    (optmech.PureDP(1.0), {"cost": "abs", "resolution": 6, "periods": 2}),
    (optmech.PureDP(1.0), {"cost": "asym:2,1", "resolution": 5, "periods": 2}),
    (optmech.PureDP(2.0), {"cost": "squared", "resolution": 6, "periods": 2, "monotone": True}),
    (optmech.PureDP(1.0), {"cost": "abs", "resolution": 4, "periods": 2, "window": "pairs"}),
    (optmech.PureDP(1.0), {"cost": "abs", "periods": 2, "window": "sparse-table"}),
    (optmech.PureDP(1.0), {"sensitivity": 3, "cost": "abs", "integer": True, "periods": 2}),
    (optmech.PureDP(8.0), {"cost": "abs"}),  # graded
    (optmech.PureDP(8.0), {"cost": "asym:3,1", "grid": "graded"}),
    (optmech.ApproxDP(1.0, 0.01), {"cost": "abs", "resolution": 6, "periods": 7}),
    (optmech.ApproxDP(0.0, 0.3), {"cost": "squared", "resolution": 6, "monotone": True}),
]


def _linprog_optimum(lp) -> float:
    res = optimize.linprog(
        lp.weights,
        A_ub=lp.a_ub,
        b_ub=lp.b_ub,
        A_eq=lp.a_eq,
        b_eq=np.ones(1),
        bounds=(0, None),
        method="highs",
        options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
    )
    assert res.status == 0, res.message
    return float(res.fun)


@pytest.mark.parametrize(("privacy", "kw"), CASES)
def test_interval_contains_the_lp_optimum(privacy, kw, lp_solver: str) -> None:
    """lower_bound ≤ optimum ≤ value, the optimum from an independent solve of the same
    matrices; the interval is narrow (no warning may be issued: pytest makes them errors)."""
    kw = {"sensitivity": 1.0, **kw}
    noise = design_noise(privacy, solver=lp_solver, **kw)
    lp = build_additive_lp(noise.spec)
    optimum = _linprog_optimum(lp)
    tol = 1e-9 * abs(optimum)
    assert noise.lower_bound <= optimum + tol
    assert optimum <= noise.value + tol
    assert noise.provenance.lower_bound == noise.lower_bound
    assert noise.value - noise.lower_bound <= 1e-6 * noise.value
    assert noise.provenance.within_accuracy


def _staircase_cost(gamma: float, eps: float, cost: str) -> float:
    """E c(X) of the staircase f_γ, Δ = 1 (Geng & Viswanath 2016), by exact cell integrals
    over 400 periods (b^400 underflows: the rest is nothing)."""
    b = math.exp(-eps)
    a = (1 - b) / (2 * (gamma + (1 - gamma) * b))
    big = (lambda x: x * x / 2.0) if cost == "abs" else (lambda x: x**3 / 3.0)
    k = np.arange(400, dtype=float)
    lo, mid, hi = k, k + gamma, k + 1
    with np.errstate(under="ignore"):
        half = np.sum(a * b**k * (big(mid) - big(lo)) + a * b ** (k + 1) * (big(hi) - big(mid)))
    return float(2 * half)


@pytest.mark.parametrize(
    ("eps", "kw"),
    [(1.0, {"resolution": 12}), (5.0, {"resolution": 20}), (8.0, {}), (15.0, {}), (25.0, {})],
)
@pytest.mark.parametrize("cost", ["abs", "squared"])
def test_closed_form_lies_in_the_interval_widened_by_the_grid(eps, kw, cost) -> None:
    """V* ≤ value, and lower_bound ≤ (staircase with γ* rounded to a grid edge): that staircase
    is a point of the LP, so the optimum — hence the lower bound — is at most its cost. The
    lower bound is also within 1e-6 of V* from above: the grid error is second order."""
    noise = design_noise(optmech.PureDP(eps), sensitivity=1.0, cost=cost, **kw)
    best = optmech.Staircase.optimal(epsilon=eps, sensitivity=1.0, cost=cost)
    v_star = best.expected_cost(cost)
    assert _staircase_cost(best.gamma, eps, cost) == pytest.approx(v_star, rel=1e-11)
    if noise.record.grid_kind == "graded":
        edges = np.concatenate([[0.0], np.cumsum(noise.widths)])
    else:
        edges = np.arange(noise.record.resolution + 1) / noise.record.resolution
    edges = edges[edges <= 0.5 + 1e-12]
    below, above = edges[edges <= best.gamma].max(), edges[edges >= best.gamma].min()
    rounded = min(_staircase_cost(g, eps, cost) for g in (below, above) if g > 0)
    assert v_star * (1 - 1e-12) <= noise.value
    assert noise.lower_bound <= rounded * (1 + 1e-12)
    assert noise.lower_bound >= v_star * (1 - 1e-6)  # tight: the closed form bounds it too


def test_multipliers_are_read_by_name() -> None:
    """Reversing the order of the row blocks changes every position and no bound."""
    spec = AdditiveSpec(optmech.PureDP(1.0), 1.0, "abs", resolution=6, periods=2, monotone=True)
    lp = build_additive_lp(spec)
    info = solve(lp.problem, solver="HIGHS", kind="additive")
    first = finish_design(lp, info)
    flipped = dataclasses.replace(lp, rows=RowRecord(tuple(reversed(lp.rows.blocks))))
    flipped = flipped.for_strategy(None)
    assert flipped.rows.names == tuple(reversed(lp.rows.names))
    info = solve(flipped.problem, solver="HIGHS", kind="additive")
    second = finish_design(flipped, info)
    assert set(flipped.duals()) == set(lp.rows.names)
    assert second.lower_bound == pytest.approx(first.lower_bound, rel=1e-9)
    assert set(flipped.constraints) == {*lp.rows.names, "normalisation"}


def test_a_rescaled_attempt_gives_the_same_interval() -> None:
    """The solver's row balancing and objective scaling are undone in the multipliers."""
    spec = AdditiveSpec(optmech.PureDP(1.0), 1.0, "squared", resolution=8, periods=2)
    lp = build_additive_lp(spec)
    plain = finish_design(lp, solve(lp.problem, solver="HIGHS", kind="additive"))
    scaled = lp.for_strategy(optmech.lp.solve.Strategy("HIGHS", rescaled=True))
    again = finish_design(scaled, solve(scaled.problem, solver="HIGHS", kind="additive"))
    assert scaled.objective_factor != lp.objective_factor
    assert again.lower_bound == pytest.approx(plain.lower_bound, rel=1e-8)
    assert again.value == pytest.approx(plain.value, rel=1e-8)


def test_unknown_options_are_refused_naming_the_valid_ones() -> None:
    with pytest.raises(TypeError, match=r"'resolutoin'.*resolution, periods"):
        design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="abs", resolutoin=4)
    with pytest.raises(ValueError, match=r"`grid` must be one of"):
        design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="abs", grid="fine")
    with pytest.raises(ValueError, match="accuracy"):
        design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="abs", accuracy=-1.0)


def test_cell_reach_and_uniform_widths_are_exact() -> None:
    """Δ/h in rationals: a reach past an integer by any amount counts; a uniform grid's width
    is Δ/m rounded up, so its reach is exactly m."""
    assert cell_reach(1.0, 0.25) == 4
    assert cell_reach(1.0, 1.0 / 3.0) == 4  # 1/3 rounds down: three cells fall short of Δ
    assert cell_reach(0.6000000001, 0.3) == 3
    for delta in (1.0, 0.7, 3.0, 1e-3):
        for m in range(1, 60):
            assert cell_reach(delta, uniform_width(delta, m)) == m
