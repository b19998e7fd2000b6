"""Checks of the ε-DP closed forms (Geng & Viswanath (2016); Dwork et al. (2006)), group
``closed-form``.

No LP is involved, so no certificate: each row compares a float computation of optmech with an
independent reference, and the tolerance is *derived* in the row (``u = 2^-53``):

* ``staircase γ*``: the library's numerical minimiser of the period-summed exact cost (the
  root of the stationarity condition, ``brentq`` with ``xtol`` 1e-15) against γ* of
  Geng & Viswanath (2016), Thms. 4 and 6 (§IV), in ball arithmetic. Error: ``xtol + 4u|γ|`` plus
  the evaluation error ``η`` of the stationarity function (two terms ≈ V*, each within
  ``η_rel = (64 + 3/(1 − b))u``: 64 roundings, and the relative error ``u/(1 − b)`` of
  ``1 − b`` raised to the third power of the period sums) divided by its slope at γ*,
  ``(1 − b)Δ Σ b^k c'((k + γ*)Δ)`` = Δ for |x| and ``2Δ²(b/(1 − b) + γ*)`` for x²;
* ``staircase V*``: that period-summed cost at γ* and the library's closed form, against V*
  in ball arithmetic, within ``η_rel``;
* ``Laplace/staircase ratio``: against the 4 significant digits of the reference points
  (Geng & Viswanath (2016), Fig. 2): half a unit in the last digit;
* ``exact cost vs quadrature``: ``expected_cost`` against
  `scipy.integrate.quad` over every step: within the sum of quad's own error
  estimates plus ``η_rel`` of the value;
* ``discrete staircase reference``: ``r*`` exactly and the cost within half a unit of the
  printed digits (the optimum over r of the discrete staircase of Geng & Viswanath (2016),
  §VI, Thm. 12, computed independently to these digits);
* ``discrete staircase Δ=1 = geometric``: three pmf formulas against ``tanh(ε/2) e^(−ε|i|)``
  in ball arithmetic, each within ``(ε|i| + |i| + 8 + 2/(1 − b))u`` (a rounded exponent
  ``ε|i|``, a power of a rounded ``b``, and ``1 − b``);
* ``staircase density ratio``: the largest ``log f(x)/f(x + d)`` over ``|d| ≤ Δ`` on a grid
  through every step equals ε within ``2(|log a| + ε(K + 1) + 4)u`` plus 4 ulps of the logs
  (``f = exp(log a − εk)`` evaluated with a rounded exponent, K periods).

All are quick (well under 2 s together).
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np
from scipy import integrate

from optmech._floats import U
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
from optmech.theorems import _enclose as enc
from optmech.theorems._support import timed
from optmech.theorems.catalogue import CheckResult, check, compare, exact_row

__all__: list[str] = []

GROUP = "closed-form"
EPSILONS = (0.01, 0.1, 1.0, 2.0, 5.0, 10.0, 20.0)
#: brentq's ``xtol`` in the library's γ minimiser.
ROOT_XTOL = 1e-15


def evaluation_rtol(eps: float) -> float:
    """``η_rel = (64 + 3/(1 − b))u``: relative error bound of a period-summed staircase cost
    (module docstring); ``1/(1 − b) = 1/(−expm1(−ε))``."""
    return (64.0 + 3.0 / -math.expm1(-eps)) * U


def gamma_tolerance(eps: float, delta: float, name: str) -> tuple[float, float, float]:
    """``(τ, γ*, V*)``: the derived bound on the minimiser's error (module docstring)."""
    with enc.precision():
        gamma = float(enc.staircase_gamma(eps, name).mid())
        v_star = float(enc.staircase_optimum(eps, delta, name).mid())
    b = math.exp(-eps)
    slope = delta if name == "abs" else 2.0 * delta**2 * (b / -math.expm1(-eps) + gamma)
    tau = ROOT_XTOL + 4.0 * U * gamma + 2.0 * evaluation_rtol(eps) * v_star / slope
    return tau, gamma, v_star


def _gamma_row(eps: float, name: str, cost: Cost, closed: Any, label: str) -> CheckResult:
    tau, gamma, _ = gamma_tolerance(eps, 1.0, name)
    numeric = _numeric_gamma(cost, eps, 1.0, closed_form=False)
    library = float(closed(eps))
    ok_closed = abs(library - gamma) <= 16.0 * U * gamma
    res = compare(
        f"staircase γ* ({label})",
        f"eps={eps:g}, D=1",
        numeric,
        gamma,
        tau / gamma,
        group=GROUP,
        detail=f"numerical argmin of the period-summed exact cost vs γ* in ball "
        f"arithmetic; derived tolerance τ = {tau:.2e} absolute (root xtol, "
        f"evaluation error / slope); optmech's closed form {library!r}",
        rule=f"|γ_num − γ*| ≤ τ = {tau:.2e}; |γ_closed − γ*| ≤ 16u·γ*",
    )
    return replace(res, passed=res.passed and ok_closed)


