"""Checks of the additive-noise LP designer against the closed forms (group ``additive-lp``).

Each row designs noise with `optmech.design_noise` (solved, re-evaluated
exactly, certified independently; its provenance holds the certified interval ``[lower_bound,
value]`` of the grid LP's optimum) and decides a theorem by that certificate. References are
evaluated in ball arithmetic (`optmech.theorems._enclose`) and rounded
outward.

* ``staircase LP``: ε-DP on ℝ, |e| and e². The grid LP's optimum lies between the staircase
  optimum V* (Geng & Viswanath (2016), Thm. 3: no ε-DP noise does better; the LP's points are
  ε-DP densities) and ``V*_grid``, the cost of the staircase whose γ is rounded to a grid edge
  ``k/m`` (that staircase is piecewise constant on the cells and satisfies the geometric tail
  closure, so the LP can represent it, with its cell-averaged cost equal to its exact cost).
  The row passes iff ``lower_bound ≤ V*_grid`` and ``value ≥ V*``: the allowance is
  ``V*_grid − V*``, computed from the closed forms;
* ``staircase LP convergence`` (full): the same on nested grids m = 8…128 (symmetric monotone
  class); the allowance is second order in the distance of γ* to the grid, so the certified
  intervals close in on V* as O(1/m²);
* ``discrete staircase LP``: integer noise — the LP's optimum *is* the best discrete staircase
  (Geng & Viswanath (2016), §VI, Thm. 12; the staircase is representable, the LP's points are ε-DP
  pmfs): no allowance;
* ``uniform+atom LP (symmetric monotone class)``: (0, δ) within symmetric noise non-increasing
  in |x|, where Geng, Ding, Guo & Kumar (2019), Thm. 3 holds — the LP's optimum is the
  uniform+atom optimum (δ chosen so that the optimal support is on the grid): no allowance;
  and the atom appears iff δ > p/(p + 1);
* ``(0, δ) LP without the class``: the same LP without ``monotone`` certifiably beats the class
  optimum (for e²): the theorem needs its class;
* ``asymmetric cost LP``: over-estimates cost 3× — the certified design beats the best
  symmetric staircase (2·V*) and is asymmetric;
* ``(ε, δ) LP vs baselines``: certifiably below the truncated Laplace (Geng et al. (2020))
  and the analytic Gaussian (Balle & Wang (2018));
* ``monotone collapse`` / ``window forms`` (full): the collapsed monotone rows and the three
  window forms solve the same LP: their certified intervals intersect.

Every design must also meet optmech's privacy contract (certified ε, δ within ``1e-9``
relative of the request:
`optmech.certify.matrix.DEFAULT_RTOL`).
"""

from __future__ import annotations

import math
import time
import warnings
from typing import Any, cast

import flint

from optmech import CoarseGridWarning, DesignedPiecewiseNoise, design_noise
from optmech.certify.matrix import DEFAULT_RTOL
from optmech.costs import Asymmetric, as_cost
from optmech.mechanisms.gaussian import Gaussian
from optmech.privacy import ApproxDP, PureDP
from optmech.theorems import _enclose as enc
from optmech.theorems._support import interval_of, timed
from optmech.theorems.catalogue import (
    CheckResult,
    agreement_row,
    bound_row,
    certificate_row,
    check,
    check_cases,
)

__all__ = ["grid_allowance"]

GROUP = "additive-lp"


def _piecewise(noise: object) -> DesignedPiecewiseNoise:
    """``noise``, which ``design_noise`` returns as a 1-D piecewise-constant density for a
    non-integer design in one dimension (its atom, cdf and symmetry are read below); typed as
    such for the checker (families are told apart only inside ``optmech.mechanisms``)."""
    return cast(DesignedPiecewiseNoise, noise)


EPS_RULE = f"certified ε ≤ ε·(1 + {DEFAULT_RTOL:.0e})"
DELTA_RULE = f"certified δ ≤ δ·(1 + {DEFAULT_RTOL:.0e})"


def _eps_ok(noise: Any, eps: float) -> bool:
    return bool(noise.certified_epsilon <= eps * (1.0 + DEFAULT_RTOL))


def _delta_ok(noise: Any, delta: float) -> bool:
    return bool(noise.certified_delta <= delta * (1.0 + DEFAULT_RTOL))


