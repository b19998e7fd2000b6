"""The exact mode of the catalogue (``optmech verify --exact``): small rows reproduced exactly.

A row of the floating-point catalogue trusts floating point in three places: the returned
mechanism's privacy (certified by a pessimistic float certificate), its value (rounded up),
and the Lagrangian lower bound (rounded down). Here each is redone without rounding:

* the mechanism or pmf is converted to rationals exactly (a double is a dyadic rational,
  `flint.fmpq`), its rows renormalised exactly, and its value computed in rationals
  (or in Arb balls where a transcendental tail factor enters; Johansson, *Arb*, IEEE Trans.
  Computers 66(8), 2017);
* privacy is decided by comparing the exact largest ratio of neighbouring entries with
  ``e^ε`` enclosed in a ball (at 256 bits, then 1024 if the ball cannot decide), with
  `optmech.certify.certify_mechanism` ``(exact=True)`` as a
  cross-check;
* the Lagrangian lower bound is recomputed in ball arithmetic from the solver's float
  multipliers (any multipliers give a valid bound; the solver's only make it tight), for the
  LP with exact coefficients (``e^ε`` and ``e^(−ε)`` enclosed, not rounded).

A row passes when the mechanism is exactly private and the exact interval ``[lower, upper]``
contains the reference, itself a ball (Ghosh, Roughgarden & Sundararajan (2012), Thm. 3.1; the
rational value of Fig. 2; the discrete staircase optimum of Geng & Viswanath (2016), §VI, which
by their Thm. 10 is also the query-dependent optimum). For minimax users (Gupte & Sundararajan
(2010)) both the LP and ``G`` + best randomized remap are reproduced exactly and their exact
intervals must intersect. Covered: count LPs with n ≤ 10 (random Bayesian and minimax users,
and the worked example of GRS Fig. 2 at n = 5, ε = ln 2) and small discrete-staircase /
query-dependent LPs (period 1 is the query-independent discrete staircase LP). All rows
together take about a second.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import replace
from fractions import Fraction
from typing import Any

import cvxpy as cp
import flint
import numpy as np

from optmech import (
    bayesian_mechanism,
    certify_mechanism,
    dependent_noise_lp,
    geometric_minimax,
    minimax_mechanism,
)
from optmech.costs import Cost, as_cost
from optmech.lp.dependent import _pairs
from optmech.lp.engine.certified import solve_problem
from optmech.theorems import _enclose as enc
from optmech.theorems._support import (
    interval_of,
    loss_matrix,
    random_epsilon,
    random_loss,
    random_users,
)
from optmech.theorems.catalogue import (
    CheckResult,
    agreement_row,
    certificate_row,
    check,
    exact_row,
)
from optmech.theorems.count import (
    FIG2_PRIOR,
    FIG2_REMAP,
    exact_bayes_assignment,
    exact_geometric,
)

__all__ = [
    "decide_at_most",
    "exact_count_row",
    "exact_dependent_row",
    "exact_matrix",
    "exact_minimax_row",
    "matrix_privacy",
]

GROUP = "exact"
#: Precisions (bits) tried in turn to decide a comparison with ``e^ε``.
PRECISIONS = (256, 1024)


def _q(x: float) -> flint.fmpq:
    num, den = float(x).as_integer_ratio()
    return flint.fmpq(num, den)


def exact_matrix(mechanism: Any) -> list[list[flint.fmpq]]:
    """The float matrix as rationals, each row divided exactly by its sum."""
    rows = []
    for row in np.asarray(mechanism, dtype=np.float64):
        q = [_q(v) for v in row]
        total = sum(q, flint.fmpq(0))
        rows.append([v / total for v in q])
    return rows


def decide_at_most(ratio: Any, log_bound: Any) -> bool | None:
    """Whether ``ratio ≤ e^(log_bound)``: True, False, or None if 1024 bits cannot decide.

    ``ratio`` is a rational (or a callable giving a ball at the current precision);
    ``log_bound`` a float or a callable giving the exponent as a ball.
    """
    for bits in PRECISIONS:
        with flint.ctx.workprec(bits):
            r = ratio() if callable(ratio) else enc.arb(ratio)
            e = (log_bound() if callable(log_bound) else flint.arb(float(log_bound))).exp()
            if r < e:
                return True
            if r > e:
                return False
    return None


def matrix_privacy(rows: list[list[flint.fmpq]], epsilon: float) -> tuple[bool | None, str]:
    """Exact ε-DP of a count-query mechanism (path graph): the largest neighbouring ratio."""
    worst: flint.fmpq | None = None
    where = None
    for i in range(len(rows) - 1):
        for r, (a, b) in enumerate(zip(rows[i], rows[i + 1], strict=True)):
            if a == 0 and b == 0:
                continue
            if a == 0 or b == 0:
                return False, f"a zero faces a positive entry at inputs ({i}, {i + 1}), output {r}"
            ratio = a / b if a > b else b / a
            if worst is None or ratio > worst:
                worst, where = ratio, (i, r)
    if worst is None:
        return True, "constant mechanism"
    verdict = decide_at_most(worst, epsilon)
    text = (
        f"largest neighbouring ratio at {where}: log = {float(flint.arb(worst).log().mid()):.17g}"
    )
    return verdict, text


# --------------------------------------------------------------------------------------------
# Count LPs: the user LP of GRS (2)–(6) on the path, multipliers from a textbook solve
# --------------------------------------------------------------------------------------------
def _user_multipliers(weights: np.ndarray, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """Multipliers of ``x[i] ≤ e^ε x[i+1]`` and ``x[i+1] ≤ e^ε x[i]`` (columnwise) for the
    Bayesian user LP with objective ``Σ W ⊙ X``, from one solve (objective scaled to O(1))."""
    n_in, n_out = weights.shape
    scale = float(np.max(weights)) or 1.0
    x = cp.Variable((n_in, n_out), nonneg=True)
    e = math.exp(epsilon)
    down = x[:-1] - e * x[1:] <= 0
    up = x[1:] - e * x[:-1] <= 0
    problem = cp.Problem(
        cp.Minimize(cp.sum(cp.multiply(weights / scale, x))), [cp.sum(x, axis=1) == 1, down, up]
    )
    solve_problem(problem, kind="count")
    z_down = np.clip(np.asarray(down.dual_value, dtype=np.float64), 0.0, None) * scale
    z_up = np.clip(np.asarray(up.dual_value, dtype=np.float64), 0.0, None) * scale
    return z_down, z_up


def user_lower_bound(weights: np.ndarray, epsilon: float) -> Any:
    """``Σ_i min_r C[i, r]`` in ball arithmetic, ``C = W + z_d[i] − e^ε z_u[i] + z_u[i−1] −
    e^ε z_d[i−1]`` (Lagrangian relaxation of the privacy rows, rows of X in the simplex)."""
    z_down, z_up = _user_multipliers(weights, epsilon)
    n_in, n_out = weights.shape
    with enc.precision(PRECISIONS[0]):
        e = flint.arb(float(epsilon)).exp()
        total = flint.arb(0)
        for i in range(n_in):
            candidates: list[flint.arb] = []
            for r in range(n_out):
                c = flint.arb(float(weights[i, r]))
                if i < n_in - 1:
                    c += flint.arb(float(z_down[i, r])) - e * flint.arb(float(z_up[i, r]))
                if i > 0:
                    c += flint.arb(float(z_up[i - 1, r])) - e * flint.arb(float(z_down[i - 1, r]))
                candidates.append(c)
            total += _ball_min(candidates)
        return total


def _c_certificate(mechanism: Any, epsilon: float) -> str:
    try:
        cert = certify_mechanism(mechanism, exact=True).epsilon
    except TypeError:  # pragma: no cover - certifiers without an exact mode
        return "exact certifier unavailable"
    relation = "≤" if cert <= epsilon else ">"
    return f"optmech.certify (exact) ε of the float matrix {cert!r} ({relation} ε)"


def _exact_certificate_row(
    name: str,
    label: str,
    *,
    lower: float,
    upper: float,
    reference: tuple[float, float],
    detail: str,
    private: bool | None,
    privacy_rule: str,
    certified_epsilon: float | None,
    start: float,
) -> CheckResult:
    """A certificate row of the exact mode.

    Parameters
    ----------
    name, label : str
        The check and its instance.
    lower, upper : float
        The LP's exact interval, rounded outward from balls.
    reference : tuple of float
        The reference's enclosure.
    detail : str
        What was reproduced and how.
    private : bool or None
        Whether the mechanism is exactly ε-DP (``None``: undecided); only ``True`` passes.
    privacy_rule : str
        How privacy was decided, appended to the row's rule.
    certified_epsilon : float or None
        The float mode's certified ε.
    start : float
        ``time.perf_counter()`` when the row began.

    Returns
    -------
    CheckResult
        The row, marked exact.
    """
    return certificate_row(
        name,
        label,
        lower=lower,
        upper=upper,
        reference=reference,
        group=GROUP,
        detail=detail,
        extra_ok=private is True,
        extra_rule=f"exactly ε-DP ({privacy_rule})",
        certified_epsilon=certified_epsilon,
        seconds=time.perf_counter() - start,
        exact=True,
    )


def exact_count_row(
    prior: Any, loss: np.ndarray, epsilon: float, *, name: str, label: str, **lp: Any
) -> CheckResult:
    """One Bayesian count LP reproduced exactly: mechanism in rationals, privacy decided against
    ``e^ε`` in balls, value in rationals, bound in balls, reference G + Bayes remap in balls."""
    start = time.perf_counter()
    p = np.asarray(prior, dtype=np.float64)
    weights = p[:, None] * loss
    result = bayesian_mechanism(p, loss, epsilon, **lp)
    rows = exact_matrix(result.mechanism)
    private, why = matrix_privacy(rows, epsilon)
    value = sum(
        (_q(weights[i, r]) * rows[i][r] for i in range(len(rows)) for r in range(len(rows[0]))),
        flint.fmpq(0),
    )
    with enc.precision(PRECISIONS[0]):
        upper = enc.bounds(flint.arb(value))[1]
        reference = enc.bounds(enc.geometric_bayes_value(p, loss, epsilon))
    lower = enc.bounds(user_lower_bound(weights, epsilon))[0]
    float_low, float_up = interval_of(result)
    return _exact_certificate_row(
        name,
        label,
        lower=lower,
        upper=upper,
        reference=reference,
        detail=f"reproduced exactly: mechanism in rationals (rows renormalised exactly), value "
        f"{value} (= {float(value.p) / float(value.q):.17g}); {why}; "
        f"{_c_certificate(result.mechanism, epsilon)}; float mode: [{float_low:.12g}, "
        f"{float_up:.12g}]",
        private=private,
        privacy_rule="largest ratio ≤ e^ε, decided in balls",
        certified_epsilon=result.certified_epsilon,
        start=start,
    )


@check("exact: GRS universal optimality (n ≤ 10)", group=GROUP, quick=True, exact=True)
def _exact_universal() -> list[CheckResult]:
    rng = np.random.default_rng(20)
    return [
        exact_count_row(
            p,
            loss_matrix(loss, n),
            eps,
            name="exact: GRS universal optimality",
            label=f"n={n}, eps={eps:.4g}, {label}, exact seed 20#{k}",
        )
        for k, n, eps, p, label, loss in random_users(rng, 10, (3, 10))
    ]


@check("exact: GRS worked example (Fig. 2)", group=GROUP, quick=True, exact=True)
def _exact_worked_example() -> list[CheckResult]:
    eps = math.log(2.0)
    start = time.perf_counter()
    g = exact_geometric(5, Fraction(1, 2))
    assignment, value = exact_bayes_assignment(g, FIG2_PRIOR)
    rows = [
        exact_row(
            "exact: GRS worked example, Bayes remap and value",
            "n=5, eps=ln 2, α = 1/2",
            float(value),
            float(Fraction(41, 48)),
            assignment == FIG2_REMAP and value == Fraction(41, 48),
            rule="rational Bayes remap = Fig. 2's (1 → 2) and its value = 41/48",
            group=GROUP,
            detail=f"remap {assignment}, value {value} (rationals)",
            seconds=time.perf_counter() - start,
            exact=True,
        )
    ]
    prior = np.array([1, 0, 1, 1, 1, 1], dtype=np.float64) / 5.0
    rows.append(
        exact_count_row(
            prior,
            loss_matrix(as_cost("abs"), 5),
            eps,
            name="exact: GRS worked example, LP optimum",
            label="n=5, eps=ln 2 (float), prior uniform on {0,2,3,4,5}, |e|",
            vertex=True,
        )
    )
    return rows


# --------------------------------------------------------------------------------------------
# Minimax users (Gupte & Sundararajan (2010))
# --------------------------------------------------------------------------------------------
def _minimax_multipliers(
    loss: np.ndarray, side: np.ndarray, epsilon: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Multipliers ``(μ on S, z_down, z_up)`` of the minimax LP, from one textbook solve."""
    n_in, n_out = loss.shape
    scale = float(np.max(loss[side])) or 1.0
    x = cp.Variable((n_in, n_out), nonneg=True)
    t = cp.Variable()
    e = math.exp(epsilon)
    rows = cp.sum(cp.multiply(loss[side] / scale, x[side]), axis=1) <= t
    down = x[:-1] - e * x[1:] <= 0
    up = x[1:] - e * x[:-1] <= 0
    problem = cp.Problem(cp.Minimize(t), [cp.sum(x, axis=1) == 1, rows, down, up])
    solve_problem(problem, kind="count")
    clip = [
        np.clip(np.asarray(c.dual_value, dtype=np.float64), 0.0, None) for c in (rows, down, up)
    ]
    return clip[0].ravel(), clip[1] * scale, clip[2] * scale


