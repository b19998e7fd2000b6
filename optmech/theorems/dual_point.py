"""The dual point of a GRS certificate, and its outward rounding.

The pieces of `grs_certificate` (Ghosh,
Roughgarden & Sundararajan (2012), Thm. 3.1; see that module for the LP): the loss diagonals,
column chunks, the candidate's Bayes remap and its value rounded up, the row duals from
complementary slackness, and the dual bound rounded down.

**The dual point.** Give the row ``x[i, r] − e^ε x[i + 1, r] ≤ 0`` the multiplier
``a[i, r] ≥ 0`` and ``x[i + 1, r] − e^ε x[i, r] ≤ 0`` the multiplier ``b[i, r] ≥ 0``; keep the
rows of ``x`` as simplex blocks. For every such ``(a, b)``

    optimum ≥ Σ_i min_r R[i, r],
    R[i, r] = p_i l(i, r) + a[i, r] + b[i − 1, r] − e^ε (a[i − 1, r] + b[i, r])

(``a, b`` are 0 outside ``0 ≤ i < n``): the Lagrangian relaxation keeping the simplex blocks
(Neumaier & Shcherbina 2004, with blocks in place of boxes). Complementary slackness at the
candidate fixes the row duals ``u``: with ``Q[z, r] = Σ_i p_i G[i, z] l(i, r)`` and
``v_z = Q[z, T(z)]`` the cost of output ``z`` under the remap ``T``, optimality needs
``Gᵀ u = v``, so ``u = G⁻ᵀ v`` (``G⁻¹`` is tridiagonal: O(n)). Then ``Σ_i u_i = Σ_z v_z`` is the
candidate's cost, and the multipliers of column ``r`` must make ``R[i, r] ≥ u_i`` for every
``i``, i.e. cover the vector ``w = p ∘ l(·, r) − u`` (``wᵀ G ≥ 0`` exactly when ``T`` is a Bayes
remap). They are built column by column by a greedy transport along the path: from the left
end, the surplus ``v_i = w_i + (carry from i − 1)`` of node ``i`` is passed on by ``b[i] = α v_i``
when ``v_i ≥ 0`` (``α = e^(−ε)``), and a deficit is covered by ``a[i] = −v_i``, which costs
``e^ε`` per unit at node ``i + 1``; symmetrically from the right end. The two sweeps meet at a
node ``s(r)``; every other node ends at ``R[i, r] = u_i`` (up to rounding), node ``s`` at ``u_s``
plus the sweeps' joint surplus, which is ≥ 0 for every column exactly when the candidate is
optimal (each sweep maximises what it delivers, so the choice of ``s`` only matters
numerically: a sweep that carries a deficit against its direction multiplies its rounding by
``e^ε`` a step). Two dual points are built: the plain sweeps, meeting at the node of largest
surplus net of their rounding scale, and flows trimmed to what the meeting node needs (so that
far, heavy surpluses such as ``p_i (r − i)²`` stay where they are and their rounding cannot
reach the row minima), meeting at the output of ``G`` where complementary slackness puts the
column's deficit. Each column keeps the better one.

**Rigour.** The bound holds for *any* non-negative ``(a, b)``: nothing about how they were found
needs to be exact. Each ``R[i, r]`` is evaluated in floating point and lowered by an a-priori
bound on its rounding (five terms, eight roundings each: ``γ_8`` of the sum of magnitudes,
Higham 2002, §3.1) and by the uncertainty of the rounded ``e^ε``; the row minima are summed by
`math.fsum` and rounded down. The value is the candidate's cost ``Σ_i p_i Σ_z G[i, z]
l(i, T(z))`` with every entry of ``G`` recomputed from ``e^(−ε|i − z|)``, rounded up by the bound
on the relative error of those exponentials, the products and the sums. A candidate that is not
optimal leaves some ``R[i, r] < u_i``: the interval widens by at least its suboptimality, and the
certificate fails, naming the worst dual row (the reduced cost of ``x[i, r]`` furthest below
``u_i``).

Time O(n²) in vectorised sweeps, memory O(n · chunk).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from scipy.signal import lfilter

from optmech._floats import TINY, FloatArray, IntArray, U
from optmech.costs import Cost
from optmech.lp.bounds import COEFFICIENT_RTOL

#: Memory (bytes) the sweeps may use for their column chunks.
_CHUNK_BYTES = 1.2e9
#: Work arrays of (n + 1) floats per column in a chunk.
_ARRAYS_PER_COLUMN = 14
#: Largest relative error of ``fl(e^(−ε k))·fl(d)`` for an entry of ``G`` that is a normal
#: float: the argument ``ε k`` (|ε k| ≤ 746 when the result is normal) is rounded once, which
#: moves the exponential by at most ``746 u`` relatively; `numpy.exp` adds a few ulps, the
#: column factor and the product a few more.
_G_REL = 800.0 * U


def _loss_diagonals(cost: Cost, n: int) -> FloatArray:
    """``c(k)`` for ``k = −n..n`` (index ``k + n``): ``l(i, r) = diag[r − i + n]``."""
    diag = np.asarray(cost(np.arange(-n, n + 1, dtype=np.float64)), dtype=np.float64)
    if not np.all(np.isfinite(diag)):
        raise ValueError(f"`loss` must be finite on the errors −{n}..{n}; got a non-finite value.")
    left, right = diag[: n + 1], diag[n:]
    if np.any(np.diff(left) > 0) or np.any(np.diff(right) < 0):
        raise ValueError(
            "`loss` must be non-decreasing in |r − i| on each side for GRS universal "
            "optimality (Ghosh, Roughgarden & Sundararajan (2012)); it is not on −n..n."
        )
    return diag


def _chunk(n: int, arrays: int = _ARRAYS_PER_COLUMN) -> int:
    return int(max(16, min(n + 1, _CHUNK_BYTES // (8 * arrays * (n + 1)))))


def _loss_columns(diag: FloatArray, n: int, r0: int, width: int) -> FloatArray:
    """``l(i, r)`` for all ``i`` and ``r0 ≤ r < r0 + width``: shape (n + 1, width)."""
    windows = sliding_window_view(diag, width)  # windows[k] = diag[k : k + width]
    return np.ascontiguousarray(windows[n + r0 - np.arange(n + 1)])


def _loss_rows(diag: FloatArray, n: int, r0: int, width: int) -> FloatArray:
    """The transpose of `_loss_columns`: ``l(i, r)`` with ``r`` down the rows,
    shape (width, n + 1), each row contiguous."""
    windows = sliding_window_view(diag[::-1], n + 1)  # windows[k][i] = diag[2n − k − i]
    return np.ascontiguousarray(windows[n - r0 - np.arange(width)])


def _column_factors(n: int, eps: float) -> FloatArray:
    """``d_z`` of ``G = K diag(d)``, ``K[i, z] = α^|i−z|``."""
    d = np.full(n + 1, math.tanh(eps / 2.0))
    d[0] = d[n] = 1.0 / (1.0 + math.exp(-eps))
    return d


def _apply_k(x: FloatArray, alpha: float, axis: int = -1) -> FloatArray:
    """``K x`` along ``axis``, ``K[i, z] = α^|i−z|``: two first-order recursions (O(n))."""
    forward = lfilter([1.0], [1.0, -alpha], x, axis=axis)
    flipped = np.flip(x, axis=axis)
    forward += np.flip(lfilter([1.0], [1.0, -alpha], flipped, axis=axis), axis=axis)
    forward -= x
    return np.asarray(forward)


def _bayes_remap(
    p: FloatArray, diag: FloatArray, n: int, eps: float
) -> tuple[IntArray, FloatArray]:
    """``T(z) = argmin_r Q[z, r]`` (ties to the smallest r) and ``v_z = Q[z, T(z)]``, with
    ``Q = Gᵀ diag(p) L`` formed a chunk of answers at a time (``G = K diag(d)``, ``K`` applied
    by recursions): O(n²) time, O(n · chunk) memory."""
    alpha = math.exp(-eps)
    d = _column_factors(n, eps)
    best = np.full(n + 1, np.inf)
    choice = np.zeros(n + 1, dtype=np.int64)
    width = _chunk(n, arrays=5)
    z = np.arange(n + 1)
    for r0 in range(0, n + 1, width):
        w = min(width, n + 1 - r0)
        q = _apply_k(_loss_rows(diag, n, r0, w) * p[None, :], alpha)  # rows r, columns z
        j = np.argmin(q, axis=0)
        qj = q[j, z] * d
        better = qj < best
        best[better] = qj[better]
        choice[better] = r0 + j[better]
    return choice, best


def _candidate_value(
    p: FloatArray, diag: FloatArray, n: int, eps: float, assignment: IntArray
) -> tuple[float, FloatArray]:
    """The cost ``Σ_i p_i Σ_z G[i, z] l(i, T(z))`` rounded up, and ``v_z = Σ_i p_i G[i, z]
    l(i, T(z))`` (floats, for the row duals), a chunk of inputs at a time."""
    d = _column_factors(n, eps)
    with np.errstate(under="ignore"):
        powers = np.exp(-eps * np.arange(n + 1, dtype=np.float64))  # e^(−εk), each rounded once
    kernel = sliding_window_view(np.concatenate([powers[::-1], powers[1:]]), n + 1)
    rows: list[float] = []
    magnitude = 0.0
    v = np.zeros(n + 1)
    width = _chunk(n, arrays=4)
    for i0 in range(0, n + 1, width):
        i = np.arange(i0, min(i0 + width, n + 1))
        terms = kernel[n - i] * d[None, :]  # G[i, z] = e^(−ε|i − z|) d_z
        terms *= np.take(diag, (n - i)[:, None] + assignment[None, :])
        terms *= p[i][:, None]
        v += terms.sum(axis=0)
        rows.extend(terms.sum(axis=1).tolist())
        magnitude += float(np.abs(terms).sum())
    total = math.fsum(rows)
    # each term: G's error (_G_REL) and two products; each sum over z: γ_{n+1}; fsum: 1 ulp.
    rel = _G_REL + (n + 8) * U
    # entries of G below the normal range carry an absolute error under TINY each
    underflow = (n + 1) ** 2 * TINY * float(np.max(np.abs(diag))) * float(np.max(p))
    up = total + rel * magnitude * (1.0 + 1e-6) + abs(total) * U + underflow
    return math.nextafter(up, math.inf), v


def _row_duals(v: FloatArray, n: int, eps: float) -> FloatArray:
    """``u = G⁻ᵀ v = K⁻¹ (v / d)`` (``K⁻¹`` tridiagonal, GRS §5)."""
    alpha = math.exp(-eps)
    y = v / _column_factors(n, eps)
    u = (1.0 + alpha * alpha) * y
    u[0] = y[0]
    u[n] = y[n]
    u[:-1] -= alpha * y[1:]
    u[1:] -= alpha * y[:-1]
    return np.asarray(u / -math.expm1(-2.0 * eps))


def _sweeps(
    wt: FloatArray, alpha: float, e_eps: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The greedy transports of a chunk of columns (rows: nodes ``i``).

    ``fwd[i]`` = ``w_i`` plus what the left sweep carries into node ``i``; ``bwd[i]`` the same
    from the right. A surplus is passed on times ``α``, a deficit times ``e^ε``. ``scale[i]``
    is the largest magnitude the left sweep carried on its way to node ``i`` plus the same for
    the right sweep: the scale of their rounding if they meet at ``i`` (a deficit carried far
    grows it by ``e^ε`` a step).
    """
    num, width = wt.shape
    fwd = np.empty_like(wt)
    bwd = np.empty_like(wt)
    scale = np.empty_like(wt)
    tmp = np.empty(width)
    with np.errstate(over="ignore", invalid="ignore"):  # a deficit carried far: inf, unused
        for out, order, first in ((fwd, range(num), True), (bwd, range(num - 1, -1, -1), False)):
            carry, mag, worst = np.zeros(width), np.zeros(width), np.zeros(width)
            for i in order:
                v = out[i]
                np.add(wt[i], carry, out=v)
                np.abs(wt[i], out=tmp)
                mag += tmp
                mag *= np.where(v >= 0.0, alpha, e_eps)
                np.maximum(worst, mag, out=worst)
                if first:
                    scale[i] = worst
                else:
                    scale[i] += worst
                # passed on: α v for a surplus, e^ε v for a deficit
                np.multiply(v, alpha, out=carry)
                np.multiply(v, e_eps, out=tmp)
                np.minimum(carry, tmp, out=carry)
    return fwd, bwd, scale


