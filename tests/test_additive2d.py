"""2-D noise designed by LP for ℓ1, ℓ2 and ℓ∞ balls of shifts (``design_noise(dimension=2)``).

Independent truths:

* privacy: 2·10⁵ random real points and real shifts in the ball (half of them on its boundary)
  against the designed density's own ``logpdf`` — no grid, no footprint;
* lower bounds from 1-D theory (the 1-D staircase optimum ``V*`` of Geng & Viswanath 2016,
  :class:`optmech.Staircase`): every ball holds the axis shifts ``(s, 0)`` and the diagonal
  shifts ``(s, ±s)`` for ``|s| ≤ σΔ`` (σ = 1/2, 1/√2, 1 for ℓ1, ℓ2, ℓ∞), so ``X₁``, ``X₂`` are
  ε-DP with sensitivity Δ and ``X₁ ± X₂`` with sensitivity ``2σΔ``; with
  ``‖x‖₁ ≥ |x₁| + |x₂|``, ``‖x‖∞ = (|x₁ + x₂| + |x₁ − x₂|)/2 ≥ (|x₁| + |x₂|)/2`` and
  ``‖x‖₂ ≥ max((|x₁| + |x₂|)/√2, (|x₁ + x₂| + |x₁ − x₂|)/2)`` every design costs at least
  ``2V*`` (ℓ1 cost), ``max(1, 2σ)V*`` (ℓ∞ cost), ``max(√2, 2σ)V*`` (ℓ2 cost);
* an upper bound: two independent 1-D staircases at ε/2 with their step on the grid (their
  product is ε-DP for every ball inside ``[−Δ, Δ]²`` and is a point of the LP: one of its
  tail shapes), whose ℓ1 cost is ``2·E|X|`` from the 1-D closed form — so the certified
  *lower* bound of the LP's optimum cannot exceed it, with no slack;
* nesting: ℓ1 ⊂ ℓ2 ⊂ ℓ∞ balls give nested LPs (rows and tail shapes), so the optima are
  ordered;
* Monte Carlo: the sample mean of the cost against ``value``, 4 standard errors: a two-sided
  false-failure rate ``P(|Z| > 4) ≈ 6.3e-5`` (fixed seed; the cost has every moment).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

import optmech
from optmech.costs.norm import Norm
from optmech.costs.vector import VectorCustom
from optmech.exceptions import ProblemTooLargeError

EPS = 1.0
NORMS = ("l1", "l2", "linf")
#: Half-width of the diagonal shifts each ball holds, in units of Δ.
SIGMA = {"l1": 0.5, "l2": 1.0 / math.sqrt(2.0), "linf": 1.0}
N = 200_000
Z_CRIT = 4.0


@functools.cache
def _design(norm: str, cost: str = "l1", m: int = 4, periods: int = 3, **kw) -> object:
    return optmech.design_noise(
        optmech.PureDP(EPS),
        sensitivity=1.0,
        cost=cost,
        dimension=2,
        sensitivity_norm=norm,
        resolution=m,
        periods=periods,
        **kw,
    )


def _v_star(eps: float, delta: float = 1.0) -> float:
    return optmech.Staircase.optimal(epsilon=eps, sensitivity=delta, cost="abs").expected_cost(
        "abs"
    )


def _shifts(norm: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Uniform in the unit ball; the second half scaled onto its boundary (just inside)."""
    if norm == "linf":
        s = rng.uniform(-1, 1, (n, 2))
    elif norm == "l1":
        u, v = rng.uniform(-1, 1, (2, n))
        s = np.column_stack([(u + v) / 2, (u - v) / 2])
    else:
        r, a = np.sqrt(rng.random(n)), rng.uniform(0, 2 * np.pi, n)
        s = np.column_stack([r * np.cos(a), r * np.sin(a)])
    half = n // 2
    size = np.linalg.norm(s[half:], ord={"l1": 1, "l2": 2, "linf": np.inf}[norm], axis=1)
    s[half:] *= ((1 - 2**-40) / size)[:, None]
    return s