def _simplex_weights(mu: np.ndarray) -> tuple[list[flint.fmpq], flint.fmpq]:
    """``μ`` as rationals summing exactly to 1, and the exact factor it was divided by."""
    exact = [_q(v) for v in mu]
    total = sum(exact, flint.fmpq(0))
    return [v / total for v in exact], total


def _minimax_bounds(loss: np.ndarray, side: np.ndarray, epsilon: float) -> tuple[Any, Any]:
    """Lagrangian lower bounds, in balls, of the minimax LP and of its remap LP (``G`` fixed).

    For ``μ`` in the simplex over S, ``max_{i∈S} a_i ≥ Σ μ_i a_i`` (losses ≥ 0); relaxing the
    privacy rows of the minimax LP with ``z/Σμ`` gives ``Σ_i min_r C[i, r]``, and over remaps
    ``T`` of ``G`` the same ``μ`` gives the Bayes value ``Σ_z min_r Σ_{i∈S} μ_i G[i, z] L[i, r]``
    (Gupte & Sundararajan: the two optima coincide, so one ``μ`` serves both).
    """
    mu, z_down, z_up = _minimax_multipliers(loss, side, epsilon)
    weights, total = _simplex_weights(mu)
    n_in, n_out = loss.shape
    in_side = {int(i): k for k, i in enumerate(side)}
    with enc.precision(PRECISIONS[0]):
        e = flint.arb(float(epsilon)).exp()
        scale = flint.arb(total)
        lp_bound = flint.arb(0)
        for i in range(n_in):
            candidates: list[flint.arb] = []
            for r in range(n_out):
                c = flint.arb(0)
                if i in in_side:
                    c += flint.arb(weights[in_side[i]]) * flint.arb(float(loss[i, r]))
                if i < n_in - 1:
                    c += (flint.arb(float(z_down[i, r])) - e * flint.arb(float(z_up[i, r]))) / scale
                if i > 0:
                    c += (
                        flint.arb(float(z_up[i - 1, r])) - e * flint.arb(float(z_down[i - 1, r]))
                    ) / scale
                candidates.append(c)
            lp_bound += _ball_min(candidates)
        g = enc.geometric_matrix(n_in - 1, epsilon)
        remap_bound = flint.arb(0)
        for z in range(n_in):
            candidates = []
            for r in range(n_out):
                c = sum(
                    (
                        flint.arb(weights[k]) * g[int(i), z] * flint.arb(float(loss[i, r]))
                        for k, i in enumerate(side)
                    ),
                    flint.arb(0),
                )
                candidates.append(c)
            remap_bound += _ball_min(candidates)
        return lp_bound, remap_bound


