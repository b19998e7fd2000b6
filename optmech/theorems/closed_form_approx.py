"""Catalogue checks of the (0, δ) and (ε, δ) closed forms (Geng, Ding, Guo & Kumar (2019) and
(2020); Balle & Wang (2018)), group ``closed-form``.

No LP is involved; every tolerance is derived in its row (``u = 2^-53``):

* ``uniform+atom cost``: the exact expected cost of ``P_α*`` (through
  `Cost.integral`) and Theorem 3's closed form
  (`uniform_atom_min_cost`) against
  ``E|X|^p`` of
  ``P_α*`` in ball arithmetic, both within ``64u`` (a few dozen roundings of positive terms);
* ``uniform+atom alpha*``: a bounded Brent minimisation of the exact cost over ``α ∈ [0, δ)``
  against α* of Theorem 3. Brent stops within ``2(√u_mach|α| + xatol/3)`` of a minimum of the
  *computed* function (scipy's ``bounded`` method, ``u_mach = 2^-52``), and rounding noise
  ``η = 64u·c`` moves that minimum by at most ``√(2η/c'')`` at an interior optimum
  (``c'' = c·(p/(δ − α)² − (p + 1)/(1 − α)²)``, the curvature of ``log c`` at a stationary
  point times ``c``) or ``η/c'(0)`` at the boundary α* = 0;
* ``hockey-stick delta``: the privacy loss each family spends at shift Δ, from its densities:
  exactly for the piecewise-constant uniform + atom (a sum of at most 6 terms of the library's
  float heights: ``16u·δ``), by adaptive quadrature for truncated Laplace and Gaussian (quad's
  error estimates, the 1e-12 relative cut-off of the integrand, and for the analytic Gaussian
  the derivative of δ(σ) times the calibration's ``brentq`` accuracy).

All quick: well under a second together.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from scipy import integrate, optimize, stats

from optmech._floats import U
from optmech.costs import Power
from optmech.mechanisms.gaussian import Gaussian
from optmech.mechanisms.truncated_laplace import TruncatedLaplace
from optmech.mechanisms.uniform_atom import UniformAtom, uniform_atom_min_cost
from optmech.theorems import _enclose as enc
from optmech.theorems._support import timed
from optmech.theorems.catalogue import CheckResult, check, compare

__all__: list[str] = []

GROUP = "closed-form"

#: (p, δ, Δ): δ on both sides of the threshold p/(p + 1) where the atom appears.
_UNIFORM_CASES = [
    (1.0, 0.25, 1.0),
    (1.0, 0.5, 1.0),
    (1.0, 0.75, 2.5),
    (1.0, 0.95, 1.0),
    (2.0, 0.5, 1.0),
    (2.0, 2.0 / 3.0, 2.5),
    (2.0, 0.8, 1.0),
    (2.0, 0.97, 0.4),
]


def _instance(p: float, delta: float, sens: float) -> str:
    return f"p={p:g}, delta={delta:.4g}, D={sens:g}"


#: scipy's ``bounded`` Brent: ``sqrt`` of the machine epsilon in its stopping rule.
SQRT_EPS = math.sqrt(2.0**-52)
XATOL = 1e-12


def _reference_cost(delta: float, sens: float, p: float) -> float:
    with enc.precision():
        return float(enc.uniform_atom_cost(delta, sens, p, enc.uniform_atom_alpha(delta, p)).mid())


@check("uniform+atom cost (Geng et al. 2019, Thm 3)", group=GROUP, quick=True)
def uniform_atom_cost() -> list[CheckResult]:
    """Exact cost of ``P_α*`` and Theorem 3's closed form against ball arithmetic."""
    rows = []
    for p, delta, sens in _UNIFORM_CASES:
        start = time.perf_counter()
        noise = UniformAtom.optimal(delta=delta, sensitivity=sens, cost=Power(p))
        value = noise.expected_cost(Power(p))
        closed = float(uniform_atom_min_cost(delta, p, sens))
        reference = _reference_cost(delta, sens, p)
        row = compare(
            "uniform+atom cost (Geng et al. 2019, Thm 3)",
            _instance(p, delta, sens),
            value,
            reference,
            64.0 * U,
            group=GROUP,
            certified_epsilon=0.0,
            certified_delta=_uniform_atom_divergence(noise),
            seconds=time.perf_counter() - start,
            detail=f"alpha*={noise.alpha:.6g}; exact cost and closed form {closed!r} vs E|X|^p "
            "of P_α* in ball arithmetic; 64u: a few dozen roundings of positive terms",
            rule="|value − ref| ≤ 64u·ref and |closed form − ref| ≤ 64u·ref",
        )
        rows.append(
            replace(row, passed=row.passed and abs(closed - reference) <= 64 * U * reference)
        )
    return rows