#: How much the choice of the meeting node weighs a sweep's rounding scale against the surplus
#: it delivers: a node whose sweeps carried a deficit over k steps has a scale about e^(εk)
#: times larger, so any large factor keeps the choice on stable nodes.
_SCALE_WEIGHT = 2.0**20 * U


def _meeting_nodes(wt: FloatArray, fwd: FloatArray, bwd: FloatArray, scale: FloatArray) -> IntArray:
    """``s(r)``: where the sweeps meet. In exact arithmetic any node serves (each sweep
    delivers the most it can); in floating point, the node with the largest joint surplus
    ``w_s + carries`` less `_SCALE_WEIGHT` times the sweeps' rounding scale,
    which keeps it off the nodes a sweep reaches only by carrying a deficit against its stable
    direction. Overwrites ``scale``."""
    with np.errstate(over="ignore", invalid="ignore"):
        score = scale
        score += np.abs(wt)
        score *= -_SCALE_WEIGHT
        score += fwd
        score += bwd
        score -= wt
        score[~np.isfinite(score)] = -np.inf
    return np.asarray(score.argmax(axis=0), dtype=np.int64)


def _tightest_outputs(wt: FloatArray, alpha: float) -> IntArray:
    """``argmin_z (w_r · g_z) / d_z`` for each column ``r``: the output of ``G`` whose
    complementary-slackness condition ``w_r · g_z ≥ 0`` is tightest (0 on the outputs the remap
    sends to ``r``), where the column's deficit sits; ``K w_r`` by `_apply_k`."""
    return np.asarray(np.argmin(_apply_k(wt, alpha, axis=0), axis=0), dtype=np.int64)


