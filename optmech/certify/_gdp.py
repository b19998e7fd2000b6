"""The GDP check of one shift's profile curve, for
`optmech.certify.profiles`.

μ-GDP holds iff ``δ(ε) ≤ δ_μ(ε)`` for every ε ≥ 0 (Dong, Roth & Su, 2022, Corollary 2.13). On a
piece between two losses the curve ``δ_s = A − tB`` is linear in ``t = e^ε`` while ``δ_μ`` is
convex in ``t`` with slope ``−Φ(−ε/μ − μ/2)``: the gap is least where that slope is ``−B``; it
is bounded there by a tangent line (the gap being monotone on either side, which is checked).
``log_ndtr``/``ndtri_exp`` are taken within ``16u(1 + |value|)`` (``u = 2^-53``; checked
against mpmath in the tests).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import special

from optmech._floats import FloatArray

__all__ = ["curve_holds"]

_U = 2.0**-53
#: Assumed accuracy of scipy's ``log_ndtr`` / ``ndtri_exp``, relative to ``1 + |value|``.
_TAU = 16.0 * _U


def _log_phi(x: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``log Φ(x)`` and an error bound (library accuracy plus the rounding of ``x``)."""
    val = special.log_ndtr(x)
    return val, _TAU * (1.0 + np.abs(val)) + 4.0 * _U * (1.0 + np.abs(x)) ** 2


def _gap_ok(mu: float, e1: FloatArray, e2: FloatArray, la: FloatArray, lb: FloatArray) -> Any:
    """``δ_μ ≥ A − tB`` on ``[t1, t2]`` from the tangent of the gap at ``t1``, rigorously."""
    lpa, ea = _log_phi(-e1 / mu + 0.5 * mu)
    lpb, eb = _log_phi(-e1 / mu - 0.5 * mu)
    x = e1 + lpb - lpa + ea + eb + 2.0 * _U * (np.abs(e1) + np.abs(lpb) + np.abs(lpa))
    y = e1 + lb - la - 2.0 * _U * (1.0 + np.abs(e1) + np.abs(lb) + np.abs(la))
    with np.errstate(divide="ignore", invalid="ignore"):
        log_dmu = lpa - ea + np.log(-np.expm1(np.minimum(x, 0.0)))
        log_u = la + np.log(-np.expm1(np.minimum(y, 0.0)))
        log_dt = e1 + np.log(np.expm1(e2 - e1))  # t2 − t1
    slope = np.maximum(lb, lpb + eb)  # |g'(t1)| ≤ max(B, Φ(b1))
    log_corr = slope + log_dt
    rhs = np.logaddexp(log_u, log_corr)
    slack = 8.0 * _U * (1.0 + np.abs(np.where(np.isfinite(rhs), rhs, 0.0)) + np.abs(slope))
    return (rhs == -np.inf) | (log_dmu - 8.0 * _U * (1.0 + np.abs(log_dmu)) >= rhs + slack)


def _slope_sign(mu: float, e: FloatArray, lb: FloatArray, sign: float) -> Any:
    """Whether ``g' = B − Φ(−ε/μ − μ/2)`` certifiably has the given sign (or is 0) at ``e``."""
    lp, err = _log_phi(-e / mu - 0.5 * mu)
    return lb >= lp + err if sign > 0 else lb <= lp - err


def curve_holds(c: Any, mu: float) -> bool:
    """Whether ``δ_s(ε) ≤ δ_μ(ε)`` for every ε ≥ 0 on every piece of the curve."""
    if c.inf_mass > 0.0:
        return False  # δ_s ≥ the infinite-loss mass > 0 while δ_μ → 0
    hi = c.loss
    lo = np.maximum(np.append(c.loss[1:], -np.inf), 0.0)
    keep = hi >= lo
    hi, lo, la, lb = hi[keep], lo[keep], c.log_a[keep], c.log_b[keep]
    with np.errstate(over="ignore"):
        star = -mu * (special.ndtri_exp(np.minimum(lb, -1e-300)) + 0.5 * mu)
    mid = np.clip(star, lo, hi)
    ok = np.zeros(hi.size, dtype=bool)
    for rel in (1e-9, 1e-6, 1e-3, None):
        todo = ~ok
        if rel is None:  # the whole piece: the tangent at its left end bounds it everywhere
            e1, e2, cond = lo[todo], hi[todo], np.ones(int(todo.sum()), dtype=bool)
        else:
            h = rel * (1.0 + np.abs(mid[todo]))
            e1 = np.maximum(lo[todo], mid[todo] - h)
            e2 = np.minimum(hi[todo], mid[todo] + h)
            cond = ((e1 <= lo[todo]) | _slope_sign(mu, e1, lb[todo], -1.0)) & (
                (e2 >= hi[todo]) | _slope_sign(mu, e2, lb[todo], 1.0)
            )
        ok[todo] = cond & _gap_ok(mu, e1, e2, la[todo], lb[todo])
    return bool(np.all(ok))
