"""The candidate of `minimax_certificate` at scale: the best randomized remap of ``G`` by
column generation, and its worst risk rounded up.

The remap LP (Gupte & Sundararajan 2010: the minimax user's best post-processing of the
range-restricted geometric mechanism ``G``)

    minimise t   subject to   Σ_r T[z, r] = 1 (all z),  T ≥ 0,
                              Σ_z G[i, z] Σ_r T[z, r] l(i, r) ≤ t   (i ∈ S)

has ``(n + 1)²`` variables and ``|S| (n + 1)²`` dense coefficients; its optimum uses few of them
(a remap that is deterministic but for a few outputs). It is solved on a set of columns ``(z,
r)`` — the identity, the Bayes remap of the uniform weights on S and its neighbours — grown by
pricing: with the row-sum multipliers ``π`` and the weights ``μ ≥ 0`` of the risk rows, the
reduced cost of ``(z, r)`` is ``Q[z, r] − π_z`` with ``Q = Gᵀ diag(μ) L``, least over ``r`` at
the Bayes remap of ``μ`` (``optmech.theorems.dual_point``, O(n²) by recursions), so each round
adds every output's most negative column. The restricted LP is scaled by the worst risk of that
first Bayes remap and keeps the entries ``G[i, z] l(i, r)`` that can reach ``10^-12`` of it (a
band of outputs around each input; HiGHS drops smaller ones), solved by HiGHS's primal simplex,
from the last basis after each round (a vertex: the remap and ``μ`` are read off it). If the
solver runs out of time (`_TIME_LIMIT`) the remap and weights it holds are certified as they
are: the interval stays sound, and may be wider than the accuracy.

Nothing of the solve is trusted: the candidate's worst risk is recomputed from every entry of
``G`` with its rounding bounded, and ``μ`` only chooses the prior whose Bayesian optimum bounds
the minimax optimum from below (`grs_certificate`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp

from optmech._floats import TINY, FloatArray, IntArray, U
from optmech.lp.incremental import new_incremental_model
from optmech.theorems.dual_point import _G_REL, _bayes_remap, _column_factors

__all__ = ["minimax_remap_columns", "worst_risk_up"]

#: Entries of ``G`` below this are left out of the restricted LP (not out of the value).
_G_FLOOR = 1e-12
#: HiGHS's primal and dual feasibility tolerances (the LP is scaled to an optimum near 1).
_TOL = 1e-10
#: HiGHS's solver for the first master LP.
_FIRST_SOLVER = "simplex"
#: Seconds the solver may take, all rounds together: on ill-conditioned masters (e², n = 1000)
#: its simplex can stall near the optimum for minutes; the certificate then takes what it has.
_TIME_LIMIT = 40.0
#: Pricing rounds at most.
_MAX_ROUNDS = 60
#: A column enters when its reduced cost is below ``−_PRICE_RTOL`` times the LP's value.
_PRICE_RTOL = 1e-13


def _risk_matrix(
    rows: IntArray,
    z: IntArray,
    r: IntArray,
    diag: FloatArray,
    n: int,
    eps: float,
    d: FloatArray,
    band: int,
    scale: float,
) -> sp.csr_matrix:
    """``A[s, c] = G[i_s, z_c] l(i_s, r_c) / scale`` for ``|i_s − z_c| ≤ band`` and at least
    `_G_FLOOR` (sparse)."""
    pos = np.full(n + 1, -1, dtype=np.int64)
    pos[rows] = np.arange(rows.size)
    offsets = np.arange(-band, band + 1)
    i = z[:, None] + offsets[None, :]  # (columns, 2 band + 1)
    keep = (i >= 0) & (i <= n)
    keep &= pos[np.clip(i, 0, n)] >= 0
    col = np.broadcast_to(np.arange(z.size)[:, None], i.shape)[keep]
    ii = i[keep]
    zz, rr = z[col], r[col]
    with np.errstate(under="ignore"):
        vals = np.exp(-eps * np.abs(ii - zz)) * d[zz] * diag[rr - ii + n] / scale
    big = vals >= _G_FLOOR
    return sp.csr_matrix((vals[big], (pos[ii[big]], col[big])), shape=(rows.size, z.size))


def minimax_remap_columns(
    rows: IntArray, diag: FloatArray, n: int, eps: float
) -> tuple[IntArray, IntArray, FloatArray, FloatArray]:
    """Columns ``(z, r)`` and weights of the best randomized remap of ``G`` for the inputs
    ``rows``, and the multipliers ``μ ≥ 0`` of their risk rows (module docstring)."""
    d = _column_factors(n, eps)
    out = np.arange(n + 1)
    weights = np.zeros(n + 1)
    weights[rows] = 1.0
    bayes, _ = _bayes_remap(weights, diag, n, eps)
    # the scale of the optimum: the worst risk of that Bayes remap; the LP keeps the entries of
    # G·l that can matter at 10^-18 of it
    scale = worst_risk_up(rows, out, bayes, np.ones(n + 1), diag, n, eps)
    if not 0.0 < scale < math.inf:
        scale = 1.0
    top = max(float(diag.max()), TINY)
    band = min(n, math.ceil((math.log(top) - math.log(_G_FLOOR * scale)) / eps))
    cols = {(int(a), int(b)) for a, b in zip(out, out, strict=True)}
    for shift in (-1, 0, 1):
        cols |= {(int(a), int(b)) for a, b in zip(out, np.clip(bayes + shift, 0, n), strict=True)}
    zs = np.array(sorted(cols), dtype=np.int64)
    z, r = zs[:, 0], zs[:, 1]
    model = new_incremental_model()
    model.setOptionValue("primal_feasibility_tolerance", _TOL)
    model.setOptionValue("dual_feasibility_tolerance", _TOL)
    # primal simplex (optmech.lp.incremental's choice): at n = 1000 it solved |e| in 29 s;
    # interior point and crossover stalled there (e² the other way round), and with e² the
    # simplex stalls too, a hair from the optimum, where the time limit stops it
    model.setOptionValue("solver", _FIRST_SOLVER)
    model.setOptionValue("time_limit", _TIME_LIMIT)
    inf = highspy_infinity(model)
    # rows: the n + 1 row sums (= 1), then the risk rows (A x − t ≤ 0); column 0 is t
    model.addRows(
        n + 1,
        np.ones(n + 1),
        np.ones(n + 1),
        0,
        np.zeros(0, np.int32),
        np.zeros(0, np.int32),
        np.zeros(0),
    )
    model.addRows(
        rows.size,
        np.full(rows.size, -inf),
        np.zeros(rows.size),
        0,
        np.zeros(0, np.int32),
        np.zeros(0, np.int32),
        np.zeros(0),
    )
    t_rows = n + 1 + np.arange(rows.size, dtype=np.int32)
    model.addCols(
        1,
        np.ones(1),
        np.zeros(1),  # every risk is ≥ 0
        np.full(1, inf),
        rows.size,
        np.zeros(1, np.int32),
        t_rows,
        -np.ones(rows.size),
    )
    new_z, new_r = z, r
    prior = np.zeros(n + 1)
    for _ in range(_MAX_ROUNDS):
        _add_columns(model, rows, new_z, new_r, diag, n, eps, d, band, scale)
        model.run()
        model.setOptionValue("solver", "simplex")  # later rounds restart from the basis
        solution = model.getSolution()
        if not str(model.getModelStatus()).endswith("kOptimal"):
            # out of time (or numerical trouble): whatever the solver holds is still a remap
            # and weights to certify — a sound interval, possibly wider than the accuracy
            if solution.value_valid and solution.dual_valid:
                prior = np.zeros(n + 1)
                prior[rows] = np.clip(-np.asarray(solution.row_dual)[n + 1 :], 0.0, None)
                t = np.clip(np.asarray(solution.col_value)[1:], 0.0, None)
                return z[: t.size], r[: t.size], t, prior
            return out, bayes, np.ones(n + 1), weights
        duals = np.asarray(solution.row_dual)
        pi = duals[: n + 1] * scale
        mu = np.clip(-duals[n + 1 :], 0.0, None)
        prior = np.zeros(n + 1)
        prior[rows] = mu
        if prior.sum() <= 0:
            break
        best_r, best_q = _bayes_remap(prior, diag, n, eps)
        fun = float(model.getInfo().objective_function_value)
        enter = best_q < pi - _PRICE_RTOL * abs(fun) * scale
        new = {(int(a), int(b)) for a, b in zip(out[enter], best_r[enter], strict=True)}
        new -= {(int(a), int(b)) for a, b in zip(z, r, strict=True)}
        if not new:
            break
        add = np.array(sorted(new), dtype=np.int64)
        new_z, new_r = add[:, 0], add[:, 1]
        z, r = np.concatenate([z, new_z]), np.concatenate([r, new_r])
    t = np.clip(np.asarray(model.getSolution().col_value)[1:], 0.0, None)
    return z, r, t, prior


def highspy_infinity(model: Any) -> float:
    """The solver's infinity."""
    return float(model.getInfinity())


