"""Column generation for the user LPs on a tree neighbour graph (the count query's path).

The user LP (Ghosh, Roughgarden & Sundararajan (2012), LP (2)–(6); minimax: Gupte &
Sundararajan (2010)) has Dantzig–Wolfe structure: each output column lies in the cone K of ε-DP
columns and only the row sums couple them. `generate_columns` alternates

1. the **restricted master** over the columns so far
   (`RestrictedMaster`, simplex from the last
   basis), whose row-sum multipliers ``y`` (and epigraph multipliers ``μ``) price the columns;
2. **pricing**: for every output r the ray of K minimising the reduced cost per unit of row
   mass, ``w_r · v / Σv``, with ``w_r = c_r − y`` (Bayesian) or ``w_r = Σ_k μ_k F_k[:, r] − y``
   (epigraph), by the linear-time DP of `optmech.lp.user.cone` and
   Newton's method on the ratio, vectorised over the outputs
   (`steepest_rays`); each ray (scaled to maximum 1) whose
   reduced cost is below ``−REDUCED_COST_TOLERANCE`` joins the master;

until no ray prices out, or the master's objective is within ``GAP`` of the round's
Lagrangian bound ``Σ y − N max_r t_r`` (``t_r`` the reduced cost per unit of row mass of output
r's steepest ray), or the objective stalls at the solver's tolerance. The master
starts from the theorem's candidate: every ray ``e^(−ε d(·, j))`` peaked at an input ``j`` (on
the path: the columns of the geometric mechanism G) assigned to the output its Bayes remap picks
(GRS Thm. 3.1: for a Bayesian user on a count query that is already optimal, and the first
master solve ends the run), the same rays assigned to their own output when outputs are inputs,
and the best constant answer (which makes the master feasible on any tree).

Whatever the run's outcome, the point handed on is exactly ε-DP by construction and the lower
bound computed from its multipliers is rigorous
(`optmech.lp.user.cone_bounds`): stopping early only widens the
certified interval. Each round is logged at INFO on this module's
logger (``optmech.lp.user.column_generation``; the stage ``column generation round`` of
`optmech.lp.engine.report`, which ``verbose=True`` prints and
``progress=True`` counts): columns, objective, bound, least reduced cost, rays added.

**The restricted master** (`RestrictedMaster`). Every column of a mechanism is a non-negative
combination of K's extreme rays, so with generated pairs ``(r_j, v_j)`` (an output and a ray)
the master LP over ``λ ≥ 0`` is

    Bayesian:  minimise Σ_j (c_{r_j} · v_j) λ_j        subject to  L Σ_j λ_j v_j = L 1 (N rows)
    epigraph:  minimise s   subject to the same rows and  Σ_j (F_k[:, r_j] · v_j) λ_j ≤ s  ∀k,

and ``X[:, r] = Σ_{j : r_j = r} λ_j v_j`` is ε-DP by construction whatever ``λ ≥ 0`` is (a sum of
rays of K is in K). The row sums are written through the invertible operator L of
`kink_operator` — the same constraints — because ``L v``
is non-zero only at the ray's peaks and valleys: a master column holds a few entries where the
ray has N (measured, Dirichlet prior, |e|, ε = 0.5, n = 4000: the first master's solve took
7.7 s with the plain row sums and truncated rays, 0.1 s with 9,866 nonzeros this way). Its
multipliers ``z`` give those of the plain row sums as ``y = L z`` (L is symmetric). The
master is solved by simplex with its basis kept between rounds
(`optmech.lp.incremental.run_incremental`).

Rays are stored as their sign patterns (one bit per row). In the epigraph rows they are
*truncated*: entries below ``TRUNCATION`` of the ray's maximum are dropped (so a
column keeps about ``2·ln(1/TRUNCATION)/ε`` entries there); kink entries below it are dropped too.
The master is then a slight relaxation; the mechanism is rebuilt from the *full* rays and its
weights refined against them (`RestrictedMaster.point`), so it stays
exactly ε-DP with row sums 1 to rounding.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
import scipy.sparse as sp

from optmech._floats import BoolArray, FloatArray, IntArray
from optmech.lp.engine.report import stage
from optmech.lp.incremental import new_incremental_model, run_incremental
from optmech.lp.user.cone import (
    RootedTree,
    column_blocks,
    extreme_rays,
    kink_operator,
    kinks,
    steepest_rays,
)
from optmech.lp.user.cone_bounds import epigraph_cone_bound, linear_cone_bound
from optmech.provenance import Attempt

__all__ = [
    "GAP",
    "MAX_ROUNDS",
    "NEGLIGIBLE",
    "REDUCED_COST_TOLERANCE",
    "TRUNCATION",
    "ColumnGeneration",
    "RestrictedMaster",
    "WarmStart",
    "generate_columns",
    "peaked_patterns",
]

_log = logging.getLogger(__name__)

#: A ray joins the master when its reduced cost (scaled objective, ray maximum 1) is below
#: minus this, the master's dual feasibility tolerance (a column priced above it could not enter
#: the basis, and the run would stall re-adding it).
REDUCED_COST_TOLERANCE = 1e-10
#: Relative gap between the master's objective and its Lagrangian bound at which a run stops.
GAP = 1e-9
#: The mechanism is rebuilt from rays at ``ε − max(ε, 1)·POINT_MARGIN``: room for the row
#: normalisation (about 1e-15) and the certifier's rounding (about 1e-13), so that the repair's
#: first certification succeeds; the value moves by about this relative amount.
POINT_MARGIN = 1e-11
#: Rounds before the run stops whatever the reduced costs say (the bound still holds).
MAX_ROUNDS = 500
#: Rounds in a row without a relative decrease of the objective above 1e-12, each adding only
#: rays within a hundred tolerances of pricing out, that count as a stall (a degenerate master
#: can keep its objective over many rounds while its multipliers move: that is progress).
STALL_ROUNDS = 3

#: Ray entries below this (relative to the ray's maximum, 1) are left out of the master's
#: matrix; above the solver's smallest kept coefficient (``small_matrix_value`` = 1e-12).
TRUNCATION = 1e-11
#: Ray weights below this are dropped when the mechanism is rebuilt (they move the row sums by
#: less than the margin the rebuilt rays leave, and with rays floored at 1e-280 keep every entry
#: of X a normal float).
NEGLIGIBLE = 1e-15


def _truncated(rays: FloatArray) -> sp.csc_matrix:
    """The rays with their entries below `TRUNCATION` dropped."""
    return sp.csc_matrix(np.where(rays >= TRUNCATION, rays, 0.0))


class RestrictedMaster:
    """The master LP over the columns generated so far (module docstring), for the Bayesian
    costs ``weights`` or the epigraph ``forms`` (row-major ``vec(X)``); its objective is the true
    one divided by ``factor`` (so its optimum is O(1))."""

    def __init__(
        self,
        shape: tuple[int, int],
        tree: RootedTree,
        epsilon: float,
        *,
        weights: FloatArray | None = None,
        forms: sp.csr_matrix | None = None,
        factor: float = 1.0,
    ) -> None:
        self.shape, self.tree, self.epsilon, self.weights = shape, tree, epsilon, weights
        self.forms = None if forms is None else sp.csr_matrix(forms)
        self.factor = factor
        self.operator, self.rhs = kink_operator(tree, epsilon)
        self.model = new_incremental_model()
        n = shape[0]
        self.num_forms = k = 0 if self.forms is None else self.forms.shape[0]
        lower = np.concatenate([self.rhs, np.full(k, -np.inf)])
        upper = np.concatenate([self.rhs, np.zeros(k)])
        empty = np.zeros(0, dtype=np.int32)
        self.model.addRows(
            n + k, lower, upper, 0, np.zeros(n + k, dtype=np.int32), empty, np.zeros(0)
        )
        if k:  # the epigraph variable s ≥ 0: cost 1, −1 in every form row
            rows = np.arange(n, n + k, dtype=np.int32)
            self.model.addCols(1, [1.0], [0.0], [np.inf], k, [0], rows, -np.ones(k))
        self._outputs: list[IntArray] = []
        self._patterns: list[np.ndarray] = []  # packed bits, (⌈N/8⌉, k) per batch
        self._constant: list[BoolArray] = []
        self.iterations = 0
        self.attempts: list[Attempt] = []

    @property
    def num_columns(self) -> int:
        """Generated columns (without the epigraph variable)."""
        return int(sum(o.size for o in self._outputs))

    def _risk(self, outputs: IntArray, kept: sp.csc_matrix) -> sp.csc_matrix:
        """The epigraph rows of new columns: ``F_k[:, r_j] · v_j`` (truncated rays)."""
        assert self.forms is not None
        m = self.shape[1]
        coo = kept.tocoo()
        select = sp.csc_matrix(
            (coo.data, (coo.row * m + outputs[coo.col], coo.col)),
            shape=(self.shape[0] * m, outputs.size),
        )
        return sp.csc_matrix(self.forms @ select) / self.factor

    def _append(
        self,
        outputs: IntArray,
        costs: FloatArray,
        body: sp.csc_matrix,
        kept: Callable[[], sp.csc_matrix],
        descending: BoolArray,
        constant: bool = False,
    ) -> None:
        """Hand new columns to the solver: row-sum entries ``body`` (already through L) and, for
        an epigraph objective (no costs), the epigraph rows of the truncated rays ``kept()``."""
        if self.forms is not None:
            matrix = sp.vstack([body, self._risk(outputs, kept())], format="csc")
            costs = np.zeros(outputs.size)
        else:
            matrix = sp.csc_matrix(body)
        matrix.sort_indices()
        k = outputs.size
        self.model.addCols(
            k,
            costs,
            np.zeros(k),
            np.full(k, np.inf),
            matrix.nnz,
            matrix.indptr[:-1].astype(np.int32),
            matrix.indices.astype(np.int32),
            matrix.data,
        )
        self._outputs.append(np.asarray(outputs, dtype=np.int64))
        self._patterns.append(np.packbits(descending, axis=0))
        self._constant.append(np.full(k, constant))

    def _costs(self, outputs: IntArray, rays: FloatArray) -> FloatArray:
        if self.weights is None:
            return np.zeros(outputs.size)
        return np.einsum("ir,ir->r", self.weights[:, outputs], rays) / self.factor

    def add_rays(self, outputs: IntArray, descending: BoolArray) -> None:
        """Add the extreme rays of the sign patterns ``descending`` (rows × k) for ``outputs``."""
        if outputs.size == 0:
            return
        rays = extreme_rays(descending, self.tree, self.epsilon)
        entries = (1.0 - math.exp(-2.0 * self.epsilon)) * kinks(descending, self.tree) * rays
        body = sp.csc_matrix(np.where(np.abs(entries) >= TRUNCATION, entries, 0.0))
        costs = self._costs(outputs, rays)
        self._append(outputs, costs, body, partial(_truncated, rays), descending)

    def add_peaked(
        self, peaks: IntArray, outputs: IntArray, costs: FloatArray, descending: BoolArray
    ) -> None:
        """Add the peaked rays ``e^(−ε d(·, j))`` for ``j`` in ``peaks`` (patterns
        ``descending``), with their costs known (Bayesian, scaled; ignored for an epigraph
        objective).

        ``L v`` is the single entry ``1 − α²`` at the peak; on the path the truncated ray is
        built from its window around the peak, never as a dense matrix.
        """
        k = peaks.size
        if k == 0:
            return
        n = self.shape[0]
        alpha2 = math.exp(-2.0 * self.epsilon)
        body = sp.csc_matrix((np.full(k, 1.0 - alpha2), (peaks, np.arange(k))), shape=(n, k))
        window = partial(self._peaked_window, peaks, descending)
        self._append(outputs, costs, body, window, descending)

    def _peaked_window(self, peaks: IntArray, descending: BoolArray) -> sp.csc_matrix:
        """The truncated peaked rays, sparse (on the path from a window around each peak)."""
        n = self.shape[0]
        if not self.tree.is_path:
            return _truncated(extreme_rays(descending, self.tree, self.epsilon))
        reach = int(math.log(1.0 / TRUNCATION) / self.epsilon)
        offsets = np.arange(-reach, reach + 1)
        rows = peaks[None, :] + offsets[:, None]
        cols = np.broadcast_to(np.arange(peaks.size)[None, :], rows.shape)
        inside = (rows >= 0) & (rows < n)
        values = np.exp(-self.epsilon * np.abs(offsets))[:, None] * np.ones(peaks.size)[None, :]
        return sp.csc_matrix((values[inside], (rows[inside], cols[inside])), shape=(n, peaks.size))

    def add_constant(self, outputs: IntArray) -> None:
        """Add the all-ones column (the constant answer) for each of ``outputs``."""
        ones = np.ones((self.shape[0], outputs.size))
        body = sp.csc_matrix(np.repeat(self.rhs[:, None], outputs.size, axis=1))
        costs = self._costs(outputs, ones)
        descending = np.zeros(ones.shape, dtype=bool)
        self._append(outputs, costs, body, partial(sp.csc_matrix, ones), descending, True)

    def solve(self, variant: str) -> None:
        """Solve from the current basis (attempts recorded in ``attempts``)."""
        self.attempts += run_incremental(self.model, variant)
        self.iterations += int(self.model.getInfo().simplex_iteration_count)

    @property
    def objective(self) -> float:
        """The master's optimal value (scaled units)."""
        return float(self.model.getInfo().objective_function_value)

    def duals(self) -> tuple[FloatArray, FloatArray | None]:
        """The multipliers, in the master's units: of the plain row sums ``Σ_r x[i, r] = 1``
        (``L z`` for those ``z`` of the transformed rows) and, for an epigraph objective, of the
        rows ``F_k · x ≤ s`` (HiGHS reports ``c − Aᵀ(row duals)`` as reduced costs: a ``≤`` row
        at its bound of a minimisation has a non-positive dual, negated here)."""
        duals = np.asarray(self.model.getSolution().row_dual, dtype=np.float64)
        n = self.shape[0]
        rows = np.asarray(self.operator @ duals[:n])
        return rows, (np.clip(-duals[n:], 0.0, None) if self.num_forms else None)

    def _rays(self, columns: IntArray, epsilon: float) -> FloatArray:
        """The full rays of ``columns`` (indices among the generated ones) at ``epsilon``."""
        n = self.shape[0]
        bounds = np.cumsum([0] + [o.size for o in self._outputs])
        batch = np.searchsorted(bounds, columns, side="right") - 1
        bits = np.stack(
            [self._patterns[b][:, j - bounds[b]] for b, j in zip(batch, columns, strict=True)],
            axis=1,
        )
        descending = np.unpackbits(bits, axis=0, count=n).astype(bool)
        rays = extreme_rays(descending, self.tree, epsilon)
        rays[:, np.concatenate(self._constant)[columns]] = 1.0
        return rays

    def _accumulate(
        self, x: FloatArray, columns: IntArray, weights: FloatArray, epsilon: float
    ) -> None:
        """``x[:, r_j] += weights_j v_j`` for ``columns``, in blocks of rays."""
        outputs = np.concatenate(self._outputs)
        order = np.argsort(outputs[columns], kind="stable")
        columns, weights = columns[order], weights[order]
        for part in column_blocks(self.shape[0], columns.size):
            rays = self._rays(columns[part], epsilon)
            rays *= weights[part]
            targets = outputs[columns[part]]  # sorted: sum the runs of one output
            first = np.flatnonzero(np.r_[True, targets[1:] != targets[:-1]])
            x[:, targets[first]] += np.add.reduceat(rays, first, axis=1)

    def point(self, epsilon: float) -> FloatArray:
        """``X[:, r] = Σ_{j: r_j = r} λ_j v_j`` with the full rays built at ``epsilon``.

        With ``epsilon`` a hair below the master's ε every column of X has ratios at most
        ``e^epsilon``: room for the row normalisation and the certifier's rounding. The rays then
        differ slightly from the master's (and are not truncated), so ``λ`` is corrected by
        iterative refinement with the master's basis, ``λ_B += B⁻¹ L(1 − Σ λ_j v_j)`` (at most
        twice; the epigraph rows keep their residual 0): the row sums come out 1 to about 1e-15.
        Weights below ``NEGLIGIBLE`` (negative ones included) are set to 0, so no entry of X
        comes near the subnormal range. The rays are built in blocks, never all at once.
        """
        offset = 1 if self.num_forms else 0
        values = np.asarray(self.model.getSolution().col_value, dtype=np.float64)
        lam = np.clip(values[offset:], 0.0, None)
        lam[lam < NEGLIGIBLE] = 0.0
        _, basic = self.model.getBasicVariables()
        basic = np.asarray(basic, dtype=np.int64)
        columns = basic[basic >= offset] - offset
        positions = np.nonzero(basic >= offset)[0]
        used = np.nonzero(lam > 0)[0]
        x = np.zeros(self.shape)
        self._accumulate(x, used, lam[used], epsilon)
        for _ in range(2):
            residual = 1.0 - x.sum(axis=1)
            if float(np.max(np.abs(residual))) <= 1e-15:
                break
            gap = np.asarray(self.operator @ residual)
            _, step = self.model.getBasisSolve(np.concatenate([gap, np.zeros(self.num_forms)]))
            new = lam.copy()
            new[columns] += np.asarray(step)[positions]
            new[new < NEGLIGIBLE] = 0.0
            changed = np.nonzero(new != lam)[0]
            self._accumulate(x, changed, new[changed] - lam[changed], epsilon)
            lam = new
        return x


