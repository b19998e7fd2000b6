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
from optmech.lp.user.cone import RootedTree, column_blocks, extreme_rays, steepest_rays
from optmech.lp.user.cone_bounds import epigraph_cone_bound, linear_cone_bound
from optmech.provenance import Attempt

__all__ = [
    "GAP",
    "MAX_ROUNDS",
    "REDUCED_COST_TOLERANCE",
    "ColumnGeneration",
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
    found: list[IntArray] = []
    patterns: list[BoolArray] = []
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
    if not found:
        return np.zeros(0, dtype=np.int64), np.zeros((n, 0), dtype=bool), least, top, floor
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
