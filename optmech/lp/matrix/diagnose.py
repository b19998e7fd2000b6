"""Which of the caller's constraints cannot hold: the elastic LP of an infeasible envelope LP.

When the constrained LP is infeasible, every row of the caller's constraints gets a slack and the
total slack is minimised over ε-LDP mechanisms (the privacy rows and the rows' sums stay hard;
the problem is feasible: the constant mechanism). The constraints whose rows keep a positive
slack at the optimum are those that cannot all hold together; the error names them and says by
how much each must give way (its rows are scaled to O(1): a relative amount).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import cvxpy as cp
import numpy as np

from optmech.exceptions import InfeasibleConstraintsError, SolverError
from optmech.lp.engine.certified import solve_uncertified
from optmech.lp.matrix.envelope import envelope_rows, simplex_rows
from optmech.lp.matrix.rows import Layout, RowFamily
from optmech.lp.solve import Strategy

__all__ = ["diagnose_infeasible", "least_slacks"]

#: The privacy rows of the LP on ``z`` at ε, given ``rescaled`` (default: the envelope's).
PrivacyRows = Callable[[Layout, float, bool], Sequence[RowFamily]]

#: A slack below this (relative to the rows' O(1) scale) is solver noise.
SLACK_TOL = 1e-7


def least_slacks(
    layout: Layout,
    epsilon: float,
    families: list[RowFamily],
    solver: str | None,
    privacy_rows: PrivacyRows = envelope_rows,
) -> list[float]:
    """The largest slack each family needs at the least infeasible private mechanism."""

    def build(strategy: Strategy) -> tuple[cp.Problem, list[cp.Variable]]:
        z = cp.Variable(layout.size, nonneg=True)
        privacy = privacy_rows(layout, epsilon, strategy.rescaled)
        cons = [fam.matrix @ z <= 0 for fam in privacy]
        cons.append(simplex_rows(layout) @ z == 1)
        slacks = []
        for fam in families:
            s = cp.Variable(fam.rhs.size, nonneg=True)
            slacks.append(s)
            expr = fam.matrix @ z - fam.rhs
            cons += [expr <= s, -s <= expr] if fam.equality else [expr <= s]
        total = sum((cp.sum(s) for s in slacks), cp.Constant(0.0))
        return cp.Problem(cp.Minimize(total), cons), slacks

    slacks, _ = solve_uncertified(
        build, num_variables=layout.size, solver=solver, kind="count", feasible=True
    )
    return [float(np.max(s.value)) if s.value is not None else 0.0 for s in slacks]


def diagnose_infeasible(
    layout: Layout,
    epsilon: float,
    families: list[RowFamily],
    custom: list[Callable[[Any], Any]],
    *,
    solver: str | None,
    privacy_rows: PrivacyRows = envelope_rows,
    privacy: str = "ε-LDP",
) -> InfeasibleConstraintsError:
    """The error to raise for an infeasible constrained LP, naming the constraints at fault.

    A constraint that admits no private mechanism on its own is named alone, with the least
    amount (relative, its rows being O(1)) by which it must give way; otherwise the
    constraints are named together (and the callables, when the declared ones hold together).
    ``privacy_rows`` and ``privacy`` (its name in the message) default to the complete graph's
    envelope, ε-LDP.
    """
    names = tuple(f.name for f in families)
    where = f"(ε = {epsilon:g}) on these outputs"
    try:
        alone = [
            (f.name, least_slacks(layout, epsilon, [f], solver, privacy_rows)[0]) for f in families
        ]
        together = (
            max(least_slacks(layout, epsilon, families, solver, privacy_rows), default=0.0)
            if families
            else 0.0
        )
    except SolverError as exc:
        return InfeasibleConstraintsError(
            f"the constraints {', '.join(names) or 'given'} admit no {privacy} mechanism {where} "
            f"(the solver could not locate the conflict: {exc}).",
            constraints=names or ("custom",),
        )
    guilty = [(name, v) for name, v in alone if v > SLACK_TOL]
    if guilty:
        parts = [f"{name} alone (off by at least {v:.3g}, relative)" for name, v in guilty]
        text = (
            f"no {privacy} mechanism {where} meets {'; '.join(parts)}. Relax "
            f"{'it' if len(parts) == 1 else 'them'}, widen the outputs or raise ε."
        )
        return InfeasibleConstraintsError(text, constraints=tuple(n for n, _ in guilty))
    if together > SLACK_TOL or not custom:
        text = (
            f"each constraint holds alone, but {' and '.join(names)} admit no {privacy} mechanism "
            f"together {where}. Relax one of them, widen the outputs or raise ε."
        )
        return InfeasibleConstraintsError(text, constraints=names)
    text = (
        f"the callables' constraints admit no {privacy} mechanism {where}"
        + (f" together with {', '.join(names)}" if names else "")
        + "."
    )
    return InfeasibleConstraintsError(text, constraints=(*names, "custom"))