def _design_row(
    build: Any,
    check_name: str,
    instance: str,
    noise: Any,
    privacy: PureDP | ApproxDP,
    *,
    extra_ok: bool = True,
    extra_rule: str = "",
    **row: Any,
) -> CheckResult:
    """A row of ``build`` (``certificate_row`` or ``bound_row``) about ``noise`` designed for
    ``privacy``, with optmech's privacy contract (certified ε for ε-DP, δ otherwise) added to
    the row's own condition."""
    pure = isinstance(privacy, PureDP)
    ok = _eps_ok(noise, privacy.epsilon) if pure else _delta_ok(noise, privacy.delta)
    # An (ε, δ) design's pure-ε bound (often inf) says nothing about its guarantee: its row
    # shows the certified δ alone.
    certified = (
        {"certified_epsilon": float(noise.certified_epsilon)}
        if pure
        else {"certified_delta": float(noise.certified_delta)}
    )
    return build(  # type: ignore[no-any-return]
        check_name,
        instance,
        group=GROUP,
        extra_ok=extra_ok and ok,
        extra_rule="; ".join(filter(None, [extra_rule, EPS_RULE if pure else DELTA_RULE])),
        **certified,
        **row,
    )


def grid_allowance(eps: float, cost: str, m: int, sensitivity: float = 1.0) -> dict[str, Any]:
    """V*, ``V*_grid`` (γ rounded to a grid edge ``k/m``) and ``V*_grid − V*``, outward.

    Returns a dict with ``v_star`` and ``v_grid`` as float enclosures ``(lo, hi)``, the
    ``allowance`` (an upper bound of ``V*_grid − V*``) and the grid ``gamma`` used.
    """
    with enc.precision():
        gamma = enc.staircase_gamma(eps, cost)
        v_star = enc.staircase_optimum(eps, sensitivity, cost)
        g = float(gamma.mid())
        candidates = {math.floor(g * m), math.ceil(g * m)}
        costs = {k: enc.staircase_cost(eps, sensitivity, enc.arb(k) / m, cost) for k in candidates}
        best_k = min(costs, key=lambda k: float(costs[k].mid()))
        v_grid = costs[best_k]
        for other in costs.values():
            v_grid = v_grid.min(other)
        allowance = enc.bounds(v_grid - v_star)[1]
        return {
            "v_star": enc.bounds(v_star),
            "v_grid": enc.bounds(v_grid),
            "allowance": max(allowance, 0.0),
            "gamma": f"{best_k}/{m}",
        }


def _staircase_row(name: str, eps: float, cost: str, m: int, **design: Any) -> CheckResult:
    ref = grid_allowance(eps, cost, m)
    with warnings.catch_warnings():
        # A uniform grid at large ε is coarse on purpose here: the row's allowance
        # V*_grid − V* states exactly what the grid costs, so the designer's warning says
        # nothing the row does not.
        warnings.simplefilter("ignore", CoarseGridWarning)
        noise = design_noise(PureDP(eps), sensitivity=1.0, cost=cost, resolution=m, **design)
    lower, upper = interval_of(noise)
    return _design_row(
        certificate_row,
        name,
        f"eps={eps:g}, cost={cost}, m={m}",
        noise,
        PureDP(eps),
        lower=lower,
        upper=upper,
        reference=ref["v_star"],
        allowance=ref["allowance"],
        detail=f"V* ≤ LP optimum ≤ V*_grid = cost of the staircase with γ = {ref['gamma']} "
        f"(≤ {ref['v_grid'][1]:.12g}); allowance V*_grid − V*",
    )


def _staircase_rows(
    name: str, epsilons: tuple[float, ...], m: int, periods: int
) -> list[CheckResult]:
    return [
        timed(_staircase_row, name, eps, cost, m, periods=periods)
        for cost in ("abs", "squared")
        for eps in epsilons
    ]


check_cases(
    "staircase LP",
    "staircase LP (fine grid)",
    group=GROUP,
    rows=_staircase_rows,
    quick={"epsilons": (0.5, 1.0, 2.0, 5.0), "m": 12, "periods": 2},
    sweep={"epsilons": (0.1, 0.5, 1.0, 2.0, 5.0, 10.0), "m": 100, "periods": 20},
    named=True,
)


@check("staircase LP convergence", group=GROUP, quick=False)
def _staircase_convergence() -> list[CheckResult]:
    return [
        timed(
            _staircase_row,
            "staircase LP convergence",
            1.0,
            "squared",
            m,
            periods=1,
            symmetric=True,
            monotone=True,
        )
        for m in (8, 16, 32, 64, 128)
    ]