@dataclass(frozen=True)
class ColumnGeneration:
    """The outcome of `generate_columns`, in the objective's units.

    ``point`` is ``X`` rebuilt from the master's solution and the full rays (ε-DP by
    construction; rows sum to 1 up to the master's tolerances and the truncated mass);
    ``lower`` the rigorous lower bound (`optmech.lp.user.cone_bounds`) of the multipliers of the
    best Lagrangian bound found, its search started at the last pricing's estimate of the least
    shift and allowed to stop at that pricing's largest ratio of a ray found.
    ``converged``: no ray priced out or the gap closed (rather than a stall or the round limit).
    ``attempts`` holds one per master solve that needed a restart, and one summary; ``seconds``
    is the wall time of the rounds (the bound not included).
    """

    point: FloatArray
    lower: float
    objective: float
    columns: int
    iterations: int
    attempts: tuple[Attempt, ...]
    converged: bool
    seconds: float


def peaked_patterns(tree: RootedTree) -> BoolArray:
    """``descending[v, j]``: the sign pattern of the ray ``e^(−ε d(·, j))`` peaked at ``j``.

    Moving from ``parent(v)`` to ``v`` goes away from ``j`` unless ``v`` is ``j`` or one of its
    ancestors.

    Examples
    --------
    >>> peaked_patterns(RootedTree.path(3)).astype(int).tolist()
    [[0, 0, 0], [1, 0, 0], [1, 1, 0]]
    """
    n = tree.size
    if tree.is_path:
        rows = np.arange(n)
        return rows[:, None] > rows[None, :]
    towards = np.zeros((n, n), dtype=bool)  # towards[v, j]: v is j or an ancestor of j
    for j in tree.order:
        if tree.parent[j] >= 0:
            towards[:, j] = towards[:, tree.parent[j]]
        towards[j, j] = True
    descending = ~towards
    descending[tree.order[0]] = False  # the root's own entry is unused
    return descending


