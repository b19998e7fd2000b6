"""A dual certificate for the staircase: the optimum of the discretised additive ε-DP LP.

Geng & Viswanath (2016, Thm. 3) prove the staircase density optimal among all ε-DP noises for a
cost symmetric and non-decreasing in ``|x|``. `staircase_certificate` proves it on the grid
the additive designer ranges over (``optmech.lp.additive``; THEORY §4), without solving that LP:

    minimise   Σ_j c_j x_j   subject to   Σ_j a_j x_j = 1,  x ≥ 0,
               x_k ≤ e^ε x_j   for cells k, j at most m apart,

where ``x_j = Δ·f_j`` is the density of cell ``j`` of the grid ``[−KΔ, KΔ)`` (``m`` cells of
width ``Δ/m`` per Δ, ``K`` periods each side), ``a_j`` its mass per unit and ``c_j`` its
cell-averaged cost, both with the geometric tail that continues each outermost period by the
ratio ``ρ`` per period (``ρ`` = e^(−ε) rounded up, as the designer's, and ``e^ε`` the float of
the designer's rows). The LP's further rows (the pairs reaching into the tails) are dropped: a
relaxation, so its dual bound holds for the LP.

**Candidate.** The staircase with its step after ``g`` cells, ``x_j = ρ^{level(j)}`` with
``level = 0`` on the top step ``|x| < gΔ/m`` and ``level = q`` on ``[(q − 1)Δ + gΔ/m, qΔ +
gΔ/m)``: ε-DP because ``fl(e^ε)·ρ ≥ 1`` exactly. Its value ``Σ c x / Σ a x`` is evaluated with
the error of the powers and of the sums bounded and rounded up. The step is the best on the
grid unless given (cumulative sums over ``g``).

**Dual point.** For multipliers ``y ≥ 0`` of the rows ``x_k − e^ε x_j ≤ 0``, weak duality gives
``optimum ≥ min_j (c_j + (Aᵀy)_j) / a_j`` (the mass row fixes ``Σ a x = 1``, ``x ≥ 0``).
Complementary slackness at the staircase puts ``y`` on its tight rows: a cell of level ``q + 1``
(the *sender*, paying ``e^ε y``) against one of level ``q`` at most ``m`` cells nearer the
origin (the *receiver*, gaining ``y``). With ``λ`` the candidate's value and ``w = c − λ a``,
the cells near the origin lack (``w < 0``) and far ones have to spare; ``y`` is built level by
level outwards, on each side: the receivers' demands ``max(e^ε·out − w, 0)`` are met in order of
position first from what the admissible senders have to spare (``max(w, 0)/e^ε``, first come
first served: the sender ``j`` may serve every receiver ``k ≥ j − m``), the rest by each
receiver's partner ``k + m``, which passes the demand on to the next level. At ``λ`` itself
every cell would have to balance exactly (the staircase is positive everywhere), and the
rounding of the value would pile up on the outermost cell; the point is built for ``λ (1 − τ)``
with a margin ``τ`` from ``10^-13`` up (`_SLACKS`) until the interval is within the accuracy.
Time and memory O(Km).

**Rigour.** The bound holds for any ``y ≥ 0``: nothing of its construction needs to be exact.
The reduced costs are evaluated from the explicit list of rows and multipliers, lowered by an
a-priori bound on their rounding (Higham 2002, §3.1), divided by ``a_j`` rounded down, and the
least is the bound. A candidate that is not optimal leaves some reduced cost below ``λ a_j``:
the interval widens, the certificate fails and names that cell (its worst dual row).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from optmech._floats import TINY, FloatArray, IntArray, U
from optmech._validation import check_int, check_real
from optmech.costs import as_cost
from optmech.lp.additive.grid import GridKind, make_grid
from optmech.lp.engine.rounding import tail_ratio_for
from optmech.lp.matrix.setting import check_epsilon
from optmech.theorems.dual_certificate import DualCertificate

__all__ = ["StaircaseCertificate", "staircase_certificate"]

#: Default requested relative accuracy (the interval is found about 1e-14 wide, relative).
STAIRCASE_ACCURACY = 1e-9
#: Relative margins below the candidate's value for which the dual point is built, tried in
#: turn until the interval is within the accuracy: the rounding of the value and of the
#: costs (a relative ``10^-16`` of their total, weighted by the densities) reaches the last
#: period magnified by ``e^(εK)`` and concentrated on a cell of mass ``1/m``; a margin a little
#: above it lets every cell absorb its share (measured: ``10^-13`` suffices up to ``m = 10^5``,
#: ``10^-11`` at ``m = 10^6``, ε = 2).
_SLACKS = (1e-13, 1e-12, 1e-11, 1e-10)
#: Cells in more rows than this have their sums taken by `math.fsum`.
_FSUM_ABOVE = 64
#: Largest number of cells per Δ (the certificate's memory is about 260 bytes a cell: 2 GB
#: hold ``2Km ≈ 7·10^6`` cells; measured 1.6 GB at ``m = 10^6``, ``K = 3``).
MAX_RESOLUTION = 10**7


@dataclass(frozen=True, repr=False)
class StaircaseCertificate(DualCertificate):
    """The staircase proved optimal on a grid, within ``gap``, by a dual point (no LP solved).

    A `DualCertificate` whose candidate is the staircase noise on the uniform grid of the
    additive designer: ``n`` is the number of cells ``2Km``, ``assignment`` the level ``q`` of
    each cell (its density is ``ρ^q`` times the top step's), ``row_duals`` the dual bound per
    unit of mass of each cell (the least is ``lower_bound``), and ``worst_row`` the cell
    ``(j, ⌊j/m⌋)`` (index from ``−Km``, period) whose bound is least: where the dual point
    falls furthest below the candidate's value when the certificate fails.

    Attributes
    ----------
    sensitivity : float
        Δ.
    resolution : int
        Cells per Δ, ``m``.
    periods : int
        Periods each side, ``K``.
    step : int
        Cells of the staircase's top step in each period, ``g`` (``γ = g/m``).
    tail_ratio : float
        ``ρ``, the ratio per period of the tails and of the staircase.

    Examples
    --------
    >>> cert = staircase_certificate(1.0, "abs", resolution=20)
    >>> cert.certified, cert.step, cert.lower_bound <= cert.value
    (True, 8, True)
    """

    sensitivity: float = 1.0
    resolution: int = 1
    periods: int = 1
    step: int = 1
    tail_ratio: float = 0.0

    _model: ClassVar[str] = "dual certificate"
    _dict_fields: ClassVar[tuple[str, ...]] = (
        *DualCertificate._dict_fields,
        "sensitivity",
        "resolution",
        "periods",
        "step",
        "tail_ratio",
    )

    def plot(self, ax: Any = None) -> Any:
        """The candidate's density (``ρ^level``) over the cells' left edges; returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 4))
        h = self.sensitivity / self.resolution
        edges = (np.arange(self.n) - self.n // 2) * h
        ax.step(edges, self.tail_ratio ** self.assignment.astype(float), where="post")
        ax.set_xlabel("noise x")
        ax.set_ylabel("density (top step = 1)")
        verdict = "certified" if self.certified else "not certified"
        ax.set_title(f"{self.theorem}: {verdict}, gap {self.relative_gap:.2g}")
        return ax

    def _own_rows(self) -> list[tuple[str, Any]]:
        """Theorem, grid, step, the optimality verdict, relative gap, worst dual row, time."""
        j, k = self.worst_row
        side = "below" if self.worst_violation > 0 else "above"
        return [
            ("theorem", self.theorem),
            (
                "instance",
                f"ε = {self.epsilon:g}, {self.loss}, Δ = {self.sensitivity:g}, "
                f"{self.resolution} cells per Δ, {self.periods} periods each side",
            ),
            ("top step", f"{self.step} cells (γ = {self.step / self.resolution:.6g})"),
            ("certified optimal", "yes" if self.certified else "NO"),
            ("relative gap", f"{self.relative_gap:.3g} (accuracy {self.accuracy:.0e})"),
            (
                "worst dual row",
                f"cell {j} (period {k}): reduced cost {abs(self.worst_violation):.3g} per unit "
                f"of mass {side} the value",
            ),
            ("time", f"{self.seconds:.2f} s"),
        ]

    def __repr__(self) -> str:
        return (
            f"StaircaseCertificate(epsilon={self.epsilon:g}, loss={self.loss!r}, "
            f"resolution={self.resolution}, periods={self.periods}, step={self.step}, "
            f"value={self.value:.10g}, lower_bound={self.lower_bound:.10g}, "
            f"certified={self.certified})"
        )


def _levels(m: int, periods: int, g: int) -> IntArray:
    """``level(t)`` of the cells ``t = 0..Km − 1`` right of the origin (module docstring)."""
    t = np.arange(m * periods, dtype=np.int64)
    return np.where(t < g, 0, (t - g) // m + 1)


def _best_step(c: FloatArray, a: FloatArray, m: int, periods: int, rho: float) -> int:
    """``argmin_g`` of the staircase's value over ``g = 1..m`` (``c, a`` of both sides folded
    onto the right: cell ``t`` and its mirror)."""
    period = np.arange(m * periods) // m
    base = rho ** period.astype(np.float64)
    rank = np.arange(m * periods) % m
    cost_by = np.bincount(rank, weights=c * base, minlength=m)
    mass_by = np.bincount(rank, weights=a * base, minlength=m)
    top_c, top_a = np.cumsum(cost_by), np.cumsum(mass_by)
    values = (rho * cost_by.sum() + (1 - rho) * top_c) / (rho * mass_by.sum() + (1 - rho) * top_a)
    return int(np.argmin(values)) + 1


def _value_up(c: FloatArray, a: FloatArray, levels: IntArray, rho: float) -> float:
    """``Σ c x / Σ a x`` for ``x = ρ^level`` (exactly), rounded up; ``c, a ≥ 0``."""
    top = int(levels.max())
    powers = np.empty(top + 1)
    powers[0] = 1.0
    for q in range(1, top + 1):  # each power within γ_q of ρ^q
        powers[q] = powers[q - 1] * rho
    x = powers[levels]
    num = math.fsum((c * x).tolist())
    den = math.fsum((a * x).tolist())
    rel = (top + 4) * U  # powers, the products, fsum's last rounding
    underflow = c.size * TINY * float(c.max())
    up = (num * (1 + rel) + underflow) / (den * (1 - rel)) * (1 + 4 * U)
    return math.nextafter(up, math.inf)


def _side_dual(
    w: FloatArray, m: int, g: int, levels: IntArray, e_eps: float
) -> tuple[IntArray, IntArray, FloatArray]:
    """Rows ``(k, j)`` (cells right of the origin, ``k`` receives) and multipliers of one side
    (module docstring): built level by level outwards."""
    n = w.size
    top = int(levels.max())
    starts = np.searchsorted(levels, np.arange(top + 2))
    spare = np.maximum(w, 0.0) / e_eps
    out = np.zeros(n)
    ks: list[IntArray] = []
    js: list[IntArray] = []
    ys: list[FloatArray] = []
    for q in range(top):
        recv = np.arange(starts[q], starts[q + 1])
        send = np.arange(starts[q + 1], starts[q + 2])
        demand = np.maximum(e_eps * out[recv] - w[recv], 0.0)
        # sender j joins the pool at the first receiver k with j ≤ k + m
        joins = np.maximum(send - m, recv[0]) - recv[0]
        pooled = np.cumsum(np.bincount(joins, weights=spare[send], minlength=recv.size))
        need = np.cumsum(demand)
        short_cum = np.maximum.accumulate(np.maximum(need - pooled, 0.0))
        short = np.diff(short_cum, prepend=0.0)
        taken = need - short_cum  # taken from the pool, cumulative, first come first served
        # pool: the overlaps of the receivers' intervals [taken) with the senders' [spare)
        spare_cum = np.cumsum(spare[send])
        cuts = np.unique(np.concatenate([[0.0], taken, spare_cum]))
        cuts = cuts[cuts <= taken[-1]]
        if cuts.size > 1:
            lo, hi = cuts[:-1], cuts[1:]
            keep = hi > lo
            mid = (lo[keep] + hi[keep]) / 2
            senders = send[np.minimum(np.searchsorted(spare_cum, mid), send.size - 1)]
            ks.append(recv[np.searchsorted(taken, mid)])
            js.append(senders)
            ys.append((hi - lo)[keep])
            np.add.at(out, senders, ys[-1])
        # the rest: each receiver's partner k + m (or the last cell, and the check will fail)
        has = short > 0
        partner = np.minimum(recv[has] + m, n - 1)
        ks.append(recv[has])
        js.append(partner)
        ys.append(short[has])
        np.add.at(out, partner, short[has])
    if not ks:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return np.concatenate(ks), np.concatenate(js), np.concatenate(ys)


def _bound_low(
    c: FloatArray, a: FloatArray, k: IntArray, j: IntArray, y: FloatArray, e_eps: float
) -> FloatArray:
    """``(c + Aᵀy) / a`` per cell, rounded down: the rows ``x_k − e^ε x_j ≤ 0`` with
    multipliers ``y ≥ 0`` (positions in the full grid). ``c_j + in_j − e^ε out_j`` is within
    ``γ_{d + 6}`` of ``|c_j| + in_j + e^ε out_j`` (``d`` the rows the cell is in: sums in
    order, Higham 2002, §3.1; ``d = 2`` for the cells summed by `math.fsum`); subnormal
    terms add under ``4·TINY`` each."""
    n = c.size
    gains = np.asarray(np.bincount(k, weights=y, minlength=n), dtype=np.float64)
    pays = np.asarray(np.bincount(j, weights=y, minlength=n), dtype=np.float64)
    degree = np.bincount(k, minlength=n) + np.bincount(j, minlength=n) + 6.0
    # the few cells in many rows (the top step's, which the whole next level may serve): their
    # sums by math.fsum, each within an ulp
    busy = np.flatnonzero(degree > _FSUM_ABOVE)
    if busy.size:
        for ends, out in ((k, gains), (j, pays)):
            order = np.argsort(ends, kind="stable")
            starts = np.searchsorted(ends[order], busy)
            stops = np.searchsorted(ends[order], busy, side="right")
            for cell, lo, hi in zip(busy.tolist(), starts.tolist(), stops.tolist(), strict=True):
                out[cell] = math.fsum(y[order[lo:hi]].tolist())
        degree[busy] = 8.0
    gamma = degree * U / (1 - degree * U)
    pays *= e_eps
    reduced = c + gains - pays
    error = (np.abs(c) + gains + pays) * gamma + 4 * degree * TINY
    low = reduced - error
    ratio = low / a
    ratio -= np.abs(ratio) * 2 * U  # the division, rounded down
    return np.asarray(ratio)


def _dual_point_bound(
    c: FloatArray,
    a: FloatArray,
    target: float,
    m: int,
    g: int,
    levels: IntArray,
    e_eps: float,
) -> FloatArray:
    """The dual bound per cell (`_bound_low`) of the dual point built, side by side, for the
    value ``target`` (`_side_dual`)."""
    half = levels.size
    position = np.arange(2 * half)
    ks, js, ys = [], [], []
    for side in (slice(half, None), slice(half - 1, None, -1)):
        k, j, y = _side_dual(c[side] - target * a[side], m, g, levels, e_eps)
        ks.append(position[side][k])
        js.append(position[side][j])
        ys.append(y)
    return _bound_low(c, a, np.concatenate(ks), np.concatenate(js), np.concatenate(ys), e_eps)


def staircase_certificate(
    epsilon: float,
    cost: Any,
    *,
    sensitivity: float = 1.0,
    resolution: int | None = None,
    periods: int = 3,
    step: int | None = None,
    accuracy: float = STAIRCASE_ACCURACY,
) -> StaircaseCertificate:
    """Prove the staircase optimal on the additive designer's grid by a dual certificate.

    Geng & Viswanath (2016, Thm. 3): for a cost symmetric and non-decreasing in $|x|$, a
    staircase density is optimal among all ε-DP additive noises. On the uniform grid of
    ``optmech.design_noise`` (``resolution`` cells per Δ, ``periods`` periods each side, the
    geometric tails beyond) the certificate builds the best staircase on the grid and a dual
    point from complementary slackness (module docstring), and returns the interval
    ``[lower_bound, value]`` that holds the LP's optimum, with rigorous outward rounding: no
    LP is solved.

    Parameters
    ----------
    epsilon : float
        In (0, 50].
    cost : Cost or str or callable
        Cost of the noise (``"abs"``, ``"squared"``, a `Cost`), non-negative.
    sensitivity : float, default 1.0
        Δ, positive.
    resolution : int, optional
        Cells per Δ, ``m`` in [2, 10^7]; default that of the designer,
        ``20(1 + e^(ε/2))`` (at least 8).
    periods : int, default 3
        Periods of Δ each side, ``K`` in [2, 10^4] (the designer's default is 3).
    step : int, optional
        Cells of the staircase's top step, in [1, m]; default the best on the grid. Another
        step is a test of the certificate: a staircase that is not optimal must fail.
    accuracy : float, default 1e-9
        Relative accuracy: `certified` when ``value − lower_bound ≤ accuracy·|value|``.

    Returns
    -------
    StaircaseCertificate

    Examples
    --------
    >>> cert = staircase_certificate(1.0, "abs", resolution=40)
    >>> cert.certified, cert.relative_gap < 1e-12
    (True, True)
    >>> staircase_certificate(1.0, "abs", resolution=40, step=cert.step + 2).certified
    False
    """
    start = time.perf_counter()
    eps = check_epsilon(epsilon)
    acc = check_real("accuracy", accuracy, low=0.0, high=1.0, low_open=True, high_open=True)
    delta = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
    if resolution is None:
        resolution = max(8, math.ceil(20.0 * (1.0 + math.exp(min(eps, 60.0) / 2.0))))
    m = check_int("resolution", resolution, low=2, high=MAX_RESOLUTION)
    kk = check_int("periods", periods, low=2, high=10**4)
    cost_fn = as_cost(cost)
    grid = make_grid(GridKind.UNIFORM, delta, kk, cells=m)
    rho, e_eps = tail_ratio_for(eps), math.exp(eps)
    c, a = grid.cell_costs(cost_fn), grid.mass_per_unit()
    tail_left, tail_right = grid.tail_costs(cost_fn, rho)
    c[:m] += tail_left
    c[-m:] += tail_right
    a[:m] += rho / (1.0 - rho) * a[:m]
    a[-m:] += rho / (1.0 - rho) * a[-m:]
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError(
            f"`cost` must be finite and non-negative on the grid and its tails; got {cost!r}."
        )
    half = kk * m
    right = slice(half, None)
    left = slice(half - 1, None, -1) if half > 0 else slice(0, 0)
    g = _best_step(c[right] + c[left], a[right] + a[left], m, kk, rho)
    if step is not None:
        g = check_int("step", step, low=1, high=m)
    lv = _levels(m, kk, g)
    levels = np.concatenate([lv[::-1], lv])
    value = _value_up(c, a, levels, rho)
    best: tuple[float, FloatArray] | None = None
    for slack in _SLACKS:
        per_cell = _dual_point_bound(c, a, value * (1.0 - slack), m, g, lv, e_eps)
        if best is None or per_cell.min() > best[0]:
            best = (float(per_cell.min()), per_cell)
        if value - best[0] <= acc * abs(value) / 2:
            break
    assert best is not None
    per_cell = best[1]
    worst = int(np.argmin(per_cell))
    lower = math.nextafter(float(per_cell[worst]), -math.inf)
    cell = worst - half
    return StaircaseCertificate(
        theorem="staircase optimality",
        n=2 * half,
        epsilon=eps,
        loss=cost_fn.name,
        value=value,
        lower_bound=lower if math.isfinite(lower) else -math.inf,
        accuracy=acc,
        assignment=levels,
        row_duals=per_cell,
        worst_violation=value - float(per_cell[worst]),
        worst_row=(cell, cell // m),
        seconds=time.perf_counter() - start,
        sensitivity=delta,
        resolution=m,
        periods=kk,
        step=g,
        tail_ratio=rho,
    )