def _trimmed_flows(
    wt: FloatArray, greedy: FloatArray, meet: IntArray, demand: FloatArray, e_eps: float
) -> FloatArray:
    """Signed flows ``f[e]`` on the edges ``e = (e, e + 1)`` left of the meeting node (0 on the
    others) that deliver at least ``demand`` to it, each as close to 0 as the nodes allow.

    ``f ≥ 0`` is ``b[e] = f`` (node ``e`` pays ``e^ε f``, node ``e + 1`` gets ``f``); ``f < 0`` is
    ``a[e] = −f`` (node ``e`` gets ``−f``, node ``e + 1`` pays ``e^ε (−f)``). Node ``e`` can send
    at most ``ψ⁻¹(w_e + φ(f[e − 1]))`` (what arrives: ``φ(f) = f`` or ``e^ε f``; what leaving
    costs: ``ψ(f) = e^ε f`` or ``f``). The least flows that still meet the demand (``lo``) come
    from a sweep back from the meeting node; the flows sent are ``lo`` raised to 0 where the
    nodes have room, so a surplus that is not needed stays where it is (the reduced cost of
    that node is then well above its row multiplier, and its rounding cannot matter).
    """
    num, width = wt.shape
    alpha = 1.0 / e_eps
    lo = np.zeros((num - 1, width))
    need = np.maximum(demand, 0.0)
    with np.errstate(over="ignore", invalid="ignore"):  # unused branches of np.where
        _lowest_flows(wt, lo, greedy, need, meet, e_eps)
    flows = np.zeros((num - 1, width))
    arrive = np.zeros(width)
    room = np.empty(width)
    hi = np.empty(width)
    with np.errstate(over="ignore", invalid="ignore"):
        for e in range(int(meet.max(initial=0))):
            np.add(wt[e], arrive, out=room)
            np.minimum(room, alpha * room, out=hi)  # ψ⁻¹(room): α·room, or room if negative
            f = flows[e]
            np.minimum(hi, 0.0, out=f)
            np.maximum(f, lo[e], out=f)
            np.minimum(f, hi, out=f)  # lo raised to 0 where there is room, else all it has
            f *= e < meet
            np.minimum(f, e_eps * f, out=arrive)  # φ(f): f, or e^ε f if negative
    return flows