@dataclass(frozen=True)
class WarmStart:
    """The master's first columns: the peaked rays ``e^(−ε d(·, j))`` sent to their Bayes remap
    ``choice[j] = argmin_r D[j, r]`` (``D`` of `decay_products`) and, when outputs are inputs, to
    their own output, plus the best ``constant`` answer. ``choice_costs`` and ``own_costs`` are
    ``D[j, choice[j]]`` and ``D[j, j]`` (Bayesian costs in true units; zeros for an epigraph
    objective, whose columns carry no cost)."""

    choice: IntArray
    choice_costs: FloatArray
    own_costs: FloatArray | None
    constant: int

    @classmethod
    def of(cls, decay: FloatArray, constant: int, bayesian: bool) -> WarmStart:
        """From ``D`` (which may be dropped afterwards: the start keeps ``O(N)`` numbers)."""
        n, m = decay.shape
        rows = np.arange(n)
        choice = np.argmin(decay, axis=1)
        own = decay[rows, rows] if m == n else None
        if not bayesian:
            return cls(choice, np.zeros(n), None if own is None else np.zeros(n), constant)
        return cls(choice, decay[rows, choice], own, constant)


def _warm_start(master: RestrictedMaster, warm: WarmStart) -> None:
    patterns = peaked_patterns(master.tree)
    peaks = np.arange(master.shape[0])
    master.add_peaked(peaks, warm.choice, warm.choice_costs / master.factor, patterns)
    if warm.own_costs is not None:
        own = np.nonzero(warm.choice != peaks)[0]
        master.add_peaked(own, own, warm.own_costs[own] / master.factor, patterns[:, own])
    master.add_constant(np.array([warm.constant], dtype=np.int64))


