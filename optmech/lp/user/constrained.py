"""The user LPs with the caller's constraints: the constrained mechanism-matrix engine on a graph.

`bayesian_mechanism` and
`minimax_mechanism` take ``constraints=`` of
`optmech.constraints`. Their mechanism ``X[i, r]`` is the matrix ``Q`` of
`optmech.lp.matrix.rows` with the query's values as inputs and the
output set as outputs, so each constraint becomes the same vectorised sparse rows as in the
local model; only privacy differs: ε-DP on the edges of the neighbour graph (Ghosh,
Roughgarden & Sundararajan (2012), LP (2)–(6)) instead of ε-LDP on every pair
(`NeighbourGraph`). The solve is the local
model's (`solve_local`): repair within the
constraints
(the graph's lower closure, then an exact correction of the rows' sums and, for
``Unbiased``, means), re-solves with margins when an inequality does not survive the repair,
an elastic LP naming the constraints when the set is infeasible, and a Lagrangian lower bound in
which the constraints' rows enter with their multipliers — a lower bound for the *constrained*
problem (`local_bound`).

Column generation and the mirror reduction do not take constraints: the whole LP is solved.
"""

from __future__ import annotations

import numpy as np

from optmech._floats import FloatArray, IntArray
from optmech.constraints import Constraint, Custom
from optmech.lp.engine.record import Solved
from optmech.lp.matrix.envelope import Objective
from optmech.lp.matrix.envelope_engine import solve_local
from optmech.lp.matrix.envelope_setting import LocalSetting
from optmech.lp.matrix.neighbours import NeighbourGraph
from optmech.lp.matrix.setting import UserSetting

__all__ = ["solve_constrained"]


def _local_setting(
    setting: UserSetting, prior: FloatArray | None, constraints: tuple[Constraint, ...]
) -> LocalSetting:
    """The user setting as a mechanism-matrix setting: inputs the query's values, outputs the
    output set (ValueError naming ``constraints`` when they are not increasing real numbers)."""
    values, outputs = setting.values, setting.outputs
    declared = [c for c in constraints if not isinstance(c, Custom)]
    ordered = (
        values.ndim == 1
        and outputs.ndim == 1
        and bool(np.all(np.diff(values) > 0))
        and bool(np.all(np.diff(outputs) > 0))
    )
    if declared and not ordered:
        raise ValueError(
            f"`constraints` {', '.join(c.name for c in declared)} need a one-dimensional query "
            "whose values increase along the graph's node order and increasing outputs; got "
            f"values of shape {values.shape} and outputs of shape {outputs.shape}"
            + ("" if values.ndim != 1 or outputs.ndim != 1 else " not both increasing")
            + "."
        )
    return LocalSetting(values, outputs, setting.loss, setting.cost, prior)


def solve_constrained(
    setting: UserSetting,
    epsilon: float,
    constraints: tuple[Constraint, ...],
    *,
    prior: FloatArray | None,
    rows: IntArray | None,
    solver: str | None,
    vertex: bool,
    accuracy: float,
    designer: str,
) -> Solved:
    """Solve a user LP with constraints and certify it (module docstring).

    A Bayesian user has a ``prior`` (then ``Σ_i p_i L[i] · X[i]`` is minimised, and a `MaxCost`
    is under the prior); a minimax user the side information ``rows`` (``max_{i ∈ S} L[i] · X[i]``
    is minimised; the other rows' forms are zero, which leaves the maximum unchanged as losses
    are non-negative). ``designer`` is the public function's name, for error messages.
    """
    local = _local_setting(setting, prior, constraints)
    if prior is not None:
        objective = Objective(weights=prior[:, None] * setting.loss)
    else:
        forms = np.zeros_like(setting.loss)
        picked = np.arange(setting.num_inputs) if rows is None else rows
        forms[picked] = setting.loss[picked]
        objective = Objective(forms=forms)
    return solve_local(
        local,
        epsilon,
        objective,
        constraints,
        solver=solver,
        accuracy=accuracy,
        vertex=vertex,
        graph=NeighbourGraph.of(setting.graph),
        designer=designer,
    )