def _lowest_flows(
    wt: FloatArray,
    lo: FloatArray,
    greedy: FloatArray,
    need: FloatArray,
    meet: IntArray,
    e_eps: float,
) -> None:
    """Fill ``lo[e]`` (edges left of the meeting node): the least flows that deliver ``need``
    to it, each at most the greedy sweep's flow ``ψ⁻¹(greedy[e])`` (which meets every demand it
    can)."""
    alpha = 1.0 / e_eps
    width = wt.shape[1]
    last = meet - 1
    nxt = np.zeros(width)
    for e in range(int(last.max(initial=-1)), -1, -1):
        # what edge e must bring so that node e + 1 can send lo[e + 1]: ψ(lo[e + 1]) − w
        cost = np.maximum(nxt, e_eps * nxt)
        cost -= wt[e + 1]
        np.maximum(cost, 0.0, out=cost)
        out = lo[e]
        np.copyto(out, np.where(e == last, need, cost))
        np.minimum(out, np.minimum(greedy[e], alpha * greedy[e]), out=out)
        nxt = out  # (edges beyond the meeting node are never sent: their lo is unused)


def _multipliers(
    wt: FloatArray, fwd: FloatArray, bwd: FloatArray, meet: IntArray, e_eps: float
) -> tuple[FloatArray, FloatArray]:
    """``a[i], b[i]`` (edge ``(i, i + 1)``, shape (n, chunk), both ≥ 0): left of the meeting
    node by `_trimmed_flows` asked for what the right sweep cannot deliver,
    right of it (the mirror image) asked for what the left side left over."""
    n = wt.shape[0] - 1
    cols = np.arange(wt.shape[1])
    w_meet = wt[meet, cols]
    from_right = bwd[meet, cols] - w_meet
    left = _trimmed_flows(wt, fwd, meet, -(w_meet + from_right), e_eps)
    prev = left[np.maximum(meet - 1, 0), cols]
    from_left = np.where(meet > 0, np.where(prev >= 0.0, prev, e_eps * prev), 0.0)
    right = _trimmed_flows(wt[::-1], bwd[::-1], n - meet, -(w_meet + from_left), e_eps)[::-1]
    # mirrored: a flow towards the meeting node from the right is an ``a``, away is a ``b``
    # (each edge carries a flow from one side only, the other is 0)
    a = np.negative(left)
    np.maximum(a, right, out=a)
    np.maximum(a, 0.0, out=a)
    b = left
    np.negative(right, out=right)
    np.maximum(b, right, out=b)
    np.maximum(b, 0.0, out=b)
    return a, b