def _pricing_weights(
    master: RestrictedMaster, rows: FloatArray, mu: FloatArray | None, cols: slice
) -> FloatArray:
    """``w_r`` of the outputs ``cols`` (module docstring), in the master's units."""
    if mu is None:
        assert master.weights is not None
        combined = master.weights[:, cols]
    else:
        assert master.forms is not None
        combined = np.asarray(master.forms.T @ mu).reshape(master.shape)[:, cols]
    return combined / master.factor - rows[:, None]


def _price(
    master: RestrictedMaster, rows: FloatArray, mu: FloatArray | None, tolerance: float
) -> tuple[IntArray, BoolArray, float, float, float]:
    """Outputs whose steepest ray prices out, their patterns, the least reduced cost (ray
    maximum 1), the largest shift ``max_r t_r`` (reduced cost per unit of row mass; the brackets'
    upper ends) and the largest ratio of a ray found (their lower ends).

    The outputs are priced in blocks of `BLOCK_ENTRIES`
    entries, so the work arrays stay small whatever ``N × m`` is; each ``t_r`` is found to within
    ``tolerance`` (a fraction of the last round's gap per row: no finer than the bound needs).
    """
    n, m = master.shape
    found: list[IntArray] = [np.zeros(0, dtype=np.int64)]
    patterns: list[BoolArray] = [np.zeros((n, 0), dtype=bool)]
    least, top, floor = 0.0, 0.0, 0.0
    for cols in column_blocks(n, m):
        weights = _pricing_weights(master, rows, mu, cols)
        shifts, high, descending = steepest_rays(weights, master.tree, master.epsilon, tolerance)
        top = max(top, float(np.max(high, initial=0.0)))
        floor = max(floor, float(np.max(shifts, initial=0.0)))
        candidates = np.nonzero(shifts > 0)[0]
        if candidates.size == 0:
            continue
        rays = extreme_rays(descending[:, candidates], master.tree, master.epsilon)
        reduced = -shifts[candidates] * rays.sum(axis=0)
        least = min(least, float(reduced.min()))
        entering = candidates[reduced < -REDUCED_COST_TOLERANCE]
        found.append(entering + cols.start)
        patterns.append(descending[:, entering])
    return np.concatenate(found), np.concatenate(patterns, axis=1), least, top, floor


