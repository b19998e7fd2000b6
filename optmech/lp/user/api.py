"""Public entry points: thin functions over the one engine (`optmech.lp.user.engine`).

Each validates its arguments once, picks an objective object and hands over; the result is
certified (an exactly ε-DP mechanism, its value rounded up, a rigorous lower bound) and warns
(`InaccurateSolutionWarning`) only when the
certified interval is wider than the requested ``accuracy`` — a solver's "inaccurate" status alone
is recorded in the provenance, not reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from optmech._deprecation import renamed_keyword
from optmech._floats import FloatArray, IntArray
from optmech._validation import check_flag, check_int, check_prior, check_real, check_real_array
from optmech.constraints import Constraint, as_constraints
from optmech.lp.engine.report import reporting
from optmech.lp.matrix.build import row_forms
from optmech.lp.matrix.objectives import EpigraphObjective, LinearObjective, Objective
from optmech.lp.matrix.result import CommonMechanismResult, UserMechanism, UserObjective
from optmech.lp.matrix.setting import (
    DEFAULT_MAX_MEMORY_GB,
    UserSetting,
    check_budget,
    check_epsilon,
    check_matrix_lp_size,
    resolve_setting,
    side_information_rows,
)
from optmech.lp.matrix.size_model import FULL_LP
from optmech.lp.user.dispatch import check_size, estimated_models, solve_by_method
from optmech.lp.user.engine import Solved, solve_user_lp
from optmech.lp.user.methods import SolveMethod, admissible_method, check_method
from optmech.provenance import DEFAULT_ACCURACY, warn_if_uncertified

__all__ = ["bayesian_mechanism", "common_mechanism", "minimax_mechanism"]


def _check_accuracy(accuracy: Any) -> float:
    return check_real("accuracy", accuracy, low=0.0, high=1.0, low_open=True)


def _method(
    method: Any, constraints: tuple[Constraint, ...], graph: nx.Graph | None, **flags: Any
) -> SolveMethod:
    """The admissible method; with constraints the whole LP (column generation asked for
    explicitly is a ValueError naming ``method`` and ``constraints``)."""
    if not constraints:
        return admissible_method(method, graph, **flags)
    if check_method(method) == SolveMethod.COLUMN_GENERATION:
        raise ValueError(
            "`method` 'column-generation' does not take `constraints` (got "
            f"{', '.join(c.name for c in constraints)}); use method='full' or 'auto' (the whole "
            "LP is solved with constraints)."
        )
    return SolveMethod.FULL


@dataclass(frozen=True)
class _Solving:
    """How an entry point solves its LP: the designer's name (for messages), the admissible
    method and the caller's options."""

    designer: str
    method: SolveMethod
    solver: str | None
    vertex: bool
    accuracy: float
    budget: dict[str, Any]
    reduce_symmetric: bool = False

    def setting(
        self,
        cost: Any,
        graph: nx.Graph | None,
        outputs: Any,
        num_inputs: int | None,
        constraints: tuple[Constraint, ...],
        *,
        bayesian: bool,
        mirror: bool,
    ) -> UserSetting:
        """The setting, refused up front by the estimate of the method that runs
        (`estimated_models`)."""
        columns_apply = not constraints and (
            admissible_method("auto", graph, vertex=self.vertex, solver=self.solver)
            != SolveMethod.FULL
        )
        model, alternatives = estimated_models(
            self.method, bayesian=bayesian, mirror=mirror, columns_apply=columns_apply
        )
        return resolve_setting(
            cost,
            graph=graph,
            outputs=outputs,
            num_inputs=num_inputs,
            size_model=model,
            alternatives=alternatives,
            **self.budget,
        )

    def solve(
        self,
        setting: UserSetting,
        epsilon: float,
        constraints: tuple[Constraint, ...],
        objective: Objective,
        *,
        prior: FloatArray | None = None,
        rows: IntArray | None = None,
    ) -> tuple[Solved, bool]:
        """With constraints the whole constrained LP (its size checked first; the user is
        Bayesian with ``prior`` or minimax over ``rows``), else ``objective`` by the method;
        also whether the mirror orbits were used."""
        options: dict[str, Any] = {
            "solver": self.solver,
            "vertex": self.vertex,
            "accuracy": self.accuracy,
        }
        if not constraints:
            return solve_by_method(
                setting,
                epsilon,
                objective,
                method=self.method,
                reduce_symmetric=self.reduce_symmetric,
                budget=self.budget,
                **options,
            )
        # Imported here: the local model's package, which it uses, imports this package's
        # setting as it initialises.
        from optmech.lp.user.constrained import solve_constrained

        check_size(setting, FULL_LP, **self.budget)
        solved = solve_constrained(
            setting, epsilon, constraints, prior=prior, rows=rows, designer=self.designer, **options
        )
        return solved, False


