"""Tests of the uniform-plus-atom (0, δ) noise (Geng, Ding, Guo & Kumar 2019).

Every expected value is computed here from the paper's definitions, by quadrature, or from
first principles, never read back from the class under test. What every family shares (goodness
of fit, empirical privacy, bad parameters, density against cdf, quantiles, tails, repr) is checked
by the conformance battery, ``test_family_battery``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate

from optmech.costs import Absolute, Asymmetric, Custom, Power, Squared, ZeroOne
from optmech.mechanisms.uniform_atom import UniformAtom, uniform_atom_min_cost
from optmech.privacy import ApproxDP

PARAMS = [  # (delta, sensitivity, alpha)
    (0.1, 1.0, 0.0),
    (0.1, 1.0, 0.05),
    (0.5, 2.5, 0.2),
    (0.8, 1.0, 0.4),
    (0.95, 0.3, 0.9),
]


def paper_support(delta: float, sensitivity: float, alpha: float) -> tuple[float, float]:
    """Geng et al. (2019), Fig. 1: half-width (1 − α)Δ/(2(δ − α)) and density (δ − α)/Δ."""
    return (1 - alpha) / (delta - alpha) * sensitivity / 2, (delta - alpha) / sensitivity


@pytest.mark.parametrize(("delta", "sens", "alpha"), PARAMS)
def test_parameters_follow_the_paper(delta: float, sens: float, alpha: float) -> None:
    noise = UniformAtom(delta=delta, sensitivity=sens, alpha=alpha)
    half, dens = paper_support(delta, sens, alpha)
    assert noise.half_width == pytest.approx(half, rel=1e-14)
    assert noise.density == pytest.approx(dens, rel=1e-14)
    assert noise.atom == noise.alpha == alpha
    assert noise.privacy == ApproxDP(0.0, delta)
    assert (noise.epsilon, noise.delta, noise.sensitivity) == (0.0, delta, sens)
    x = np.array([-2 * half, -half * 1.0001, -half * 0.999, -1e-9, 0.0, 0.3 * half, half * 1.01])
    expected = np.where(np.abs(x) <= half, dens, 0.0)
    np.testing.assert_allclose(noise.pdf(x), expected, rtol=1e-14)
    # Total mass: uniform part (quadrature) plus the atom.
    mass = integrate.quad(noise.pdf, -half, half, points=[0.0])[0]
    assert mass + alpha == pytest.approx(1.0, abs=1e-12)


def exact_power_cost(delta: float, sens: float, alpha: float, p: float) -> float:
    """E|X|^p under P_α, by hand: (1 − α) · (1/(2L)) ∫_{−L}^{L} |x|^p = (1 − α) L^p/(p+1)."""
    half, _ = paper_support(delta, sens, alpha)
    return (1 - alpha) * half**p / (p + 1)


@pytest.mark.parametrize(("delta", "sens", "alpha"), PARAMS)
@pytest.mark.parametrize("p", [0.5, 1.0, 2.0, 3.0, 4.5])
def test_power_costs_match_closed_form(delta: float, sens: float, alpha: float, p: float) -> None:
    noise = UniformAtom(delta=delta, sensitivity=sens, alpha=alpha)
    expected = exact_power_cost(delta, sens, alpha, p)
    assert noise.expected_cost(Power(p)) == pytest.approx(expected, rel=1e-10)
    if p == 1.0:
        assert noise.expected_cost(Absolute()) == pytest.approx(expected, rel=1e-10)
        assert noise.expected_cost("abs") == pytest.approx(expected, rel=1e-10)
    if p == 2.0:
        assert noise.expected_cost(Squared()) == pytest.approx(expected, rel=1e-10)


COSTS = [
    Absolute(),
    Squared(),
    Power(2.5),
    ZeroOne(0.3),
    Asymmetric(over=3.0, under=1.0, p=1.5),
    Custom(lambda e: np.log1p(e * e)),  # quadrature path inside Cost.integral
    Custom(lambda e: 1.0 + np.abs(e)),  # c(0) = 1: the atom's α·c(0) term must appear
]


@pytest.mark.parametrize("cost", COSTS, ids=repr)
@pytest.mark.parametrize(("delta", "sens", "alpha"), PARAMS[1:4])
def test_expected_cost_matches_quadrature(cost, delta: float, sens: float, alpha: float) -> None:
    noise = UniformAtom(delta=delta, sensitivity=sens, alpha=alpha)
    half, dens = paper_support(delta, sens, alpha)
    breaks = [-half, 0.0, half] + (
        [-cost.tolerance, cost.tolerance] if isinstance(cost, ZeroOne) else []
    )
    breaks = sorted(b for b in set(breaks) if -half <= b <= half)
    uniform = sum(
        integrate.quad(lambda x: float(cost(x)) * dens, lo, hi, epsabs=0, epsrel=1e-13)[0]
        for lo, hi in itertools.pairwise(breaks)
    )
    expected = alpha * float(cost(0.0)) + uniform
    assert noise.expected_cost(cost) == pytest.approx(expected, rel=1e-10)


def hockey_stick_zero_eps(noise: UniformAtom, d: float) -> float:
    """sup_S P(S) − P(S + d) for X ~ noise and X + d, computed from the pdf and the atom.

    Atom part: X has mass α at 0, X + d has its atom at d ≠ 0 and none at 0, so the atom adds
    (α − 0)_+. Continuous part: ∫ (f(x) − f(x − d))_+ dx, exact for the piecewise-constant pdf by
    summing over the pieces between all breakpoints of f(x) and f(x − d).
    """
    half = noise.half_width
    cuts = np.unique(np.array([-half, half, -half + d, half + d, 0.0, d]))
    lo, hi = cuts[:-1], cuts[1:]
    mid = (lo + hi) / 2
    diff = np.asarray(noise.pdf(mid)) - np.asarray(noise.pdf(mid - d))
    return noise.atom + float(np.sum(np.clip(diff, 0.0, None) * (hi - lo)))


@pytest.mark.parametrize(("delta", "sens", "alpha"), PARAMS)
def test_zero_delta_privacy_on_a_grid_of_shifts(delta: float, sens: float, alpha: float) -> None:
    noise = UniformAtom(delta=delta, sensitivity=sens, alpha=alpha)
    shifts = sens * np.linspace(0.0, 1.0, 101)[1:]
    divergence = np.array([hockey_stick_zero_eps(noise, d) for d in shifts])
    assert np.all(divergence <= delta * (1 + 1e-12))
    # The bound is tight at the full sensitivity (the family spends all of δ) ...
    assert divergence[-1] == pytest.approx(delta, rel=1e-12)
    # ... and a shift beyond it breaks (0, δ): the check can fail.
    assert hockey_stick_zero_eps(noise, 1.05 * sens) > delta
    # Negative shifts by symmetry give the same divergence.
    assert hockey_stick_zero_eps(noise, -0.5 * sens) == pytest.approx(divergence[49], rel=1e-12)


# -- the optimum (Geng, Ding, Guo & Kumar 2019, Thm. 3) --------------------------------------------
def paper_alpha_star(delta: float, p: float) -> float:
    return 0.0 if delta <= p / (p + 1) else (p + 1) * delta - p


def paper_min_cost(delta: float, p: float, sens: float) -> float:
    """Geng, Ding, Guo & Kumar 2019, Thm. 3, typed from the paper."""
    if delta <= p / (p + 1):
        return sens**p / (2**p * (p + 1) * delta**p)
    return (p + 1) ** p / (2**p * p**p) * (1 - delta) * sens**p


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
@pytest.mark.parametrize("side", [-0.15, -0.01, 0.0, 0.01, 0.15])
def test_alpha_star_minimises_exact_cost_on_a_fine_grid(p: float, side: float) -> None:
    delta = p / (p + 1) + side
    sens = 1.7
    best = UniformAtom.optimal(delta=delta, sensitivity=sens, cost=Power(p))
    assert best.alpha == pytest.approx(paper_alpha_star(delta, p), abs=1e-14)
    # The atom appears exactly when δ > p/(p + 1).
    assert (best.alpha > 0) == (delta > p / (p + 1))
    best_cost = best.expected_cost(Power(p))
    grid = delta * np.linspace(0.0, 1.0, 1501)[:-1]
    costs = np.array(
        [UniformAtom(delta=delta, sensitivity=sens, alpha=a).expected_cost(Power(p)) for a in grid]
    )
    assert best_cost <= costs.min() * (1 + 1e-12)
    step = grid[1]
    assert abs(grid[int(np.argmin(costs))] - best.alpha) <= step
    assert best_cost == pytest.approx(paper_min_cost(delta, p, sens), rel=1e-10)


@pytest.mark.parametrize("p", [0.5, 1.0, 2.0, 3.0, 7.0])
def test_min_cost_formula_matches_exact_cost(p: float) -> None:
    deltas = np.array([0.01, 0.2, p / (p + 1) - 1e-3, p / (p + 1), p / (p + 1) + 1e-3, 0.999])
    deltas = deltas[(deltas > 0) & (deltas < 1)]
    for sens in (0.5, 1.0, 3.0):
        formula = np.asarray(uniform_atom_min_cost(deltas, p, sens))
        exact = [
            UniformAtom.optimal(delta=d, sensitivity=sens, cost=Power(p)).expected_cost(Power(p))
            for d in deltas
        ]
        np.testing.assert_allclose(formula, exact, rtol=1e-10)
        np.testing.assert_allclose(
            formula, [paper_min_cost(d, p, sens) for d in deltas], rtol=1e-12
        )


def test_paper_corollaries() -> None:
    """Noise magnitude Δ/(4δ) | (1 − δ)Δ and power Δ²/(12δ²) | (9/16)(1 − δ)Δ² (Geng, Ding, Guo &
    Kumar 2019)."""
    sens = 2.0
    for d in (0.2, 0.5, 0.7, 0.9):
        mag = sens / (4 * d) if d <= 0.5 else (1 - d) * sens
        power = sens**2 / (12 * d**2) if d <= 2 / 3 else 9 / 16 * (1 - d) * sens**2
        assert uniform_atom_min_cost(d, 1, sens) == pytest.approx(mag, rel=1e-13)
        assert uniform_atom_min_cost(d, 2, sens) == pytest.approx(power, rel=1e-13)


def test_min_cost_broadcasts() -> None:
    out = uniform_atom_min_cost(np.array([[0.2], [0.9]]), np.array([1.0, 2.0, 3.0]))
    assert out.shape == (2, 3)
    assert isinstance(uniform_atom_min_cost(0.3, 2.0), float)
    assert out[1, 2] == pytest.approx(paper_min_cost(0.9, 3.0, 1.0), rel=1e-13)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
@pytest.mark.parametrize("delta", [0.3, 0.6, 0.9])
def test_generic_optimiser_agrees_with_closed_form(p: float, delta: float) -> None:
    custom = Custom(lambda e, p=p: np.abs(e) ** p)  # same cost, but no closed-form shortcut
    numeric = UniformAtom.optimal(delta=delta, sensitivity=1.3, cost=custom)
    closed = UniformAtom.optimal(delta=delta, sensitivity=1.3, cost=Power(p))
    assert numeric.alpha == pytest.approx(closed.alpha, abs=1e-7)
    assert numeric.expected_cost(Power(p)) == pytest.approx(
        closed.expected_cost(Power(p)), rel=1e-12
    )


@pytest.mark.parametrize("delta", [0.3, 0.8, 0.95])
def test_generic_optimiser_on_a_capped_cost_beats_a_fine_grid(delta: float) -> None:
    """c = min(|e|, 2): no closed form; the optimiser must match a 4000-point grid search."""
    capped = Custom(lambda e: np.minimum(np.abs(e), 2.0))
    best = UniformAtom.optimal(delta=delta, cost=capped)
    grid = delta * np.linspace(0.0, 1.0, 4001)[:-1]
    half, dens = paper_support(delta, 1.0, grid)
    # By hand: ∫_0^L min(x, 2) dx = L²/2 for L ≤ 2, else 2L − 2.
    costs = 2 * dens * np.where(half <= 2, half**2 / 2, 2 * half - 2)
    assert best.expected_cost(capped) <= costs.min() * (1 + 1e-12)
    assert best.expected_cost(capped) == pytest.approx(costs.min(), rel=1e-5)  # grid step


def test_generic_optimiser_on_zero_one_costs() -> None:
    # P(|X| > t) = (1 − α) − 2t(δ − α)/Δ: non-decreasing in α iff t ≥ Δ/2.
    for t in (0.5, 0.75, 3.0):
        assert UniformAtom.optimal(delta=0.8, cost=ZeroOne(t)).alpha == 0.0
    with pytest.raises(ValueError, match="not attained"):
        UniformAtom.optimal(delta=0.8, cost=ZeroOne(0.25))


def test_optimal_rejects_costs_outside_the_theorem() -> None:
    with pytest.raises(ValueError, match="must be symmetric and non-decreasing"):
        UniformAtom.optimal(delta=0.5, cost=Asymmetric(over=2.0, under=1.0))
    with pytest.raises(ValueError, match=r"not non-decreasing in \|e\|"):
        UniformAtom.optimal(delta=0.5, cost=Custom(lambda e: np.cos(e) ** 2))
    with pytest.raises(TypeError, match="`cost` must be"):
        UniformAtom.optimal(delta=0.5, cost=3)


def test_bad_arguments_of_the_helper() -> None:
    with pytest.raises(ValueError, match=r"`p` must be in \(0, inf\); got -1.0"):
        uniform_atom_min_cost(0.5, -1.0)
    with pytest.raises(ValueError, match=r"`delta` must be in \(0, 1\); got 1.5"):
        uniform_atom_min_cost([0.5, 1.5], 1.0)
    with pytest.raises(ValueError, match="must broadcast together"):
        uniform_atom_min_cost([0.1, 0.2], [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="`p` must be an array of real numbers"):
        uniform_atom_min_cost(0.5, "abc")
    with pytest.raises(ValueError, match="overflows"):
        uniform_atom_min_cost(0.5, 2.0, 1e200)


def test_extreme_but_valid_parameters_stay_finite() -> None:
    for delta, sens, alpha in [(1e-12, 1.0, 0.0), (1 - 1e-12, 1e-6, 1 - 2e-12), (0.5, 1e100, 0.25)]:
        noise = UniformAtom(delta=delta, sensitivity=sens, alpha=alpha)
        cost = noise.expected_cost(Absolute())
        assert math.isfinite(cost)
        assert cost == pytest.approx(exact_power_cost(delta, sens, alpha, 1.0), rel=1e-9)
