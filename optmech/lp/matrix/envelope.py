"""The envelope LP of a local randomizer, as a cvxpy problem with named row families.

Every pair of inputs is a pair of neighbours, so the ``n(n − 1)·m`` pairwise rows
``Q[i, r] ≤ e^ε Q[j, r]`` would grow with the square of the inputs. Per column they say
``max_i Q[i, r] ≤ e^ε min_i Q[i, r]``, which one extra variable per column states in ``2·n·m``
rows (the *envelope* form):

    t_r ≤ Q[i, r] ≤ e^ε t_r        for every input i and output r.

(If ``Q`` meets these, ``Q[i, r] ≤ e^ε t_r ≤ e^ε Q[j, r]``; conversely ``t_r = min_i Q[i, r]``
meets them.) The objective is Bayesian, ``Σ_i p_i Σ_r Q[i, r] L[i, r]`` (Ghazi et al. (2023),
), or minimax, ``min s`` subject to ``Σ_r Q[i, r] L[i, r] ≤ s`` for every input. The rows are
written as `optmech.lp.solve.Strategy` asks: ``Q − e^ε t ≤ 0`` as
built, or ``e^(−ε) Q − t ≤ 0`` rescaled (largest coefficient 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray
from optmech.exceptions import SolverError
from optmech.lp.matrix.rows import Layout, RowFamily

__all__ = ["LocalLP", "Objective", "build_local_lp", "envelope_rows", "simplex_rows"]


@dataclass(frozen=True)
class Objective:
    """What the LP minimises: ``Σ W ⊙ Q`` (``weights``) or ``max_i L[i] · Q[i]`` (``forms``)."""

    weights: FloatArray | None = field(default=None, repr=False)
    forms: FloatArray | None = field(default=None, repr=False)

    @property
    def minimax(self) -> bool:
        """Whether the objective is the worst input's expected loss."""
        return self.forms is not None

    @property
    def matrix(self) -> FloatArray:
        """The weights (Bayesian) or the loss matrix (minimax)."""
        out = self.forms if self.forms is not None else self.weights
        assert out is not None
        return out

    def value(self, mechanism: FloatArray) -> float:
        """The objective at ``mechanism`` in plain floating point."""
        if self.forms is not None:
            return float(np.max(np.sum(self.forms * mechanism, axis=1)))
        return float(np.sum(self.matrix * mechanism))


def envelope_rows(layout: Layout, epsilon: float, rescaled: bool) -> tuple[RowFamily, RowFamily]:
    """``t_r − Q[i, r] ≤ 0`` and ``Q[i, r] − e^ε t_r ≤ 0`` (or ``e^(−ε) Q[i, r] − t_r ≤ 0``)."""
    n, m = layout.num_inputs, layout.num_outputs
    entries = np.arange(n * m)
    col = np.tile(np.arange(m), n)
    t_index = layout.envelope.start + col
    lo, hi = (math.exp(-epsilon), 1.0) if rescaled else (1.0, math.exp(epsilon))
    rows = np.concatenate([entries, entries])
    cols = np.concatenate([t_index, entries])
    lower = sp.csr_matrix(
        (np.concatenate([np.ones(n * m), -np.ones(n * m)]), (rows, cols)),
        shape=(n * m, layout.size),
    )
    upper = sp.csr_matrix(
        (np.concatenate([-hi * np.ones(n * m), lo * np.ones(n * m)]), (rows, cols)),
        shape=(n * m, layout.size),
    )
    zeros = np.zeros(n * m)
    return (
        RowFamily("envelope lower", lower, zeros, False),
        RowFamily("envelope upper", upper, zeros, False),
    )


def simplex_rows(layout: Layout) -> sp.csr_matrix:
    """``Σ_r Q[i, r]`` for every input, on ``z``."""
    n, m = layout.num_inputs, layout.num_outputs
    return sp.csr_matrix(
        (np.ones(n * m), (np.repeat(np.arange(n), m), np.arange(n * m))), shape=(n, layout.size)
    )