def _alpha_tolerance(p: float, delta: float, sens: float, alpha: float) -> float:
    """Derived error bound of the bounded Brent minimiser (module docstring)."""
    cost = UniformAtom(delta=delta, sensitivity=sens, alpha=alpha).expected_cost(Power(p))
    slope_log = p / (delta - alpha) - (p + 1.0) / (1.0 - alpha)
    curve_log = p / (delta - alpha) ** 2 - (p + 1.0) / (1.0 - alpha) ** 2
    first = cost * slope_log
    second = cost * (curve_log + slope_log**2)
    noise = 2.0 * 64.0 * U * cost  # the computed cost is within 64u of the exact one
    candidates = [math.sqrt(2.0 * noise / second)] if second > 0 else []
    if alpha == 0.0 and first > 0:
        candidates.append(noise / first)
    noise_part = min(candidates) if candidates else math.inf
    return 2.0 * (SQRT_EPS * abs(alpha) + XATOL / 3.0) + noise_part


@check("uniform+atom alpha* (Geng et al. 2019, Thm 3)", group=GROUP, quick=True)
def uniform_atom_alpha() -> list[CheckResult]:
    """Numerical minimiser of the exact cost over α ∈ [0, δ) against α* of Theorem 3."""
    rows = []
    for p, delta, sens in _UNIFORM_CASES:
        start = time.perf_counter()
        with enc.precision():
            closed = float(enc.uniform_atom_alpha(delta, p).mid())

        def exact_cost(
            alpha: float, p: float = p, delta: float = delta, sens: float = sens
        ) -> float:
            return UniformAtom(delta=delta, sensitivity=sens, alpha=alpha).expected_cost(Power(p))

        res = optimize.minimize_scalar(
            exact_cost,
            bounds=(0.0, delta * (1.0 - 1e-6)),
            method="bounded",
            options={"xatol": XATOL},
        )
        tol = _alpha_tolerance(p, delta, sens, closed)
        rows.append(
            compare(
                "uniform+atom alpha* (Geng et al. 2019, Thm 3)",
                _instance(p, delta, sens),
                float(res.x),
                closed,
                tol if closed == 0 else tol / closed,
                group=GROUP,
                seconds=time.perf_counter() - start,
                detail=f"bounded Brent (xatol {XATOL:g}) vs α* in ball arithmetic; derived "
                f"bound {tol:.2e} absolute: Brent's stopping rule plus rounding noise through "
                "the curvature (or the slope at α* = 0)",
            )
        )
    return rows


def _uniform_atom_divergence(noise: UniformAtom) -> float:
    """``max_d sup_S P(S) − P(S + d)`` over 64 shifts in (0, Δ], exactly for the piecewise-
    constant density: the atom (X + d has none at 0) plus ``∫ (f(x) − f(x − d))_+``."""
    half = noise.half_width
    worst = 0.0
    for d in noise.sensitivity * np.linspace(0.0, 1.0, 65)[1:]:
        cuts = np.unique([-half, half, -half + d, half + d, 0.0, d])
        mid = (cuts[:-1] + cuts[1:]) / 2.0
        gain = np.clip(np.asarray(noise.pdf(mid)) - np.asarray(noise.pdf(mid - d)), 0.0, None)
        worst = max(worst, noise.atom + float(np.sum(gain * np.diff(cuts))))
    return worst


