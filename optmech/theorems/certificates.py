"""Dual certificates: GRS universal optimality proved at sizes no LP solver reaches.

For a count query on ``{0..n}``, a Bayesian user (prior ``p``, loss ``l(i, r) = c(r − i)``
non-decreasing in ``|r − i|``) and ε-DP, Ghosh, Roughgarden & Sundararajan (2012, Thm. 3.1)
prove that the range-restricted geometric mechanism ``G`` followed by the user's Bayes remap is
an optimum of the user LP

    minimise   Σ_i p_i Σ_r x[i, r] l(i, r)
    subject to Σ_r x[i, r] = 1,  x ≥ 0,
               x[i, r] ≤ e^ε x[i + 1, r],  x[i + 1, r] ≤ e^ε x[i, r]      (0 ≤ i < n, all r).

Solving that LP (``(n + 1)²`` variables) stops near n = 800. This module needs no solve: it
builds the candidate and a dual point, and weak duality gives an interval
``[lower_bound, value]`` that contains the LP's optimum.

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

**Minimax users** (Gupte & Sundararajan 2010): for weights ``μ ≥ 0`` on the side information S,
``max_{i ∈ S} risk_i ≥ Σ_i μ_i risk_i / Σ_i μ_i`` for every mechanism, so the minimax optimum is
at least the Bayesian optimum for the prior ``μ / Σ μ``, which the certificate above bounds.
[`minimax_certificate`][minimax_certificate] takes the candidate (``G`` and the best randomized
remap) and ``μ`` from the remap LP, whose result it does not trust.

Time O(n²) in vectorised sweeps, memory O(n · chunk). The rows of ``optmech verify
--certificates`` are built here ([`certificate_rows`][certificate_rows], group ``certificates``);
they are not part of the default catalogue.
"""

from __future__ import annotations

import html
import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view
from scipy.signal import lfilter

from optmech._floats import TINY, FloatArray, IntArray, U
from optmech._validation import check_int, check_prior, check_real, check_real_array
from optmech.costs import Cost, as_cost
from optmech.lp.bounds import COEFFICIENT_RTOL
from optmech.lp.matrix.setting import check_epsilon
from optmech.results import json_safe
from optmech.theorems.catalogue import CheckResult, _result

__all__ = [
    "CERTIFICATE_ACCURACY",
    "CERTIFICATE_ROWS_N",
    "DualCertificate",
    "certificate_rows",
    "dual_certificate_row",
    "grs_certificate",
    "minimax_certificate",
]

GROUP = "certificates"
#: Default requested relative accuracy of a dual certificate: the interval is found about 1e-12
#: wide (relative) on every instance measured, so 1e-9 leaves three orders of room.
CERTIFICATE_ACCURACY = 1e-9
#: Memory (bytes) the sweeps may use for their column chunks.
_CHUNK_BYTES = 1.2e9
#: Work arrays of (n + 1) floats per column in a chunk.
_ARRAYS_PER_COLUMN = 14
#: Largest relative error of ``fl(e^(−ε k))·fl(d)`` for an entry of ``G`` that is a normal
#: float: the argument ``ε k`` (|ε k| ≤ 746 when the result is normal) is rounded once, which
#: moves the exponential by at most ``746 u`` relatively; `numpy.exp` adds a few ulps, the
#: column factor and the product a few more.
_G_REL = 800.0 * U