def _reduced_costs_low(pl: FloatArray, a: FloatArray, b: FloatArray, e_eps: float) -> FloatArray:
    """``R[i, r]`` rounded down: ``p_i l(i, r) + a[i] + b[i − 1] − e^ε (a[i − 1] + b[i])``.

    With ``S = p_i l + a[i] + b[i − 1]`` and ``P = e^ε (a[i − 1] + b[i])`` (``a, b ≥ 0``) the
    result is ``S (1 − c) − P (1 + c)`` (for ``p_i l ≥ 0``; else ``|p_i l|`` enters the
    correction). Each of ``S`` and ``P`` reaches the result through at most eight roundings (the
    product ``p_i l``, the sums, the factor ``1 ± c`` and its product, ``e^ε (1 + c)``, the final
    difference), each relative ``≤ u``, and ``e^ε`` itself is uncertain by `COEFFICIENT_RTOL`; so
    ``c = (γ_8 + COEFFICIENT_RTOL)(1 + γ_8)`` lowers the computed value below the exact one
    (Higham 2002, §3.1). Results below the normal range carry an absolute error under
    ``4·TINY``, which is subtracted too.
    """
    gamma8 = 8.0 * U / (1.0 - 8.0 * U)
    c = (gamma8 + COEFFICIENT_RTOL) * (1.0 + gamma8)
    gains = np.zeros_like(pl)  # a[i] + b[i − 1]
    gains[:-1] += a
    gains[1:] += b
    pushed = np.zeros_like(pl)  # a[i − 1] + b[i]
    pushed[1:] += a
    pushed[:-1] += b
    pushed *= e_eps * (1.0 + c)
    if np.all(pl >= 0.0):
        gains += pl
        gains *= 1.0 - c
    else:
        gains = gains * (1.0 - c) + pl - c * np.abs(pl)
    gains -= pushed
    gains -= 4.0 * TINY
    return gains