@check("staircase γ* closed form", group=GROUP, quick=True)
def gamma_star_rows() -> list[CheckResult]:
    """γ* (Geng & Viswanath (2016)) against the numerical minimiser of the exact cost."""
    return [
        timed(_gamma_row, eps, name, cost, closed, label)
        for name, label, cost, closed in (
            ("abs", "|e|", Absolute(), _gamma_star_abs),
            ("squared", "e²", Squared(), _gamma_star_squared),
        )
        for eps in EPSILONS
    ]


def _optimal_cost_row(
    eps: float, name: str, cost: Cost, closed: Any, label: str, gamma: Any
) -> CheckResult:
    with enc.precision():
        v_star = float(enc.staircase_optimum(eps, 1.0, name).mid())
    summed = float(_cost_vector(cost, eps, 1.0, float(gamma(eps)), closed_form=False))
    library = float(closed(eps, 1.0))
    rtol = evaluation_rtol(eps)
    res = compare(
        f"staircase V* ({label})",
        f"eps={eps:g}, D=1",
        summed,
        v_star,
        rtol,
        group=GROUP,
        detail=f"Σ over periods of exact step integrals (and optmech's closed form "
        f"{library!r}) vs V* in ball arithmetic; η_rel = {rtol:.2e}",
        rule=f"|value − V*| ≤ η_rel·V* for both (η_rel = {rtol:.2e})",
    )
    return replace(res, passed=res.passed and abs(library - v_star) <= rtol * v_star)


@check("staircase V* closed form", group=GROUP, quick=True)
def optimal_cost_rows() -> list[CheckResult]:
    """Period-summed exact cost at γ* and the library's closed form against V*."""
    return [
        timed(_optimal_cost_row, eps, name, cost, closed, label, gamma)
        for name, label, cost, gamma, closed in (
            ("abs", "|e|", Absolute(), _gamma_star_abs, _abs_optimal_cost),
            ("squared", "e²", Squared(), _gamma_star_squared, _squared_optimal_cost),
        )
        for eps in EPSILONS
    ]


@check("Laplace/staircase ratio", group=GROUP, quick=True)
def ratio_rows() -> list[CheckResult]:
    """Reference values at ε = 10, printed to four digits: 14.84 (|e|) and 23.61 (e²)."""
    rows = []
    for name, spec, reference in (("|e|", "abs", 14.84), ("e²", "squared", 23.61)):
        rows.append(
            timed(
                lambda spec=spec, reference=reference, name=name: compare(
                    f"Laplace/staircase ratio ({name})",
                    "eps=10",
                    float(laplace_staircase_ratio(10.0, spec)),
                    reference,
                    0.005 / reference,
                    group=GROUP,
                    detail="reference given to 4 significant digits: ±0.005 (half a unit)",
                )
            )
        )
    return rows


def _staircase_quadrature(noise: Staircase, cost: Cost) -> tuple[float, float]:
    """``∫ f c`` by quad over every step separately (both sides), up to where b^k < 1e-18,
    and the sum of quad's error estimates plus the dropped tail's bound."""
    delta, gamma, eps = noise.sensitivity, noise.gamma, noise.epsilon
    periods = math.ceil(18.0 * math.log(10.0) / eps) + 2
    total, error = 0.0, 0.0
    for k in range(periods):
        for lo, hi in (((k) * delta, (k + gamma) * delta), ((k + gamma) * delta, (k + 1) * delta)):
            if hi <= lo:
                continue
            height = float(noise.pdf(0.5 * (lo + hi)))
            for sign in (1.0, -1.0):
                val, err = integrate.quad(
                    lambda x, s=sign: float(cost(s * x)), lo, hi, epsabs=0.0, epsrel=1e-13
                )
                total += height * val
                error += height * err
    # Beyond K periods f(x + KΔ) = b^K f(x), and these costs are at most 3(1 + |x|)², so each
    # side's remainder is at most 3 b^K (1 + KΔ)² E(1 + |X|)² ≤ 6 b^K (1 + KΔ)² (1 + E X²).
    b_k = math.exp(-eps * periods)
    error += 12.0 * b_k * (1.0 + periods * delta) ** 2 * (1.0 + noise.expected_cost("squared"))
    return total, error


