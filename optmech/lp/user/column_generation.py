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
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from optmech._floats import BoolArray, FloatArray, IntArray
from optmech.lp.engine.report import stage
from optmech.lp.user.column_master import RestrictedMaster
from optmech.lp.user.cone import BLOCK_ENTRIES, RootedTree, extreme_rays, steepest_rays
from optmech.provenance import Attempt

__all__ = [
    "GAP",
    "MAX_ROUNDS",
    "REDUCED_COST_TOLERANCE",
    "ColumnGeneration",
    "ColumnRound",
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


@dataclass(frozen=True)
class ColumnRound:
    """One round: the master solved, the outputs priced.

    Attributes
    ----------
    number : int
        1, 2, ...
    columns : int
        Columns in the master when it was solved.
    objective : float
        The master's optimum, in the objective's units.
    least_reduced_cost : float
        The most negative reduced cost found (scaled objective, ray maximum 1).
    bound : float
        The Lagrangian bound of the round's multipliers, in floating point (the rigorous one is
        computed once, at the end: `optmech.lp.user.cone_bounds`).
    added : int
        Rays added after the round.
    seconds : float
        Wall time of the round.
    """

    number: int
    columns: int
    objective: float
    least_reduced_cost: float
    bound: float
    added: int
    seconds: float


@dataclass(frozen=True)
class ColumnGeneration:
    """The outcome of `generate_columns`.

    Attributes
    ----------
    point : ndarray, shape (N, m)
        ``X`` rebuilt from the master's solution and the full rays (ε-DP by construction; rows
        sum to 1 up to the master's tolerances and the truncated mass).
    multipliers : ndarray, shape (N,)
        Row-sum multipliers of the best Lagrangian bound found, in the objective's units.
    epigraph_multipliers : ndarray or None
        Of the epigraph rows (unit-free), for an epigraph objective.
    objective : float
        The last master's optimum, in the objective's units.
    rounds : tuple of ColumnRound
    columns, nonzeros : int
        Size of the last master.
    iterations : int
        Simplex iterations, all rounds.
    attempts : tuple of Attempt
        One per master solve that needed a restart, and one summary attempt.
    converged : bool
        Whether no ray priced out or the gap closed (rather than a stall or the round limit).
    shift : float
        The last pricing's estimate of the least shift putting every column's reduced-cost
        vector in K* (objective units; for an epigraph objective, per unit of epigraph
        multiplier): where the rigorous bound's search starts.
    shift_floor : float
        The same pricing's largest ratio of a ray found (same units): where that search may stop
        (`least_shift` lowers the shift towards it).
    seconds : float
        Wall time of the run.
    options : dict
        The master solver's options.
    """

    point: FloatArray
    multipliers: FloatArray
    epigraph_multipliers: FloatArray | None
    objective: float
    rounds: tuple[ColumnRound, ...]
    columns: int
    nonzeros: int
    iterations: int
    attempts: tuple[Attempt, ...]
    converged: bool
    shift: float
    seconds: float
    options: dict[str, object]
    shift_floor: float = -math.inf


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
    (``choice[j] = argmin_r D[j, r]``, ``D`` of
    `decay_products`) and, when outputs are inputs, to
    their own output, plus the best constant answer.

    Attributes
    ----------
    choice : ndarray of int, shape (N,)
        The remap of each peaked ray.
    choice_costs, own_costs : ndarray, shape (N,)
        ``D[j, choice[j]]`` and ``D[j, j]`` (Bayesian costs in true units; zeros for an
        epigraph objective, whose columns carry no cost).
    constant : int
        The best constant answer.
    """

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
        return master.weights[:, cols] / master.factor - rows[:, None]
    assert master.forms is not None
    n, m = master.shape
    combined = np.asarray(master.forms.T @ mu).reshape(n, m)[:, cols] / master.factor
    return combined - rows[:, None]


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
    found: list[IntArray] = []
    patterns: list[BoolArray] = []
    least, top, floor = 0.0, 0.0, 0.0
    width = max(1, BLOCK_ENTRIES // n)
    for start in range(0, m, width):
        cols = slice(start, min(start + width, m))
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
        found.append(entering + start)
        patterns.append(descending[:, entering])
    if not found:
        return np.zeros(0, dtype=np.int64), np.zeros((n, 0), dtype=bool), least, top, floor
    return np.concatenate(found), np.concatenate(patterns, axis=1), least, top, floor


@dataclass(frozen=True)
class _Priced:
    """Multipliers that were priced, with the Lagrangian bound they give (floating point)."""

    rows: FloatArray
    epigraph: FloatArray | None
    bound: float
    shift: float
    floor: float


def _priced(
    master: RestrictedMaster,
    rows: FloatArray,
    mu: FloatArray | None,
    factor: float,
    tolerance: float,
) -> tuple[IntArray, BoolArray, float, _Priced]:
    outputs, patterns, least, shift, floor = _price(master, rows, mu, tolerance)
    mass = 1.0 if mu is None else max(float(np.sum(mu)), 1e-300)
    bound = (math.fsum(rows.tolist()) - master.shape[0] * shift) * factor / mass
    return outputs, patterns, least, _Priced(rows, mu, bound, shift, floor)


def _round(
    master: RestrictedMaster, number: int, factor: float, gap: float, best: _Priced | None
) -> tuple[ColumnRound, IntArray, BoolArray, _Priced]:
    """Solve the master, price every output; logged as the stage ``column generation round``
    (INFO, with the columns, objective, bound, least reduced cost and rays added in
    ``record.optmech``).

    ``best`` holds the multipliers of the best bound so far: the final bound is computed from
    them (a degenerate master's multipliers jump between the vertices of its dual, so the last
    are not always the best). Returns the round, the rays to add and the best multipliers.
    """
    tick = time.perf_counter()
    with stage("column generation round", _log, round=number) as found:
        master.solve(f"column generation, round {number}")
        duals = master.duals()
        tolerance = 0.01 * gap / (factor * master.shape[0])
        outputs, patterns, least, point = _priced(
            master, duals.rows, duals.epigraph, factor, tolerance
        )
        if best is None or point.bound >= best.bound:
            best = point
        record = ColumnRound(
            number,
            master.num_columns,
            master.objective * factor,
            least,
            point.bound,
            int(outputs.size),
            time.perf_counter() - tick,
        )
        found.update(
            columns=record.columns,
            objective=record.objective,
            bound=point.bound,
            least_reduced_cost=least,
            added=record.added,
        )
    return record, outputs, patterns, best


def generate_columns(
    tree: RootedTree,
    epsilon: float,
    shape: tuple[int, int],
    *,
    factor: float,
    weights: FloatArray | None = None,
    forms: sp.csr_matrix | None = None,
    warm: WarmStart,
    gap: float = GAP,
    max_rounds: int = MAX_ROUNDS,
) -> ColumnGeneration:
    """Solve the user LP on ``tree`` by column generation (module docstring).

    Parameters
    ----------
    tree : RootedTree
        The neighbour graph.
    epsilon : float
        Privacy level.
    shape : (int, int)
        ``(N, m)``.
    factor : float
        The objective is divided by it in the master (so its optimum is O(1)).
    weights : ndarray, shape (N, m), optional
        Bayesian weights ``p_i l(i, r)`` (true units).
    forms : scipy.sparse matrix, shape (K, N·m), optional
        Epigraph forms (true units).
    warm : WarmStart
        The first columns.
    gap : float
        Stop when the round's bound is within this of the objective, relatively.
    max_rounds : int
        Round limit.

    Returns
    -------
    ColumnGeneration
    """
    start = time.perf_counter()
    master = RestrictedMaster(shape, tree, epsilon, weights=weights, forms=forms, factor=factor)
    _warm_start(master, warm)
    rounds: list[ColumnRound] = []
    converged = False
    stalled = 0
    best: _Priced | None = None
    for number in range(1, max_rounds + 1):
        last = rounds[-1].objective - best.bound if rounds and best is not None else 0.0
        record, outputs, patterns, best = _round(master, number, factor, max(last, 0.0), best)
        rounds.append(record)
        if outputs.size == 0 or record.objective - best.bound <= gap * abs(record.objective):
            converged = True
            break
        previous = min((r.objective for r in rounds[:-1]), default=math.inf)
        flat = (
            record.objective > previous * (1.0 - 1e-12)
            and record.least_reduced_cost > -100.0 * REDUCED_COST_TOLERANCE
        )
        stalled = stalled + 1 if flat else 0
        if stalled >= STALL_ROUNDS or number == max_rounds:
            _log.info("column generation: stopped after %d rounds (stall or limit)", number)
            break
        master.add_rays(outputs, patterns)
    point = master.point(epsilon - max(epsilon, 1.0) * POINT_MARGIN)
    assert best is not None  # at least one round ran
    seconds = time.perf_counter() - start
    summary = Attempt(
        master.attempts[-1].solver,
        f"column generation: {len(rounds)} rounds, {master.num_columns} columns",
        "optimal",
        seconds,
    )
    restarts = tuple(
        a for a in master.attempts if "restarted" in a.variant or a.status != "optimal"
    )
    mass = 1.0 if best.epigraph is None else max(float(np.sum(best.epigraph)), 1e-300)
    return ColumnGeneration(
        point=point,
        multipliers=best.rows * factor,
        epigraph_multipliers=best.epigraph,
        objective=master.objective * factor,
        rounds=tuple(rounds),
        columns=master.num_columns,
        nonzeros=master.nonzeros,
        iterations=master.iterations,
        attempts=(*restarts, summary),
        converged=converged,
        shift=best.shift * factor / mass,
        shift_floor=best.floor * factor / mass,
        seconds=seconds,
        options=master.solver_options,
    )