def _discrete_row(name: str, eps: float, delta: int, cost: str) -> CheckResult:
    with enc.precision():
        ball, r_star = enc.discrete_staircase_optimum(eps, delta, as_cost(cost))
        reference = enc.bounds(ball)
    noise = design_noise(PureDP(eps), sensitivity=delta, cost=cost, integer=True, periods=2)
    lower, upper = interval_of(noise)
    return _design_row(
        certificate_row,
        name,
        f"eps={eps:g}, D={delta}, cost={cost}",
        noise,
        PureDP(eps),
        lower=lower,
        upper=upper,
        reference=reference,
        detail=f"best discrete staircase r*={r_star} (ball arithmetic); no allowance",
    )


def _discrete_rows(name: str, cases: list[tuple[float, int]]) -> list[CheckResult]:
    return [
        timed(_discrete_row, name, eps, delta, cost)
        for eps, delta in cases
        for cost in ("abs", "squared")
    ]


check_cases(
    "discrete staircase LP",
    "discrete staircase LP (sweep)",
    group=GROUP,
    rows=_discrete_rows,
    quick=[(1.0, d) for d in (1, 2, 3, 5, 10)],
    sweep=[(eps, d) for eps in (0.5, 2.0, 5.0) for d in (1, 2, 3, 5, 10, 20)],
    named=True,
)


def _uniform_atom_row(name: str, cost: str, p: int, delta: float, m: int) -> CheckResult:
    with enc.precision():
        alpha = enc.uniform_atom_alpha(delta, p)
        reference = enc.bounds(enc.uniform_atom_cost(delta, 1.0, p, alpha))
        alpha_star = float(alpha.mid())
    noise = _piecewise(
        design_noise(
            ApproxDP(0.0, delta),
            sensitivity=1.0,
            cost=cost,
            resolution=m,
            symmetric=True,
            monotone=True,
        )
    )
    lower, upper = interval_of(noise)
    atom_ok = noise.atom >= alpha_star / 2 if alpha_star > 0 else noise.atom < 1e-6
    return _design_row(
        certificate_row,
        name,
        f"delta={delta:g}, cost={cost}",
        noise,
        ApproxDP(0.0, delta),
        lower=lower,
        upper=upper,
        reference=reference,
        detail=f"uniform+atom optimum (ball arithmetic), support on the grid: no "
        f"allowance; atom {noise.atom:.6g} vs α* {alpha_star:.6g}, threshold "
        f"p/(p+1) = {p / (p + 1):.4g}",
        extra_ok=atom_ok,
        extra_rule="atom ≥ α*/2 if α* > 0, else < 1e-6 (presence, not a tolerance on the value)",
    )


def _uniform_atom_rows(name: str, deltas: tuple[float, ...], m: int) -> list[CheckResult]:
    return [
        timed(_uniform_atom_row, name, cost, p, delta, m)
        for cost, p in (("abs", 1), ("squared", 2))
        for delta in deltas
    ]


check_cases(
    "uniform+atom LP (symmetric monotone class)",
    "uniform+atom LP (sweep)",
    group=GROUP,
    rows=_uniform_atom_rows,
    # Optimal half-widths 2, 1, 5/6, 3/4: multiples of 1/12.
    quick={"deltas": (0.25, 0.6, 0.8), "m": 12},
    # δ = 1/(2k) and δ > p/(p+1): supports on the grid of m = 24.
    sweep={"deltas": (0.05, 0.125, 0.5, 0.7, 0.75, 0.9), "m": 24},
    named=True,
)


def _zero_delta_row(delta: float) -> CheckResult:
    with enc.precision():
        alpha = enc.uniform_atom_alpha(delta, 2.0)
        v_class = enc.bounds(enc.uniform_atom_cost(delta, 1.0, 2.0, alpha))
    noise = design_noise(ApproxDP(0.0, delta), sensitivity=1.0, cost="squared", resolution=12)
    return _design_row(
        bound_row,
        "(0, δ) LP without the class",
        f"delta={delta:g}, cost=squared",
        noise,
        ApproxDP(0.0, delta),
        value=interval_of(noise),
        reference=v_class,
        relation="<",
        detail="the unrestricted LP's certified value is below the symmetric "
        "non-increasing class optimum: Geng et al. (2019)'s theorem needs its class",
    )


@check("(0, δ) LP without the class", group=GROUP, quick=True)
def _zero_delta_free() -> list[CheckResult]:
    return [timed(_zero_delta_row, delta) for delta in (0.6, 0.8)]


def _asymmetric_row(eps: float) -> CheckResult:
    with enc.precision():
        sym = enc.bounds(2 * enc.staircase_optimum(eps, 1.0, "abs"))
    noise = _piecewise(
        design_noise(
            PureDP(eps), sensitivity=1.0, cost=Asymmetric(over=3, under=1), resolution=12, periods=3
        )
    )
    return _design_row(
        bound_row,
        "asymmetric cost LP",
        f"eps={eps:g}, over=3, under=1",
        noise,
        PureDP(eps),
        value=interval_of(noise),
        reference=sym,
        relation="<",
        detail=f"below the best symmetric staircase (2 V*); P(X ≤ 0) = {noise.cdf(0.0):.3f}",
        extra_ok=not noise.is_symmetric,
        extra_rule="asymmetric",
    )