def _density_divergence(
    pdf: Callable[[float], float],
    epsilon: float,
    shift: float,
    cuts: list[float],
    cut_bias: float,
) -> tuple[float, float]:
    """``∫ (f(x) − e^ε f(x − shift))_+ dx`` by quadrature between the given breakpoints, and
    the sum of quad's error estimates plus ``cut_bias``.

    Written ``f(x)(1 − e^ε f(x − d)/f(x))_+`` with factors below 1e-12 taken as 0, so that
    round-off where the two sides agree exactly does not defeat the quadrature. The bias is at
    most 1e-12 times ``max f`` times the width of the set where the exact factor lies in
    ``(0, 1e-12]``: the caller's ``cut_bias`` (0 for the truncated Laplace, whose factor is
    0, 1 or negative; ``1e-12 · 1e-12σ² · 1/(σ√(2π))`` for a Gaussian, whose factor is
    ``1 − e^((x − x₀)/σ²)``).
    """

    def integrand(x: float) -> float:
        f = float(pdf(x))
        if f == 0.0:
            return 0.0
        factor = 1.0 - math.exp(epsilon) * float(pdf(x - shift)) / f
        return f * factor if factor > 1e-12 else 0.0

    total, error = 0.0, cut_bias
    for lo, hi in itertools.pairwise(sorted(set(cuts))):
        val, err = integrate.quad(integrand, lo, hi, epsabs=0.0, epsrel=1e-12, limit=200)
        total += val
        error += err
    return total, error


def _gaussian_calibration_error(g: Gaussian, eps: float) -> float:
    """``|dδ/dσ|`` times the calibration's ``brentq`` accuracy (``xtol + 4·2^-52·σ``), Δ = 1:
    ``δ(σ) = Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ)`` (Balle & Wang (2018), Thm. 8)."""
    s = g.sigma
    a, b = 0.5 / s - eps * s, -0.5 / s - eps * s
    da, db = -0.5 / s**2 - eps, 0.5 / s**2 - eps
    phi = stats.norm.pdf
    slope = abs(phi(a) * da - math.exp(eps) * phi(b) * db)
    return slope * (1e-15 + 4.0 * 2.0**-52 * s)


def _delta_row(
    name: str, instance: str, value: float, delta: float, allowed: float, **kw: object
) -> CheckResult:
    return compare(name, instance, value, delta, allowed / delta, group=GROUP, **kw)  # type: ignore[arg-type]


def _one_sided_row(
    name: str, instance: str, value: float, delta: float, allowed: float, **kw: object
) -> CheckResult:
    """The δ spent must not exceed the δ requested, up to the derived error ``allowed``."""
    return CheckResult(
        check=name,
        instance=instance,
        value=value,
        reference=delta,
        gap=abs(value - delta) / delta,
        tolerance=allowed / delta,
        passed=bool(value <= delta + allowed),
        rule="value ≤ ref + quadrature error",
        kind="bound",
        group=GROUP,
        **kw,  # type: ignore[arg-type]
    )


@check("hockey-stick delta of (0,d)/(e,d) noise", group=GROUP, quick=True)
def hockey_stick_delta() -> list[CheckResult]:
    """δ spent at shift Δ, from the densities, against the δ requested."""
    cases: list[tuple[Callable[..., CheckResult], tuple[Any, ...]]] = [
        *((_uniform_atom_row, case) for case in _UNIFORM_CASES[:4]),
        *(
            (_truncated_laplace_row, case)
            for case in [(1.0, 1e-6, 1.0), (0.5, 0.1, 2.0), (3.0, 0.7, 1.0)]
        ),
        *(
            (_gaussian_row, case)
            for case in [(0.5, 1e-5, "classic"), (0.5, 1e-5, "analytic"), (3.0, 1e-8, "analytic")]
        ),
    ]
    return [timed(row, *case) for row, case in cases]