def _worst_row(rows: list[list[Any]], loss: np.ndarray, side: np.ndarray) -> Any:
    worst = None
    for i in side:
        value = sum(
            (
                flint.arb(rows[int(i)][r]) * flint.arb(float(loss[i, r]))
                for r in range(loss.shape[1])
            ),
            flint.arb(0),
        )
        worst = value if worst is None else worst.max(value)
    return worst


def exact_minimax_row(
    loss: np.ndarray, epsilon: float, side: list[int], *, label: str
) -> CheckResult:
    """A minimax LP and ``G`` + best randomized remap, both reproduced exactly; the two exact
    intervals must intersect (Gupte & Sundararajan (2010))."""
    start = time.perf_counter()
    lp = minimax_mechanism(loss, epsilon, side_information=side)
    ref = geometric_minimax(loss, epsilon, side_information=side)
    side_arr = np.asarray(lp.side_information)
    rows = exact_matrix(lp.mechanism)
    private, why = matrix_privacy(rows, epsilon)
    remap = exact_matrix(ref.remap)
    lp_low, remap_low = _minimax_bounds(np.asarray(lp.loss), side_arr, epsilon)
    with enc.precision(PRECISIONS[0]):
        lp_up = _worst_row(rows, np.asarray(lp.loss), side_arr)
        t = flint.arb_mat([[flint.arb(v) for v in row] for row in remap])
        gt = enc.geometric_matrix(len(rows) - 1, epsilon) * t
        gt_rows = [[gt[i, j] for j in range(gt.ncols())] for i in range(gt.nrows())]
        worst: list[flint.arb] = []
        for i in side_arr:
            value = sum(
                (gt_rows[int(i)][r] * flint.arb(float(lp.loss[i, r])) for r in range(gt.ncols())),
                flint.arb(0),
            )
            worst.append(value)
        first = (enc.bounds(lp_low)[0], enc.bounds(lp_up)[1])
        remap_up = functools.reduce(lambda a, b: a.max(b), worst)
        second = (enc.bounds(remap_low)[0], enc.bounds(remap_up)[1])
    row = agreement_row(
        "exact: minimax optimality (G + randomized remap)",
        label,
        first=first,
        second=second,
        group=GROUP,
        detail=f"reproduced exactly: minimax mechanism and remap in rationals (rows renormalised "
        f"exactly), values and both Lagrangian bounds in balls; {why}; float mode: "
        f"{interval_of(lp)} and {interval_of(ref)}",
        certified_epsilon=lp.certified_epsilon,
        seconds=time.perf_counter() - start,
        exact=True,
    )
    ok = row.passed and private is True
    note = "" if private is True else "; failed: exactly ε-DP"
    return replace(row, passed=ok, detail=row.detail + note, rule=row.rule + "; exactly ε-DP")


