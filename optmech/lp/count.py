"""User-specific optimal mechanisms over a neighbour graph: the Bayesian (GRS) and minimax LPs.

A **user** of a query with results (inputs) ``i`` has a loss ``l(i, r)`` for answer ``r``, and
either a prior ``p`` over the inputs (Bayesian, GRS seed 003 §2.2) or side information
``S ⊆ inputs`` (minimax, Gupte & Sundararajan). Over all oblivious ε-DP mechanisms
``x[i, r] = P(r | i)`` (THEORY.md §2):

Bayesian user LP (GRS (2)–(6))::

    minimise   Σ_i p_i Σ_r x[i, r] l(i, r)
    subject to Σ_r x[i, r] = 1,  x ≥ 0,
               x[i, r] ≤ e^ε x[i', r]   for every edge i ~ i' (both directions), every r.

Minimax user LP: ``minimise max_{i ∈ S} Σ_r x[i, r] l(i, r)`` (an epigraph variable ``t``).

Construction is vectorised (THEORY.md §5: element-wise construction costs more than solving):
with the sparse edge selections ``S_src, S_dst`` of :func:`optmech.graphs.edge_incidence` the
privacy constraints are the two matrix inequalities ``S_src X ≤ e^ε S_dst X`` and the reverse.
The objective is ``Σ W ⊙ X`` with ``W = p[:, None] · L`` divided by the value of a known
feasible mechanism (the best constant answer, and for a count query the geometric mechanism
with its Bayes remap), so the optimum is O(1) whatever the loss's units.

A mirror-symmetric Bayesian instance (path graph, ``p_i L[i, r] = p_{n−i} L[n−i, m−1−r]``,
e.g. a uniform prior and a cost of ``|output − input|``) is solved over the orbits of the
reflection ``(i, r) → (n−i, m−1−r)`` (:func:`build_mirror_problem`; half the variables, the
same optimum) and expanded to the full matrix before everything below.

What is returned is **certified, not trusted** (THEORY.md §5): the solver's point is clipped to
``x ≥ 0`` and row-normalised (the *raw* mechanism, kept for structural analysis: constraint
matrices, remap tests); it is then made exactly ε-DP by :func:`make_private` and its achieved ε
certified by :mod:`optmech.certify.matrix`, independently of the LP. The reported value is the
objective evaluated at the returned mechanism, never the solver's number. Optimality is
certified too: the solver's multipliers of the privacy constraints give, by Lagrangian
relaxation over rows in the probability simplex, a rigorous lower bound (``lower_bound``), so
the optimum over all ε-DP mechanisms lies in ``[lower_bound, value]`` whatever the solver's
tolerances (measured width: ≤ 4e-8 relative for Bayesian users; looser for minimax users when
HiGHS's multipliers are poor, which never makes it wrong).

Examples
--------
>>> import numpy as np
>>> res = bayesian_mechanism(np.full(4, 0.25), "abs", 1.0)
>>> res.mechanism.shape, res.certified_epsilon <= 1.0 * (1 + 1e-9)
((4, 4), True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp
import networkx as nx
import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from scipy.sparse import csgraph

from optmech._validation import check_epsilon as _check_epsilon
from optmech._validation import check_int, check_prior, check_real_array, describe
from optmech.certify.matrix import certify_mechanism
from optmech.costs import Cost, as_cost
from optmech.exceptions import PrivacyViolationError, ProblemTooLargeError, SolverError
from optmech.graphs import (
    check_graph,
    default_outputs,
    edge_incidence,
    edge_pairs,
    is_path_graph,
    node_values,
    path_graph,
)
from optmech.lp.solve import SolveInfo, available_solvers, choose_solver, solve
from optmech.mechanisms.geometric import TRUNCATED_GEOMETRIC_MAX_N, truncated_geometric

__all__ = [
    "EPSILON_MAX",
    "MAX_VARIABLES",
    "CommonMechanismResult",
    "UserMechanism",
    "UserSetting",
    "bayesian_mechanism",
    "build_mirror_problem",
    "build_user_problem",
    "check_epsilon",
    "check_prior",
    "common_mechanism",
    "is_mirror_symmetric",
    "make_private",
    "minimax_mechanism",
    "resolve_setting",
    "side_information_rows",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Largest ε accepted: beyond it ``e^ε`` exceeds 1e21 and the LP's coefficients are meaningless.
EPSILON_MAX = 50.0
#: Default cap on LP variables (inputs × outputs); the n = 400 count LP has 160,801.
MAX_VARIABLES = 1_000_000
#: Peak resident memory per LP variable, measured on the path-graph user LP with Clarabel
#: (1.5 GB at n = 800, 641,601 variables; docs/performance.md): the basis of the estimate
#: quoted when a problem is refused.
BYTES_PER_VARIABLE = 2_400


def _memory_estimate(num_variables: int) -> str:
    return f"about {num_variables * BYTES_PER_VARIABLE / 1e9:.1f} GB of solver memory"


#: Relative margin by which :func:`make_private` aims below ε when it repairs, so that the
#: rounding of the repaired matrix stays below ε.
PRIVACY_MARGIN = 1e-10
#: A point whose certified ε is within this relative distance of ε is kept as it is: the
#: excess is the rounding of a vertex where ``x[i, r] = e^ε x[i', r]`` holds exactly (the
#: pessimistic certificate adds a few ulps); far below optmech's 1e-9 contract.
ROUNDING_RTOL = 1e-12
#: A column whose largest entry is below this is solver noise on an unused output: zeroed.
ZERO_COLUMN = 1e-9


def check_epsilon(epsilon: Any) -> float:
    """``epsilon`` as a float in (0, 50]."""
    return _check_epsilon(
        epsilon, high=EPSILON_MAX, hint="larger ε makes e^ε exceed 1e21 and the LP meaningless"
    )


@dataclass(frozen=True)
class UserSetting:
    """Inputs, outputs, neighbour graph and loss matrix of a user LP, resolved and validated.

    Attributes
    ----------
    graph : networkx.Graph
        The neighbour graph; its node order is the row order.
    values : ndarray
        Query result of each input (node values).
    outputs : ndarray
        The output set (labels of the mechanism's columns).
    loss : ndarray, shape (N, m)
        ``loss[i, r]``: the loss of answering output ``r`` on input ``i``.
    cost : Cost or None
        The cost the loss was built from (``None`` for a loss matrix given directly).
    src, dst : ndarray of int
        Edges as row-index pairs.
    """

    graph: nx.Graph
    values: FloatArray
    outputs: FloatArray
    loss: FloatArray
    cost: Cost | None
    src: IntArray
    dst: IntArray

    @property
    def num_inputs(self) -> int:
        return int(self.loss.shape[0])

    @property
    def num_outputs(self) -> int:
        return int(self.loss.shape[1])

    @property
    def is_count_query(self) -> bool:
        """The GRS setting: the path graph on ``{0..n}`` with outputs ``{0..n}``."""
        n1 = self.num_inputs
        return (
            is_path_graph(self.graph)
            and self.outputs.ndim == 1
            and self.outputs.size == n1
            and bool(np.array_equal(self.outputs, np.arange(n1)))
            and bool(np.array_equal(self.values, np.arange(n1)))
        )


def _is_matrix(loss: Any) -> bool:
    return isinstance(loss, np.ndarray | list | tuple) and np.ndim(loss) == 2


def _cost_loss(cost: Cost, values: FloatArray, outputs: FloatArray) -> FloatArray:
    """``L[i, r] = Σ_k c(outputs[r, k] − values[i, k])`` (one term for a single query)."""
    if values.ndim == 1 and outputs.ndim == 1:
        return cost.loss_matrix(values, outputs)
    v = values.reshape(values.shape[0], -1)
    o = outputs.reshape(outputs.shape[0], -1)
    if v.shape[1] != o.shape[1]:
        raise ValueError(
            f"`outputs` must have the dimension of the query results ({v.shape[1]}); got "
            f"{o.shape[1]}."
        )
    out = np.zeros((v.shape[0], o.shape[0]))
    for k in range(v.shape[1]):  # one term per query (a handful), vectorised over the matrix
        out += cost.loss_matrix(v[:, k], o[:, k])
    return out


def resolve_setting(
    loss: Any,
    *,
    graph: nx.Graph | None = None,
    outputs: Any = None,
    num_inputs: int | None = None,
    max_variables: int = MAX_VARIABLES,
) -> UserSetting:
    """Resolve a user's loss, graph and outputs into a :class:`UserSetting`, validating sizes.

    The number of inputs comes from ``graph``, else ``num_inputs``, else the rows of a loss
    matrix; the LP size (inputs × outputs) is checked against ``max_variables`` *before* any
    loss matrix or graph is built (:class:`~optmech.exceptions.ProblemTooLargeError`).

    Parameters
    ----------
    loss : Cost, str, callable or array_like
        A cost of ``output − input`` (:func:`optmech.costs.as_cost`), or a loss matrix
        ``L[i, r]`` of shape (inputs, outputs).
    graph : networkx.Graph, optional
        Neighbour graph; default the count-query path on ``{0..N−1}``.
    outputs : array_like, optional
        Output set (numbers, or rows of numbers for several queries); default the graph's
        (:func:`optmech.graphs.default_outputs`), or ``0..m−1`` for a loss matrix with m columns.
    num_inputs : int, optional
        Number of inputs when no graph is given.
    max_variables : int
        Refuse LPs with more variables than this.
    """
    max_variables = check_int("max_variables", max_variables, low=1)
    matrix = None
    if _is_matrix(loss) or isinstance(loss, np.ndarray):
        matrix = check_real_array("loss", loss, ndim=2)
    cost = None if matrix is not None else as_cost(loss)
    if graph is not None:
        graph = check_graph(graph)
        n_in = graph.number_of_nodes()
    elif num_inputs is not None:
        n_in = num_inputs
    elif matrix is not None:
        n_in = matrix.shape[0]
    else:
        raise ValueError("the number of inputs is unknown: give `n`, a `graph` or a loss matrix.")
    if n_in < 2:
        raise ValueError(f"a mechanism needs at least 2 inputs (n ≥ 1); got {n_in}.")
    if matrix is not None and matrix.shape[0] != n_in:
        raise ValueError(
            f"`loss` matrix must have one row per input ({n_in}); got shape {matrix.shape}."
        )
    out_arr = None
    if outputs is not None:
        out_arr = check_real_array("outputs", outputs)
        if out_arr.ndim not in (1, 2):
            raise ValueError(f"`outputs` must be 1- or 2-dimensional; got shape {out_arr.shape}.")
    elif matrix is not None:
        out_arr = np.arange(matrix.shape[1], dtype=np.float64)
    elif graph is not None:
        out_arr = default_outputs(graph)
    n_out = n_in if out_arr is None else out_arr.shape[0]
    if n_in * n_out > max_variables:
        raise ProblemTooLargeError(
            f"the user LP would have {n_in} x {n_out} = {n_in * n_out} variables "
            f"({_memory_estimate(n_in * n_out)}), more than max_variables = {max_variables} "
            "(n = 800 takes about 25 s and 1.5 GB); refused before building anything. Raise "
            "`max_variables` if the machine has the memory."
        )
    if matrix is not None and matrix.shape[1] != n_out:
        raise ValueError(
            f"`loss` matrix must have one column per output ({n_out}); got shape {matrix.shape}."
        )
    if graph is None:
        graph = path_graph(n_in - 1)
    if out_arr is None:
        out_arr = default_outputs(graph)
    if matrix is None:
        values = node_values(graph)
        matrix = _cost_loss(cost, values, out_arr)  # type: ignore[arg-type]
        if not np.all(np.isfinite(matrix)) or np.any(matrix < 0):
            raise ValueError(f"the loss {cost!r} must be finite and non-negative on the outputs.")
    else:
        if np.any(matrix < 0):
            raise ValueError(
                f"`loss` must be non-negative; smallest entry {float(matrix.min())!r}."
            )
        try:
            values = node_values(graph)
        except TypeError:  # nodes without numeric values: a loss matrix needs none
            values = np.arange(n_in, dtype=np.float64)
    src, dst = edge_pairs(graph)
    return UserSetting(
        graph=graph, values=values, outputs=out_arr, loss=matrix, cost=cost, src=src, dst=dst
    )


def build_user_problem(
    weights: FloatArray,
    epsilon: float,
    graph: nx.Graph,
    *,
    rows: IntArray | None = None,
    extra: Callable[[cp.Variable], list[cp.Constraint]] | None = None,
    bounds: str = "all",
) -> tuple[cp.Problem, cp.Variable]:
    """Build the user LP as a cvxpy problem (vectorised; THEORY.md §2, GRS (2)–(6)).

    Parameters
    ----------
    weights : ndarray, shape (N, m)
        Objective coefficients: ``p[:, None] · L`` (Bayesian) or ``L`` (minimax), scaled.
    epsilon : float
        Privacy level.
    graph : networkx.Graph
        Neighbour graph (node order = rows).
    rows : ndarray of int, optional
        Minimax: the rows (side information S) whose expected loss is bounded by ``t``;
        ``None`` gives the Bayesian objective ``Σ W ⊙ X``.
    extra : callable, optional
        More constraints on ``X``.
    bounds : {"all", "first"}
        ``"all"``: ``X ≥ 0`` entrywise (free for simplex: bounds). ``"first"``: only the first
        row; on a connected graph the privacy constraints imply the rest
        (``x[j, r] ≥ e^(−ε) x[i, r] ≥ 0`` along every edge), which spares an interior-point
        solver ``N·m`` cone constraints (about 15% of Clarabel's time at n = 400).

    Returns
    -------
    (problem, X)
    """
    n_in, n_out = weights.shape
    if bounds not in ("all", "first"):
        raise ValueError(f"`bounds` must be 'all' or 'first'; got {bounds!r}.")
    x = cp.Variable((n_in, n_out), nonneg=bounds == "all", name="mechanism")
    s_src, s_dst = edge_incidence(graph)
    e = math.exp(epsilon)
    a = s_src @ x
    b = s_dst @ x
    constraints = [cp.sum(x, axis=1) == 1, a <= e * b, b <= e * a]
    if bounds == "first":
        constraints.append(x[0] >= 0)
    if extra is not None:
        constraints += extra(x)
    if rows is None:
        objective = cp.Minimize(cp.sum(cp.multiply(weights, x)))
    else:
        t = cp.Variable(name="worst_case")
        pick = sp.csr_matrix(
            (np.ones(rows.size), (np.arange(rows.size), rows)), shape=(rows.size, n_in)
        )
        constraints.append(cp.sum(cp.multiply(weights[rows], pick @ x), axis=1) <= t)
        objective = cp.Minimize(t)
    return cp.Problem(objective, constraints), x


# --------------------------------------------------------------------------------------------
# Repair: from a solver's point to a certified ε-DP mechanism (THEORY.md §5)
# --------------------------------------------------------------------------------------------
def _lower_closure(
    x: FloatArray, log_ratio: float, graph_src: IntArray, graph_dst: IntArray, path: bool
) -> FloatArray:
    """The smallest ``y ≥ x`` with ``y[i, r] ≥ e^(−t) y[i', r]`` on every edge.

    That is ``y[i, r] = max_j x[j, r] e^(−t d(i, j))`` (graph distance d).

    Every column of the result satisfies the ratio bound ``e^t`` (before row normalisation):
    ``y[i] ≥ e^(−t) y[i']`` for neighbours because ``d(i, j) ≤ d(i', j) + 1``.
    """
    alpha = math.exp(-log_ratio)
    y = x.copy()
    if path:  # two sweeps along the path, vectorised over the outputs
        for i in range(1, y.shape[0]):
            np.maximum(y[i], alpha * y[i - 1], out=y[i])
        for i in range(y.shape[0] - 2, -1, -1):
            np.maximum(y[i], alpha * y[i + 1], out=y[i])
        return y
    n = x.shape[0]
    adj = sp.csr_matrix((np.ones(graph_src.size), (graph_src, graph_dst)), shape=(n, n))
    dist = csgraph.shortest_path(adj, directed=False, unweighted=True)
    decay = np.exp(-log_ratio * dist)  # (N, N), 0 across components (never: graph connected)
    block = max(1, 4_000_000 // max(1, n * x.shape[1]))
    for start in range(0, n, block):  # (max, ×) product, blocks of rows
        stop = min(n, start + block)
        y[start:stop] = np.max(decay[start:stop, :, None] * x[None, :, :], axis=1)
    return y


def _violation_lambda(y: FloatArray, log_ratio: float, src: IntArray, dst: IntArray) -> float:
    """Smallest λ with ``(1 − λ)y + λU`` satisfying ratio ``e^t`` on every edge (U uniform rows).

    For a pair ``a > e^t b`` the mixture needs ``(1 − λ)(a − e^t b) ≤ λ (e^t − 1)/m``, i.e.
    ``λ/(1 − λ) ≥ v = (a − e^t b) m/(e^t − 1)``: ``λ = v/(1 + v)`` at the worst pair.
    """
    e = math.exp(log_ratio)
    a, b = y[src], y[dst]
    worst = float(max(np.max(a - e * b, initial=0.0), np.max(b - e * a, initial=0.0)))
    if worst <= 0:
        return 0.0
    v = worst * y.shape[1] / math.expm1(log_ratio)
    return v / (1.0 + v)


def make_private(
    mechanism: npt.ArrayLike, epsilon: float, graph: nx.Graph | None = None
) -> tuple[FloatArray, float]:
    """Turn a nearly private mechanism into a certified ε-DP one; return it and the mixing λ.

    Steps (THEORY.md §5):

    1. clip to ``x ≥ 0``; zero the columns whose largest entry is below 1e-9 (solver noise on
       an unused output; a zero column is private); normalise rows. Done if the certified ε
       is at most ``ε(1 + 1e-12)`` (the rounding of a vertex where ratios equal ``e^ε``).
    2. Otherwise raise every entry to the *lower closure* ``max_j x[j, r] e^(−t d(i, j))``
       (``d`` = graph distance), first at ``t = ε``: each column then meets the ratio bound
       ``e^t`` and only entries that violated it grow, so the cost changes by about the
       violation. Normalising rows distorts ratios by the spread of the row sums; if that
       breaks ε, ``t`` is lowered by twice the spread and the closure redone (a few times,
       keeping the attempt that needs the least mixing).
    3. Should that fail (a point far from private), mix with the uniform (0-DP) mechanism,
       ``(1 − λ)X + λU``, with the closed-form ``λ`` of the worst remaining violation
       (doubled until rounding leaves none).

    The result is certified by :func:`optmech.certify.matrix.certify_mechanism` to be
    ``≤ ε(1 + 1e-12)``.

    Parameters
    ----------
    mechanism : array_like, shape (N, m)
        A solver's point (may be slightly negative or unnormalised).
    epsilon : float
        Target privacy level, in (0, 50].
    graph : networkx.Graph, optional
        Neighbour graph over the rows (default: the count-query path).

    Returns
    -------
    (mechanism, lam) : (ndarray, float)
        ``lam = 0`` when no mixing was needed.

    Examples
    --------
    >>> import numpy as np
    >>> m, lam = make_private(np.array([[1.0, 1e-11], [0.4, 0.6]]), 1.0)
    >>> bool(lam > 0), float(m.sum(axis=1).max()) == 1.0
    (True, True)
    """
    eps = check_epsilon(epsilon)
    x = check_real_array("mechanism", mechanism, ndim=2)
    if graph is None:
        graph = path_graph(x.shape[0] - 1)
    src, dst = edge_pairs(graph)
    x = np.clip(x, 0.0, None)
    x[:, x.max(axis=0) < ZERO_COLUMN] = 0.0
    sums = x.sum(axis=1, keepdims=True)
    if np.any(sums <= 0):
        raise SolverError("LP", "invalid_point", "a row of the returned mechanism is all zeros")
    x = x / sums
    pairs = np.stack([src, dst], axis=1)
    if certify_mechanism(x, pairs).epsilon <= eps * (1.0 + ROUNDING_RTOL):
        return x, 0.0
    path = is_path_graph(graph)
    target = eps
    best: tuple[FloatArray, float] | None = None
    for _ in range(4):
        y = _lower_closure(x, target, src, dst, path)
        sums = y.sum(axis=1)
        y /= sums[:, None]
        # Normalising distorts each ratio by s_j/s_i (the spread of the row sums).
        if certify_mechanism(y, pairs).epsilon <= eps * (1.0 + ROUNDING_RTOL):
            return y, 0.0
        lam = _violation_lambda(y, eps * (1.0 - PRIVACY_MARGIN), src, dst)
        if best is None or lam < best[1]:
            best = (y, lam)
        spread = float(np.max(np.abs(np.log(sums[src]) - np.log(sums[dst]))))
        if not 2.0 * spread < 1e-3 * eps:
            break  # far from private: mix with the uniform mechanism below
        # Leave room for the distortion. (Lowering the target also raises chains of tight
        # ratios, which can widen the spread: the best attempt is kept.)
        target = min(target, eps - 2.0 * spread) * (1.0 - PRIVACY_MARGIN)
    y, lam = best  # type: ignore[misc]
    for _ in range(60):
        z = (1.0 - lam) * y + lam / y.shape[1]
        z /= z.sum(axis=1, keepdims=True)
        if certify_mechanism(z, pairs).epsilon <= eps * (1.0 + ROUNDING_RTOL):
            return z, lam
        lam = min(1.0, max(2.0 * lam, 1e-15))
    raise PrivacyViolationError(  # pragma: no cover - λ = 1 gives the uniform mechanism
        "the repair did not reach the privacy target; this is a bug"
    )


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class UserMechanism:
    """An optimal mechanism for one user, with its provenance.

    Attributes
    ----------
    mechanism : ndarray, shape (N, m)
        Certified ε-DP mechanism, rows = inputs (graph node order), columns = outputs.
    value : float
        The user's objective at :attr:`mechanism` (expected loss, or worst case over S).
    certified_epsilon : float
        Achieved ε of :attr:`mechanism`, computed independently (≤ :attr:`epsilon`).
    epsilon : float
        Requested ε.
    status, solver : str
        Solver status (``optimal`` / ``optimal_inaccurate``) and name.
    solve_time : float
        Seconds in the solver (``info.total_time`` includes cvxpy's compilation).
    objective : str
        ``"bayesian"`` or ``"minimax"``.
    raw_mechanism : ndarray
        The solver's point clipped to ``x ≥ 0`` and row-normalised, before the privacy repair
        (a vertex when solved with ``vertex=True``): for constraint matrices and remap tests.
    raw_value : float
        The objective at :attr:`raw_mechanism`.
    repair_lambda : float
        Weight of the uniform mechanism mixed in by :func:`make_private` (0 if none).
    repair_cost : float
        ``value − raw_value``: what exact privacy cost.
    max_violation : float
        Largest violation of any LP constraint by the solver's point (absolute).
    lower_bound : float
        A rigorous lower bound on the optimum over *all* ε-DP mechanisms, from the solver's
        duals by Lagrangian relaxation (see :attr:`optimality_gap`); ``-inf`` if no duals.
    setting : UserSetting
        Graph, outputs and loss matrix.
    prior : ndarray or None
        Bayesian prior.
    side_information : ndarray of int or None
        Minimax: rows of S.
    info : SolveInfo
        Solver provenance (times, iterations, sizes, options); its sizes are those of the LP
        actually solved (the orbit LP when :attr:`symmetry_reduced`).
    symmetry_reduced : bool
        Whether the LP was solved over the orbits of the mirror symmetry (see
        :func:`bayesian_mechanism`, ``reduce_symmetric``); the mechanism is the full matrix
        either way.
    """

    mechanism: FloatArray
    value: float
    certified_epsilon: float
    epsilon: float
    status: str
    solver: str
    solve_time: float
    objective: str
    raw_mechanism: FloatArray = field(repr=False)
    raw_value: float
    repair_lambda: float
    repair_cost: float
    max_violation: float
    lower_bound: float
    setting: UserSetting = field(repr=False)
    prior: FloatArray | None = field(repr=False, default=None)
    side_information: IntArray | None = field(repr=False, default=None)
    info: SolveInfo | None = field(repr=False, default=None)
    symmetry_reduced: bool = False

    @property
    def loss(self) -> FloatArray:
        """The loss matrix ``L[i, r]``."""
        return self.setting.loss

    @property
    def outputs(self) -> FloatArray:
        """Labels of the columns."""
        return self.setting.outputs

    @property
    def optimality_gap(self) -> float:
        """``value − lower_bound``: how far, at most, :attr:`value` is from the true optimum.

        Both ends are certified (a private mechanism's exact value, a Lagrangian bound), so the
        optimum over all ε-DP mechanisms lies in ``[lower_bound, value]`` whatever the solver's
        tolerances.
        """
        return self.value - self.lower_bound

    def __repr__(self) -> str:
        n_in, n_out = self.mechanism.shape
        return (
            f"UserMechanism({self.objective}, {n_in}x{n_out}, value={self.value:.10g}, "
            f"epsilon={self.epsilon:g}, certified_epsilon={self.certified_epsilon:.10g}, "
            f"solver={self.solver}, status={self.status}, solve_time={self.solve_time:.3g}s, "
            f"optimality_gap={self.optimality_gap:.3g}"
            f"{', symmetry_reduced' if self.symmetry_reduced else ''})"
        )


def _bayes_value(weights: FloatArray, x: FloatArray) -> float:
    return float(np.sum(weights * x))


def _minimax_value(loss: FloatArray, rows: IntArray, x: FloatArray) -> float:
    return float(np.max(np.sum(loss[rows] * x[rows], axis=1)))


def _max_violation(x: FloatArray, epsilon: float, src: IntArray, dst: IntArray) -> float:
    e = math.exp(epsilon)
    a, b = x[src], x[dst]
    return float(
        max(
            0.0,
            -float(x.min()),
            float(np.max(np.abs(x.sum(axis=1) - 1.0))),
            float(np.max(a - e * b, initial=0.0)),
            float(np.max(b - e * a, initial=0.0)),
        )
    )


def _reference_scale(
    setting: UserSetting, weights: FloatArray, epsilon: float, value: Callable[[FloatArray], float]
) -> float:
    """Objective of a known ε-DP mechanism: the best constant answer; for a count query also the
    geometric mechanism with its Bayes remap. Used only to bring the LP objective to O(1)
    (THEORY.md §5), never below 1e-4 of the largest weight."""
    n_in, n_out = weights.shape
    best_const = np.zeros((n_in, n_out))
    best_const[:, int(np.argmin(weights.sum(axis=0)))] = 1.0
    candidates = [value(best_const)]
    if setting.is_count_query and n_in <= TRUNCATED_GEOMETRIC_MAX_N + 1:
        g = truncated_geometric(n_in - 1, epsilon)
        choice = np.argmin(g.T @ weights, axis=1)
        candidates.append(value(g @ np.eye(n_out)[choice]))
    positive = [c for c in candidates if c > 0 and math.isfinite(c)]
    top = float(np.max(np.abs(weights)))
    if not positive:
        return top if top > 0 else 1.0
    # Coefficients of W/scale stay below 1e4: an optimum far below the largest weight (a prior
    # with mass 1e-30 somewhere) must not blow the LP's coefficients up.
    return max(min(positive), top * 1e-6)


def _solve_robust(
    weights: FloatArray,
    scale: float,
    eps: float,
    graph: nx.Graph,
    rows: IntArray | None,
    solver: str | None,
    vertex: bool,
    *,
    reduced: bool = False,
) -> tuple[cp.Problem, FloatArray, SolveInfo, float]:
    """Build and solve; on a solver failure retry with coefficients ≤ 1, then another solver.

    Returns the problem, the solver's point as a full ``(N, m)`` matrix (expanded from the
    orbit representatives when ``reduced``: :func:`build_mirror_problem`), the solve's
    provenance and the factor the weights were divided by.

    Badly scaled instances (priors with masses from 1 down to 1e-30, ε = 5) occasionally make
    one solver fail ("solver_error", or an unknown status cvxpy cannot unpack) where the same
    LP rescaled, or the other solver, succeeds. A solver named by the caller is kept; the
    default policy may fall back from HiGHS to Clarabel and back (not when a vertex is needed).
    The default solver is chosen by the size of the *full* LP, reduced or not.
    """
    top = float(np.max(np.abs(weights)))
    attempts: list[tuple[str | None, float]] = [(solver, scale)]
    if top > 0 and top != scale:
        attempts.append((solver, top))
    if solver is None and not vertex:
        first = choose_solver(weights.size, kind="count")
        other = "CLARABEL" if first == "HIGHS" else "HIGHS"
        if other in available_solvers():
            attempts.append((other, top if top > 0 else scale))
    failure: SolverError | None = None
    for name, factor in attempts:
        chosen = (name or choose_solver(weights.size, vertex=vertex, kind="count")).upper()
        bounds = "first" if chosen == "CLARABEL" else "all"
        if reduced:
            problem, y, expand = build_mirror_problem(weights / factor, eps, bounds=bounds)
        else:
            problem, x = build_user_problem(weights / factor, eps, graph, rows=rows, bounds=bounds)
        try:
            info = solve(problem, solver=chosen if reduced else name, vertex=vertex, kind="count")
        except SolverError as exc:  # includes statuses cvxpy cannot unpack ("unknown")
            failure = exc
            continue
        value = y.value if reduced else x.value
        if value is not None and np.all(np.isfinite(value)):
            point = expand(value) if reduced else np.asarray(value, dtype=np.float64)
            return problem, point, info, factor
        failure = SolverError(info.solver, "no_solution", "the solver returned no finite point")
    assert failure is not None
    raise failure


def is_mirror_symmetric(weights: FloatArray, graph: nx.Graph) -> bool:
    """Whether the Bayesian user LP is invariant under the reflection ``σ(i, r) = (n−i, m−1−r)``.

    True when ``graph`` is the count-query path ``0 ~ 1 ~ … ~ n`` in node order (so
    ``i → n − i`` is a graph automorphism) and the objective weights ``W = p[:, None] · L``
    are *exactly* mirrored, ``W[i, r] == W[n − i, m − 1 − r]`` (``np.array_equal``, no
    tolerance: a symmetric prior and loss built in floating point give exactly mirrored
    products, and a near-symmetric instance must not be solved as a symmetric one).

    Examples
    --------
    >>> import numpy as np
    >>> from optmech.graphs import path_graph
    >>> i = np.arange(4)
    >>> loss = np.abs(i[:, None] - i[None, :]).astype(float)
    >>> is_mirror_symmetric(np.full(4, 0.25)[:, None] * loss, path_graph(3))
    True
    >>> is_mirror_symmetric(np.array([0.1, 0.2, 0.3, 0.4])[:, None] * loss, path_graph(3))
    False
    """
    w = np.asarray(weights)
    return (
        w.ndim == 2
        and w.shape[0] == graph.number_of_nodes()
        and is_path_graph(graph)
        and bool(np.array_equal(w, w[::-1, ::-1]))
    )


def _mirror_maps(
    n_in: int,
    n_out: int,
) -> tuple[sp.csr_matrix, sp.csr_matrix, sp.csr_matrix, sp.csr_matrix]:
    """Orbit expansion and the kept constraint rows of the mirrored path LP (sparse, vectorised).

    With ``x = vec(X)`` row-major (index ``k = i·m + r``) the reflection is ``k → Nm − 1 − k``;
    the representative of ``{k, Nm − 1 − k}`` is the smaller index, so the representatives are
    ``0 … ⌈Nm/2⌉ − 1`` and ``P`` (``Nm × ⌈Nm/2⌉``, ``P[k, min(k, Nm−1−k)] = 1``) expands them:
    ``vec(X) = P y``. Also returned, as selections of ``vec(X)``: the row sums of rows
    ``0 … ⌊(N−1)/2⌋``, and for every ``(i, r)`` with ``i < N − 1`` the entries ``x[i, r]``
    (``U``) and ``x[i + 1, r]`` (``V``), so the upward privacy rows are ``(U − e^ε V) x ≤ 0``.
    """
    size = n_in * n_out
    k = np.arange(size)
    expand = sp.csr_matrix(
        (np.ones(size), (k, np.minimum(k, size - 1 - k))), shape=(size, (size + 1) // 2)
    )
    keep = (n_in - 1) // 2 + 1
    rowsum = sp.csr_matrix(
        (np.ones(keep * n_out), (np.repeat(np.arange(keep), n_out), np.arange(keep * n_out))),
        shape=(keep, size),
    )
    m_rows = (n_in - 1) * n_out
    rows = np.arange(m_rows)
    ones = np.ones(m_rows)
    u = sp.csr_matrix((ones, (rows, rows)), shape=(m_rows, size))
    v = sp.csr_matrix((ones, (rows, rows + n_out)), shape=(m_rows, size))
    return expand, rowsum, u, v


def build_mirror_problem(
    weights: FloatArray,
    epsilon: float,
    *,
    bounds: str = "all",
) -> tuple[cp.Problem, cp.Variable, Callable[[npt.ArrayLike], FloatArray]]:
    """The Bayesian user LP on the path, restricted to mirror-symmetric mechanisms.

    For weights with ``W[i, r] = W[n−i, m−1−r]`` (:func:`is_mirror_symmetric`) the LP of
    :func:`build_user_problem` is invariant under ``σ(i, r) = (n−i, m−1−r)``: ``σ`` maps the
    simplex rows to simplex rows (row ``i`` to row ``n−i``), the privacy constraint
    ``x[i, r] ≤ e^ε x[i+1, r]`` to ``x[n−i, m−1−r] ≤ e^ε x[n−i−1, m−1−r]`` (the reverse
    direction on the edge ``{n−i−1, n−i}``) and back, and keeps the objective. So for any
    optimum ``X`` the mirror ``σX`` is an optimum too, and by convexity so is
    ``(X + σX)/2``, which is symmetric: the optimum over symmetric ``X`` *is* the optimum.

    The variables are the orbit representatives ``y`` (``⌈Nm/2⌉``, ``vec(X) = P y``; see
    :func:`_mirror_maps`). Substituted, the constraints of row ``i`` and row ``n−i`` coincide,
    and so do each upward privacy row and its mirror (a downward row): one row per orbit is
    kept, the row sums of rows ``i ≤ ⌊n/2⌋`` and all the upward rows
    ``x[i, r] ≤ e^ε x[i+1, r]`` (no upward row is its own mirror), so the constraint matrix
    has no duplicate rows (an interior-point solver would stall on them). ``bounds="first"``
    keeps ``X ≥ 0`` only on row 0 (all representatives): the upward rows give
    ``x[i+1, r] ≥ e^(−ε) x[i, r]``, hence ``X ≥ 0`` (as in :func:`build_user_problem`).

    Parameters
    ----------
    weights : ndarray, shape (N, m)
        Mirror-symmetric objective coefficients (scaled); not checked here.
    epsilon : float
        Privacy level.
    bounds : {"all", "first"}
        As for :func:`build_user_problem`.

    Returns
    -------
    (problem, y, expand)
        The problem (constraints in the order: row sums, upward privacy rows, then the
        row-0 bounds for ``"first"``), its variable and a function mapping a value of ``y`` to
        the full ``(N, m)`` matrix.

    Examples
    --------
    >>> import numpy as np
    >>> problem, y, expand = build_mirror_problem(np.ones((3, 3)), 1.0)
    >>> y.size, [c.size for c in problem.constraints]
    (5, [2, 6])
    >>> expand(np.arange(5.0)).tolist()
    [[0.0, 1.0, 2.0], [3.0, 4.0, 3.0], [2.0, 1.0, 0.0]]
    """
    if bounds not in ("all", "first"):
        raise ValueError(f"`bounds` must be 'all' or 'first'; got {bounds!r}.")
    n_in, n_out = weights.shape
    e = math.exp(epsilon)
    expand, rowsum, u, v = _mirror_maps(n_in, n_out)
    a_eq = (rowsum @ expand).tocsr()
    a_dp = ((u - e * v) @ expand).tocsr()
    a_eq.sum_duplicates()
    a_dp.sum_duplicates()
    c = np.asarray(expand.T @ np.asarray(weights, dtype=np.float64).ravel())
    y = cp.Variable(expand.shape[1], nonneg=bounds == "all", name="mechanism_orbits")
    constraints = [a_eq @ y == 1, a_dp @ y <= 0]
    if bounds == "first":
        constraints.append(y[:n_out] >= 0)  # row 0: indices 0 … m − 1, all representatives
    problem = cp.Problem(cp.Minimize(c @ y), constraints)

    def to_matrix(value: npt.ArrayLike) -> FloatArray:
        return np.asarray(expand @ np.asarray(value, dtype=np.float64)).reshape(n_in, n_out)

    return problem, y, to_matrix


def _mirror_dual_bound(
    problem: cp.Problem, weights: FloatArray, factor: float, eps: float, setting: UserSetting
) -> float:
    """Rigorous lower bound for a mirror-reduced solve: full multipliers from the reduced ones.

    :func:`_lagrangian_bound` is valid for *any* multipliers ``z₁, z₂ ≥ 0`` of the full
    problem's two privacy families (Lagrangian relaxation over rows in the simplex, which
    contains the feasible set of the full LP; see :func:`_dual_bound`), so the bound below is a
    lower bound on the optimum over all ε-DP mechanisms whatever multipliers are fed in; the
    reduced LP's duals only serve to make it tight. The choice that makes it tight: let ``z``
    be the multipliers of the kept upward rows ``x[i, r] ≤ e^ε x[i+1, r]``. On a symmetric
    ``X = P y`` each upward row's mirror is a downward row with the same value, so the reduced
    Lagrangian ``Σ W ⊙ X + Σ z ⊙ (upward rows)`` equals the full one with ``z/2`` on the upward
    row ``(i, r)`` and ``z/2`` on its mirror, the downward row ``x[n−i, m−1−r] ≤
    e^ε x[n−i−1, m−1−r]``; an optimal reduced dual thus gives a (symmetric) optimal full
    dual. Those are mapped onto the orientation of :func:`optmech.graphs.edge_incidence`
    (``z₁`` for ``x[src] ≤ e^ε x[dst]``, ``z₂`` for the reverse), clipped to ``≥ 0``.
    Returns ``-inf`` when the solver gave no duals.
    """
    z = problem.constraints[1].dual_value
    if z is None:
        return -math.inf
    n_in, n_out = weights.shape
    up = np.clip(np.asarray(z, dtype=np.float64).reshape(n_in - 1, n_out), 0.0, None) / 2.0
    down = up[::-1, ::-1]  # down[i, r]: x[i + 1, r] ≤ e^ε x[i, r], the mirror of up[n−1−i, m−1−r]
    src, dst = setting.src, setting.dst
    lo = np.minimum(src, dst)
    ascending = (src < dst)[:, None]
    z1 = np.where(ascending, up[lo], down[lo])
    z2 = np.where(ascending, down[lo], up[lo])
    return factor * _lagrangian_bound(weights / factor, z1, z2, eps, setting.graph)


def _dual_bound(
    problem: cp.Problem,
    weights: FloatArray,
    factor: float,
    eps: float,
    setting: UserSetting,
    rows: IntArray | None,
) -> float:
    """A rigorous lower bound on the LP optimum from the solver's (approximate) duals.

    Lagrangian relaxation of the privacy constraints only, keeping each row of ``X`` in the
    probability simplex (which contains the feasible set): for *any* multipliers
    ``z₁, z₂ ≥ 0`` of ``S_src X ≤ e^ε S_dst X`` and ``S_dst X ≤ e^ε S_src X``,

        optimum ≥ Σ_i min_r C[i, r],   C = W + S_srcᵀ(z₁ − e^ε z₂) + S_dstᵀ(z₂ − e^ε z₁).

    For a minimax user, ``W = μ[:, None] · L`` on the rows of S with ``μ`` the (normalised)
    multipliers of the epigraph rows: ``max_i a_i ≥ Σ μ_i a_i`` for ``μ`` in the simplex. The
    solver's duals only make the bound tight; its validity does not depend on them (they are
    clipped to ≥ 0). A rounding allowance of 1e-14 of the magnitudes is subtracted.
    Returns ``-inf`` when the solver gave no duals.
    """
    cons = problem.constraints
    z1, z2 = cons[1].dual_value, cons[2].dual_value
    if z1 is None or z2 is None:
        return -math.inf
    z1 = np.clip(np.asarray(z1, dtype=np.float64), 0.0, None)
    z2 = np.clip(np.asarray(z2, dtype=np.float64), 0.0, None)
    base = weights / factor
    if rows is not None:
        mu = cons[-1].dual_value
        if mu is None:
            return -math.inf
        mu = np.clip(np.asarray(mu, dtype=np.float64).reshape(-1), 0.0, None)
        total = float(mu.sum())
        if not total > 0:
            return -math.inf
        mu, z1, z2 = mu / total, z1 / total, z2 / total
        base = np.zeros_like(weights)
        base[rows] = mu[:, None] * weights[rows] / factor
    return factor * _lagrangian_bound(base, z1, z2, eps, setting.graph)


def _lagrangian_bound(
    base: FloatArray, z1: FloatArray, z2: FloatArray, eps: float, graph: nx.Graph
) -> float:
    """``Σ_i min_r C[i, r]`` with ``C = base + S_srcᵀ(z₁ − e^ε z₂) + S_dstᵀ(z₂ − e^ε z₁)``,
    less a rounding allowance of 1e-14 of the magnitudes involved (``z ≥ 0`` given)."""
    e = math.exp(eps)
    s_src, s_dst = edge_incidence(graph)
    c = base + s_src.T @ (z1 - e * z2) + s_dst.T @ (z2 - e * z1)
    magnitude = float(np.sum(np.abs(base).max(axis=1))) + float(np.sum(z1 + z2)) * (1 + e) * 2
    return float(np.sum(np.min(c, axis=1))) - 1e-14 * magnitude


def _finish(
    raw_point: FloatArray | None,
    info: SolveInfo,
    setting: UserSetting,
    eps: float,
    value: Callable[[FloatArray], float],
    objective: str,
    lower_bound: float,
    **extra: Any,
) -> UserMechanism:
    if raw_point is None or not np.all(np.isfinite(raw_point)):
        raise SolverError(info.solver, "no_solution", "the solver returned no finite point")
    violation = _max_violation(raw_point, eps, setting.src, setting.dst)
    raw = np.clip(raw_point, 0.0, None)
    raw = raw / raw.sum(axis=1, keepdims=True)
    mech, lam = make_private(raw, eps, setting.graph)
    cert = certify_mechanism(mech, np.stack([setting.src, setting.dst], axis=1)).epsilon
    if cert > eps * (1.0 + 1e-9):  # pragma: no cover - make_private certifies already
        raise PrivacyViolationError(f"certified epsilon {cert!r} exceeds {eps!r}")
    raw_value = value(raw)
    val = value(mech)
    return UserMechanism(
        mechanism=mech,
        value=val,
        certified_epsilon=cert,
        epsilon=eps,
        status=info.status,
        solver=info.solver,
        solve_time=info.solve_time,
        objective=objective,
        raw_mechanism=raw,
        raw_value=raw_value,
        repair_lambda=lam,
        repair_cost=val - raw_value,
        max_violation=violation,
        lower_bound=min(lower_bound, val),
        setting=setting,
        info=info,
        **extra,
    )


# --------------------------------------------------------------------------------------------
# Public entry points
# --------------------------------------------------------------------------------------------
def bayesian_mechanism(
    prior: npt.ArrayLike,
    loss: Any,
    epsilon: float,
    *,
    graph: nx.Graph | None = None,
    outputs: npt.ArrayLike | None = None,
    solver: str | None = None,
    vertex: bool = False,
    normalize: bool = False,
    max_variables: int = MAX_VARIABLES,
    reduce_symmetric: bool = True,
) -> UserMechanism:
    """The optimal ε-DP mechanism for a Bayesian user (GRS user-specific LP, seed 003 §5).

    Minimises ``Σ_i p_i Σ_r x[i, r] l(i, r)`` over all ε-DP mechanisms on the neighbour graph
    (THEORY.md §2). For a count query and a loss monotone in ``|i − r|`` the optimum equals
    the geometric mechanism followed by the user's Bayes remap (GRS Thm. 3.1; compare
    :func:`optmech.lp.remap.geometric_bayes`).

    Parameters
    ----------
    prior : array_like, shape (N,)
        Prior over the inputs (graph node order; ``{0..n}`` for a count query): finite,
        non-negative, summing to 1 within 1e-9 (or set ``normalize=True``).
    loss : Cost, str, callable or array_like
        A cost of ``output − input`` from :mod:`optmech.costs` (``"abs"``, ``"squared"``, …),
        or a loss matrix ``L[i, r] ≥ 0`` of shape (N, number of outputs).
    epsilon : float
        Privacy level, in (0, 50].
    graph : networkx.Graph, optional
        Neighbour graph over the inputs (:mod:`optmech.graphs`); default the path ``i ~ i + 1``
        on ``{0..N−1}`` (a count query with n = N − 1).
    outputs : array_like, optional
        Output set; default ``{0..n}`` (the graph's default outputs), or ``0..m−1`` for a loss
        matrix with m columns.
    solver : str, optional
        cvxpy solver; default by :data:`optmech.lp.solve.SOLVER_POLICY` ``["count"]``.
    vertex : bool, default False
        Ask for a vertex (simplex, HiGHS): needed to read a constraint matrix off the optimum.
    normalize : bool, default False
        Rescale a prior that does not sum to 1.
    max_variables : int, default 1,000,000
        Refuse larger LPs before building them.
    reduce_symmetric : bool, default True
        When the instance is mirror-symmetric (:func:`is_mirror_symmetric`: the path graph in
        node order, ``p_i L[i, r] = p_{n−i} L[n−i, m−1−r]`` exactly) solve the LP over the
        orbits of ``(i, r) → (n−i, m−1−r)`` — half the variables and constraints, same optimum
        (:func:`build_mirror_problem`) — and expand the point to the full matrix before the
        repair and certification, which are unchanged. Never with ``vertex=True`` (a vertex of
        the restricted LP need not be a vertex of the full one). Recorded in
        :attr:`UserMechanism.symmetry_reduced`.

    Returns
    -------
    UserMechanism

    Raises
    ------
    ValueError, TypeError
        Bad prior, loss, graph, outputs, ε or ``reduce_symmetric``.
    ProblemTooLargeError
        More than ``max_variables`` variables.
    SolverError
        The solver failed.

    Examples
    --------
    >>> import numpy as np
    >>> res = bayesian_mechanism(np.full(3, 1 / 3), "zero-one", 1.0)
    >>> round(res.value, 6)  # = 1 − mean diagonal of the geometric mechanism G
    0.358589
    """
    eps = check_epsilon(epsilon)
    if not isinstance(reduce_symmetric, bool | np.bool_):
        raise TypeError(
            f"`reduce_symmetric` must be True or False; got {describe(reduce_symmetric)}."
        )
    p_arr = check_real_array("prior", prior, ndim=1)
    setting = resolve_setting(
        loss, graph=graph, outputs=outputs, num_inputs=p_arr.size, max_variables=max_variables
    )
    p = check_prior(p_arr, setting.num_inputs, normalize=normalize)
    weights = p[:, None] * setting.loss
    value = lambda m: _bayes_value(weights, m)  # noqa: E731
    scale = _reference_scale(setting, weights, eps, value)
    reduced = bool(reduce_symmetric) and not vertex and is_mirror_symmetric(weights, setting.graph)
    problem, point, info, factor = _solve_robust(
        weights, scale, eps, setting.graph, None, solver, vertex, reduced=reduced
    )
    if reduced:
        bound = _mirror_dual_bound(problem, weights, factor, eps, setting)
    else:
        bound = _dual_bound(problem, weights, factor, eps, setting, None)
    return _finish(
        point, info, setting, eps, value, "bayesian", bound, prior=p, symmetry_reduced=reduced
    )


def side_information_rows(side_information: Any, graph: nx.Graph) -> IntArray:
    """Row indices of the side-information set S (node labels of ``graph``); all rows if None."""
    nodes = list(graph.nodes)
    if side_information is None:
        return np.arange(len(nodes), dtype=np.int64)
    if isinstance(side_information, str | bytes) or not hasattr(side_information, "__iter__"):
        raise TypeError(
            f"`side_information` must be a collection of inputs such as [0, 3, 5]; got "
            f"{describe(side_information)}."
        )
    index = {v: k for k, v in enumerate(nodes)}
    items = list(side_information)
    if not items:
        raise ValueError("`side_information` must contain at least one input; got an empty set.")
    rows = []
    for item in items:
        key = tuple(item) if isinstance(item, list | np.ndarray) else item
        if isinstance(key, np.integer):
            key = int(key)
        if key not in index:
            raise ValueError(
                f"`side_information` must contain inputs of the graph ({nodes[0]!r} … "
                f"{nodes[-1]!r}); got {describe(item)}."
            )
        rows.append(index[key])
    return np.unique(np.asarray(rows, dtype=np.int64))


def minimax_mechanism(
    loss: Any,
    epsilon: float,
    *,
    n: int | None = None,
    side_information: Sequence[Any] | None = None,
    graph: nx.Graph | None = None,
    outputs: npt.ArrayLike | None = None,
    solver: str | None = None,
    vertex: bool = False,
    max_variables: int = MAX_VARIABLES,
) -> UserMechanism:
    """The optimal ε-DP mechanism for a minimax user (Gupte & Sundararajan; THEORY.md §2).

    Minimises ``max_{i ∈ S} Σ_r x[i, r] l(i, r)`` over ε-DP mechanisms on the neighbour graph.
    For a count query and a monotone loss the optimum equals the geometric mechanism followed by
    the best *randomized* remap (compare :func:`optmech.lp.remap.geometric_minimax`).

    Parameters
    ----------
    loss : Cost, str, callable or array_like
        A cost of ``output − input``, or a loss matrix ``L[i, r]`` (then ``n`` is its number of
        rows minus one).
    epsilon : float
        Privacy level, in (0, 50].
    n : int, optional
        Largest query result of a count query (inputs ``{0..n}``); needed when ``loss`` is a
        cost and no graph is given.
    side_information : collection of inputs, optional
        The set S of inputs the user considers possible (node labels: integers for a count
        query); default all inputs.
    graph, outputs, solver, vertex, max_variables
        As for :func:`bayesian_mechanism`.

    Returns
    -------
    UserMechanism

    Examples
    --------
    >>> res = minimax_mechanism("abs", 1.0, n=3, side_information=[1, 2])
    >>> res.side_information.tolist(), res.certified_epsilon <= 1.0 * (1 + 1e-9)
    ([1, 2], True)
    """
    eps = check_epsilon(epsilon)
    num_inputs = None
    if n is not None:
        num_inputs = check_int("n", n, low=1) + 1
        if graph is not None and graph.number_of_nodes() != num_inputs:
            raise ValueError(
                f"`n` + 1 ({num_inputs}) must equal the number of nodes of `graph` "
                f"({graph.number_of_nodes()})."
            )
    setting = resolve_setting(
        loss, graph=graph, outputs=outputs, num_inputs=num_inputs, max_variables=max_variables
    )
    rows = side_information_rows(side_information, setting.graph)
    value = lambda m: _minimax_value(setting.loss, rows, m)  # noqa: E731
    scale = _reference_scale(setting, setting.loss, eps, value)
    problem, point, info, factor = _solve_robust(
        setting.loss, scale, eps, setting.graph, rows, solver, vertex
    )
    bound = _dual_bound(problem, setting.loss, factor, eps, setting, rows)
    return _finish(point, info, setting, eps, value, "minimax", bound, side_information=rows)


@dataclass(frozen=True)
class CommonMechanismResult:
    """The best single mechanism for several users at once (Brenner & Nissim; THEORY.md §2).

    Attributes
    ----------
    ratio : float
        ``max_u value_u(M_u)/optimum_u`` at the certified joint mechanism: 1 iff one mechanism
        (followed by each user's remap) is optimal for every user; > 1 proves none is.
    lp_ratio : float
        The solver's optimum of the same ratio (before the privacy repair).
    lower_bound : float
        A *rigorous* lower bound on the true ratio: Lagrangian duality with the solver's
        multipliers (see :func:`_dual_bound`), and the users' optima taken from their LPs,
        which can only overestimate them. ``lower_bound > 1`` proves that no mechanism is
        optimal for all the users at once.
    values : ndarray
        Each user's expected loss from the joint mechanism (through its projection).
    optima : ndarray
        Each user's own optimum.
    mechanism : ndarray, shape (N, Π m_u)
        Joint mechanism; column ``(r_1, …, r_k)`` in C order over the users' output sets.
    certified_epsilon : float
        Achieved ε of the joint mechanism.
    solver, status : str
    """

    ratio: float
    lp_ratio: float
    lower_bound: float
    values: FloatArray
    optima: FloatArray
    mechanism: FloatArray = field(repr=False)
    certified_epsilon: float
    solver: str
    status: str


def common_mechanism(
    priors: Sequence[npt.ArrayLike],
    losses: Sequence[Any],
    epsilon: float,
    *,
    graph: nx.Graph | None = None,
    outputs: Sequence[npt.ArrayLike | None] | None = None,
    optima: Sequence[float] | None = None,
    solver: str | None = None,
    max_variables: int = MAX_VARIABLES,
) -> CommonMechanismResult:
    """How close one ε-DP mechanism can come to being optimal for several Bayesian users.

    A mechanism ``M`` serves user u through u's Bayes remap (deterministic, GRS §2.2), so the
    pair of remapped mechanisms is a projection of the ε-DP mechanism ``M (T_1 ⊗ … ⊗ T_k)``
    whose outputs are tuples ``(r_1, …, r_k)``; conversely every mechanism on tuples serves each
    user through its projection. Hence the LP over mechanisms on the product of the output sets,

        minimise t   subject to   value_u(projection_u(X)) ≤ t · optimum_u  for every u,

    has optimum 1 iff a common mechanism exists (Brenner & Nissim's question); an optimum above
    1 proves that no single mechanism is simultaneously optimal for these users.

    Parameters
    ----------
    priors, losses : sequences
        One prior and one loss per user (as for :func:`bayesian_mechanism`).
    epsilon : float
        Privacy level, in (0, 50].
    graph : networkx.Graph, optional
        Shared neighbour graph (default: the count-query path).
    outputs : sequence, optional
        Each user's output set (``None`` entries: the default).
    optima : sequence of float, optional
        Each user's own optimum; computed by :func:`bayesian_mechanism` when omitted.
    solver, max_variables
        As for :func:`bayesian_mechanism`.

    Returns
    -------
    CommonMechanismResult
    """
    eps = check_epsilon(epsilon)
    k = len(priors)
    if k < 2 or len(losses) != k:
        raise ValueError(
            f"`priors` and `losses` must describe at least 2 users each, equally "
            f"many; got {len(priors)} priors and {len(losses)} losses."
        )
    outs = list(outputs) if outputs is not None else [None] * k
    if len(outs) != k:
        raise ValueError(f"`outputs` must have one entry per user ({k}); got {len(outs)}.")
    settings = []
    checked = []
    for prior, loss, out in zip(priors, losses, outs, strict=True):
        p_arr = check_real_array("prior", prior, ndim=1)
        s = resolve_setting(
            loss, graph=graph, outputs=out, num_inputs=p_arr.size, max_variables=max_variables
        )
        checked.append(check_prior(p_arr, s.num_inputs))
        settings.append(s)
    if len({s.num_inputs for s in settings}) != 1:
        raise ValueError(
            "every user's prior must be over the same inputs; got lengths "
            f"{[s.num_inputs for s in settings]}."
        )
    weights = [p[:, None] * s.loss for p, s in zip(checked, settings, strict=True)]
    if optima is None:
        optima_arr = np.asarray(
            [
                bayesian_mechanism(
                    p, s.loss, eps, graph=s.graph, outputs=s.outputs, solver=solver
                ).value
                for p, s in zip(checked, settings, strict=True)
            ]
        )
    else:
        optima_arr = check_real_array("optima", optima, ndim=1, shape=(k,))
    if np.any(optima_arr <= 0):
        raise ValueError(
            f"every user's optimum must be positive for a ratio; got {optima_arr.tolist()}."
        )
    sizes = [w.shape[1] for w in weights]
    n_in = weights[0].shape[0]
    n_joint = int(np.prod(sizes))
    if n_in * n_joint > max_variables:
        raise ProblemTooLargeError(
            f"the joint LP would have {n_in} x {n_joint} variables "
            f"({_memory_estimate(n_in * n_joint)}), more than max_variables = "
            f"{max_variables}; refused before building."
        )
    grid = np.indices(sizes).reshape(k, -1)  # grid[u, c] = user u's output in joint column c
    projections = [
        sp.csr_matrix((np.ones(n_joint), (np.arange(n_joint), grid[u])), shape=(n_joint, sizes[u]))
        for u in range(k)
    ]
    # value_u(X P_u) = Σ (W_u P_uᵀ) ⊙ X: each user's objective as weights on the joint columns.
    joint_w = [np.asarray((projections[u] @ weights[u].T).T) / optima_arr[u] for u in range(k)]
    t = cp.Variable(name="ratio")
    problem, x = build_user_problem(
        np.zeros((n_in, n_joint)),
        eps,
        settings[0].graph,
        extra=lambda xv: [cp.sum(cp.multiply(w, xv)) <= t for w in joint_w],
    )
    problem = cp.Problem(cp.Minimize(t), problem.constraints)
    info = solve(problem, solver=solver, kind="count")
    # Rigorous bound: for μ in the simplex, max_u value_u/opt_u ≥ Σ_u μ_u value_u/opt_u.
    cons = problem.constraints
    bound = -math.inf
    duals = [c.dual_value for c in (cons[1], cons[2], *cons[-k:])]
    if all(d is not None for d in duals):
        mu = np.clip(
            np.asarray([float(np.asarray(d).reshape(-1)[0]) for d in duals[2:]]), 0.0, None
        )
        if mu.sum() > 0:
            z1 = np.clip(np.asarray(duals[0], dtype=np.float64), 0.0, None) / mu.sum()
            z2 = np.clip(np.asarray(duals[1], dtype=np.float64), 0.0, None) / mu.sum()
            mu = mu / mu.sum()
            base = sum(m_u * w for m_u, w in zip(mu, joint_w, strict=True))
            bound = _lagrangian_bound(base, z1, z2, eps, settings[0].graph)
    raw = np.clip(x.value, 0.0, None)
    raw = raw / raw.sum(axis=1, keepdims=True)
    mech, _lam = make_private(raw, eps, settings[0].graph)
    vals = np.asarray(
        [float(np.sum(w * mech)) * o for w, o in zip(joint_w, optima_arr, strict=True)]
    )
    cert = certify_mechanism(mech, np.stack([settings[0].src, settings[0].dst], axis=1)).epsilon
    return CommonMechanismResult(
        ratio=float(np.max(vals / optima_arr)),
        lp_ratio=float(t.value),
        lower_bound=min(bound, float(np.max(vals / optima_arr))),
        values=vals,
        optima=optima_arr,
        mechanism=mech,
        certified_epsilon=cert,
        solver=info.solver,
        status=info.status,
    )