_HOCKEY = "hockey-stick delta of (0,d)/(e,d) noise"


def _spent_row(
    instance: str,
    spent: float,
    delta: float,
    allowed: float,
    *,
    epsilon: float,
    one_sided: bool,
    detail: str,
) -> CheckResult:
    """A row of the hockey-stick check: the δ spent at shift Δ against the δ requested.

    Parameters
    ----------
    instance : str
        The noise and its parameters.
    spent : float
        The δ spent at shift Δ, from the densities (the row's certified δ).
    delta : float
        The δ requested.
    allowed : float
        The derived error of ``spent``.
    epsilon : float
        The ε of the noise (the row's certified ε).
    one_sided : bool
        Whether only ``spent ≤ delta + allowed`` is required (the bound is not tight).
    detail : str
        How ``spent`` and ``allowed`` were obtained.

    Returns
    -------
    CheckResult
        The row, untimed (``timed`` records its seconds).
    """
    make = _one_sided_row if one_sided else _delta_row
    return make(
        _HOCKEY,
        instance,
        spent,
        delta,
        allowed,
        certified_epsilon=epsilon,
        certified_delta=spent,
        detail=detail,
    )


def _uniform_atom_row(p: float, delta: float, sens: float) -> CheckResult:
    noise = UniformAtom.optimal(delta=delta, sensitivity=sens, cost=Power(p))
    value = _uniform_atom_divergence(noise)
    return _spent_row(
        f"UniformAtom(delta={delta:g}, alpha={noise.alpha:.4g}, D={sens:g})",
        value,
        delta,
        16.0 * U * delta,
        epsilon=0.0,
        one_sided=False,
        detail="max over 64 shifts in (0, D]; tight at d = D; a sum of at most 6 terms "
        "of the library's float heights: 16u·δ",
    )


def _truncated_laplace_row(eps: float, delta: float, sens: float) -> CheckResult:
    tl = TruncatedLaplace(epsilon=eps, delta=delta, sensitivity=sens)
    a = tl.half_width
    cuts = [-a, -a + sens, 0.0, sens, a, a + sens]
    value, err = _density_divergence(tl.pdf, eps, sens, cuts, 0.0)
    return _spent_row(
        f"TruncatedLaplace(eps={eps:g}, delta={delta:g}, D={sens:g})",
        value,
        delta,
        err + 64.0 * U * delta,
        epsilon=eps,
        one_sided=delta > 0.5,
        detail=f"quadrature (error estimates {err:.1e}; 64u·δ for the float A); "
        + (
            "tight for delta <= 1/2 (uncovered slab [-A, -A + D))"
            if delta <= 0.5
            else "one-sided: for delta > 1/2 the support is shorter than D"
        ),
    )


def _gaussian_row(eps: float, delta: float, calibration: str) -> CheckResult:
    g = Gaussian(epsilon=eps, delta=delta, calibration=calibration)
    s = g.sigma
    x0 = 0.5 - eps * s * s  # f(x) > e^ε f(x − 1) iff x < x0 (Δ = 1)
    bias = 1e-12 * 1.000001e-12 * s * s / (s * math.sqrt(2.0 * math.pi))
    value, err = _density_divergence(g.pdf, eps, 1.0, [x0 - 40 * s, x0 - 10 * s, x0], bias)
    if calibration == "analytic":
        calib = _gaussian_calibration_error(g, eps)
        allowed = err + calib + 64.0 * U * delta
        detail = (
            f"quadrature of (f - e^eps f(. - D))_+ (error {err:.1e}) vs the "
            f"Balle-Wang δ; calibration error |dδ/dσ|·Δσ = {calib:.1e}"
        )
    else:
        allowed, detail = err, "quadrature; one-sided: the classic sigma is conservative"
    return _spent_row(
        f"Gaussian(eps={eps:g}, delta={delta:g}, {calibration})",
        value,
        delta,
        allowed,
        epsilon=eps,
        one_sided=calibration != "analytic",
        detail=detail,
    )