@check("exact: minimax optimality (n ≤ 10)", group=GROUP, quick=True, exact=True)
def _exact_minimax() -> list[CheckResult]:
    rng = np.random.default_rng(40)
    rows = []
    for k in range(8):
        n = int(rng.integers(3, 11))
        eps = random_epsilon(rng)
        label, loss = random_loss(rng, n, k)
        size = int(rng.integers(1, n + 2))
        side = np.sort(rng.choice(n + 1, size=size, replace=False)).tolist()
        rows.append(
            exact_minimax_row(
                loss_matrix(loss, n), eps, side, label=f"n={n}, eps={eps:.4g}, {label}, S={side}"
            )
        )
    return rows


# --------------------------------------------------------------------------------------------
# Query-dependent and discrete staircase LPs
# --------------------------------------------------------------------------------------------
def _ball_min(balls: list[flint.arb]) -> flint.arb:
    """The smallest of several balls (``arb.min``: encloses the minimum of the enclosed reals)."""
    return functools.reduce(lambda a, b: a.min(b), balls)


def _power_law(cost: Cost) -> tuple[float, float, float]:
    """``(p, over, under)`` of a power-law cost; the exact checks take no other."""
    law = cost.power_law
    if law is None:
        raise ValueError(f"`cost` must be a power law |e|^p or 0-1 here; got {cost!r}.")
    return law