def _laplace_quadrature(noise: Laplace, cost: Cost) -> tuple[float, float]:
    total, error = 0.0, 0.0
    for sign in (1.0, -1.0):
        val, err = integrate.quad(
            lambda x, s=sign: float(cost(s * x)) * float(noise.pdf(x)),
            0.0,
            math.inf,
            epsabs=0.0,
            epsrel=1e-13,
            limit=200,
        )
        total += val
        error += err
    return total, error


def _quadrature_row(name: str, noise: object, cost: Cost, quad: tuple[float, float]) -> CheckResult:
    value = float(noise.expected_cost(cost))  # type: ignore[attr-defined]
    reference, error = quad
    eps = float(noise.epsilon)  # type: ignore[attr-defined]
    allowed = error + evaluation_rtol(eps) * abs(value) + 8.0 * U * abs(reference)
    return compare(
        name,
        f"{noise!r}, {cost!r}",
        value,
        reference,
        allowed / abs(reference),
        group=GROUP,
        detail=f"quad (epsrel 1e-13) on each step; allowed {allowed:.2e} = quad's error "
        f"estimates {error:.1e} + η_rel of the value + 8u of the sum",
        rule="|value − quad| ≤ Σ quad error estimates + η_rel·|value| + 8u·|quad|",
    )


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
                timed(
                    lambda noise=noise, cost=cost: _quadrature_row(
                        "staircase exact cost vs quad",
                        noise,
                        cost,
                        _staircase_quadrature(noise, cost),
                    )
                )
            )
    lap = Laplace(epsilon=0.7, sensitivity=1.5)
    for cost in costs:
        rows.append(
            timed(
                lambda cost=cost: _quadrature_row(
                    "Laplace exact cost vs quad", lap, cost, _laplace_quadrature(lap, cost)
                )
            )
        )
    return rows


@check("discrete staircase reference", group=GROUP, quick=True)
def discrete_reference_rows() -> list[CheckResult]:
    """Printed reference values: Δ=5, ε=1: |x| r*=2, 4.78628; x² r*=3, 48.0337.
    Δ=10, ε=5: |x| r*=1, 0.66516."""
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
            exact_row(
                "discrete staircase r*",
                instance,
                best.r,
                r_ref,
                best.r == r_ref,
                rule="r* = printed r*",
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
                detail="reference printed rounded: ± half a unit in its last digit",
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

        def row(eps: float = eps, reach: int = reach) -> CheckResult:
            k = np.arange(-reach, reach + 1, dtype=np.float64)
            stair = np.asarray(DiscreteStaircase(epsilon=eps, sensitivity=1, r=1).pmf(k))
            geo = np.asarray(Geometric(epsilon=eps).pmf(k))
            b = math.exp(-eps)
            direct = (1.0 - b) / (1.0 + b) * b ** np.abs(k)
            with enc.precision():
                scale = (enc.arb(eps) / 2).tanh()
                alpha = (-enc.arb(eps)).exp()
                truth = [float((scale * alpha ** int(abs(i))).mid()) for i in k]
            truth_arr = np.asarray(truth)
            worst = max(
                float(np.max(np.abs(p - truth_arr) / truth_arr)) for p in (stair, geo, direct)
            )
            bound = (eps * reach + reach + 8.0 + 2.0 / -math.expm1(-eps)) * U
            return compare(
                "discrete staircase Δ=1 = geometric",
                f"eps={eps:g}, |i| ≤ {reach}",
                worst,
                0.0,
                bound,
                group=GROUP,
                detail="largest relative error of three pmf formulas (staircase, geometric, "
                f"direct) against tanh(ε/2)e^(−ε|i|) in ball arithmetic; bound {bound:.2e} = "
                "(ε|i| + |i| + 8 + 2/(1 − b))u",
            )

        rows.append(timed(row))
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
    periods = 4
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
            points = _grid_with_steps(delta, gamma, periods)
            fractions = np.array([1.0, 1.0 - 2.0**-40, 0.5, 1.0 - gamma, gamma, 0.25, 0.9])
            shifts = np.concatenate([fractions * delta, -fractions * delta])
            log_a = abs(math.log(float(noise.pdf(0.0))))
            worst_log = log_a + noise.epsilon * (periods + 2)
            bound = 2.0 * (worst_log + 4.0) * U + 4.0 * float(np.spacing(worst_log))
            return compare(
                "staircase density ratio",
                repr(noise),
                _max_log_ratio(noise, points, shifts),
                noise.epsilon,
                bound / noise.epsilon,
                group=GROUP,
                detail="pairs at exact distance ≤ Δ, points at and one ulp beside every step; "
                f"must equal ε (≤ for privacy, = for tightness); derived bound {bound:.1e} "
                "absolute (rounded exponents of f and 4 ulps of the logs)",
            )

        rows.append(timed(row))
    return rows
