"""Checks of the ε-DP closed forms (THEORY.md §1, §2; seeds 000, 002, 003).

Each check computes a quantity one way and compares it with an independent reference:

* ``staircase γ*``: the minimiser of the exact staircase cost, found numerically from cost
  values summed period by period (:meth:`~optmech.costs.Cost.periodic_integral`, not the
  closed-form ``E|X|``/``E X²``) and polished on the stationarity condition, against the
  closed-form γ* of THEORY.md §1 (tolerance 1e-8 relative);
* ``staircase V*``: that same period-by-period cost at γ*, against the closed-form optimum;
* ``Laplace/staircase ratio``: the ratio at ε = 10 against the 4 significant digits of
  THEORY.md §1 (tolerance: half a unit in the last digit);
* ``exact cost vs quadrature``: ``expected_cost`` against :func:`scipy.integrate.quad` of
  ``pdf·c`` over every step of the density separately (tolerance 1e-9 relative);
* ``discrete staircase reference``: ``r*`` and its cost against the reference points of
  THEORY.md §1 (tolerance: half a unit in the last digit given);
* ``discrete staircase Δ=1 = geometric``: pmfs against each other, and both against
  ``(1 − b)/(1 + b) b^|i|``;
* ``staircase density ratio``: the largest ``log f(x)/f(x + d)`` over ``|d| ≤ Δ`` on a fine grid
  with points at and just beside every step must be exactly ε (no larger: privacy; no smaller:
  the staircase is tight).

All are quick (well under 2 s together).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from scipy import integrate

from optmech.costs import Absolute, Asymmetric, Cost, Power, Squared, ZeroOne
from optmech.mechanisms.discrete_staircase import DiscreteStaircase
from optmech.mechanisms.geometric import Geometric
from optmech.mechanisms.laplace import Laplace
from optmech.mechanisms.staircase import (
    Staircase,
    _abs_optimal_cost,
    _cost_vector,
    _gamma_star_abs,
    _gamma_star_squared,
    _numeric_gamma,
    _squared_optimal_cost,
    laplace_staircase_ratio,
)
from optmech.theorems.catalogue import CheckResult, check, compare

__all__: list[str] = []

GROUP = "closed-form"
EPSILONS = (0.01, 0.1, 1.0, 2.0, 5.0, 10.0, 20.0)


def _timed(row: Callable[[], CheckResult]) -> CheckResult:
    start = time.perf_counter()
    result = row()
    return dataclasses.replace(result, seconds=time.perf_counter() - start)


@check("staircase γ* closed form", group=GROUP, quick=True)
def gamma_star_rows() -> list[CheckResult]:
    """γ* of THEORY.md §1 against the numerical minimiser of the exact cost (|e| and e²)."""
    rows = []
    for name, cost, closed in (
        ("|e|", Absolute(), _gamma_star_abs),
        ("e²", Squared(), _gamma_star_squared),
    ):
        for eps in EPSILONS:
            rows.append(
                _timed(
                    lambda eps=eps, cost=cost, closed=closed, name=name: compare(
                        f"staircase γ* ({name})",
                        f"eps={eps:g}, D=1",
                        _numeric_gamma(cost, eps, 1.0, closed_form=False),
                        float(closed(eps)),
                        1e-8,
                        group=GROUP,
                        detail="numerical argmin of the period-summed exact cost (grid, "
                        "bounded Brent, root of dE/dγ) vs closed form",
                    )
                )
            )
    return rows


@check("staircase V* closed form", group=GROUP, quick=True)
def optimal_cost_rows() -> list[CheckResult]:
    """Period-summed exact cost at γ* against the closed-form optimum V*."""
    rows = []
    for name, cost, gamma, closed in (
        ("|e|", Absolute(), _gamma_star_abs, _abs_optimal_cost),
        ("e²", Squared(), _gamma_star_squared, _squared_optimal_cost),
    ):
        for eps in EPSILONS:
            rows.append(
                _timed(
                    lambda eps=eps, cost=cost, gamma=gamma, closed=closed, name=name: compare(
                        f"staircase V* ({name})",
                        f"eps={eps:g}, D=1",
                        float(_cost_vector(cost, eps, 1.0, float(gamma(eps)), closed_form=False)),
                        float(closed(eps, 1.0)),
                        1e-10,
                        group=GROUP,
                        detail="Σ over periods of exact step integrals vs closed form",
                    )
                )
            )
    return rows


@check("Laplace/staircase ratio", group=GROUP, quick=True)
def ratio_rows() -> list[CheckResult]:
    """THEORY.md §1 reference points at ε = 10: 14.84 (|e|) and 23.61 (e²)."""
    rows = []
    for name, spec, reference in (("|e|", "abs", 14.84), ("e²", "squared", 23.61)):
        rows.append(
            _timed(
                lambda spec=spec, reference=reference, name=name: compare(
                    f"Laplace/staircase ratio ({name})",
                    "eps=10",
                    float(laplace_staircase_ratio(10.0, spec)),
                    reference,
                    0.005 / reference,
                    group=GROUP,
                    detail="reference given to 4 significant digits: ±0.005",
                )
            )
        )
    return rows


def _staircase_quadrature(noise: Staircase, cost: Cost) -> float:
    """``∫ f c`` by quad over every step separately (both sides), up to where b^k < 1e-18."""
    delta, gamma, eps = noise.sensitivity, noise.gamma, noise.epsilon
    periods = math.ceil(18.0 * math.log(10.0) / eps) + 2
    total = 0.0
    for k in range(periods):
        for lo, hi in (((k) * delta, (k + gamma) * delta), ((k + gamma) * delta, (k + 1) * delta)):
            if hi <= lo:
                continue
            height = float(noise.pdf(0.5 * (lo + hi)))
            for sign in (1.0, -1.0):
                val, _ = integrate.quad(
                    lambda x, s=sign: float(cost(s * x)), lo, hi, epsabs=0.0, epsrel=1e-13
                )
                total += height * val
    return total


def _laplace_quadrature(noise: Laplace, cost: Cost) -> float:
    total = 0.0
    for sign in (1.0, -1.0):
        val, _ = integrate.quad(
            lambda x, s=sign: float(cost(s * x)) * float(noise.pdf(x)),
            0.0,
            math.inf,
            epsabs=0.0,
            epsrel=1e-13,
            limit=200,
        )
        total += val
    return total


@check("exact cost vs quadrature", group=GROUP, quick=True)
def quadrature_rows() -> list[CheckResult]:
    """``expected_cost`` against quadrature of the density, step by step."""
    costs: list[Cost] = [
        Absolute(),
        Squared(),
        Power(1.5),
        Asymmetric(over=3, under=1, p=2),
        ZeroOne(0.7),
    ]
    rows = []
    for eps, delta, gamma in ((2.0, 1.0, 0.3), (4.0, 0.5, 0.8)):
        noise = Staircase(epsilon=eps, sensitivity=delta, gamma=gamma)
        for cost in costs:
            rows.append(
                _timed(
                    lambda noise=noise, cost=cost: compare(
                        "staircase exact cost vs quad",
                        f"{noise!r}, {cost!r}",
                        noise.expected_cost(cost),
                        _staircase_quadrature(noise, cost),
                        1e-9,
                        group=GROUP,
                        detail="quad (epsrel 1e-13) on each step, both sides",
                    )
                )
            )
    lap = Laplace(epsilon=0.7, sensitivity=1.5)
    for cost in costs:
        rows.append(
            _timed(
                lambda cost=cost: compare(
                    "Laplace exact cost vs quad",
                    f"{lap!r}, {cost!r}",
                    lap.expected_cost(cost),
                    _laplace_quadrature(lap, cost),
                    1e-9,
                    group=GROUP,
                    detail="quad (epsrel 1e-13) on each half line",
                )
            )
        )
    return rows


@check("discrete staircase reference", group=GROUP, quick=True)
def discrete_reference_rows() -> list[CheckResult]:
    """THEORY.md §1: Δ=5, ε=1: |x| r*=2, 4.78628; x² r*=3, 48.0337. Δ=10, ε=5: |x| r*=1, 0.66516."""
    rows = []
    for delta, eps, spec, r_ref, value_ref, half_unit in (
        (5, 1.0, "abs", 2, 4.78628, 0.5e-5),
        (5, 1.0, "squared", 3, 48.0337, 0.5e-4),
        (10, 5.0, "abs", 1, 0.66516, 0.5e-5),
    ):
        start = time.perf_counter()
        best = DiscreteStaircase.optimal(epsilon=eps, sensitivity=delta, cost=spec)
        seconds = time.perf_counter() - start
        instance = f"D={delta}, eps={eps:g}, cost={spec}"
        rows.append(
            compare(
                "discrete staircase r*",
                instance,
                float(best.r),
                float(r_ref),
                0.0,
                group=GROUP,
                detail="argmin over r = 1..D of the exact cost",
                seconds=seconds,
            )
        )
        start = time.perf_counter()
        value = best.expected_cost(spec)
        rows.append(
            compare(
                "discrete staircase optimal cost",
                instance,
                value,
                value_ref,
                half_unit / value_ref,
                group=GROUP,
                detail="reference rounded in THEORY.md: ± half a unit in its last digit",
                seconds=time.perf_counter() - start,
            )
        )
    return rows


@check("discrete staircase Δ=1 = geometric", group=GROUP, quick=True)
def geometric_rows() -> list[CheckResult]:
    """Δ = 1: the discrete staircase is the two-sided geometric ``(1 − b)/(1 + b) b^|i|``."""
    rows = []
    for eps in (0.1, 1.0, 5.0):
        reach = min(300, int(600 / eps))  # b^|i| stays a normal double
        k = np.arange(-reach, reach + 1, dtype=np.float64)

        def row(eps: float = eps, k: np.ndarray = k, reach: int = reach) -> CheckResult:
            stair = np.asarray(DiscreteStaircase(epsilon=eps, sensitivity=1, r=1).pmf(k))
            geo = np.asarray(Geometric(epsilon=eps).pmf(k))
            b = math.exp(-eps)
            direct = (1.0 - b) / (1.0 + b) * b ** np.abs(k)
            worst = float(
                max(np.max(np.abs(stair - geo) / geo), np.max(np.abs(stair - direct) / direct))
            )
            return compare(
                "discrete staircase Δ=1 = geometric",
                f"eps={eps:g}, |i| ≤ {reach}",
                worst,
                0.0,
                1e-12,
                group=GROUP,
                detail="largest relative pmf difference (staircase, geometric, direct formula)",
            )

        rows.append(_timed(row))
    return rows


def _grid_with_steps(delta: float, gamma: float, periods: int) -> np.ndarray:
    """Points at every step ``kΔ``, ``(k + γ)Δ``, one ulp either side, and a regular grid."""
    steps = np.concatenate(
        [
            np.arange(-periods, periods + 1) * delta,
            (np.arange(-periods, periods) + gamma) * delta,
            -(np.arange(0, periods) + gamma) * delta,
        ]
    )
    beside = np.concatenate([steps, np.nextafter(steps, np.inf), np.nextafter(steps, -np.inf)])
    regular = np.linspace(-periods * delta, periods * delta, 801)
    return np.unique(np.concatenate([beside, regular]))


def _max_log_ratio(noise: Staircase, points: np.ndarray, shifts: np.ndarray) -> float:
    """``max log f(x)/f(y)`` over grid pairs with ``|y − x| ≤ Δ`` exactly (rationals)."""
    delta = noise.sensitivity
    limit = Fraction(delta)
    log_f = np.log(np.asarray(noise.pdf(points)))
    worst = -math.inf
    for d in shifts:
        other = points + d
        gap = np.abs(other - points)
        exact = gap <= delta * (1 - 1e-12)
        border = np.flatnonzero(~exact & (gap <= delta * (1 + 1e-12)))
        for i in border:  # borderline pairs are decided in exact (rational) arithmetic
            exact[i] = abs(Fraction(float(other[i])) - Fraction(float(points[i]))) <= limit
        if np.any(exact):
            ratio = log_f[exact] - np.log(np.asarray(noise.pdf(other[exact])))
            worst = max(worst, float(ratio.max()))
    return worst


@check("staircase density ratio", group=GROUP, quick=True)
def density_ratio_rows() -> list[CheckResult]:
    """``max_{|d| ≤ Δ} log f(x)/f(x + d)`` on a grid through every step equals ε exactly."""
    rows = []
    for eps, delta, gamma in (
        (1.0, 1.0, float(_gamma_star_abs(1.0))),
        (3.0, 2.0, 0.25),
        (0.5, 0.5, 0.0),
        (8.0, 1.0, 1.0),
    ):
        noise = Staircase(epsilon=eps, sensitivity=delta, gamma=gamma)

        def row(
            noise: Staircase = noise, delta: float = delta, gamma: float = gamma
        ) -> CheckResult:
            points = _grid_with_steps(delta, gamma, 4)
            fractions = np.array([1.0, 1.0 - 2.0**-40, 0.5, 1.0 - gamma, gamma, 0.25, 0.9])
            shifts = np.concatenate([fractions * delta, -fractions * delta])
            return compare(
                "staircase density ratio",
                repr(noise),
                _max_log_ratio(noise, points, shifts),
                noise.epsilon,
                1e-12,
                group=GROUP,
                detail="pairs at exact distance ≤ Δ, points at and one ulp beside "
                "every step; must equal ε (≤ for privacy, = for tightness)",
            )

        rows.append(_timed(row))
    return rows