@renamed_keyword("loss", "cost")
def bayesian_mechanism(
    prior: npt.ArrayLike,
    cost: Any,
    epsilon: float,
    *,
    graph: nx.Graph | None = None,
    outputs: npt.ArrayLike | None = None,
    solver: str | None = None,
    vertex: bool = False,
    normalize: bool = False,
    max_memory_gb: float = DEFAULT_MAX_MEMORY_GB,
    max_variables: int | None = None,
    reduce_symmetric: bool = True,
    accuracy: float = DEFAULT_ACCURACY,
    verbose: bool = False,
    progress: bool = False,
    method: str = "auto",
    constraints: Any = None,
) -> UserMechanism:
    """The optimal ε-DP mechanism for a Bayesian user (Ghosh, Roughgarden & Sundararajan (2012)).

    Minimises $Σ_i p_i Σ_r x[i, r] l(i, r)$ over all ε-DP mechanisms on the neighbour graph
    (GRS LP (2)–(6)). For a count query and a loss monotone in $|i − r|$ the optimum equals
    the geometric mechanism followed by the user's Bayes remap (GRS Thm. 3.1; compare
    `optmech.lp.geometric_remaps.geometric_bayes`).

    Parameters
    ----------
    prior : array_like, shape (N,)
        Prior over the inputs (graph node order; ``{0..n}`` for a count query): finite,
        non-negative, summing to 1 within 1e-9 (or set ``normalize=True``).
    cost : Cost, str, callable or array_like
        A cost of $output − input$ from `optmech.costs` (``"abs"``,
        ``"squared"``, …), or a loss matrix $L[i, r] ≥ 0$ of shape (N, number of outputs).
    epsilon : float
        Privacy level, in (0, 50].
    graph : networkx.Graph, optional
        Neighbour graph over the inputs (`optmech.graphs`); default the path ``i ~
        i + 1`` on ``{0..N−1}`` (a count query with n = N − 1).
    outputs : array_like, optional
        Output set; default ``{0..n}`` (the graph's default outputs), or $0..m−1$ for a loss
        matrix with m columns.
    solver : str, optional
        LP solver; default by `optmech.lp.solve.SOLVER_POLICY` ``["count"]``, with a
        fallback to the other main solver
        (`optmech.lp.solve.solve_robust`).
    vertex : bool, default False
        Ask for a vertex (simplex): needed to read a constraint matrix off the optimum.
    normalize : bool, default False
        Rescale a prior that does not sum to 1.
    max_memory_gb : float, default 2.4
        Refuse LPs whose estimated solver memory exceeds this, before building them.
    max_variables : int, optional
        Also refuse LPs with more variables than this (backward compatibility).
    reduce_symmetric : bool, default True
        When the instance is mirror-symmetric
        (`is_mirror_symmetric`) solve over the orbits of
        $(i, r) → (n−i, m−1−r)$ — half the variables, the same optimum
        (`MirrorReduction`) — and expand point and multipliers to
        the full LP before the repair and certification. Never with ``vertex=True`` (a vertex of the
        restricted LP need not be a vertex of the full one).
    accuracy : float, default 1e-6
        Warn when the certified interval ``[lower_bound, value]`` is wider than this (relative
        to ``max(value, 1)``); in (0, 1].
    verbose : bool, default False
        Log the stages (build, solve, certify, repair; sizes and seconds) at INFO to stderr
        (`optmech.lp.engine.report`).
    progress : bool, default False
        Show a progress bar (tqdm, on stderr) of the stages, solver attempts and repair steps.
    method : {"auto", "column-generation", "full"}, default "auto"
        How the LP is solved (`optmech.lp.user.methods`): by column
        generation over the outputs (a tree neighbour graph such as the count query's path, no
        ``vertex``, no other solver named; warm-started from the geometric mechanism with the
        Bayes remap), or as one LP. ``"auto"`` takes column generation where it applies and
        pays (`prefer_columns`: always for a count
        query with a monotone loss, else when ε times the graph's diameter is at least 20 or the
        whole LP would not fit ``max_memory_gb``), and falls back to the whole LP should the
        certified interval come out wider than ``accuracy`` and the whole LP be predicted to
        take at most a minute (``FALLBACK_SECONDS`` of `optmech.lp.user.dispatch`).
        The certificate is the same either way; ``reduce_symmetric`` concerns the whole LP
        only. With ``constraints`` the whole LP is solved (``"auto"`` takes it;
        ``"column-generation"`` is a ValueError).
    constraints : Constraint, callable or sequence of them, optional
        Linear conditions on the mechanism ``X[i, r]``, whose inputs are the query's values and
        whose outputs are the output set (`optmech.constraints`:
        ``Unbiased()``, ``MaxRisk(b)`` on the loss of every input, ``Monotone()``,
        ``TailBound(t, q)``, ``MaxCost(c, b)`` under the prior, or a callable of the
        namespace whose ``mechanism`` is the ``(N, m)`` cvxpy expression; its ``envelope`` is
        not used by these LPs). The returned mechanism meets each
        declarative one as returned, after the privacy repair, to
        ``optmech.constraints.RESIDUAL_TOL`` (1e-9) relative, and its provenance lists
        each with its residual; the lower bound is that of the constrained LP. They need a
        one-dimensional query with increasing values and outputs; ``Unbiased`` needs outputs
        below the smallest value and above the largest. No mirror reduction is applied.

    Returns
    -------
    UserMechanism

    Raises
    ------
    ValueError, TypeError
        Bad prior, loss, graph, outputs, ε, method, constraints or flags.
    ProblemTooLargeError
        Estimated memory above ``max_memory_gb`` (or more than ``max_variables`` variables).
    InfeasibleConstraintsError
        The constraints admit no ε-DP mechanism on these outputs (the error names them).
    SolverError
        Every solver attempt failed (each is named).

    Examples
    --------
    >>> import numpy as np
    >>> res = bayesian_mechanism(np.full(3, 1 / 3), "zero-one", 1.0)
    >>> round(res.value, 6)  # = 1 − mean diagonal of the geometric mechanism G
    0.358589
    >>> res.lower_bound <= res.value and res.certified_epsilon <= 1.0
    True
    """
    eps = check_epsilon(epsilon)
    reduce_symmetric = check_flag("reduce_symmetric", reduce_symmetric)
    vertex = check_flag("vertex", vertex)
    acc = _check_accuracy(accuracy)
    p_arr = check_real_array("prior", prior, ndim=1)
    items = as_constraints(constraints)
    admissible = _method(method, items, graph, vertex=vertex, solver=solver)
    mirror = (
        reduce_symmetric and not vertex and not items and bool(np.array_equal(p_arr, p_arr[::-1]))
    )
    budget: dict[str, Any] = {"max_memory_gb": max_memory_gb, "max_variables": max_variables}
    how = _Solving("bayesian_mechanism", admissible, solver, vertex, acc, budget, reduce_symmetric)
    setting = how.setting(cost, graph, outputs, p_arr.size, items, bayesian=True, mirror=mirror)
    p = check_prior(p_arr, setting.num_inputs, normalize=normalize)
    objective = LinearObjective(p[:, None] * setting.loss)
    with reporting(verbose=bool(verbose), progress=check_flag("progress", progress)):
        solved, reduced = how.solve(setting, eps, items, objective, prior=p)
    result = UserMechanism._of(
        solved, setting, eps, UserObjective.BAYESIAN, prior=p, symmetry_reduced=reduced
    )
    warn_if_uncertified(result.provenance)
    return result


