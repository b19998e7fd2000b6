"""The certified interval ``[lower_bound, value]`` of an LP's optimum, and its width test.

`relatively_wide` is the one test of every LP result (designed noise, user
LPs, the query-dependent LP) that decides whether an interval deserves more work — a competing
known mechanism, a re-solve, a cross-check with the other solver.

For a row-block LP (`LPReadout`, the 1-D and 2-D additive designers) ``value`` is the LP objective
at the normalised point, rounded up; ``lower_bound`` is weak duality with the solver's multipliers
(`lagrangian_bound`): the values and the atom (or the tail scales) in one simplex block
``Σ a_j z_j = 1``, the auxiliaries in boxes whose ends hold at an optimum (the LP's ``aux_upper``
and `value_upper`). The bound holds for any multipliers, so a solver's tolerance moves it only
towards zero.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray
from optmech._floats import U as _U
from optmech.lp.bounds import COEFFICIENT_RTOL, SimplexBlocks, lagrangian_bound, upper_dot
from optmech.lp.engine.readout import LPReadout
from optmech.provenance import DEFAULT_ACCURACY

__all__ = ["interval_value", "lp_interval", "lp_value", "relatively_wide"]


def relatively_wide(value: float, lower_bound: float, accuracy: float) -> bool:
    """Whether ``[lower_bound, value]`` is wider than ``accuracy`` relative to the value itself.

    `Provenance.within_accuracy` measures the gap
    absolutely below 1, so tiny values pass it whatever their lower bound; this test does not.

    Examples
    --------
    >>> relatively_wide(1e-3, 0.0, 1e-6), relatively_wide(1.0, 1.0 - 1e-9, 1e-6)
    (True, False)
    """
    return value > 0 and value - lower_bound > accuracy * value


def interval_value(lp: LPReadout, z: FloatArray) -> float:
    """``c·z / a·z`` in cost units, rounded up: the LP objective at the normalised point."""
    k = z.size
    num = upper_dot(lp.weights[:k], z)
    products = lp.mass[:k] * z
    den = math.fsum(products.tolist())
    err = float(np.sum(np.abs(products))) * 2.0 * _U + abs(den) * _U
    ratio = num / (den - err) if num >= 0 else num / (den + err)
    return ratio + abs(ratio) * 2.0 * _U


def _bound(lp: LPReadout, y: FloatArray, value: float, boxed: npt.NDArray[np.bool_]) -> float:
    """The Lagrangian bound with the values and atom in one simplex block, except ``boxed``.

    Boxed value variables lie in ``[0, u_j]`` (`LPReadout.value_upper`); they hold at most
    ``M = Σ a_j u_j`` of the mass, so the block's total lies in ``[1 − M, 1]`` — and the bound,
    linear in that total, is the smaller of its values at the two ends.
    """
    n = lp.num_variables
    k = n - lp.num_aux
    a_ub, b_ub = lp.rows.stacked(n)
    in_block = np.zeros(n, dtype=bool)
    in_block[:k] = ~boxed
    block = np.where(in_block, 0, -1).astype(np.int64)
    weight = np.where(in_block, lp.mass, 1.0)
    v_upper = lp.value_upper(value)
    upper = np.concatenate([np.where(boxed, v_upper, 0.0), lp.aux_upper(value)])
    totals = [1.0]
    if np.any(boxed):
        held = upper_dot(lp.mass[:k][boxed], v_upper[boxed])
        if not held < 1.0:
            return -math.inf
        totals.append((1.0 - held) * (1.0 - 2.0 * _U))
    return min(
        lagrangian_bound(
            lp.weights,
            a_ub=a_ub,
            b_ub=b_ub,
            y_ub=y,
            blocks=SimplexBlocks(block, weight, np.array([total])),
            lower=np.zeros(n),
            upper=upper,
            coefficient_rtol=COEFFICIENT_RTOL,
        )
        for total in totals
    )


def _push_aux_deficits(lp: LPReadout, y: FloatArray) -> FloatArray:
    """Multipliers with the auxiliaries' negative reduced costs moved into value variables.

    In the bound an auxiliary with reduced cost ``r_a < 0`` costs ``r_a·ū_a`` — summed over all
    of them — whereas a value variable's costs only through the block's *minimum* of
    ``r_j/a_j``. Raising the multiplier of a row where the auxiliary has a positive coefficient
    (its defining row, e.g. ``P_k − x_k ≤ 0``; preferably one whose other entries are value
    variables) by ``−r_a/c`` sets ``r_a`` to 0 and lowers ``r_j`` of that value variable by as
    much; chains (a minimum of minima) are followed level by level. Any multipliers ``≥ 0``
    give a valid bound, so this only changes how tight it is.
    """
    n, k = lp.num_variables, lp.num_variables - lp.num_aux
    a_ub = lp.rows.stacked(n)[0].tocsr()
    coo = a_ub[:, k:].tocoo()
    neg_aux = np.bincount(coo.row[coo.data < 0], minlength=a_ub.shape[0])
    pos = coo.data > 0
    rows, cols, coef = coo.row[pos], coo.col[pos], coo.data[pos]
    order = np.lexsort((neg_aux[rows], cols))  # per column: rows without a chain first
    cols_sorted = cols[order]
    first = np.unique(cols_sorted, return_index=True)[1]
    has = np.zeros(lp.num_aux, dtype=bool)
    has[cols_sorted[first]] = True
    def_row = np.zeros(lp.num_aux, dtype=np.int64)
    def_coef = np.ones(lp.num_aux)
    def_row[cols_sorted[first]] = rows[order][first]
    def_coef[cols_sorted[first]] = coef[order][first]
    out = np.clip(y, 0.0, None)
    for _ in range(32):  # chains are at most log2(2m + 1) levels deep
        r = lp.weights + a_ub.T @ out
        short = has & (r[k:] < 0)
        if not np.any(short):
            break
        step = np.zeros(out.size)
        np.add.at(step, def_row[short], -r[k:][short] / def_coef[short])
        out = out + step
    return out


def _lower_bound(lp: LPReadout, value: float, accuracy: float) -> float:
    """Weak-duality bound on the LP's optimum from the solver's multipliers (module text).

    ``value`` (at least the optimum) tightens the auxiliaries' boxes. When the plain bound is
    further than ``accuracy`` below ``value``, the auxiliaries' deficits are moved into value
    variables (`_push_aux_deficits`); when the culprits are a few value
    variables whose reduced costs the solver left slightly infeasible (cells of tiny mass, whose
    dual feasibility it sees only to its absolute tolerance), those are moved into boxes
    (`_bound`); the best bound found is returned.
    """
    trivial = 0.0 if np.all(lp.weights >= 0) else -math.inf  # a cost ≥ 0 costs ≥ 0
    duals = lp.duals()
    if duals is None:
        return trivial
    y = np.concatenate([*duals.values(), np.zeros(0)])  # the blocks with rows, in order
    k = lp.num_variables - lp.num_aux
    none = np.zeros(k, dtype=bool)
    best = max(_bound(lp, y, value, none), trivial)
    if best >= value - accuracy * abs(value) or not math.isfinite(value):
        return best
    if lp.num_aux:
        y = _push_aux_deficits(lp, y)
        best = max(best, _bound(lp, y, value, none))
        if best >= value - accuracy * abs(value):
            return best
    a_ub = lp.rows.stacked(lp.num_variables)[0]
    reduced = (lp.weights + a_ub.T @ np.clip(y, 0.0, None))[:k] / lp.mass[:k]
    for cut in (1e-9, 1e-7, 1e-5, 1e-3):
        boxed = reduced < value * (1.0 - cut)
        if np.any(boxed) and boxed.sum() <= max(k // 4, 1):
            best = max(best, _bound(lp, y, value, boxed))
    return best


def lp_value(lp: Any, z: npt.ArrayLike) -> float:
    """``c·z / a·z`` in cost units, rounded up, for the value (and atom) variables ``z`` of an
    LP with ``weights`` and ``mass`` (the auxiliaries are ignored)."""
    return interval_value(lp, np.asarray(z, dtype=np.float64)[: lp.num_variables - lp.num_aux])


def lp_interval(
    lp: LPReadout, z: npt.ArrayLike, *, accuracy: float = DEFAULT_ACCURACY
) -> tuple[float, float]:
    """``(lower_bound, value)`` for a point ``z`` of ``lp`` (values and atom; the auxiliaries
    are implied) and the multipliers the solver left in ``lp.constraints`` (module docstring).

    The LP's optimum lies in the interval whenever ``z`` is feasible (after normalisation).
    """
    value = lp_value(lp, z)
    return _lower_bound(lp, value, accuracy), value