def _cost_at(k: int, cost: Cost) -> Any:
    """``c(k)`` at an integer as a ball (|x|^p and 0-1 costs)."""
    if hasattr(cost, "tolerance"):
        return flint.arb(1 if abs(k) > cost.tolerance else 0)
    p, over, _ = _power_law(cost)
    return flint.arb(over) * flint.arb(abs(k)) ** flint.arb(p) if k else flint.arb(0)


def _class_sum(b: Any, delta: int, offset: int, cost: Cost) -> Any:
    """``Σ_{j≥0} b^j c(offset + jΔ)`` (``offset ≥ 0``) as a ball, for |x|^p and 0-1 costs."""
    if hasattr(cost, "tolerance"):
        first = 0
        while offset + first * delta <= cost.tolerance:
            first += 1
        return b**first / (1 - b)
    p, over, _ = _power_law(cost)
    return flint.arb(over) * enc.power_class_sum(b, delta, offset, p)


def _cells(b: Any, half: int, delta: int, cost: Cost) -> tuple[list[Any], list[Any]]:
    """Per grid cell ``k``: its class's mass ``m_k`` and cost ``C_k`` (pmf units), tail ``b``."""
    masses, costs = [], []
    for k in range(-half, half + 1):
        if abs(k) > half - delta:  # the outermost period: the whole geometric class
            masses.append(1 / (1 - b))
            costs.append(_class_sum(b, delta, abs(k), cost))
        else:
            masses.append(flint.arb(1))
            costs.append(_cost_at(k, cost))
    return masses, costs


