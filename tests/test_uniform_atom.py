"""Tests of the uniform-plus-atom (0, δ) noise (Geng, Ding, Guo & Kumar 2019).

Every expected value is computed here from the seed's definitions, by quadrature, or from
first principles, never read back from the class under test.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

from optmech.costs import Absolute, Asymmetric, Custom, Power, Squared, ZeroOne
from optmech.mechanisms.uniform_atom import UniformAtom, uniform_atom_min_cost
from optmech.privacy import ApproxDP

#: Statistical tests: total false-failure probability per sampler test (Bonferroni-split).
ALPHA = 1e-6

PARAMS = [  # (delta, sensitivity, alpha)
    (0.1, 1.0, 0.0),
    (0.1, 1.0, 0.05),
    (0.5, 2.5, 0.2),
    (0.8, 1.0, 0.4),
    (0.95, 0.3, 0.9),
]


def seed_support(delta: float, sensitivity: float, alpha: float) -> tuple[float, float]:
    """Geng et al. (2019), Fig. 1: half-width (1 − α)Δ/(2(δ − α)) and density (δ − α)/Δ."""
    return (1 - alpha) / (delta - alpha) * sensitivity / 2, (delta - alpha) / sensitivity


@pytest.mark.parametrize(("delta", "sens", "alpha"), PARAMS)
def test_parameters_follow_the_seed(delta: float, sens: float, alpha: float) -> None:
    noise = UniformAtom(delta=delta, sensitivity=sens, alpha=alpha)
    half, dens = seed_support(delta, sens, alpha)
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


@pytest.mark.parametrize(("delta", "sens", "alpha"), PARAMS)
def test_cdf_is_integrated_pdf_plus_atom(delta: float, sens: float, alpha: float) -> None:
    noise = UniformAtom(delta=delta, sensitivity=sens, alpha=alpha)
    half = noise.half_width
    xs = np.concatenate([np.linspace(-1.2 * half, 1.2 * half, 41), [-1e-12, 0.0, 1e-12]])
    for x in xs:
        lo = -1.5 * half
        continuous = (
            integrate.quad(
                noise.pdf,
                lo,
                x,
                points=[p for p in (-half, 0.0, half) if lo < p < x] or None,
                epsabs=1e-14,
                limit=200,
            )[0]
            if x > lo
            else 0.0
        )
        expected = continuous + (alpha if x >= 0 else 0.0)
        assert noise.cdf(x) == pytest.approx(expected, abs=1e-12), x
    # The jump at 0 is the atom; limits at ±inf.
    assert noise.cdf(0.0) - noise.cdf(-1e-300) == pytest.approx(alpha, abs=1e-15)
    assert noise.cdf(-np.inf) == 0.0
    assert noise.cdf(np.inf) == 1.0


@pytest.mark.parametrize(("delta", "sens", "alpha"), PARAMS)
def test_ppf_inverts_cdf(delta: float, sens: float, alpha: float) -> None:
    noise = UniformAtom(delta=delta, sensitivity=sens, alpha=alpha)
    half = noise.half_width
    x = np.linspace(-half, half, 201)
    x = x[x != 0.0]
    np.testing.assert_allclose(noise.ppf(noise.cdf(x)), x, atol=1e-12 * half)
    # Quantile definition: the smallest x with cdf(x) ≥ q.
    q = np.linspace(0.0, 1.0, 1001)
    xq = np.asarray(noise.ppf(q))
    assert np.all(np.asarray(noise.cdf(xq)) >= q - 1e-13)
    below = np.nextafter(xq, -np.inf) - 1e-12 * half
    assert np.all(np.asarray(noise.cdf(below)) <= q + 1e-13)
    assert noise.ppf(0.0) == -half and noise.ppf(1.0) == pytest.approx(half, rel=1e-15)
    if alpha > 0:
        inside_atom = (1 - alpha) / 2 + alpha * np.array([0.01, 0.5, 1.0])
        np.testing.assert_array_equal(noise.ppf(inside_atom), 0.0)


def exact_power_cost(delta: float, sens: float, alpha: float, p: float) -> float:
    """E|X|^p under P_α, by hand: (1 − α) · (1/(2L)) ∫_{−L}^{L} |x|^p = (1 − α) L^p/(p+1)."""
    half, _ = seed_support(delta, sens, alpha)
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
    half, dens = seed_support(delta, sens, alpha)
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


def test_atom_must_be_lighter_than_delta() -> None:
    """Any shift moves the atom off 0, so the atom alone spends α: α ≥ δ is refused."""
    with pytest.raises(ValueError, match=r"`alpha` must be a finite real number in \[0, 0.3\)"):
        UniformAtom(delta=0.3, alpha=0.3)


# -- the optimum (Geng, Ding, Guo & Kumar 2019, Thm. 3) --------------------------------------------
def seed_alpha_star(delta: float, p: float) -> float:
    return 0.0 if delta <= p / (p + 1) else (p + 1) * delta - p


def seed_min_cost(delta: float, p: float, sens: float) -> float:
    """Geng, Ding, Guo & Kumar 2019, Thm. 3, typed from the seed."""
    if delta <= p / (p + 1):
        return sens**p / (2**p * (p + 1) * delta**p)
    return (p + 1) ** p / (2**p * p**p) * (1 - delta) * sens**p


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
@pytest.mark.parametrize("side", [-0.15, -0.01, 0.0, 0.01, 0.15])
def test_alpha_star_minimises_exact_cost_on_a_fine_grid(p: float, side: float) -> None:
    delta = p / (p + 1) + side
    sens = 1.7
    best = UniformAtom.optimal(delta=delta, sensitivity=sens, cost=Power(p))
    assert best.alpha == pytest.approx(seed_alpha_star(delta, p), abs=1e-14)
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
    assert best_cost == pytest.approx(seed_min_cost(delta, p, sens), rel=1e-10)


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
        np.testing.assert_allclose(formula, [seed_min_cost(d, p, sens) for d in deltas], rtol=1e-12)


def test_seed_corollaries() -> None:
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
    assert out[1, 2] == pytest.approx(seed_min_cost(0.9, 3.0, 1.0), rel=1e-13)


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
    half, dens = seed_support(delta, 1.0, grid)
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


# -- sampling ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("delta", "sens", "alpha", "seed"), [(0.8, 1.0, 0.4, 1), (0.3, 2.0, 0.1, 2), (0.5, 1.0, 0.0, 3)]
)
def test_sampler_goodness_of_fit(delta: float, sens: float, alpha: float, seed: int) -> None:
    """Atom frequency by an exact binomial test and the rest by KS against U[−L, L].

    False-failure rate: ALPHA = 1e-6 in total, ALPHA/2 for each test (Bonferroni); a test fails
    when its p-value is below its share.
    """
    n = 20_000
    noise = UniformAtom(delta=delta, sensitivity=sens, alpha=alpha)
    x = noise.rvs(n, rng=seed)
    half, _ = seed_support(delta, sens, alpha)
    at_zero = int(np.sum(x == 0.0))
    if alpha > 0:
        assert stats.binomtest(at_zero, n, alpha).pvalue > ALPHA / 2
    else:
        assert at_zero == 0
    rest = x[x != 0.0]
    assert np.all(np.abs(rest) <= half)
    assert stats.kstest(rest, stats.uniform(loc=-half, scale=2 * half).cdf).pvalue > ALPHA / 2


def test_rvs_shapes_and_reproducibility() -> None:
    noise = UniformAtom(delta=0.8, alpha=0.4)
    assert isinstance(noise.rvs(rng=0), float)
    assert noise.rvs(5, rng=0).shape == (5,)
    assert noise.rvs((2, 3), rng=0).shape == (2, 3)
    assert noise.rvs(0, rng=0).shape == (0,)
    np.testing.assert_array_equal(noise.rvs(10, rng=7), noise.rvs(10, rng=np.random.default_rng(7)))
    assert not np.array_equal(noise.rvs(10, rng=7), noise.rvs(10, rng=8))


# -- bad input ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        (
            {"delta": 0.0, "alpha": 0.0},
            ValueError,
            r"`delta` must be a finite real number in \(0, 1\); got 0.0",
        ),
        ({"delta": 1.0, "alpha": 0.0}, ValueError, r"`delta` .* got 1.0"),
        ({"delta": float("nan"), "alpha": 0.0}, ValueError, "`delta`"),
        ({"delta": 0.5, "alpha": -0.1}, ValueError, r"`alpha` .*\[0, 0.5\); got -0.1"),
        ({"delta": 0.5, "alpha": 0.6}, ValueError, r"`alpha` .* got 0.6"),
        (
            {"delta": 0.5, "alpha": 0.0, "sensitivity": 0.0},
            ValueError,
            r"`sensitivity` .*\(0, inf\)",
        ),
        ({"delta": 0.5, "alpha": 0.0, "sensitivity": -1}, ValueError, "`sensitivity`"),
        ({"delta": True, "alpha": 0.0}, TypeError, "`delta` must be a real number"),
        ({"delta": "0.5", "alpha": 0.0}, TypeError, "`delta`.*str"),
        ({"delta": 0.5, "alpha": None}, TypeError, "`alpha`.*NoneType"),
        ({"delta": 1e-300, "alpha": 0.0, "sensitivity": 1e300}, ValueError, "floating-point range"),
        ({"delta": 0.5}, TypeError, "alpha"),
    ],
)
def test_bad_parameters(kwargs: dict, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        UniformAtom(**kwargs)


def test_constructor_is_keyword_only() -> None:
    with pytest.raises(TypeError):
        UniformAtom(0.5, 1.0, 0.0)  # type: ignore[misc]


def test_bad_arguments_of_methods_and_helper() -> None:
    noise = UniformAtom(delta=0.5, alpha=0.1)
    with pytest.raises(ValueError, match="`q` must be in"):
        noise.ppf(1.5)
    with pytest.raises(ValueError, match="NaN"):
        noise.cdf(np.nan)
    with pytest.raises(TypeError, match="`cost` must be"):
        noise.expected_cost(None)
    with pytest.raises(ValueError, match="`size`"):
        noise.rvs(-1)
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


def test_repr_round_trips() -> None:
    noise = UniformAtom(delta=0.8, sensitivity=2.0, alpha=0.4)
    again = eval(repr(noise), {"UniformAtom": UniformAtom})
    assert (again.delta, again.sensitivity, again.alpha) == (0.8, 2.0, 0.4)


def test_extreme_but_valid_parameters_stay_finite() -> None:
    for delta, sens, alpha in [(1e-12, 1.0, 0.0), (1 - 1e-12, 1e-6, 1 - 2e-12), (0.5, 1e100, 0.25)]:
        noise = UniformAtom(delta=delta, sensitivity=sens, alpha=alpha)
        cost = noise.expected_cost(Absolute())
        assert math.isfinite(cost)
        assert cost == pytest.approx(exact_power_cost(delta, sens, alpha, 1.0), rel=1e-9)
