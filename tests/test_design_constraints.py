"""`design_noise(constraints=...)`: the caller's constraints on 1-D additive noise.

Independent truth: the returned noise's mean, tail and costs by numerical integration of its
pdf (Gauss–Legendre cell by cell, the density checked constant on each cell; the geometric
tails beyond a wide range hold less than 1e-12 of the mass here), or by summing its pmf on ℤ;
constrained optima against a separate ``scipy.optimize.linprog`` solve of the discretised LP
written out here; the infeasible tail bound against the closed-form least tail of any ε-DP
noise.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import optimize

import optmech
from optmech.constraints import (
    RESIDUAL_TOL,
    Custom,
    MaxCost,
    MaxRisk,
    Monotone,
    TailBound,
    Unbiased,
)
from optmech.costs import Absolute, Asymmetric, Squared
from optmech.exceptions import InaccurateSolutionWarning, InfeasibleConstraintsError

OVER, UNDER = 3.0, 1.0
ASYM = Asymmetric(over=OVER, under=UNDER)


def _asym(e: np.ndarray | float) -> np.ndarray:
    e = np.asarray(e, dtype=float)
    return np.where(e >= 0, OVER * e, -UNDER * e)


def _expect(noise, fn, *, reach: float = 60.0, pieces: int = 960, edges=None) -> float:
    """``∫ fn(z) pdf(z) dz`` plus the atom's ``fn(0)``, on pieces of width ``2·reach/pieces``
    (the cells of the designs below are 1/8 wide, so every piece lies inside one cell) or on
    the given ``edges``.

    The density, read with ``pdf``, must be one constant across each piece (checked at three
    interior points: a piece straddling two cells fails here rather than integrating wrongly);
    ``fn`` is integrated on each piece by 5-point Gauss–Legendre, exact for the integrands used
    here (polynomials of degree ≤ 2 between their kinks and jumps, which lie on piece edges).
    """
    edges = np.linspace(-reach, reach, pieces + 1) if edges is None else np.asarray(edges)
    a, b = edges[:-1], edges[1:]
    inside = a[:, None] + (b - a)[:, None] * np.array([0.01, 0.5, 0.99])[None, :]
    density = noise.pdf(inside)
    np.testing.assert_allclose(density, density[:, 1:2].repeat(3, axis=1), rtol=1e-12, atol=0)
    nodes, weights = np.polynomial.legendre.leggauss(5)
    z = (a + b)[:, None] / 2 + (b - a)[:, None] / 2 * nodes[None, :]
    values = np.vectorize(fn, otypes=[float])(z)
    total = float(np.sum(density[:, 1] * (b - a) / 2 * (values @ weights)))
    atom = float(getattr(noise, "atom", 0.0))
    return total + atom * float(fn(0.0))


def _design(privacy, cost, **options):
    return optmech.design_noise(privacy, sensitivity=1.0, cost=cost, **options)


def _linprog(
    epsilon: float,
    cells: int,
    periods: int,
    cell_integral,
    equalities=(),
    inequalities=(),
) -> float:
    """The ε-DP LP on a finite grid of ``cells`` per Δ = 1, written out here: densities
    ``f_j ≥ 0`` on ``[j h, (j + 1) h)``, ``Σ f_j h = 1``, ``f_i ≤ e^ε f_j`` for ``|i − j| ≤
    cells``, extra rows given as functions of the cell edges; minimise ``Σ f_j ∫_cell c``."""
    h = 1.0 / cells
    j = np.arange(-periods * cells, periods * cells)
    lo, hi = j * h, (j + 1) * h
    n = j.size
    rows, cols, vals = [], [], []
    r = 0
    for d in range(-cells, cells + 1):
        if d == 0:
            continue
        i = np.arange(max(0, -d), min(n, n - d))
        rows += [r + np.arange(i.size)] * 2
        cols += [i, i + d]
        vals += [np.ones(i.size), -math.exp(epsilon) * np.ones(i.size)]
        r += i.size
    a_priv = sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(r, n)
    )
    a_ub = sp.vstack([a_priv, *[sp.csr_matrix(g(lo, hi)[None, :]) for g, _ in inequalities]])
    b_ub = np.concatenate([np.zeros(r), [b for _, b in inequalities]])
    a_eq = np.vstack([np.full(n, h), *[g(lo, hi) for g in equalities]])
    b_eq = np.concatenate([[1.0], np.zeros(len(equalities))])
    res = optimize.linprog(
        cell_integral(lo, hi),
        A_ub=a_ub,
        b_ub=b_ub,
        A_eq=a_eq,
        b_eq=b_eq,
        method="highs",
        options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
    )
    assert res.status == 0, res.message
    return float(res.fun)


def _asym_integral(lo, hi):
    """∫ over [lo, hi] of 3e⁺ + e⁻ (cells never straddle 0)."""
    return np.where(lo >= 0, OVER * (hi**2 - lo**2) / 2, UNDER * (lo**2 - hi**2) / 2)


def _first_moment(lo, hi):
    return (hi**2 - lo**2) / 2


# -- Unbiased -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def asymmetric_pair():
    privacy = optmech.PureDP(2.0)
    options = {"resolution": 4, "periods": 16}
    free = _design(privacy, ASYM, **options)
    unbiased = _design(privacy, ASYM, constraints=Unbiased(), **options)
    return free, unbiased


def test_unconstrained_asymmetric_design_is_biased(asymmetric_pair):
    free, _ = asymmetric_pair
    assert _expect(free, lambda z: z) < -0.05  # over-estimates cost 3x: the noise leans left


def test_unbiased_design_has_zero_mean_by_quadrature(asymmetric_pair):
    free, unbiased = asymmetric_pair
    assert abs(_expect(unbiased, lambda z: z)) < 1e-8
    assert abs(_expect(unbiased, lambda z: 1.0) - 1.0) < 1e-8
    # it costs more than the biased optimum, never less than its certified lower bound
    assert unbiased.value > free.value * (1 + 1e-3)
    assert unbiased.value >= free.lower_bound
    assert unbiased.value == pytest.approx(_expect(unbiased, _asym), rel=1e-8)


def test_unbiased_optimum_matches_a_separate_linprog(asymmetric_pair):
    _, unbiased = asymmetric_pair
    expected = _linprog(2.0, 4, 16, _asym_integral, equalities=[_first_moment])
    # the design has geometric tails beyond 16 periods (mass ~e^-32): the LPs agree to that;
    # the certified interval holds the separate LP's optimum
    assert unbiased.lower_bound <= expected * (1 + 1e-9)
    assert expected <= unbiased.value * (1 + 1e-9)
    assert unbiased.value == pytest.approx(expected, rel=1e-7)


def test_provenance_lists_every_constraint_with_its_residual():
    constraints = [Unbiased(), MaxRisk(5.0), Monotone()]
    noise = _design(optmech.PureDP(2.0), ASYM, resolution=4, periods=10, constraints=constraints)
    records = noise.provenance.constraints
    assert [r.name for r in records] == [c.name for c in constraints]
    assert [r.kind for r in records] == ["equality", "inequality", "inequality"]
    assert all(0.0 <= r.residual <= RESIDUAL_TOL for r in records)
    assert records[0].residual == pytest.approx(abs(_expect(noise, lambda z: z)), abs=1e-8)
    assert _expect(noise, _asym) <= 5.0
    assert noise.to_dict()  # the record serialises


def test_unbiased_lattice_noise_sums_to_zero_mean():
    noise = optmech.design_noise(
        optmech.PureDP(1.0), sensitivity=2, cost=ASYM, integer=True, periods=20,
        constraints=[Unbiased()],
    )  # fmt: skip
    k = np.arange(-400, 401)
    pmf = noise.pmf(k)
    assert abs(pmf.sum() - 1.0) < 1e-12
    assert abs(float(k @ pmf)) < 1e-9
    assert noise.value == pytest.approx(float(_asym(k) @ pmf), rel=1e-9)


def test_unbiased_approx_dp_design():
    privacy = optmech.ApproxDP(1.0, 1e-3)
    noise = _design(privacy, ASYM, resolution=8, constraints=[Unbiased()])
    assert noise.certified_delta <= 1e-3
    assert noise.certified_epsilon <= 1.0 or noise.certified_delta <= 1e-3
    assert abs(_expect(noise, lambda z: z, reach=30.0, pieces=480)) < 1e-8
    free = _design(privacy, ASYM, resolution=8)
    assert noise.value >= free.lower_bound


# -- TailBound ------------------------------------------------------------------------------------
def test_tail_bound_tightens_the_tail():
    epsilon, t = 2.0, 0.5
    privacy = optmech.PureDP(epsilon)
    options = {"resolution": 4, "periods": 16}
    free = _design(privacy, "abs", **options)
    far = lambda z: float(abs(z) > t)  # noqa: E731
    least = 1.0 - math.tanh(epsilon / 2)  # the least P(|Z| > Δ/2) of ε-DP noise (below)
    free_tail = _expect(free, far)
    assert free_tail > least + 0.01  # the optimum's tail can be tightened
    q = (least + free_tail) / 2
    noise = _design(privacy, "abs", constraints=TailBound(t, q), **options)
    tail = float(noise.cdf(-t)) + float(noise.sf(t))
    assert tail <= q + 1e-9
    assert _expect(noise, far) == pytest.approx(q, abs=1e-7)  # binding
    assert free.lower_bound <= free.value < noise.value
    expected = _linprog(
        epsilon,
        4,
        16,
        lambda lo, hi: (np.abs(hi) * hi - np.abs(lo) * lo) / 2,
        inequalities=[(lambda lo, hi: np.where((lo >= t) | (hi <= -t), hi - lo, 0.0), q)],
    )
    assert noise.lower_bound <= expected * (1 + 1e-9)
    assert expected <= noise.value * (1 + 1e-9)
    assert noise.value == pytest.approx(expected, rel=1e-7)


def test_tail_bound_below_every_private_noise_is_refused():
    # P(|Z| ≤ 1/2) ≤ tanh(ε/2) for every ε-DP noise with Δ = 1 (the cells [k − 1/2, k + 1/2)
    # carry at least e^(−ε|k|) times the middle one); the discrete staircase attains it.
    epsilon = 1.0
    least = 1.0 - math.tanh(epsilon / 2)  # 0.5379
    with pytest.raises(InfeasibleConstraintsError, match=r"TailBound") as info:
        _design(
            optmech.PureDP(epsilon), "abs", resolution=8, periods=8,
            constraints=[TailBound(0.5, least - 0.01), Unbiased()],
        )  # fmt: skip
    assert info.value.constraints == (TailBound(0.5, least - 0.01).name,)
    noise = _design(
        optmech.PureDP(epsilon), "abs", resolution=8, periods=8,
        constraints=[TailBound(0.5, least + 0.005)],
    )  # fmt: skip
    assert float(noise.cdf(-0.5)) + float(noise.sf(0.5)) <= least + 0.005 + 1e-9


# -- MaxCost --------------------------------------------------------------------------------------
@pytest.mark.parametrize("solver", [None, "CLARABEL"])
def test_max_cost_keeps_the_absolute_error_under_a_bound(solver):
    # At ε = 3 the squared-error optimum has E|Z| = 0.2424, the least E|Z| is 0.2349. An
    # interior-point point misses the bound by its tolerance before the margins.
    privacy, bound = optmech.PureDP(3.0), 0.238
    options = {"resolution": 16, "periods": 12, "solver": solver}
    quad = {"reach": 12.0, "pieces": 384}  # pieces of 1/16, the cells
    free = _design(privacy, Squared(), **options)
    assert _expect(free, abs, **quad) > bound + 0.003
    noise = _design(privacy, Squared(), constraints=MaxCost(Absolute(), bound), **options)
    assert _expect(noise, abs, **quad) <= bound * (1 + 1e-8)
    assert _expect(noise, abs, **quad) == pytest.approx(bound, rel=1e-6)
    assert noise.value == pytest.approx(_expect(noise, lambda z: z * z, **quad), rel=1e-8)
    assert noise.value > free.value * (1 + 1e-4)
    assert noise.value >= free.lower_bound
    expected = _linprog(
        3.0,
        16,
        12,
        lambda lo, hi: (hi**3 - lo**3) / 3,
        inequalities=[(lambda lo, hi: (np.abs(hi) * hi - np.abs(lo) * lo) / 2, bound)],
    )
    # the certified interval holds the separate LP's optimum (tails of mass e^-36 aside)
    assert noise.lower_bound <= expected * (1 + 1e-9)
    assert expected <= noise.value * (1 + 1e-9)
    assert noise.value == pytest.approx(expected, rel=1e-5 if solver else 1e-7)


def test_max_risk_on_a_graded_grid():
    privacy = optmech.PureDP(4.0)
    free = _design(privacy, ASYM, grid="graded", periods=6)
    noise = _design(privacy, ASYM, grid="graded", periods=6, constraints=[Unbiased()])
    bound = noise.value * (1 + 1e-3)
    capped = _design(
        privacy, ASYM, grid="graded", periods=6, constraints=[Unbiased(), MaxRisk(bound)]
    )
    assert 0.0 in capped.edges and 0.0 in noise.edges  # the kinks of the integrands
    assert _expect(capped, _asym, edges=capped.edges) <= bound
    assert abs(_expect(noise, lambda z: z, edges=noise.edges)) < 1e-8
    assert noise.value >= free.lower_bound


# -- callables and refusals -----------------------------------------------------------------------
def test_an_affine_callable_becomes_rows_of_the_lp():
    # P(Z > 3) ≤ 0.005 through the cell masses: the same as a one-sided tail bound, so the
    # separate LP has that row.
    def right_tail(v):
        return [v.masses[v.centres > 3].sum() <= 0.005]

    options = {"resolution": 4, "periods": 16}
    noise = _design(optmech.PureDP(2.0), "abs", constraints=Custom(right_tail), **options)
    (record,) = noise.provenance.constraints
    assert record.kind == "custom" and record.residual < 1e-9
    assert _expect(noise, lambda z: float(z > 3)) <= 0.005 + 1e-9
    expected = _linprog(
        2.0,
        4,
        16,
        lambda lo, hi: (np.abs(hi) * hi - np.abs(lo) * lo) / 2,
        inequalities=[(lambda lo, hi: np.where(lo >= 3, hi - lo, 0.0), 0.005)],
    )
    assert noise.lower_bound <= expected * (1 + 1e-9) and expected <= noise.value * (1 + 1e-9)


def test_a_conic_callable_is_passed_to_the_solver():
    import cvxpy as cp

    def spread(v):  # the unconstrained optimum's cell masses have norm 0.19
        return [cp.norm(v.masses, 2) <= 0.17]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InaccurateSolutionWarning)  # its bound is a relaxation's
        noise = _design(
            optmech.PureDP(1.0), "abs", resolution=8, periods=8, constraints=Custom(spread)
        )
    (record,) = noise.provenance.constraints
    assert record.kind == "custom" and record.residual < 1e-6
    edges = np.arange(-64, 64) / 8
    masses = noise.cdf(edges + 1 / 8) - noise.cdf(edges)
    assert float(np.sqrt(np.sum(masses**2))) <= 0.17 + 1e-6
    free = _design(optmech.PureDP(1.0), "abs", resolution=8, periods=8)
    assert noise.value > free.value * (1 + 1e-3)


@pytest.mark.parametrize(
    ("privacy", "options"),
    [
        (optmech.ZCDP(0.5), {"cost": "abs"}),
        (optmech.PureDP(1.0), {"cost": "l2", "dimension": 2, "sensitivity_norm": "l2"}),
    ],
)
def test_unsupported_designs_refuse_constraints_by_name(privacy, options):
    with pytest.raises(ValueError, match=r"`constraints`.*PureDP and ApproxDP"):
        optmech.design_noise(privacy, sensitivity=1.0, constraints=Unbiased(), **options)


def test_bad_constraints_are_refused():
    with pytest.raises(TypeError, match="constraints"):
        _design(optmech.PureDP(1.0), "abs", constraints=3.0)


def test_centring_mixes_a_biased_private_noise_to_zero_mean():
    from optmech.certify.noise import noise_epsilon
    from optmech.lp.additive.constrained import constrained_lp
    from optmech.lp.additive.constraint_rows import centred
    from optmech.lp.additive.lp import build_additive_lp
    from optmech.lp.additive.spec import AdditiveSpec

    spec = AdditiveSpec(optmech.PureDP(1.0), 1.0, ASYM, resolution=8, periods=12, grid="uniform")
    lp = constrained_lp(build_additive_lp(spec), [Unbiased()])
    # a grid Laplace centred at 0.3: ε-DP, mean about 0.3
    shifted = np.exp(-np.abs(lp.grid.centres() - 0.3))
    family, kwargs = centred(lp, lp.noise_parts(shifted, 0.0)[1])
    noise = family(**kwargs)
    assert abs(_expect(noise, lambda z: z, reach=30.0, pieces=480)) < 1e-9
    assert abs(_expect(noise, lambda z: 1.0, reach=30.0, pieces=480) - 1.0) < 1e-9
    assert noise_epsilon(noise.grid_description().with_reach(8)) <= 1.0 + 1e-9


def test_unbiased_linear_asymmetric_cost_is_twice_the_absolute_error():
    # With E Z = 0, E Z⁺ = E Z⁻, so E[3 Z⁺ + Z⁻] = 2 E|Z|: the unbiased optimum is twice the
    # least E|Z|, the staircase's e^(ε/2)/(e^ε − 1)·Δ (Geng & Viswanath (2016), Thm. 4) as the
    # grid refines.
    epsilon = 2.0
    v_star = math.exp(epsilon / 2) / math.expm1(epsilon)
    noise = _design(optmech.PureDP(epsilon), ASYM, resolution=8, periods=10, constraints=Unbiased())
    assert 2 * v_star * (1 - 1e-9) <= noise.value <= 2 * v_star * 1.005
    absolute = _design(optmech.PureDP(epsilon), "abs", resolution=8, periods=10)
    assert noise.value == pytest.approx(2 * absolute.value, rel=1e-7)


# -- the command line -----------------------------------------------------------------------------
def test_cli_design_unbiased_and_tail():
    from optmech.cli.design import compute

    out, noise, _ = compute(
        "eps=2", cost_spec="asym:3,1", resolution=4, periods=16, unbiased=True, tail="1,0.2"
    )
    assert abs(_expect(noise, lambda z: z)) < 1e-8
    assert float(noise.cdf(-1.0)) + float(noise.sf(1.0)) <= 0.2 + 1e-9
    assert out["constraint Unbiased(): residual"] <= RESIDUAL_TOL
    with pytest.raises(ValueError, match="--tail"):
        compute("eps=2", cost_spec="abs", resolution=4, periods=4, tail="1")
    with pytest.raises(ValueError, match="probability"):
        compute("eps=2", cost_spec="abs", resolution=4, periods=4, tail="1,2")