@dataclass(frozen=True)
class LocalLP:
    """A built envelope LP: the problem, its variables and its constraints by family name.

    Attributes
    ----------
    problem : cvxpy.Problem
    z : cvxpy.Variable
        ``[vec(Q), t, Z]`` (`Layout`).
    layout : Layout
    families : tuple of RowFamily
        The row families as built (privacy rows first), each with the cvxpy constraint of the
        same index in `constraints`.
    constraints : tuple of cvxpy.Constraint
    simplex : cvxpy.Constraint
        Row sums equal to 1.
    worst_case : cvxpy.Variable or None
        The epigraph variable ``s`` of a minimax objective.
    epigraph : cvxpy.Constraint or None
        ``L[i] · Q[i] / factor ≤ s``.
    custom : tuple of cvxpy.Constraint
        The constraints of the caller's callables.
    """

    problem: cp.Problem
    z: cp.Variable
    layout: Layout
    families: tuple[RowFamily, ...]
    constraints: tuple[cp.Constraint, ...]
    simplex: cp.Constraint
    worst_case: cp.Variable | None = None
    epigraph: cp.Constraint | None = None
    custom: tuple[cp.Constraint, ...] = ()

    def point(self) -> FloatArray:
        """The solver's ``z``, checked finite."""
        value = self.z.value
        if value is None or not np.all(np.isfinite(value)):
            raise SolverError("LP", "no_solution", "the solver returned no finite point")
        return np.asarray(value, dtype=np.float64)

    def mechanism(self) -> FloatArray:
        """The ``(n, m)`` block of the solver's point."""
        n, m = self.layout.num_inputs, self.layout.num_outputs
        return self.point()[: n * m].reshape(n, m)

    def duals(self) -> list[FloatArray | None]:
        """The multipliers of each family (``None`` where missing or not finite)."""
        out = []
        for con in self.constraints:
            value = con.dual_value
            arr = None if value is None else np.asarray(value, dtype=np.float64).reshape(-1)
            out.append(arr if arr is not None and np.all(np.isfinite(arr)) else None)
        return out

    def epigraph_duals(self) -> FloatArray | None:
        """The multipliers of the epigraph rows (minimax)."""
        if self.epigraph is None or self.epigraph.dual_value is None:
            return None
        arr = np.asarray(self.epigraph.dual_value, dtype=np.float64).reshape(-1)
        return arr if np.all(np.isfinite(arr)) else None


Custom = Callable[[Any], Any]


def build_local_lp(
    objective: Objective,
    layout: Layout,
    families: list[RowFamily],
    *,
    factor: float,
    margin: float = 0.0,
    custom: list[Custom] | None = None,
) -> LocalLP:
    """Build the envelope LP (module docstring) over the given row families.

    Parameters
    ----------
    objective : Objective
        Bayesian weights or minimax loss rows, unscaled (divided by ``factor`` here).
    layout : Layout
    families : list of RowFamily
        Privacy rows and the caller's constraints (inequalities tightened by ``margin``).
    factor : float
        The objective's divisor (its value at a known mechanism, so the optimum is O(1)).
    margin : float
        Relative tightening of the inequality families' right-hand sides.
    custom : list of callable
        ``f(variables)`` returning cvxpy constraints, ``variables.mechanism`` the ``(n, m)``
        matrix and ``variables.envelope`` the column minima.
    """
    n, m = layout.num_inputs, layout.num_outputs
    z = cp.Variable(layout.size, nonneg=True, name="z")
    cons = []
    for fam in families:
        expr = fam.matrix @ z
        rhs = fam.rhs_with(margin)
        cons.append(expr == rhs if fam.equality else expr <= rhs)
    simplex = simplex_rows(layout) @ z == 1
    all_cons: list[cp.Constraint] = [*cons, simplex]
    worst = epigraph = None
    if objective.minimax:
        worst = cp.Variable(name="worst_case")
        forms = sp.csr_matrix(
            (
                (objective.matrix / factor).ravel(),
                (np.repeat(np.arange(n), m), np.arange(n * m)),
            ),
            shape=(n, layout.size),
        )
        epigraph = forms @ z <= worst
        all_cons.append(epigraph)
        goal = cp.Minimize(worst)
    else:
        c = np.zeros(layout.size)
        c[: n * m] = (objective.matrix / factor).ravel()
        goal = cp.Minimize(c @ z)
    added: list[cp.Constraint] = []
    if custom:
        namespace = SimpleNamespace(
            mechanism=cp.reshape(z[: n * m], (n, m), order="C"), envelope=z[layout.envelope]
        )
        for fn in custom:
            added += list(fn(namespace))
    return LocalLP(
        problem=cp.Problem(goal, [*added, *all_cons]),
        z=z,
        layout=layout,
        families=tuple(families),
        constraints=tuple(cons),
        simplex=simplex,
        worst_case=worst,
        epigraph=epigraph,
        custom=tuple(added),
    )