@renamed_keyword("loss", "cost")
def minimax_mechanism(
    cost: Any,
    epsilon: float,
    *,
    n: int | None = None,
    side_information: Sequence[Any] | None = None,
    graph: nx.Graph | None = None,
    outputs: npt.ArrayLike | None = None,
    solver: str | None = None,
    vertex: bool = False,
    max_memory_gb: float = DEFAULT_MAX_MEMORY_GB,
    max_variables: int | None = None,
    accuracy: float = DEFAULT_ACCURACY,
    verbose: bool = False,
    progress: bool = False,
    method: str = "auto",
    constraints: Any = None,
) -> UserMechanism:
    """The optimal ε-DP mechanism for a minimax user (Gupte & Sundararajan (2010)).

    Minimises $max_{i ∈ S} Σ_r x[i, r] l(i, r)$ over ε-DP mechanisms on the neighbour graph.
    For a count query and a monotone loss the optimum equals the geometric mechanism followed
    by the best *randomized* remap (compare
    `optmech.lp.geometric_remaps.geometric_minimax`).

    Parameters
    ----------
    cost : Cost, str, callable or array_like
        A cost of $output − input$, or a loss matrix ``L[i, r]`` (then ``n`` is its number of
        rows minus one).
    epsilon : float
        Privacy level, in (0, 50].
    n : int, optional
        Largest query result of a count query (inputs ``{0..n}``); needed when ``cost`` is a
        cost and no graph is given.
    side_information : collection of inputs, optional
        The set S of inputs the user considers possible (node labels: integers for a count
        query); default all inputs.
    graph, outputs, solver, vertex, max_memory_gb, max_variables, accuracy, verbose, progress
        As for `bayesian_mechanism`.
    method : {"auto", "column-generation", "full"}, default "auto"
        As for `bayesian_mechanism`; under column generation the master
        gains the rows $Σ_r x[i, r] l(i, r) ≤ t$ and the warm start remaps G for the summed
        loss. With ``constraints`` the whole LP is solved.
    constraints : Constraint, callable or sequence of them, optional
        As for `bayesian_mechanism`; ``MaxRisk`` and ``MaxCost`` hold for
        every input (there is no prior), whatever the side information.

    Returns
    -------
    UserMechanism

    Examples
    --------
    >>> res = minimax_mechanism("abs", 1.0, n=3, side_information=[1, 2])
    >>> res.side_information.tolist(), res.certified_epsilon <= 1.0
    ([1, 2], True)
    """
    eps = check_epsilon(epsilon)
    vertex = check_flag("vertex", vertex)
    acc = _check_accuracy(accuracy)
    num_inputs = None
    if n is not None:
        num_inputs = check_int("n", n, low=1) + 1
        if graph is not None and graph.number_of_nodes() != num_inputs:
            raise ValueError(
                f"`n` + 1 ({num_inputs}) must equal the number of nodes of `graph` "
                f"({graph.number_of_nodes()})."
            )
    items = as_constraints(constraints)
    admissible = _method(method, items, graph, vertex=vertex, solver=solver)
    budget: dict[str, Any] = {"max_memory_gb": max_memory_gb, "max_variables": max_variables}
    how = _Solving("minimax_mechanism", admissible, solver, vertex, acc, budget)
    setting = how.setting(cost, graph, outputs, num_inputs, items, bayesian=False, mirror=False)
    rows = side_information_rows(side_information, setting.graph)
    shape = (setting.num_inputs, setting.num_outputs)
    objective = EpigraphObjective(row_forms(setting.loss, rows), shape, UserObjective.MINIMAX)
    with reporting(verbose=bool(verbose), progress=check_flag("progress", progress)):
        solved, _ = how.solve(setting, eps, items, objective, rows=rows)
    result = UserMechanism._of(solved, setting, eps, UserObjective.MINIMAX, side_information=rows)
    warn_if_uncertified(result.provenance)
    return result