@check("asymmetric cost LP", group=GROUP, quick=True)
def _asymmetric() -> list[CheckResult]:
    return [timed(_asymmetric_row, eps) for eps in (0.5, 1.0, 2.0)]


def _truncated_laplace_cost(eps: float, delta: float, cost: str) -> Any:
    """``E c(X)`` of the truncated Laplace (Geng et al. (2020)), Δ = 1, in ball arithmetic:
    density ∝ ``e^(−λ|x|)`` on ``[−A, A]``, ``λ = ε``, ``A = ln(1 + (e^ε − 1)/(2δ))/ε``."""
    lam = enc.arb(eps)
    a = (1 + lam.expm1() / (2 * enc.arb(delta))).log() / lam
    t = (-lam * a).exp()
    mass = (1 - t) / lam
    first = (1 - t * (1 + lam * a)) / lam**2
    second = (2 - t * (2 + 2 * lam * a + (lam * a) ** 2)) / lam**3
    return (first if cost == "abs" else second) / mass


def _approx_baseline_row(eps: float, delta: float, cost: str) -> CheckResult:
    sigma = Gaussian(epsilon=eps, delta=delta, calibration="analytic").sigma
    with enc.precision():
        tl = _truncated_laplace_cost(eps, delta, cost)
        s = enc.arb(sigma)
        pi = flint.arb.pi()
        gauss = s * (2 / pi).sqrt() if cost == "abs" else s**2
        best = enc.bounds(tl.min(gauss))
    noise = design_noise(ApproxDP(eps, delta), sensitivity=1.0, cost=cost, resolution=8)
    return _design_row(
        bound_row,
        "(ε, δ) LP vs baselines",
        f"eps={eps:g}, delta={delta:g}, cost={cost}",
        noise,
        ApproxDP(eps, delta),
        value=interval_of(noise),
        reference=best,
        relation="<",
        detail=f"below truncated Laplace ({float(tl.mid()):.6g}) and the analytic "
        f"Gaussian at optmech's σ = {sigma:.6g} ({float(gauss.mid()):.6g}), both in "
        "ball arithmetic",
    )


@check("(ε, δ) LP vs baselines", group=GROUP, quick=True)
def _approx_baselines() -> list[CheckResult]:
    return [
        timed(_approx_baseline_row, eps, delta, cost)
        for eps, delta in ((1.0, 1e-3), (0.5, 1e-2))
        for cost in ("abs", "squared")
    ]


def _monotone_collapse_row(eps: float) -> CheckResult:
    kw: dict[str, Any] = {"sensitivity": 1.0, "cost": "abs", "resolution": 24, "periods": 4}
    free = design_noise(PureDP(eps), reduce_symmetric=False, **kw)
    mono = design_noise(PureDP(eps), symmetric=True, monotone=True, **kw)
    return agreement_row(
        "monotone collapse",
        f"eps={eps:g}, m=24",
        first=interval_of(mono),
        second=interval_of(free),
        group=GROUP,
        detail="symmetric monotone class (2 rows per cell) vs the full unrestricted "
        "window (no mirror reduction): the staircase is in the class, so the optima "
        "are equal",
        certified_epsilon=float(mono.certified_epsilon),
    )


@check("monotone collapse", group=GROUP, quick=False)
def _monotone_collapse() -> list[CheckResult]:
    return [timed(_monotone_collapse_row, eps) for eps in (0.5, 1.0, 3.0)]


@check("window forms", group=GROUP, quick=False)
def _window_forms() -> list[CheckResult]:
    rows = []
    cost = Asymmetric(over=2, under=1)
    first: tuple[float, float] | None = None
    for window in ("pairs", "sparse-table", "blocks"):
        start = time.perf_counter()
        noise = design_noise(
            PureDP(1.0), sensitivity=1.0, cost=cost, resolution=20, periods=3, window=window
        )
        interval = interval_of(noise)
        first = interval if first is None else first
        rows.append(
            agreement_row(
                "window forms",
                f"{window}, m=20",
                first=interval,
                second=first,
                group=GROUP,
                detail="the same LP written with another window form: same optimum as all pairs",
                certified_epsilon=float(noise.certified_epsilon),
                seconds=time.perf_counter() - start,
            )
        )
    return rows