@dataclass(frozen=True, repr=False)
class DualCertificate:
    """A candidate mechanism proved optimal, within ``gap``, by a dual point (no LP solved).

    Attributes
    ----------
    theorem : str
        What is certified, e.g. ``"GRS universal optimality"``.
    n : int
        Largest query result (inputs and outputs ``{0..n}``).
    epsilon : float
        The ε of the LP's privacy rows.
    loss : str
        The loss, by name.
    value : float
        The candidate's cost, rounded up: an upper bound on the LP optimum (the candidate is
        exactly ε-DP).
    lower_bound : float
        The dual bound, rounded down: the LP optimum is at least this.
    accuracy : float
        The requested relative accuracy: `certified` when ``gap ≤ accuracy·|value|``.
    assignment : ndarray of int, shape (n + 1,)
        The candidate's remap ``T(z)``: output ``z`` of ``G`` is reported as ``assignment[z]``.
    row_duals : ndarray, shape (n + 1,)
        The multipliers ``u`` of the row sums given by complementary slackness.
    worst_violation : float
        ``max_{i, r} (u_i − R[i, r])`` with ``R`` rounded down: how far the worst reduced cost
        falls below its row's multiplier (≤ 0 when the dual point is feasible for ``u``; a
        positive value costs the bound at most that much in its row).
    worst_row : tuple of int
        The dual row ``(i, r)`` (the reduced cost of ``x[i, r]``) where it happens.
    seconds : float
        Wall time of the whole certificate.
    """

    theorem: str
    n: int
    epsilon: float
    loss: str
    value: float
    lower_bound: float
    accuracy: float
    assignment: IntArray
    row_duals: FloatArray
    worst_violation: float
    worst_row: tuple[int, int]
    seconds: float

    @property
    def gap(self) -> float:
        """``value − lower_bound`` (≥ 0): how far the candidate can be from the optimum."""
        return self.value - self.lower_bound

    @property
    def relative_gap(self) -> float:
        """``gap / |value|`` (``inf`` for a zero value with a positive gap)."""
        if self.value == 0.0:
            return 0.0 if self.gap <= 0.0 else math.inf
        return self.gap / abs(self.value)

    @property
    def certified(self) -> bool:
        """Whether the interval is finite and ``gap ≤ accuracy·|value|``."""
        finite = math.isfinite(self.value) and math.isfinite(self.lower_bound)
        return finite and self.gap <= self.accuracy * abs(self.value)

    def summary(self) -> str:
        """Two lines: the verdict with the interval, and the worst dual row."""
        verdict = "certified" if self.certified else "NOT certified"
        i, r = self.worst_row
        return (
            f"{self.theorem}, n = {self.n}, ε = {self.epsilon:g}, {self.loss}: {verdict}; "
            f"optimum in [{self.lower_bound:.12g}, {self.value:.12g}] (relative gap "
            f"{self.relative_gap:.3g}, accuracy {self.accuracy:.0e})\n"
            f"worst dual row: reduced cost of x[{i}, {r}] is {self.worst_violation:.3g} "
            f"{'below' if self.worst_violation > 0 else 'above'} its row multiplier "
            f"({self.seconds:.2f} s)"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict of the fields, ``gap``, ``relative_gap`` and ``certified``."""
        out = {
            "result": type(self).__name__,
            "theorem": self.theorem,
            "n": self.n,
            "epsilon": self.epsilon,
            "loss": self.loss,
            "value": self.value,
            "lower_bound": self.lower_bound,
            "gap": self.gap,
            "relative_gap": self.relative_gap,
            "certified": self.certified,
            "accuracy": self.accuracy,
            "worst_violation": self.worst_violation,
            "worst_row": list(self.worst_row),
            "assignment": self.assignment,
            "seconds": self.seconds,
        }
        return json_safe(out)  # type: ignore[no-any-return]

    def plot(self, ax: Any = None) -> Any:
        """The remap ``z ↦ T(z)`` against the identity; returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 4))
        z = np.arange(self.n + 1)
        ax.plot(z, z, color="0.7", linewidth=1, label="identity")
        ax.step(z, self.assignment, where="mid", label="remap T(z)")
        ax.set_xlabel("output z of G")
        ax.set_ylabel("reported answer")
        verdict = "certified" if self.certified else "not certified"
        ax.set_title(f"{self.theorem}: {verdict}, gap {self.relative_gap:.2g}")
        ax.legend(fontsize=8)
        return ax

    def _repr_html_(self) -> str:
        i, r = self.worst_row
        rows = [
            ("theorem", self.theorem),
            ("instance", f"n = {self.n}, ε = {self.epsilon:g}, {self.loss}"),
            ("certified", "yes" if self.certified else "NO"),
            ("interval", f"[{self.lower_bound:.12g}, {self.value:.12g}]"),
            ("relative gap", f"{self.relative_gap:.3g} (accuracy {self.accuracy:.0e})"),
            ("worst dual row", f"x[{i}, {r}]: {self.worst_violation:.3g}"),
            ("time", f"{self.seconds:.2f} s"),
        ]
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:left'>{html.escape(str(v))}</td></tr>"
            for k, v in rows
        )
        return f"<table>{body}</table>"

    def __repr__(self) -> str:
        return (
            f"DualCertificate({self.theorem!r}, n={self.n}, epsilon={self.epsilon:g}, "
            f"value={self.value:.10g}, lower_bound={self.lower_bound:.10g}, "
            f"certified={self.certified})"
        )