def _greedy_multipliers(
    fwd: FloatArray, bwd: FloatArray, meet: IntArray, alpha: float
) -> tuple[FloatArray, FloatArray]:
    """``a, b`` of the plain sweeps: every node passes on all its surplus (left of the meeting
    node from the left sweep, right of it from the right sweep)."""
    n = fwd.shape[0] - 1
    right = np.arange(n)[:, None] >= meet[None, :]
    # the flow towards the meeting node: node i's surplus leaving to the right on the left
    # side, minus node i + 1's leaving to the left on the right side
    src = fwd[:-1].copy()
    np.copyto(src, bwd[1:], where=right)
    np.negative(src, out=src, where=right)
    a = np.negative(src)
    np.maximum(a, 0.0, out=a)  # a deficit covered from the right, or surplus sent left
    b = np.maximum(src, 0.0, out=src)
    np.multiply(a, alpha, out=a, where=right)
    np.multiply(b, alpha, out=b, where=~right)
    return a, b


def _shortfall(r_low: FloatArray, u: FloatArray, buf: FloatArray) -> FloatArray:
    """``Σ_i min(R[i, r] − u_i, 0)`` per column (``-inf`` where not finite); ``buf`` is work
    space of ``R``'s shape."""
    np.subtract(r_low, u[:, None], out=buf)
    np.minimum(buf, 0.0, out=buf)
    short = buf.sum(axis=0)
    return np.where(np.isfinite(short), short, -np.inf)