def _users(
    priors: Sequence[npt.ArrayLike],
    losses: Sequence[Any],
    outputs: Sequence[npt.ArrayLike | None] | None,
    graph: nx.Graph | None,
    budget: dict[str, Any],
) -> tuple[list[UserSetting], list[FloatArray]]:
    """Validate the users of `common_mechanism`: settings and priors."""
    k = len(priors)
    if k < 2 or len(losses) != k:
        raise ValueError(
            f"`priors` and `losses` must describe at least 2 users each, equally "
            f"many; got {len(priors)} priors and {len(losses)} losses."
        )
    outs = list(outputs) if outputs is not None else [None] * k
    if len(outs) != k:
        raise ValueError(f"`outputs` must have one entry per user ({k}); got {len(outs)}.")
    settings, checked = [], []
    for prior, loss, out in zip(priors, losses, outs, strict=True):
        p_arr = check_real_array("prior", prior, ndim=1)
        s = resolve_setting(loss, graph=graph, outputs=out, num_inputs=p_arr.size, **budget)
        checked.append(check_prior(p_arr, s.num_inputs))
        settings.append(s)
    if len({s.num_inputs for s in settings}) != 1:
        raise ValueError(
            "every user's prior must be over the same inputs; got lengths "
            f"{[s.num_inputs for s in settings]}."
        )
    return settings, checked


def _joint_forms(weights: list[FloatArray], optima: FloatArray) -> list[FloatArray]:
    """Each user's objective over the joint outputs, divided by the user's optimum.

    ``value_u(X P_u) = Σ (W_u P_uᵀ) ⊙ X`` with ``P_u`` the projection of the joint columns
    ``(r_1, …, r_k)`` (C order) onto user u's output.
    """
    sizes = [w.shape[1] for w in weights]
    grid = np.indices(sizes).reshape(len(sizes), -1)  # grid[u, c]: user u's output in column c
    return [w[:, grid[u]] / optima[u] for u, w in enumerate(weights)]


