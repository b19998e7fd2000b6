"""Which engine solves a user LP: the whole LP or column generation, and the size checks that go
with each (`optmech.lp.user.methods` says what the methods are).

The public entry points validate their arguments, build the setting (refusing it up front by
the smallest estimate among the admissible methods) and hand over here:
`solve_by_method` settles ``"auto"``
(`prefer_columns`), checks the memory estimate of the
problem actually solved (the orbit LP of the mirror reduction, the whole LP, or column
generation's arrays), and solves. Under ``"auto"``, a column-generation run whose certified
interval is wider than asked is followed by the whole LP where that fits the budget and is
predicted to take at most `FALLBACK_SECONDS`, and the narrower certified interval is kept.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from optmech.lp.matrix.objectives import LinearObjective, Objective
from optmech.lp.matrix.setting import UserSetting, check_budget, check_matrix_lp_size
from optmech.lp.matrix.size_model import (
    COLUMN_GENERATION_BAYESIAN,
    COLUMN_GENERATION_MINIMAX,
    FULL_LP,
    FULL_LP_MIRROR,
    SizeModel,
)
from optmech.lp.user.column_engine import solve_by_columns
from optmech.lp.user.cone import RootedTree
from optmech.lp.user.engine import Solved, solve_user_lp
from optmech.lp.user.methods import SolveMethod, prefer_columns
from optmech.lp.user.reductions import is_mirror_symmetric

__all__ = ["check_size", "estimated_models", "solve_by_method"]


def estimated_models(
    method: SolveMethod, *, bayesian: bool, mirror: bool, columns_apply: bool
) -> tuple[SizeModel, tuple[SizeModel, ...]]:
    """The size model whose estimate refuses an LP up front, and the other methods a refusal
    offers.

    ``method`` is the admissible one: ``"full"`` is estimated as the whole LP (over the mirror
    orbits where ``mirror``), and offers column generation where it applies (``columns_apply``:
    a tree, no vertex, no constraints, the master's solver); ``"column-generation"`` and
    ``"auto"`` as column generation, the smallest — under ``"auto"`` the whole LP runs only
    where it fits the budget (`solve_by_method`), so only column generation's estimate can
    refuse.

    Examples
    --------
    >>> model, offered = estimated_models(
    ...     SolveMethod.AUTO, bayesian=True, mirror=False, columns_apply=True)
    >>> model.method, offered
    ('column generation', ())
    >>> model, offered = estimated_models(
    ...     SolveMethod.FULL, bayesian=False, mirror=False, columns_apply=True)
    >>> model.method, [m.option for m in offered]
    ('the full LP', ['column-generation'])
    """
    columns = COLUMN_GENERATION_BAYESIAN if bayesian else COLUMN_GENERATION_MINIMAX
    if method != SolveMethod.FULL:
        return columns, ()
    whole = FULL_LP_MIRROR if bayesian and mirror else FULL_LP
    return whole, (columns,) if columns_apply else ()


def check_size(
    setting: UserSetting, model: SizeModel, *, max_memory_gb: Any, max_variables: Any
) -> None:
    """Refuse the LP if ``model``'s memory estimate exceeds the budget (the message quotes the
    estimate, the time the model predicts and where the model comes from)."""
    memory, cap = check_budget(max_memory_gb, max_variables)
    shape = (setting.num_inputs, setting.num_outputs)
    check_matrix_lp_size("user", shape, max_memory_gb=memory, max_variables=cap, size_model=model)


#: Under ``"auto"``, a column-generation run whose interval is wider than asked is followed by
#: the whole LP only where the whole LP's predicted time (`FULL_LP`'s model) is at most this
#: many seconds: above it the retry would cost a hundred times the run it refines (measured:
#: n = 999, two Dirichlet priors whose bound was then 1e-6 short, 1.5 s of columns followed by
#: 315 s of full LP), and the wide interval is reported instead.
FALLBACK_SECONDS = 60.0


def _fits(setting: UserSetting, model: SizeModel, budget: dict[str, Any]) -> bool:
    memory, cap = check_budget(budget["max_memory_gb"], budget.get("max_variables"))
    n_in, n_out = setting.num_inputs, setting.num_outputs
    return model.memory_gb(n_in, n_out) <= memory and (cap is None or n_in * n_out <= cap)


def _proven_start(setting: UserSetting, objective: Objective) -> bool:
    """A Bayesian user on a count query whose loss ``l(i, r)`` is non-decreasing in ``|i − r|``
    for every input: G with the Bayes remap, the first master, is optimal (Ghosh, Roughgarden &
    Sundararajan (2012), Thm. 3.1)."""
    if not (isinstance(objective, LinearObjective) and setting.is_count_query):
        return False
    steps = np.diff(setting.loss, axis=1)  # steps[i, r] = l(i, r + 1) − l(i, r)
    rows, cols = np.indices(steps.shape)
    return bool(np.all(np.where(cols < rows, steps <= 0, steps >= 0)))


def _whole(
    setting: UserSetting,
    epsilon: float,
    objective: Objective,
    options: dict[str, Any],
    budget: dict[str, Any],
) -> tuple[Solved, bool]:
    """The whole LP (over the mirror orbits where that applies), its size checked first."""
    options = dict(options)
    reduce = (
        options.pop("reduce_symmetric")
        and not options["vertex"]
        and isinstance(objective, LinearObjective)
        and is_mirror_symmetric(objective.weights, setting.graph)
    )
    check_size(setting, FULL_LP_MIRROR if reduce else FULL_LP, **budget)
    return solve_user_lp(setting, epsilon, objective, reduce=reduce, **options), reduce


def solve_by_method(
    setting: UserSetting,
    epsilon: float,
    objective: Objective,
    *,
    method: SolveMethod,
    solver: str | None,
    vertex: bool,
    reduce_symmetric: bool,
    accuracy: float,
    budget: dict[str, Any],
) -> tuple[Solved, bool]:
    """Solve by the method that applies (module docstring), ``method`` from
    `admissible_method` and ``budget`` holding ``max_memory_gb`` and ``max_variables``; returns
    the solve and whether it was over the mirror orbits.

    Raises
    ------
    ProblemTooLargeError
        The method's estimate exceeds the budget.
    """
    options = dict(
        solver=solver, vertex=vertex, reduce_symmetric=reduce_symmetric, accuracy=accuracy
    )
    if method == SolveMethod.FULL:
        return _whole(setting, epsilon, objective, options, budget)
    full_fits = _fits(setting, FULL_LP, budget)
    if method == SolveMethod.AUTO:
        tree = RootedTree.of(setting.src, setting.dst, setting.num_inputs)
        assert tree is not None  # admissible: a tree
        proven = _proven_start(setting, objective)
        if not prefer_columns(tree, epsilon, proven_start=proven, full_fits=full_fits):
            return _whole(setting, epsilon, objective, options, budget)
    solved = solve_by_columns(setting, epsilon, objective, accuracy=accuracy)
    quick = FULL_LP.seconds(setting.num_inputs, setting.num_outputs) <= FALLBACK_SECONDS
    if method == SolveMethod.AUTO and not solved.provenance.within_accuracy and full_fits and quick:
        whole, reduced = _whole(setting, epsilon, objective, options, budget)
        if whole.provenance.relative_gap < solved.provenance.relative_gap:
            return whole, reduced
    return solved, False
