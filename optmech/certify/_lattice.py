"""The lattice engine of `optmech.certify.profiles`: log masses with
their error bounds on the grid and its virtual tail periods, the pairs of masses a shift meets, and
each shift's hockey-stick curve (the derivations and error bounds are in that module's docstring).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
from scipy import special

from optmech._floats import FloatArray
from optmech._floats import U as _U
from optmech._validation import check_int, describe
from optmech.certify.continuous import continuous_source
from optmech.certify.discrete_gaussian import DiscreteGaussian
from optmech.mechanisms.description import GridDescription, cells_within_reach, grid_of

__all__ = ["Curve", "Lattice", "atoms", "curves", "d_inf", "shifts", "source"]


# -- input --------------------------------------------------------------------------------------
class Lattice(NamedTuple):
    """Log masses (and error bounds) on the grid plus ``V`` tail periods each side."""

    logs: FloatArray
    errs: FloatArray
    period: int
    virtual: int  # V, enough for every shift up to Δ: 2 + ceil(Δ/P)
    log_w: tuple[float, float]  # log 1/(1 − ratio), left and right
    log_atom: float
    log_mass: float
    mass_err: float


def _logs(x: Any) -> tuple[FloatArray, FloatArray]:
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(x)
    return out, np.where(np.isfinite(out), 4.0 * _U * (1.0 + np.abs(out)), 0.0)


def _periods(base: FloatArray, ratio: float, count: int) -> tuple[FloatArray, FloatArray]:
    """Logs and errors of ``count`` tail periods, nearest first: ``log base + m log ratio``."""
    (lb, eb), (lr, _) = _logs(base), _logs(ratio)
    m = np.arange(count, dtype=float)[:, None]
    with np.errstate(invalid="ignore"):
        step = np.where(m == 0, 0.0, m * lr)
    extra = np.where(np.isfinite(step), 4.0 * _U * (1.0 + np.abs(step)), 0.0)
    return lb[None, :] + step, eb[None, :] + extra


def _lattice(desc: GridDescription, reach: int) -> Lattice:
    p, atom = desc.masses, desc.atom
    (lb, lr), (rb, rr) = desc.left_tail, desc.right_tail
    mass = desc.total
    if not 0.0 < mass < math.inf:
        raise ValueError(f"the masses must have a positive finite total; got {mass!r}.")
    virtual = 2 + -(-reach // lb.size)
    ll, el = _periods(lb, lr, virtual)
    rl, er = _periods(rb, rr, virtual)
    lp, ep = _logs(p)
    logs = np.concatenate([ll[::-1].ravel(), lp, rl.ravel()])  # farthest left period first
    errs = np.concatenate([el[::-1].ravel(), ep, er.ravel()])
    log_mass = math.log(mass)
    log_w = (-math.log1p(-lr), -math.log1p(-rr))
    return Lattice(
        logs,
        errs,
        lb.size,
        virtual,
        log_w,
        float(_logs(atom)[0]),
        log_mass,
        8.0 * _U * (2.0 + abs(log_mass)),
    )


def _reversed(g: Lattice) -> Lattice:
    return g._replace(logs=g.logs[::-1], errs=g.errs[::-1], log_w=g.log_w[::-1])


def source(noise: Any, sensitivity: Any, lattice: str = "") -> tuple[Any, int]:
    """The noise as a validated lattice (or the discrete Gaussian, or a continuous closed form)
    and the integer Δ (in points, or whole cells of a density)."""
    if isinstance(noise, DiscreteGaussian):
        if lattice:
            raise TypeError(f"{lattice} needs a pmf with geometric tails, not a discrete Gaussian.")
        if sensitivity is None:
            raise TypeError("`sensitivity` is required for the discrete Gaussian; got None.")
        return noise, check_int("sensitivity", sensitivity, low=1)
    grid = grid_of(noise)
    if grid is None:
        if (cont := continuous_source(noise, sensitivity)) is not None:
            return cont, 0
        raise TypeError(
            "`noise` must be a pmf description (a mapping with 'masses' and optional "
            "'left_tail', 'right_tail', 'atom'), a GridDescription, a noise whose "
            "privacy_source() has a grid (LatticeNoise, designs, Geometric, DiscreteStaircase), "
            "discrete_gaussian(sigma), Laplace, Gaussian, Staircase or UniformAtom; got "
            f"{describe(noise)}."
        )
    if not grid.equal_cells:
        raise TypeError(
            f"{describe(noise)} is a density on a graded grid: only its pure ε is certified "
            "(optmech.certify.noise)."
        )
    hint = "shifts on ℤ; for a fractional reach in cells use optmech.certify.noise"
    default: int | Fraction | None
    if grid.discrete or grid.width is None:
        default = grid.reach
    elif sensitivity is None:
        default = grid.cells  # a density: whole cells reached, exactly
    else:
        default, sensitivity = cells_within_reach(sensitivity, grid.width), None
    reach = check_int(
        "sensitivity", default if sensitivity is None else sensitivity, low=1, hint=hint
    )
    return _lattice(grid, reach), reach


# -- the pairs of one shift ------------------------------------------------------------------
def atoms(g: Lattice, s: int) -> tuple[FloatArray, ...]:
    """Logs and errors of ``P``, ``P_s``, weight ``w`` over pairs with both masses positive, and
    the log mass facing zero (atom included), ``s > 0``. The farthest left period stands for all
    beyond it (``w = 1/(1 − ratio)``), the first right one for those after it (the rest: 0)."""
    lw = np.zeros(g.logs.size)
    lw[: g.period] = g.log_w[0]
    start = g.logs.size - g.virtual * g.period
    lw[start : start + g.period] = g.log_w[1]
    lw[start + g.period :] = -np.inf
    lp, lq, ep, eq, w = g.logs[:-s], g.logs[s:], g.errs[:-s], g.errs[s:], lw[:-s]
    live = np.isfinite(lp) & np.isfinite(w)
    both, lost = live & np.isfinite(lq), live & ~np.isfinite(lq)
    log_inf = g.log_atom
    if np.any(lost):
        x = special.logsumexp(w[lost] + lp[lost]) + float(np.max(ep[lost])) + 8.0 * _U
        log_inf = float(np.logaddexp(log_inf, x))
    ew = 4.0 * _U * (1.0 + np.abs(w[both]))
    return lp[both], ep[both], lq[both], eq[both], w[both], ew, np.asarray(log_inf)


class Curve(NamedTuple):
    """One shift's profile: losses (rounded up, descending), ``log A⁺_j``, ``log B⁻_j``."""

    loss: FloatArray
    log_a: FloatArray
    log_b: FloatArray
    inf_mass: float  # normalised, rounded up
    shift: int