@renamed_keyword("losses", "costs")
def common_mechanism(
    priors: Sequence[npt.ArrayLike],
    costs: Sequence[Any],
    epsilon: float,
    *,
    graph: nx.Graph | None = None,
    outputs: Sequence[npt.ArrayLike | None] | None = None,
    optima: Sequence[float] | None = None,
    solver: str | None = None,
    max_memory_gb: float = DEFAULT_MAX_MEMORY_GB,
    max_variables: int | None = None,
    accuracy: float = DEFAULT_ACCURACY,
    verbose: bool = False,
    progress: bool = False,
) -> CommonMechanismResult:
    """How close one ε-DP mechanism can come to being optimal for several Bayesian users.

    A mechanism ``M`` serves user u through u's Bayes remap (deterministic, GRS §2.2), so the
    pair of remapped mechanisms is a projection of the ε-DP mechanism $M (T_1 ⊗ … ⊗ T_k)$
    whose outputs are tuples ``(r_1, …, r_k)``; conversely every mechanism on tuples serves each
    user through its projection. Hence the LP over mechanisms on the product of the output sets,

        minimise t   subject to   value_u(projection_u(X)) ≤ t · optimum_u  for every u,

    has optimum 1 iff a common mechanism exists (Brenner & Nissim (2014)); a certified lower
    bound above 1 proves that no single mechanism is simultaneously optimal for these users.

    Parameters
    ----------
    priors, costs : sequences
        One prior and one cost (or loss matrix) per user (as for
        `bayesian_mechanism`).
    epsilon : float
        Privacy level, in (0, 50].
    graph : networkx.Graph, optional
        Shared neighbour graph (default: the count-query path).
    outputs : sequence, optional
        Each user's output set (``None`` entries: the default).
    optima : sequence of float, optional
        Each user's own optimum; computed by `bayesian_mechanism` when
        omitted.
    solver, max_memory_gb, max_variables, accuracy, verbose, progress
        As for `bayesian_mechanism`.

    Returns
    -------
    CommonMechanismResult

    Examples
    --------
    For a count query and monotone losses the geometric mechanism serves every Bayesian user
    optimally (Ghosh, Roughgarden & Sundararajan (2012), Thm. 3.1), so the certified ratio
    interval contains 1:

    >>> import numpy as np
    >>> res = common_mechanism(
    ...     [np.full(4, 0.25), np.array([0.7, 0.1, 0.1, 0.1])], ["abs", "squared"], 0.5
    ... )
    >>> bool(res.lower_bound <= 1.0 <= res.value <= 1.0 + 1e-6)
    True
    """
    eps = check_epsilon(epsilon)
    acc = _check_accuracy(accuracy)
    budget: dict[str, Any] = {"max_memory_gb": max_memory_gb, "max_variables": max_variables}
    settings, priors_ok = _users(priors, costs, outputs, graph, budget)
    weights = [p[:, None] * s.loss for p, s in zip(priors_ok, settings, strict=True)]
    with reporting(verbose=bool(verbose), progress=check_flag("progress", progress)):
        if optima is None:
            optima_arr = np.asarray(
                [
                    bayesian_mechanism(
                        p,
                        s.loss,
                        eps,
                        graph=s.graph,
                        outputs=s.outputs,
                        solver=solver,
                        accuracy=acc,
                    ).value
                    for p, s in zip(priors_ok, settings, strict=True)
                ]
            )
        else:
            optima_arr = check_real_array("optima", optima, ndim=1, shape=(len(settings),))
        if np.any(optima_arr <= 0):
            raise ValueError(
                f"every user's optimum must be positive for a ratio; got {optima_arr.tolist()}."
            )
        joint = _joint_forms(weights, optima_arr)
        n_in, n_joint = joint[0].shape
        memory, cap = check_budget(max_memory_gb, max_variables)
        check_matrix_lp_size("joint", (n_in, n_joint), max_memory_gb=memory, max_variables=cap)
        forms = sp.csr_matrix(np.stack([w.ravel() for w in joint]))
        objective = EpigraphObjective(forms, (n_in, n_joint), UserObjective.COMMON)
        solved = solve_user_lp(
            settings[0], eps, objective, solver=solver, vertex=False, reduce=False, accuracy=acc
        )
        mech = solved.mechanism
        values = np.asarray(
            [float(np.sum(w * mech)) * o for w, o in zip(joint, optima_arr, strict=True)]
        )
        result = CommonMechanismResult(
            lp_ratio=solved.raw_value,
            values=values,
            optima=optima_arr,
            mechanism=mech,
            certified_epsilon=solved.certified_epsilon,
            provenance=solved.provenance,
            epsilon=eps,
        )
        warn_if_uncertified(result.provenance)
        return result