# ------------------------------------------------------------------------------------------
# The pieces: loss diagonals, column chunks, the Bayes remap, the value, the dual point.
# ------------------------------------------------------------------------------------------
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
    """The transpose of [`_loss_columns`][_loss_columns]: ``l(i, r)`` with ``r`` down the rows,
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
    ``w_s + carries`` less [`_SCALE_WEIGHT`][_SCALE_WEIGHT] times the sweeps' rounding scale,
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
    sends to ``r``), where the column's deficit sits; ``K w_r`` by [`_apply_k`][_apply_k]."""
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
    node by [`_trimmed_flows`][_trimmed_flows] asked for what the right sweep cannot deliver,
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
    complementary slackness puts the column's deficit ([`_tightest_outputs`][
    _tightest_outputs]). Both are valid (any ``a, b ≥ 0`` are); the trimmed ones keep unneeded
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


def grs_certificate(
    prior: npt.ArrayLike,
    loss: Any,
    epsilon: float,
    *,
    accuracy: float = CERTIFICATE_ACCURACY,
    assignment: npt.ArrayLike | None = None,
    normalize: bool = False,
) -> DualCertificate:
    """Prove ``G`` + Bayes remap optimal for a Bayesian user by a dual certificate (no LP).

    Ghosh, Roughgarden & Sundararajan (2012), Thm. 3.1: for every prior and every loss
    non-decreasing in ``|r − i|``, the range-restricted geometric mechanism followed by the
    user's Bayes remap attains the optimum of the user LP over all ε-DP mechanisms on
    ``{0..n}``. The certificate builds that candidate and a dual point from complementary
    slackness (module docstring) and returns the interval ``[lower_bound, value]`` that holds
    the LP's optimum, with rigorous outward rounding.

    Parameters
    ----------
    prior : array_like, shape (n + 1,)
        Prior over ``{0..n}``, summing to 1 (or ``normalize=True``); n ≥ 1.
    loss : Cost or str or callable
        Cost of the error ``r − i`` (``"abs"``, ``"squared"``, a [`Cost`][optmech.costs.Cost]),
        non-decreasing in ``|r − i|`` on each side of 0.
    epsilon : float
        In (0, 50].
    accuracy : float, default 1e-9
        Relative accuracy: the result is `certified` when ``value − lower_bound ≤
        accuracy·|value|``. In (0, 1).
    assignment : array_like of int, shape (n + 1,), optional
        A remap ``T(z) ∈ {0..n}`` to certify instead of the Bayes remap (a test of the
        certificate itself: a non-optimal remap must fail).
    normalize : bool, default False
        Divide the prior by its sum.

    Returns
    -------
    DualCertificate

    Examples
    --------
    >>> import numpy as np
    >>> cert = grs_certificate(np.full(41, 1 / 41), "abs", 0.5)
    >>> cert.certified, cert.lower_bound <= cert.value, cert.relative_gap < 1e-11
    (True, True, True)
    >>> bad = cert.assignment.copy(); bad[20] += 1  # the middle output answered one too high
    >>> grs_certificate(np.full(41, 1 / 41), "abs", 0.5, assignment=bad).certified
    False
    """
    start = time.perf_counter()
    eps = check_epsilon(epsilon)
    acc = check_real("accuracy", accuracy, low=0.0, high=1.0, low_open=True, high_open=True)
    p_raw = check_real_array("prior", prior, ndim=1)
    if p_raw.size < 2:
        raise ValueError(f"`prior` must have at least 2 entries (n ≥ 1); got {p_raw.size}.")
    p = check_prior(p_raw, normalize=normalize)
    n = p.size - 1
    cost = as_cost(loss)
    diag = _loss_diagonals(cost, n)
    if assignment is None:
        remap, _ = _bayes_remap(p, diag, n, eps)
    else:
        remap = np.asarray(assignment)
        if remap.shape != (n + 1,) or not np.issubdtype(remap.dtype, np.integer):
            raise ValueError(
                f"`assignment` must be {n + 1} integers (one answer per output of G); got "
                f"shape {remap.shape}, dtype {remap.dtype}."
            )
        for k in (int(remap.min()), int(remap.max())):
            check_int("assignment", k, low=0, high=n)
        remap = remap.astype(np.int64)
    value, v = _candidate_value(p, diag, n, eps, remap)
    u = _row_duals(v, n, eps)
    lower, worst, worst_row = _dual_bound(p, diag, n, eps, u, acc)
    return DualCertificate(
        theorem="GRS universal optimality",
        n=n,
        epsilon=eps,
        loss=cost.name,
        value=value,
        lower_bound=lower,
        accuracy=acc,
        assignment=remap,
        row_duals=u,
        worst_violation=worst,
        worst_row=worst_row,
        seconds=time.perf_counter() - start,
    )