def _source(c: int, half: int, delta: int) -> tuple[int, bool]:
    """Extended-grid column ``c`` (``k = c − K − Δ``): grid index of its source, beyond grid?"""
    k = c - half - delta
    if k > half:
        return k - delta + half, True
    if k < -half:
        return k + delta + half, True
    return k + half, False


def _dependent_upper(res: Any, cost: Cost) -> tuple[Any, list[list[Any]]]:
    """Exact worst-case cost of the returned family (a ball) and its normalised entries on the
    extended grid: ``((1 − λ) q_t(k) + λ u(k)) / ((1 − λ) Z_t + λ)`` with the family's own
    float tail factor (exact) and ``u`` the ε/2-geometric of
    `optmech.lp.dependent`."""
    eps, delta, half = res.epsilon, res.sensitivity, res.half_width
    b = flint.arb(math.exp(-eps))
    lam = flint.arb(res.repair_lambda)
    masses, costs = _cells(b, half, delta, cost)
    beta = (-flint.arb(eps) / (2 * delta)).exp()
    u_norm = (flint.arb(eps) / (4 * delta)).tanh()
    u_cost = 2 * u_norm * _class_sum(beta, 1, 0, cost)  # Σ_k u(k) c(k), c(0) = 0
    n_ext = 2 * (half + delta) + 1
    worst, entries = None, []
    for row in res.probabilities:
        q = [flint.arb(_q(v)) for v in row]
        z = sum((qi * mi for qi, mi in zip(q, masses, strict=True)), flint.arb(0))
        total = (1 - lam) * z + lam
        own = sum((qi * ci for qi, ci in zip(q, costs, strict=True)), flint.arb(0))
        value = ((1 - lam) * own + lam * u_cost) / total
        worst = value if worst is None else worst.max(value)
        ext = []
        for c in range(n_ext):
            src, beyond = _source(c, half, delta)
            u = u_norm * beta ** abs(c - half - delta)
            ext.append(((1 - lam) * q[src] * (b if beyond else 1) + lam * u) / total)
        entries.append(ext)
    return worst, entries


def _dependent_privacy(res: Any, entries: list[list[Any]]) -> tuple[bool | None, str]:
    """Every constraint of the extended grid (which covers every distinct ratio) in balls."""
    e = flint.arb(float(res.epsilon)).exp()
    for _d, partner, cols, cols_d in _pairs(res.period, len(entries[0]), res.sensitivity):
        for t in range(res.period):
            for c, cd in zip(
                range(cols.start, cols.stop), range(cols_d.start, cols_d.stop), strict=True
            ):
                a, other = entries[t][c], entries[int(partner[t])][cd]
                if not a < e * other:
                    verdict = None if a.overlaps(e * other) else False
                    return verdict, f"phase {t}, column {c} against phase {partner[t]}, {cd}"
    return True, "every pair of the extended grid below e^ε (balls)"