def _add_columns(
    model: Any,
    rows: IntArray,
    z: IntArray,
    r: IntArray,
    diag: FloatArray,
    n: int,
    eps: float,
    d: FloatArray,
    band: int,
    scale: float,
) -> None:
    """Columns ``(z, r)`` of ``T`` into the master: a 1 in row ``z``'s sum, ``G l / scale`` in
    the risk rows."""
    risk = _risk_matrix(rows, z, r, diag, n, eps, d, band, scale).tocsc()
    risk.sort_indices()
    m = z.size
    counts = np.diff(risk.indptr) + 1
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int32)
    index = np.empty(int(counts.sum()), dtype=np.int32)
    value = np.empty(index.size)
    index[starts] = z
    value[starts] = 1.0
    body = np.ones(index.size, dtype=bool)
    body[starts] = False
    index[body] = n + 1 + risk.indices
    value[body] = risk.data
    model.addCols(
        m,
        np.zeros(m),
        np.zeros(m),
        np.full(m, highspy_infinity(model)),
        index.size,
        starts,
        index,
        value,
    )


def worst_risk_up(
    rows: IntArray,
    z: IntArray,
    r: IntArray,
    t: FloatArray,
    diag: FloatArray,
    n: int,
    eps: float,
) -> float:
    """``max_{i ∈ rows} Σ_c G[i, z_c] l(i, r_c) T̃_c`` rounded up, for the remap ``T̃`` with
    columns ``(z_c, r_c)`` and weights ``t`` divided by their output's total (exactly
    row-stochastic: ``1 / row sum`` is bounded above). All terms are non-negative (``l ≥ 0``):
    each within ``_G_REL`` (``G``) and two products, each sum of ``C`` terms within ``γ_C``."""
    d = _column_factors(n, eps)
    sums = np.bincount(z, weights=t, minlength=n + 1)
    if np.any(sums <= 0):
        return math.inf
    width = max(1, int(4e7 // max(z.size, 1)))
    risks = np.empty(rows.size)
    for s0 in range(0, rows.size, width):
        i = rows[s0 : s0 + width]
        with np.errstate(under="ignore"):
            g = np.exp(-eps * np.abs(i[:, None] - z[None, :])) * d[z][None, :]
        g *= diag[r[None, :] - i[:, None] + n]
        risks[s0 : s0 + width] = g @ (t / sums[z])
    count = z.size
    inflate = (1.0 + _G_REL + (count + 8) * U) / (1.0 - 4 * U)
    underflow = count * TINY * float(diag.max())
    return math.nextafter(float(risks.max()) * inflate * (1.0 + 2 * U) + underflow, math.inf)