@dataclass(frozen=True)
class _Priced:
    """Multipliers that were priced, with the Lagrangian bound they give (floating point), the
    largest shift and the largest ratio of a ray found (`_price`)."""

    rows: FloatArray
    epigraph: FloatArray | None
    bound: float
    shift: float
    floor: float


def _round(
    master: RestrictedMaster, number: int, factor: float, gap: float, best: _Priced | None
) -> tuple[float, float, IntArray, BoolArray, _Priced]:
    """Solve the master, price every output; logged as the stage ``column generation round``
    (INFO, with the columns, objective, bound, least reduced cost and rays added in
    ``record.optmech``). Returns the objective, the least reduced cost, the rays to add and the
    multipliers of the best bound so far: the final bound is computed from them (a degenerate
    master's multipliers jump between the vertices of its dual, so the last are not always the
    best)."""
    with stage("column generation round", _log, round=number) as found:
        master.solve(f"column generation, round {number}")
        rows, mu = master.duals()
        tolerance = 0.01 * gap / (factor * master.shape[0])
        outputs, patterns, least, shift, floor = _price(master, rows, mu, tolerance)
        mass = 1.0 if mu is None else max(float(np.sum(mu)), 1e-300)
        bound = (math.fsum(rows.tolist()) - master.shape[0] * shift) * factor / mass
        if best is None or bound >= best.bound:
            best = _Priced(rows, mu, bound, shift, floor)
        objective = master.objective * factor
        found.update(
            columns=master.num_columns,
            objective=objective,
            bound=bound,
            least_reduced_cost=least,
            added=int(outputs.size),
        )
    return objective, least, outputs, patterns, best