def _dependent_lower(res: Any, cost: Cost) -> Any:
    """The Lagrangian bound of `optmech.lp.dependent` in balls, for the LP
    with exact coefficients (tail ``e^(−ε)``, which contains the discrete staircase), from the float
    multipliers: ``Σ_t min_k r_{t,k} + min(r_w w_lo, r_w w_hi)``, times the objective unit."""
    mult = res.multipliers
    eps, delta, half, period = res.epsilon, res.sensitivity, res.half_width, res.period
    b = (-flint.arb(eps)).exp()
    masses, costs = _cells(b, half, delta, cost)
    unit = flint.arb(mult.objective_unit)
    y_cost = [flint.arb(float(v)) for v in np.clip(mult.cost, 0.0, None)]
    y_dp = np.clip(mult.privacy, 0.0, None)
    n_grid = 2 * half + 1
    reduced = [
        [y_cost[t] * costs[k] / masses[k] / unit for k in range(n_grid)] for t in range(period)
    ]
    left, right = flint.arb(1), flint.arb(eps).exp()
    if mult.balanced:
        left, right = (-flint.arb(eps) / 2).exp(), (flint.arb(eps) / 2).exp()
    n_ext = 2 * (half + delta) + 1
    row = 0
    for _d, partner, cols, cols_d in _pairs(period, n_ext, delta):
        for t in range(period):
            for c, cd in zip(
                range(cols.start, cols.stop), range(cols_d.start, cols_d.stop), strict=True
            ):
                y = y_dp[row]
                row += 1
                if y == 0:
                    continue
                yb = flint.arb(float(y))
                src, beyond = _source(c, half, delta)
                reduced[t][src] += yb * left * (b if beyond else 1) / masses[src]
                src, beyond = _source(cd, half, delta)
                reduced[int(partner[t])][src] -= yb * right * (b if beyond else 1) / masses[src]
    total = flint.arb(0)
    for t in range(period):
        best = reduced[t][0]
        for r in reduced[t][1:]:
            best = best.min(r)
        total += best
    r_w = 1 - sum(y_cost, flint.arb(0))
    lo, hi = (flint.arb(v) for v in mult.w_box)
    total += (r_w * lo).min(r_w * hi)
    return total * unit


def exact_dependent_row(eps: float, delta: int, cost_spec: str, period: int) -> CheckResult:
    """A small query-dependent (period 1: discrete staircase) LP reproduced exactly."""
    start = time.perf_counter()
    cost = as_cost(cost_spec)
    res = dependent_noise_lp(eps, sensitivity=delta, cost=cost, period=period)
    with flint.ctx.workprec(PRECISIONS[0]):
        upper_ball, entries = _dependent_upper(res, cost)
        private, why = _dependent_privacy(res, entries)
        lower_ball = (
            _dependent_lower(res, cost) if res.multipliers is not None else flint.arb("-inf")
        )
        reference_ball, r_star = enc.discrete_staircase_optimum(eps, delta, cost)
        upper = enc.bounds(upper_ball)[1]
        lower = enc.bounds(lower_ball)[0]
        reference = enc.bounds(reference_ball)
    prov = res.provenance
    return _exact_certificate_row(
        "exact: query-dependent worst case = discrete staircase",
        f"eps={eps:g}, D={delta}, {cost_spec}, period={period}",
        lower=lower,
        upper=upper,
        reference=reference,
        detail=f"reproduced exactly: pmf in rationals (tails, mixture weight "
        f"{res.repair_lambda:.1e} and normalisation in balls), bound recomputed in balls from "
        f"the float multipliers; staircase r*={r_star}; {why}; float mode: "
        f"[{prov.lower_bound:.12g}, {prov.value:.12g}]",
        private=private,
        privacy_rule="every extended-grid pair below e^ε, decided in balls",
        certified_epsilon=res.certified_epsilon,
        start=start,
    )


@check("exact: query-dependent and discrete staircase LPs", group=GROUP, quick=True, exact=True)
def _exact_dependent() -> list[CheckResult]:
    cases = [
        (1.0, 1, "abs", 1),
        (1.0, 1, "abs", 2),
        (2.0, 3, "abs", 1),
        (0.5, 2, "squared", 3),
        (1.0, 2, "power:0.5", 2),
        (2.0, 2, "zero-one:1", 2),
        (0.05, 2, "abs", 3),
    ]
    return [exact_dependent_row(*case) for case in cases]