# ------------------------------------------------------------------------------------------
# Minimax users (Gupte & Sundararajan 2010)
# ------------------------------------------------------------------------------------------
#: Largest n of [`minimax_certificate`][minimax_certificate]: its candidate needs the remap LP,
#: (n + 1)² variables and |S| (n + 1)² dense coefficients.
MINIMAX_MAX_N = 150


def _minimax_remap(
    g_rows: FloatArray, loss_rows: FloatArray, n: int
) -> tuple[FloatArray, FloatArray]:
    """The optimal randomized remap ``T`` of ``G`` for the rows of S, and the multipliers
    ``μ ≥ 0`` of the risk rows (the remap LP of `optmech.lp.user.remap_lp`)."""
    from optmech.lp.solve import solve_robust
    from optmech.lp.user.remap_lp import build_remap_lp, remap_forms

    forms = remap_forms(g_rows, loss_rows)
    factor = float(forms.max()) if forms.size and forms.max() > 0 else 1.0
    lp, _ = solve_robust(
        lambda _strategy: (lambda r: (r.problem, r))(build_remap_lp(forms, (n + 1, n + 1), factor)),
        num_variables=(n + 1) ** 2 + 1,
        kind="remap",
        feasible=True,
    )
    t = np.clip(np.asarray(lp.remap.value, dtype=np.float64), 0.0, None)
    t /= t.sum(axis=1, keepdims=True)
    mu = np.clip(np.asarray(lp.epigraph.dual_value, dtype=np.float64).reshape(-1), 0.0, None)
    return t, mu