@pytest.mark.parametrize("norm", NORMS)
def test_falsification_at_random_real_points_and_shifts(norm: str) -> None:
    noise = _design(norm)
    rng = np.random.default_rng(20240601)
    span = (noise.spec.periods + 2) * noise.sensitivity
    x = np.concatenate([rng.uniform(-span, span, (N // 2, 2)), rng.normal(0, 1, (N // 2, 2))])
    s = _shifts(norm, N, rng) * noise.sensitivity
    lx, ls = noise.logpdf(x), noise.logpdf(x + s)
    assert np.all(np.isfinite(lx)) and np.all(np.isfinite(ls))  # the support is all of ℝ²
    assert float(np.max(np.abs(lx - ls))) <= EPS * (1 + 1e-9)
    assert noise.certified_epsilon <= EPS * (1 + 1e-9)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("cost", ["l1", "linf", "l2"])
def test_marginal_lower_bounds(norm: str, cost: str) -> None:
    v = _v_star(EPS)
    bound = {
        "l1": 2.0 * v,
        "linf": max(1.0, 2.0 * SIGMA[norm]) * v,
        "l2": max(math.sqrt(2.0), 2.0 * SIGMA[norm]) * v,
    }[cost]
    noise = _design(norm, cost)
    assert noise.value >= bound
    assert noise.lower_bound <= noise.value


@pytest.mark.parametrize("norm", NORMS)
def test_product_of_two_staircases_at_half_epsilon_bounds_the_optimum(norm: str) -> None:
    noise = _design(norm)
    m, h = noise.spec.resolution, noise.width
    product = min(
        2.0
        * optmech.Staircase(epsilon=EPS / 2, sensitivity=m * h, gamma=g / m).expected_cost("abs")
        for g in range(1, m + 1)
    )
    assert noise.lower_bound <= product


def test_larger_balls_never_cost_less() -> None:
    a, b, c = (_design(norm) for norm in NORMS)
    assert a.value <= b.value + a.gap
    assert b.value <= c.value + b.gap


def test_monte_carlo_cost_matches_the_value() -> None:
    noise = _design("linf")
    x = noise.rvs(N, rng=np.random.default_rng(5))
    assert x.shape == (N, 2)
    cost = np.abs(x).sum(axis=1)
    se = cost.std(ddof=1) / math.sqrt(N)
    assert abs(cost.mean() - noise.value) <= Z_CRIT * se
    assert noise.expected_cost("l1") == pytest.approx(noise.value, rel=1e-12)
    with pytest.deprecated_call(match="expected_cost"):
        assert noise.expected_cost() == noise.expected_cost(noise.spec.cost)


def test_symmetry_reduction_loses_nothing() -> None:
    """Solved on the dihedral orbits and on all cells: the same optimum."""
    a = _design("l2", m=3, periods=2, tails="gauge")
    b = _design("l2", m=3, periods=2, tails="gauge", reduce_symmetric=False)
    assert a.record.reduced == "dihedral" and b.record.reduced == "none"
    assert b.provenance.num_constraints > 2 * a.provenance.num_constraints
    assert abs(a.value - b.value) <= max(a.gap, b.gap)


def test_vector_custom_cost_with_a_smaller_symmetry_group() -> None:
    cost = VectorCustom(lambda x: np.abs(x[..., 0]) + 2.0 * np.abs(x[..., 1]), growth=(3.0, 1.0))
    noise = _design("l2", cost=cost, m=2, periods=2)
    assert noise.record.reduced == "reflections"
    assert noise.certified_epsilon <= EPS * (1 + 1e-9)
    assert noise.value >= _v_star(EPS) * 3.0  # E|X₁| ≥ V*, E|X₂| ≥ V*


def test_result_object() -> None:
    import matplotlib

    matplotlib.use("Agg")
    noise = _design("linf")
    assert noise.pdf([[0.0, 0.0], [1.0, 2.0]]).shape == (2,)
    assert isinstance(noise.pdf([0.1, 0.1]), float)
    assert noise.provenance.lower_bound == noise.lower_bound
    assert noise.total_mass == pytest.approx(1.0, abs=1e-12)
    assert "certified ε" in noise.summary()
    assert noise.record.to_dict()["sensitivity_norm"] == "linf"
    ax = noise.plot()
    assert ax.get_xlabel() == "x₁"
    assert noise.expected_cost(Norm(2)) > noise.expected_cost(Norm("linf"))


def test_bad_input() -> None:
    pure = optmech.PureDP(1.0)
    with pytest.raises(ValueError, match="`dimension`"):
        optmech.design_noise(pure, sensitivity=1.0, cost="l1", dimension=3)
    with pytest.raises(ValueError, match="`sensitivity_norm`"):
        optmech.design_noise(pure, sensitivity=1.0, cost="l1", dimension=2, sensitivity_norm="l3")
    with pytest.raises(TypeError, match="sensitivity_norm"):
        optmech.design_noise(pure, sensitivity=1.0, cost="l1", dimension=2)
    with pytest.raises(ValueError, match="pure ε-DP"):
        optmech.design_noise(
            optmech.ApproxDP(1.0, 1e-6), sensitivity=1.0, cost="l1", dimension=2,
            sensitivity_norm="l2",
        )  # fmt: skip
    with pytest.raises(TypeError, match="'grid'"):
        optmech.design_noise(
            pure, sensitivity=1.0, cost="l1", dimension=2, sensitivity_norm="l2", grid="uniform"
        )
    with pytest.raises(TypeError, match="`cost`"):
        optmech.design_noise(pure, sensitivity=1.0, cost=3, dimension=2, sensitivity_norm="l2")
    with pytest.raises(ProblemTooLargeError, match=r"about [0-9.e+]+ GB .* max_memory_gb=1"):
        optmech.design_noise(
            pure, sensitivity=1.0, cost="l1", dimension=2, sensitivity_norm="l2",
            resolution=64, periods=64, max_memory_gb=1.0,
        )  # fmt: skip


def test_a_cost_in_another_norm_beats_the_staircase_of_the_ball() -> None:
    """ℓ∞ ball, ε = 2, cost ``|x₁| + 4|x₂|``: the ℓ∞ staircase with its best γ costs
    ``E|X₁| + 4E|X₂| = 2.5·E‖X‖₁`` (its law is invariant under the swap), from the closed form;
    the LP finds a certified noise that costs less (no theorem covers this cost). On the ℓ∞
    ball the grid adds no gap, so the comparison is with the continuous staircase itself."""
    cost = VectorCustom(lambda x: np.abs(x[..., 0]) + 4.0 * np.abs(x[..., 1]), growth=(5.0, 1.0))
    noise = optmech.design_noise(
        optmech.PureDP(2.0), sensitivity=1.0, cost=cost, dimension=2, sensitivity_norm="linf",
        resolution=2, periods=4,
    )  # fmt: skip
    staircase = optmech.StaircaseND.optimal(epsilon=2.0, cost=Norm(1), norm="linf")
    assert noise.certified_epsilon <= 2.0 * (1 + 1e-9)
    assert noise.value < 2.5 * staircase.expected_cost(Norm(1))


def test_the_linf_staircase_is_beaten_for_the_l1_cost_at_large_epsilon() -> None:
    """ℓ∞ ball, ℓ1 cost, ε = 4, 12 cells per Δ: the LP's certified noise (a staircase whose
    plateau has its corners cut) costs less than the ℓ∞ staircase with its best γ, whose cost
    is the closed form (the margin, 4e-4, is 1e7 times the certified gap)."""
    noise = optmech.design_noise(
        optmech.PureDP(4.0), sensitivity=1.0, cost="l1", dimension=2, sensitivity_norm="linf",
        resolution=12, periods=2,
    )  # fmt: skip
    staircase = optmech.StaircaseND.optimal(epsilon=4.0, cost=Norm(1), norm="linf")
    assert noise.certified_epsilon <= 4.0 * (1 + 1e-9)
    assert noise.value < staircase.expected_cost(Norm(1))
