"""The rigorous lower bound of a conic design (Rényi DP, zCDP): a tangent-plane Lagrangian bound.

The constraint functions ``g`` of `RenyiCones` (the Rényi sums
``S = Σ w m⁻¹ P^α Q^(1−α) e^(−b)`` and the Kullback–Leibler sum over its bound, each normalised
to ``g ≤ 1``) are convex and 1-homogeneous. For multipliers ``λ ≥ 0`` and any point ``z̄``,
Euler's identity ``∇g(z̄)·z̄ = g(z̄)`` makes the tangent plane a minorant through the origin, so
that on the normalised noises ``c·z + Σλ(g(z) − 1) ≥ (c + Σλ∇g(z̄))·z − Σλ``, whose minimum is
read off the simplex — rounded down with the error of every gradient entry
(`optmech.lp.bounds.lagrangian_bound`). It is a lower bound of the design problem on this grid
and tail ratio at the requested orders for *every* ``λ ≥ 0`` and ``z̄``; it is tight when ``λ``
is the problem's multiplier and ``z̄`` minimises the Lagrangian. The solver's multipliers give
``λ`` (a near-one row's mapped to the Rényi sum); ``z̄`` is the solver's point polished by
Jacobi–Newton steps on the Lagrangian. When the bound is still further below the value than the
accuracy asked, the scale of ``λ`` is searched (the dual function is concave in it, with slope
``λ·(g(z̄) − 1)`` at the polished point): solvers that stop at reduced accuracy leave their
multipliers a few 1e-4 off, and at small budgets the bound drops by 2e-5 relative for that.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray
from optmech.lp.additive.divergences import RenyiCones
from optmech.lp.additive.lp import AdditiveLP
from optmech.lp.additive.repair import envelope_raise
from optmech.lp.bounds import SimplexBlocks, lagrangian_bound
from optmech.privacy import ZCDP

__all__ = ["MULTIPLIER_STEPS", "RELIABLE", "TANGENT_STEPS", "cone_bound", "reliable_envelope"]

#: Jacobi–Newton steps polishing the tangent point of the conic bound.
TANGENT_STEPS = 400
#: Values below this fraction of the largest are taken as the solver's tolerance, not a shape.
RELIABLE = 1e-9
#: Most evaluations of the bound at other scales of the solver's multipliers.
MULTIPLIER_STEPS = 8
_U = 2.0**-53


def reliable_envelope(lp: AdditiveLP, full: FloatArray) -> FloatArray:
    """The grid values with their deep tail raised: the least envelope above them whose losses
    within reach stay within the largest loss among values above ``RELIABLE`` times the
    peak (below that the solver's point is at its tolerance: zeros and steps there are
    noise, and they would make every high-order divergence infinite or huge)."""
    m = lp.grid.period
    good = full > RELIABLE * float(np.max(full))
    with np.errstate(divide="ignore", invalid="ignore"):  # zeros: −inf, left out by `good`
        logs = np.log(full)
        steps = [np.abs(logs[s:] - logs[:-s])[good[s:] & good[:-s]] for s in range(1, m + 1)]
    bound = max((float(np.max(d)) for d in steps if d.size), default=1.0)
    tail = -math.log(lp.tail_ratio)
    if tail > bound:
        return full
    return envelope_raise(full, reach=m, period=m, bound=bound, tail_log_ratio=tail)


def _order_multipliers(cones: RenyiCones, duals: dict[str, Any], budgets: FloatArray) -> FloatArray:
    """Multipliers of the Rényi sums ``S ≤ 1`` (the form ``divergence_gradient`` evaluates),
    per order and shift. The ``"renyi"`` rows are that form already. A near-one row
    ``F̃/B ≤ 1`` approximates ``F_α/B ≤ 1``, and on normalised points
    ``S = e^(−b)(1 + α(α − 1)F_α)``: its multiplier maps to ``e^b/(α(α − 1)B)`` times it."""
    groups = cones.pairs.groups
    out = np.zeros((cones.orders.size, groups))
    near = cones.near_one
    if "renyi" in duals:
        out[~near] = np.reshape(duals["renyi"], (-1, groups))
    if "renyi-near" in duals:
        a = cones.orders[near]
        factor = np.exp(budgets[near]) / (a * (a - 1.0) * cones.near_one_budgets())
        out[near] = np.reshape(duals["renyi-near"], (-1, groups)) * factor[:, None]
    return out


@dataclass(frozen=True)
class _DualFunction:
    """The dual function of a solved conic design at its budgets: the Lagrangian's minimum over
    the normalised noises, bounded from below through a tangent point."""

    lp: AdditiveLP
    cones: RenyiCones
    budgets: FloatArray
    kl: float | None

    def tangent_point(self, lam: FloatArray, start: FloatArray) -> FloatArray:
        """A tangent point: ``start`` polished by damped Jacobi–Newton steps on
        ``c·z + λ·g(z)`` over the normalised noises. Any point inside the domain gives a valid
        bound; a nearly stationary one gives a tight one."""
        k = self.lp.num_values
        a, c = self.lp.mass[:k], self.lp.weights[:k]
        z = start
        for _ in range(TANGENT_STEPS):
            _, grad, _, hess = self.cones.divergence_gradient(z, self.budgets, self.kl)
            d = c + lam @ grad
            if not np.all(np.isfinite(d)):
                break
            nu = float(z @ d) / float(a @ z)  # Euler: z·∇φ = φ(z)
            h = np.maximum(lam @ hess, 1e-300)
            step = np.clip(-(d - nu * a) / (h * z), -2.0, 2.0)  # Newton on log z, damped
            if np.max(np.abs(step)) < 1e-12:
                break
            z = z * np.exp(0.7 * step)
        return z

    def bound_at(self, lam: FloatArray, start: FloatArray) -> tuple[float, FloatArray, float]:
        """The bound at multipliers ``lam`` (rounded down), the polished tangent point, and the
        slope ``λ·(g(z̄) − 1)`` of the dual function along ``λ`` there (its sign says whether a
        larger scale of ``λ`` can do better)."""
        lp = self.lp
        k = lp.num_values
        z = self.tangent_point(lam, start)
        total, grad, err, _ = self.cones.divergence_gradient(z, self.budgets, self.kl)
        if not (np.all(np.isfinite(grad)) and np.all(np.isfinite(err))):
            return -math.inf, start, 0.0
        c = lp.weights[:k] + lam @ grad
        c_err = lam @ err + (grad.shape[0] + 8) * _U * (np.abs(lam) @ np.abs(grad))
        rows = [b for b in lp.rows if b.rows]
        y = [np.asarray(lp.duals()[b.name]) for b in rows] if rows else []  # type: ignore[index]
        a_ub = sp.vstack([b.a[:, :k] for b in rows], format="csr") if rows else None
        blocks = SimplexBlocks(np.zeros(k, dtype=np.int64), lp.mass[:k], np.ones(1))
        b_ub = np.zeros(0 if a_ub is None else a_ub.shape[0])
        y_ub = np.concatenate(y) if y else None
        bound = lagrangian_bound(c - c_err, a_ub=a_ub, b_ub=b_ub, y_ub=y_ub, blocks=blocks)
        lam_total = math.fsum(lam.tolist())
        slope = float(lam @ (total / float(lp.mass[:k] @ z) - 1.0))
        return bound - lam_total - 4.0 * _U * (abs(bound) + lam_total), z, slope


def cone_bound(lp: AdditiveLP, spec: Any, *, value: float, accuracy: float) -> float:
    """The tangent-plane Lagrangian bound of a solved conic design (module docstring), rounded
    down; at least 0 for a cost ≥ 0 (without multipliers: 0 for such a cost, else ``-inf``).

    The search of the multipliers' scale stops once the bound is within half of ``accuracy``
    (relative) of ``value``, the value of the returned noise.
    """
    cones = lp.cones
    assert cones is not None
    names = [k for k in ("renyi", "renyi-near", "kl") if k in lp.constraints]
    duals = {k: lp.constraints[k].dual_value for k in names}
    trivial = 0.0 if np.all(lp.weights >= 0) else -math.inf  # a cost ≥ 0 costs ≥ 0
    if any(d is None for d in duals.values()) or lp.col_scale is None:
        return trivial
    g = spec.privacy
    if isinstance(g, ZCDP):
        budgets, kl = (cones.orders - 1.0) * g.rho * cones.orders, g.rho
    else:
        budgets, kl = (cones.orders - 1.0) * np.asarray(g.epsilons), None
    lam = _order_multipliers(cones, duals, budgets).ravel()
    if "kl" in duals:  # the "kl" rows bound KL by ρ: times ρ, those of KL/ρ ≤ 1
        lam = np.concatenate([lam, np.atleast_1d(duals["kl"]) * (kl or 1.0)])
    lam = np.clip(lam, 0.0, None) * lp.objective_factor
    k = lp.num_values
    full = np.asarray(lp.expand @ np.maximum(lp.point()[:k], 0.0), dtype=float)
    start = lp.variables_of(reliable_envelope(lp, full), 0.0)[:k]
    dual = _DualFunction(lp, cones, budgets, kl)
    best, z, slope = dual.bound_at(lam, start)
    target = value - 0.5 * accuracy * abs(value)
    # (scale, slope) on each side of the dual function's maximum, once seen.
    below: tuple[float, float] | None = (1.0, slope) if slope > 0 else None
    above: tuple[float, float] | None = None if slope > 0 else (1.0, slope)
    scale, step = 1.0, 1e-4
    for _ in range(MULTIPLIER_STEPS):
        if best >= target or not math.isfinite(best) or slope == 0.0:
            break
        if below is not None and above is not None:  # regula falsi between the two
            (t0, s0), (t1, s1) = below, above
            scale = t0 + s0 * (t1 - t0) / (s0 - s1)
            if not min(t0, t1) < scale < max(t0, t1):
                scale = 0.5 * (t0 + t1)
        else:
            scale *= math.exp(step if below is not None else -step)
            step *= 4.0
        bound, z, slope = dual.bound_at(lam * scale, z)
        best = max(best, bound)
        if slope > 0:
            below = (scale, slope)
        else:
            above = (scale, slope)
    return max(best, trivial)