def minimax_certificate(
    loss: Any,
    epsilon: float,
    *,
    n: int,
    side_information: Any = None,
    accuracy: float = CERTIFICATE_ACCURACY,
    remap: npt.ArrayLike | None = None,
) -> DualCertificate:
    """Prove ``G`` + the best randomized remap optimal for a minimax user, by a dual certificate.

    Gupte & Sundararajan (2010): for a loss non-decreasing in ``|r − i|`` and side information
    ``S``, the range-restricted geometric mechanism followed by the best randomized remap
    attains ``min_x max_{i ∈ S} Σ_r x[i, r] l(i, r)`` over all ε-DP mechanisms on ``{0..n}``.
    The candidate's remap and the weights ``μ`` of the inputs come from the remap LP
    (``(n + 1)²`` variables, not the user LP's ``(n + 1)²`` with its privacy rows); nothing of that
    solve is trusted. For any weights ``μ ≥ 0`` on S, every mechanism has
    ``max_{i ∈ S} risk_i ≥ Σ_i μ_i risk_i / Σ_i μ_i``, so the minimax optimum is at least the
    Bayesian optimum for the prior ``μ / Σ μ`` divided by ``Σ μ`` rounded up, and that is
    bounded below by [`grs_certificate`][grs_certificate]. The value is the candidate's worst
    risk, rounded up (its remap's rows are normalised exactly by bounding ``1 / row sum``).

    Parameters
    ----------
    loss : Cost or str or callable
        Cost of ``r − i``, non-decreasing in ``|r − i|`` on each side, non-negative.
    epsilon : float
        In (0, 50].
    n : int
        Largest query result, in [1, 150].
    side_information : collection of int, optional
        The inputs S (default all of ``{0..n}``).
    accuracy : float, default 1e-9
        As for [`grs_certificate`][grs_certificate].
    remap : array_like, shape (n + 1, n + 1), optional
        A row-stochastic remap to certify instead of the optimal one (a test of the
        certificate: a remap that is not optimal must fail).

    Examples
    --------
    >>> cert = minimax_certificate("abs", 1.0, n=12, side_information=[0, 12])
    >>> cert.certified, cert.lower_bound <= cert.value
    (True, True)
    """
    start = time.perf_counter()
    eps = check_epsilon(epsilon)
    acc = check_real("accuracy", accuracy, low=0.0, high=1.0, low_open=True, high_open=True)
    size = check_int("n", n, low=1, high=MINIMAX_MAX_N, hint="the remap LP has (n + 1)² variables")
    cost = as_cost(loss)
    diag = _loss_diagonals(cost, size)
    if np.any(diag < 0):
        raise ValueError("`loss` must be non-negative for the minimax certificate; it is not.")
    inputs = np.arange(size + 1)
    rows = inputs if side_information is None else np.unique(np.asarray(side_information))
    if (
        rows.size == 0
        or not np.issubdtype(rows.dtype, np.integer)
        or rows.min() < 0
        or (rows.max() > size)
    ):
        raise ValueError(
            f"`side_information` must be integers in [0, {size}]; got {side_information!r}."
        )
    loss_m = diag[inputs[None, :] - inputs[:, None] + size]  # l(i, r) = c(r − i)
    d = _column_factors(size, eps)
    with np.errstate(under="ignore"):
        g = np.exp(-eps * np.abs(inputs[:, None] - inputs[None, :])) * d[None, :]
    t, mu = _minimax_remap(g[rows], loss_m[rows], size)
    if remap is not None:
        t = check_real_array("remap", remap, ndim=2, nonnegative=True)
        if t.shape != (size + 1, size + 1) or np.any(t.sum(axis=1) <= 0):
            raise ValueError(
                f"`remap` must be a non-negative ({size + 1}, {size + 1}) matrix with positive row "
                f"sums; got shape {t.shape}."
            )
    # value: the worst risk of G T̃ with T̃ = T / (row sums), exactly row-stochastic; all terms
    # are non-negative, so the float sums are within γ_{2n+4} and G's entries within _G_REL
    risks = np.sum((g[rows] @ t) * loss_m[rows], axis=1)
    sums = t.sum(axis=1)
    inflate = (1.0 + _G_REL + (2 * size + 8) * U) / (float(sums.min()) * (1.0 - (size + 2) * U))
    underflow = (size + 1) ** 2 * TINY * float(diag.max())
    value = math.nextafter(float(risks.max()) * inflate * (1.0 + 2 * U) + underflow, math.inf)
    # lower bound: the Bayesian optimum for the weights μ on S, divided by Σ μ rounded up
    weights = np.zeros(size + 1)
    weights[rows] = mu
    if not np.all(np.isfinite(weights)) or weights.sum() <= 0:
        weights[rows] = 1.0  # any weights give a valid (weaker) bound
    prior = weights / weights.sum()
    bayes = grs_certificate(prior, cost, eps, accuracy=acc, normalize=True)
    p_used = prior / prior.sum()  # what grs_certificate certified (normalize=True)
    total_up = math.fsum(p_used.tolist()) * (1.0 + 2 * U)
    lower = math.nextafter(max(bayes.lower_bound, 0.0) / total_up, -math.inf)
    return DualCertificate(
        theorem="Gupte-Sundararajan minimax optimality",
        n=size,
        epsilon=eps,
        loss=cost.name,
        value=value,
        lower_bound=lower,
        accuracy=acc,
        assignment=np.asarray(np.argmax(t, axis=1), dtype=np.int64),
        row_duals=bayes.row_duals,
        worst_violation=bayes.worst_violation,
        worst_row=bayes.worst_row,
        seconds=time.perf_counter() - start,
    )


