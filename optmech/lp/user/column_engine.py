"""The certified solve of a user LP by column generation (tree neighbour graphs).

The counterpart of `optmech.lp.user.engine` for
`generate_columns`, with the same
certificate:

1. **Scale and warm start.** On the path the start is the theorem's candidate: the geometric
   mechanism G followed by the Bayes remap for the objective's weights (the forms summed, for an
   epigraph objective; Ghosh, Roughgarden & Sundararajan (2012), Thm. 3.1), from the peaked rays
   (`decay_products`, ``O(N m)``: no ``N × N`` matrix);
   with the best constant answer it sets the objective's scale (so the master's optimum is O(1))
   and, when the interval is wide, competes with the LP's point (the dense mechanisms are built
   only then). On other trees the known mechanisms are the objective's own
   (``LinearObjective.references`` of `optmech.lp.matrix.objectives`).
2. **Generate columns** until none prices out.
3. **Certify.** ``X = Σ λ_j v_j`` (exactly ε-DP; its row sums are 1 up to the master's tolerances)
   is clipped, row-normalised and repaired by the same pipeline as every user LP
   (`repair_point`: lower closure, uniform mixture; the
   independent certifier proves ``certified ε ≤ ε``); the value is the objective at the
   certified mechanism, rounded up.
4. **Bound.** The Lagrangian bound of the master's multipliers, ``Σ y − N t``, rounded outward
   (`optmech.lp.user.cone_bounds`): valid whatever the solver did.
5. **Refine** when ``[lower_bound, value]`` is wider than ``accuracy``: the known mechanisms
   compete; if the value is far below the scale, the run is repeated with the objective divided
   by the value (attempts labelled ``"refined, …"``), keeping the better point and larger bound.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray
from optmech.lp.engine.certified import Policy, certified_solve
from optmech.lp.engine.report import stage
from optmech.lp.incremental import INCREMENTAL_OPTIONS
from optmech.lp.matrix.objectives import (
    LinearObjective,
    Objective,
    Reference,
    reference_scale,
    scale_of,
)
from optmech.lp.matrix.repair import clip_normalise
from optmech.lp.matrix.setting import UserSetting
from optmech.lp.solve import SolveInfo
from optmech.lp.user.column_generation import ColumnGeneration, WarmStart, generate_columns
from optmech.lp.user.cone import RootedTree, column_blocks, decay_products
from optmech.lp.user.engine import MatrixHooks, Solved, solved

__all__ = ["geometric_remap_start", "solve_by_columns"]

_log = logging.getLogger(__name__)


def geometric_remap_start(summed: FloatArray, epsilon: float) -> FloatArray:
    """G (the range-restricted geometric mechanism on ``{0..N−1}``) followed by the Bayes remap
    for ``summed`` weights, in ``O(N m)``.

    Column j of G is ``λ_j e^(−ε|i − j|)`` with ``λ_j = (1 − α)/(1 + α)`` inside and
    ``1/(1 + α)`` at the ends (``α = e^(−ε)``; GRS §3); the remap sends it to
    ``argmin_r Σ_i e^(−ε|i − j|) summed[i, r]``, and the remapped mechanism's columns are
    sums of peaked rays, which one more sweep computes.

    Examples
    --------
    >>> x = geometric_remap_start(np.array([[0.0, 1.0], [1.0, 0.0]]), np.log(2))
    >>> x.round(6).tolist()  # G itself: the identity remap
    [[0.666667, 0.333333], [0.333333, 0.666667]]
    """
    n = summed.shape[0]
    path = RootedTree.path(n)
    choice = np.argmin(decay_products(summed, path, epsilon), axis=1)
    picks = np.zeros(summed.shape)
    picks[np.arange(n), choice] = _column_scales(n, float(np.exp(-epsilon)))
    return decay_products(picks, path, epsilon)


def _column_scales(n: int, alpha: float) -> FloatArray:
    """``λ_j``: column j of G is ``λ_j e^(−ε|i − j|)`` (``α = e^(−ε)``; GRS §3)."""
    scale = np.full(n, (1.0 - alpha) / (1.0 + alpha))
    scale[[0, -1]] = 1.0 / (1.0 + alpha)
    return scale


def _summed(objective: Objective) -> FloatArray:
    if isinstance(objective, LinearObjective):
        return objective.weights
    return np.asarray(objective.forms.sum(axis=0)).reshape(objective.shape)


def _constant_answer(objective: Objective) -> int:
    """The output whose constant mechanism has the least objective."""
    n_in, n_out = objective.shape
    if isinstance(objective, LinearObjective):
        return int(np.argmin(objective.weights.sum(axis=0)))
    fold = sp.kron(np.ones((n_in, 1)), sp.identity(n_out), format="csr")
    return int(np.argmin(np.asarray((objective.forms @ fold).todense()).max(axis=0)))


def _references(
    setting: UserSetting, epsilon: float, objective: Objective, tree: RootedTree
) -> list[Reference]:
    """The known ε-DP mechanisms (dense ``N × m`` each: built only when needed)."""
    if not tree.is_path:
        return objective.references(setting, epsilon)
    constant = np.zeros(objective.shape)
    constant[:, _constant_answer(objective)] = 1.0
    start = geometric_remap_start(_summed(objective), epsilon)
    return [
        Reference("best constant answer", constant),
        Reference("geometric + Bayes remap", start),
    ]


def _scale(
    setting: UserSetting,
    epsilon: float,
    objective: Objective,
    tree: RootedTree,
    decay: FloatArray,
) -> float:
    """``reference_scale`` (of `optmech.lp.matrix.objectives`) of the known mechanisms.

    For a Bayesian user on the path their values come without the matrices: the constant
    answer's is the least column sum of the weights, and that of G with the Bayes remap is
    ``Σ_j λ_j min_r decay[j, r]`` (``λ_j`` the scale of G's column j).
    """
    if not (tree.is_path and isinstance(objective, LinearObjective)):
        return reference_scale(objective, _references(setting, epsilon, objective, tree))
    columns = _column_scales(tree.size, math.exp(-epsilon))
    values = [float(objective.weights.sum(axis=0).min()), float(columns @ decay.min(axis=1))]
    return scale_of(values, objective.top)


def _violation(point: FloatArray, epsilon: float, setting: UserSetting) -> float:
    """`max_violation` of ``point`` (sign, row sums,
    privacy rows), the privacy rows taken in blocks of columns."""
    e = math.exp(epsilon)
    worst = max(0.0, -float(point.min()), float(np.max(np.abs(point.sum(axis=1) - 1.0))))
    path = setting.is_path  # the edges (i, i + 1): views, not copies
    for cols in column_blocks(*point.shape):
        if path:
            a, b = point[:-1, cols], point[1:, cols]
        else:
            a, b = point[setting.src, cols], point[setting.dst, cols]
        worst = max(worst, float(np.max(a - e * b, initial=0.0)), float(np.max(b - e * a)))
    return worst


class _ColumnLP(MatrixHooks[ColumnGeneration]):
    """A user LP solved by column generation (its own rounds: `generate_columns`), with the
    hooks of every user LP (`MatrixHooks`)."""

    def __init__(
        self,
        base: MatrixHooks[Any],
        tree: RootedTree,
        factor: float,
        warm: WarmStart,
        build_time: float,
    ) -> None:
        super().__init__(base.setting, base.epsilon, base.objective, base.references, base.scale)
        self.tree, self.factor, self.warm, self.build_time = tree, factor, warm, build_time

    def solve(self, solver: str | None, vertex: bool) -> tuple[ColumnGeneration, SolveInfo, float]:
        objective = self.objective
        run = generate_columns(
            self.tree,
            self.epsilon,
            objective.shape,
            factor=self.factor,
            weights=objective.weights if isinstance(objective, LinearObjective) else None,
            forms=None if isinstance(objective, LinearObjective) else objective.forms,
            warm=self.warm,
        )
        return run, _info(run, self.objective), self.build_time

    def read(self, built: ColumnGeneration) -> FloatArray:
        return clip_normalise(built.point)

    def bound(self, built: ColumnGeneration, point: FloatArray) -> float:
        return built.lower

    def at(self, factor: float) -> _ColumnLP:
        return _ColumnLP(self, self.tree, factor, self.warm, self.build_time)


def _info(run: ColumnGeneration, objective: Objective) -> SolveInfo:
    forms = 0 if isinstance(objective, LinearObjective) else int(objective.forms.shape[0])
    return SolveInfo(
        solver=run.attempts[-1].solver,
        status="optimal" if run.converged else "optimal_inaccurate",
        objective=run.objective,
        solve_time=run.seconds,
        compile_time=0.0,
        total_time=run.seconds,
        iterations=run.iterations,
        num_variables=run.columns + (1 if forms else 0),
        num_constraints=objective.shape[0] + forms,
        options=dict(INCREMENTAL_OPTIONS),
        attempts=run.attempts,
    )


def solve_by_columns(
    setting: UserSetting, epsilon: float, objective: Objective, *, accuracy: float
) -> Solved:
    """Solve one user LP on a tree by column generation and certify it (module docstring);
    ``accuracy`` is the relative width of ``[lower_bound, value]`` below which no refinement is
    tried.

    Raises
    ------
    ValueError
        The graph is not a tree.
    SolverError
        A master LP failed twice (the error lists the attempts).
    """
    tree = RootedTree.of(setting.src, setting.dst, setting.num_inputs)
    if tree is None:
        raise ValueError("column generation needs a tree neighbour graph (no cycles).")
    start = time.perf_counter()
    with stage("warm start", _log, inputs=setting.num_inputs, outputs=objective.shape[1]) as found:
        decay = decay_products(_summed(objective), tree, epsilon)
        scale = _scale(setting, epsilon, objective, tree, decay)
        linear = isinstance(objective, LinearObjective)
        warm = WarmStart.of(decay, _constant_answer(objective), linear)
        del decay  # N × m: the start keeps what it needs
        found.update(scale=scale)
    build_time = time.perf_counter() - start
    base: MatrixHooks[Any] = MatrixHooks(
        setting, epsilon, objective, lambda: _references(setting, epsilon, objective, tree), scale
    )
    lp = _ColumnLP(base, tree, scale, warm, build_time)
    outcome = certified_solve(lp, Policy(accuracy=accuracy, cross_check=False))
    point = outcome.used.built.point
    out = solved(outcome, accuracy, violation_before=_violation(point, epsilon, setting))
    return dataclasses.replace(
        out, info=dataclasses.replace(out.info, attempts=out.provenance.attempts)
    )