def _best_reduced_costs(
    pl: FloatArray,
    wt: FloatArray,
    u: FloatArray,
    fwd: FloatArray,
    bwd: FloatArray,
    meet: IntArray,
    alpha: float,
    e_eps: float,
    budget: float,
) -> FloatArray:
    """``R`` rounded down for the better of two dual points, column by column: the plain
    sweeps meeting at ``meet``, or the flows trimmed to the demand, meeting where
    complementary slackness puts the column's deficit (`_tightest_outputs`). Both are valid (any
    ``a, b ≥ 0`` are); the trimmed ones keep unneeded
    surpluses where they are, which makes far, heavy reduced costs exact enough, but their
    demands are found against the sweeps' stable direction. Each column keeps the one whose
    reduced costs fall less below the row multipliers in total; the trimmed point is built
    only for the columns where a reduced cost of the plain one falls more than ``budget``
    below its row multiplier."""
    a, b = _greedy_multipliers(fwd, bwd, meet, alpha)
    plain = _reduced_costs_low(pl, a, b, e_eps)
    del a, b
    buf = np.empty_like(plain)
    np.subtract(plain, u[:, None], out=buf)
    redo = np.flatnonzero(~(buf.min(axis=0) >= -budget))  # (a NaN is redone too)
    del buf
    if redo.size == 0:
        return plain
    if 2 * redo.size > plain.shape[1]:  # most columns: no copies, redo them all
        redo = np.arange(plain.shape[1])
        pl_r, wt_r, fwd_r, bwd_r, plain_r = pl, wt, fwd, bwd, plain
    else:
        pl_r, wt_r, fwd_r, bwd_r = pl[:, redo], wt[:, redo], fwd[:, redo], bwd[:, redo]
        plain_r = plain[:, redo]
    a, b = _multipliers(wt_r, fwd_r, bwd_r, _tightest_outputs(wt_r, alpha), e_eps)
    trimmed = _reduced_costs_low(pl_r, a, b, e_eps)
    del a, b
    buf = np.empty_like(trimmed)
    better = _shortfall(trimmed, u, buf) > _shortfall(plain_r, u, buf)
    del buf
    plain[:, redo[better]] = trimmed[:, better]
    return plain


def _dual_bound(
    p: FloatArray, diag: FloatArray, n: int, eps: float, u: FloatArray, accuracy: float
) -> tuple[float, float, tuple[int, int]]:
    """``Σ_i min_r R[i, r]`` rounded down, the worst ``u_i − R[i, r]`` and its ``(i, r)``.

    A column whose plain dual point has every reduced cost within ``τ = accuracy·|Σ u| /
    (10 (n + 1))`` of its row multiplier keeps it (were all columns so, the bound would lose at
    most ``(n + 1) τ``, a tenth of the accuracy asked); the others are tried with the trimmed point
    too.
    """
    alpha, e_eps = math.exp(-eps), math.exp(eps)
    budget = accuracy * abs(math.fsum(u.tolist())) / (10.0 * (n + 1))
    row_min = np.full(n + 1, np.inf)
    worst, worst_row = -math.inf, (0, 0)
    width = _chunk(n)
    for r0 in range(0, n + 1, width):
        w = min(width, n + 1 - r0)
        pl = _loss_columns(diag, n, r0, w)
        pl *= p[:, None]
        wt = pl - u[:, None]
        fwd, bwd, scale = _sweeps(wt, alpha, e_eps)
        meet = _meeting_nodes(wt, fwd, bwd, scale)
        del scale
        with np.errstate(over="ignore", invalid="ignore"):  # a flow beyond range: -inf below
            r_low = _best_reduced_costs(pl, wt, u, fwd, bwd, meet, alpha, e_eps, budget)
        del fwd, bwd, wt, pl
        if not np.all(np.isfinite(r_low)):
            bad = int(np.argmax(~np.all(np.isfinite(r_low), axis=0)))
            return -math.inf, math.inf, (int(np.argmax(~np.isfinite(r_low[:, bad]))), r0 + bad)
        np.minimum(row_min, r_low.min(axis=1), out=row_min)
        short = u[:, None] - r_low
        k = int(np.argmax(short))
        i, j = divmod(k, w)
        if short[i, j] > worst:
            worst, worst_row = float(short[i, j]), (i, r0 + j)
    total = math.fsum(row_min.tolist())
    low = total - abs(total) * 2.0 * U - (n + 1) * 5e-324
    return math.nextafter(low, -math.inf), worst, worst_row