def generate_columns(
    tree: RootedTree,
    epsilon: float,
    shape: tuple[int, int],
    *,
    factor: float,
    weights: FloatArray | None = None,
    forms: sp.csr_matrix | None = None,
    warm: WarmStart,
) -> ColumnGeneration:
    """Solve the user LP on ``tree`` by column generation (module docstring), for the Bayesian
    ``weights`` or the epigraph ``forms`` (true units), from the columns of ``warm``; the master's
    objective is divided by ``factor`` (so its optimum is O(1))."""
    start = time.perf_counter()
    master = RestrictedMaster(shape, tree, epsilon, weights=weights, forms=forms, factor=factor)
    _warm_start(master, warm)
    objectives: list[float] = []
    converged = False
    stalled = 0
    best: _Priced | None = None
    for number in range(1, MAX_ROUNDS + 1):
        last = objectives[-1] - best.bound if objectives and best is not None else 0.0
        objective, least, outputs, patterns, best = _round(
            master, number, factor, max(last, 0.0), best
        )
        objectives.append(objective)
        if outputs.size == 0 or objective - best.bound <= GAP * abs(objective):
            converged = True
            break
        previous = min(objectives[:-1], default=math.inf)
        flat = objective > previous * (1.0 - 1e-12) and least > -100.0 * REDUCED_COST_TOLERANCE
        stalled = stalled + 1 if flat else 0
        if stalled >= STALL_ROUNDS or number == MAX_ROUNDS:
            _log.info("column generation: stopped after %d rounds (stall or limit)", number)
            break
        master.add_rays(outputs, patterns)
    point = master.point(epsilon - max(epsilon, 1.0) * POINT_MARGIN)
    assert best is not None  # at least one round ran
    seconds = time.perf_counter() - start
    summary = Attempt(
        master.attempts[-1].solver,
        f"column generation: {len(objectives)} rounds, {master.num_columns} columns",
        "optimal",
        seconds,
    )
    restarts = tuple(
        a for a in master.attempts if "restarted" in a.variant or a.status != "optimal"
    )
    mass = 1.0 if best.epigraph is None else max(float(np.sum(best.epigraph)), 1e-300)
    estimates = (best.shift * factor / mass, best.floor * factor / mass)
    y = best.rows * factor
    if forms is None:
        assert weights is not None
        lower = linear_cone_bound(weights, y, tree, epsilon, *estimates)
    else:
        lower = epigraph_cone_bound(forms, shape, y, best.epigraph, tree, epsilon, *estimates)
    return ColumnGeneration(
        point=point,
        lower=lower,
        objective=master.objective * factor,
        columns=master.num_columns,
        iterations=master.iterations,
        attempts=(*restarts, summary),
        converged=converged,
        seconds=seconds,
    )