# ------------------------------------------------------------------------------------------
# Catalogue rows of ``optmech verify --certificates``
# ------------------------------------------------------------------------------------------
#: Default largest query result of the rows (each row takes about a second at n = 1000).
CERTIFICATE_ROWS_N = 1000
#: Largest n of the minimax rows (their candidate solves the remap LP, (n + 1)² variables).
MINIMAX_ROWS_N = 40
#: The instances: prior kind × loss × ε.
_PRIORS = ("uniform", "Dirichlet(1)", "Dirichlet(0.2)")
_LOSSES = ("abs", "squared")
_EPSILONS = (0.5, 1.0)


def _prior(kind: str, n: int, seed: int = 0) -> FloatArray:
    if kind == "uniform":
        return np.full(n + 1, 1.0 / (n + 1))
    concentration = 1.0 if kind == "Dirichlet(1)" else 0.2
    return np.asarray(np.random.default_rng(seed).dirichlet(np.full(n + 1, concentration)))


def dual_certificate_row(
    certificate: DualCertificate, check_name: str, instance: str
) -> CheckResult:
    """A catalogue row decided by a dual certificate: it passes when the certified relative gap
    is within the certificate's accuracy; its detail states the gap and the worst dual row (the
    reason when it fails)."""
    c = certificate
    i, r = c.worst_row
    detail = (
        f"certified optimum in [{c.lower_bound:.12g}, {c.value:.12g}], gap {c.gap:.3g} "
        f"(relative {c.relative_gap:.3g}); worst dual row: reduced cost of x[{i}, {r}] "
        f"{abs(c.worst_violation):.3g} {'below' if c.worst_violation > 0 else 'above'} its row "
        f"multiplier"
    )
    if not c.certified:
        detail = "NOT certified: " + detail
    return _result(
        check_name,
        instance,
        c.value,
        c.lower_bound,
        c.certified,
        group=GROUP,
        detail=detail,
        rule=f"(value − dual bound) ≤ {c.accuracy:.0e}·value",
        interval=(c.lower_bound, c.value),
        kind="certificate",
        seconds=c.seconds,
    )


def certificate_rows(
    n: int = CERTIFICATE_ROWS_N, *, accuracy: float = CERTIFICATE_ACCURACY
) -> list[CheckResult]:
    """The rows of ``optmech verify --certificates``: GRS universal optimality (Thm. 3.1)
    proved by [`grs_certificate`][grs_certificate] for uniform and Dirichlet priors (seed 0),
    ``|e|`` and ``e²``, ε ∈ {0.5, 1}, on ``{0..n}``; and the minimax optimality of Gupte &
    Sundararajan by [`minimax_certificate`][minimax_certificate] for S = all inputs and
    S = {0, n}, ε = 0.5, on ``{0..min(n, 40)}`` (`MINIMAX_ROWS_N`).

    Examples
    --------
    >>> rows = certificate_rows(30)
    >>> len(rows), all(r.passed for r in rows)
    (16, True)
    """
    size = check_int("n", n, low=1, high=10**6)
    rows = []
    for kind in _PRIORS:
        for loss in _LOSSES:
            for eps in _EPSILONS:
                instance = f"n={size}, {kind}, {loss}, eps={eps:g}"
                cert = grs_certificate(_prior(kind, size), loss, eps, accuracy=accuracy)
                rows.append(
                    dual_certificate_row(cert, "GRS optimality (dual certificate)", instance)
                )
    small = min(size, MINIMAX_ROWS_N)
    for loss in _LOSSES:
        for name, side in (("S=all", None), ("S={0,n}", [0, small])):
            instance = f"n={small}, {name}, {loss}, eps=0.5"
            cert = minimax_certificate(loss, 0.5, n=small, side_information=side, accuracy=accuracy)
            rows.append(
                dual_certificate_row(cert, "minimax optimality (dual certificate)", instance)
            )
    return rows