def _curve(g: Lattice, at: tuple[FloatArray, ...], shift: int) -> Curve:
    lp, ep, lq, eq, lw, ew, log_inf = at
    ell = lp - lq
    eta = ep + eq + 2.0 * _U * (1.0 + np.abs(ell))
    loss = ell + eta
    la = lw + lp + ew + ep + 2.0 * eta - g.log_mass + g.mass_err
    lb = lw + lq - ew - eq - g.log_mass - g.mass_err
    la, lb = la + 4.0 * _U * (1.0 + np.abs(la)), lb - 4.0 * _U * (1.0 + np.abs(lb))
    order = np.argsort(-loss, kind="stable")
    acc_a, acc_b = np.logaddexp.accumulate(la[order]), np.logaddexp.accumulate(lb[order])
    big = float(np.max(np.abs(np.concatenate([acc_a, acc_b])), initial=0.0))
    gamma = 2.0 * _U * (big + 2.0) * np.arange(1, loss.size + 1)
    inf_mass = 0.0
    if log_inf > -np.inf:
        inf_mass = math.exp(float(log_inf) - g.log_mass + g.mass_err) * (1.0 + 8.0 * _U)
    return Curve(loss[order], acc_a + gamma, acc_b - gamma, inf_mass, shift)


def shifts(g: Lattice, reach: int) -> list[tuple[Lattice, int]]:
    """Oriented lattices and shifts: ``s = 1..Δ``, and ``−s`` (the mirror) unless symmetric."""
    r = _reversed(g)
    mirror = not (np.array_equal(g.logs, r.logs) and g.log_w[0] == g.log_w[1])
    return [
        (o, sign * s) for o, sign in ((g, 1), (r, -1))[: 1 + mirror] for s in range(1, reach + 1)
    ]


def curves(g: Lattice, reach: int) -> list[Curve]:
    return [_curve(o, atoms(o, abs(s)), s) for o, s in shifts(g, reach)]


def d_inf(curves: list[Curve]) -> float:
    if any(c.inf_mass > 0 for c in curves):
        return math.inf
    top = max((float(c.loss[0]) for c in curves if c.loss.size), default=0.0)
    return math.nextafter(max(top, 0.0), math.inf)
