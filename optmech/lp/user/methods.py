"""How a user LP is solved: the whole LP, or by column generation over its outputs.

* ``"full"`` — the LP as one problem through cvxpy
  (`optmech.lp.user.engine`; on a mirror-symmetric Bayesian instance
  over the mirror orbits).
* ``"column-generation"`` — Dantzig–Wolfe decomposition over the cone of ε-DP columns
  (`optmech.lp.user.column_engine`): for a tree neighbour graph
  (the count query's path), a Bayesian or minimax user, no vertex requested, and the master's
  solver.
* ``"auto"`` (the default) — column generation where it applies and pays
  (`prefer_columns`), else the full LP; and should column generation leave
  a certified interval wider than asked, the full LP where it fits and is predicted to take at
  most a minute (``FALLBACK_SECONDS`` of `optmech.lp.user.dispatch`).

Measured on 2 shared cores (Dirichlet(1) prior, |e|, ε = 0.5; ``benchmarks/grs.py``): the full LP
took 175 s and 2.35 GB at n = 1000; column generation solves it in a few seconds (the table in
``benchmarks/results/grs_scaling.json``).

A vertex (``vertex=True``: a basic solution from which a constraint matrix or remap can be read)
needs the full LP's simplex: a basic solution of the master combines several rays in one column
and need not be a vertex of the full LP.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import networkx as nx
import numpy as np

from optmech._validation import describe
from optmech.graphs import edge_pairs
from optmech.lp.solve import INCREMENTAL_SOLVER
from optmech.lp.user.cone import RootedTree

__all__ = [
    "LOCALISED",
    "SolveMethod",
    "admissible_method",
    "check_method",
    "prefer_columns",
    "tree_diameter",
]

#: ``ε × diameter`` from which ``"auto"`` prefers column generation on any tree LP. Below it the
#: rays of K hardly decay across the graph, each output's optimal column combines many of them,
#: and pricing one ray per output and round tails off; the full LP is small there and faster.
#: Measured (2 shared cores): minimax users, |e|: n = 100, ε = 0.001: full LP 11.5 s, columns
#: 123 s (100 rounds); n = 200, ε = 0.01: 48 s against 129 s; a random loss matrix, n = 200,
#: ε = 0.01: 8.8 s against the 500-round limit; at ε = 0.5 (εn = 100) columns won: n = 200,
#: random loss 3.9 s against 17.8 s, minimax 3 s against 43 s.
LOCALISED = 20.0


class SolveMethod(StrEnum):
    """How a user LP is solved (module docstring)."""

    #: Column generation where it applies, else the full LP.
    AUTO = "auto"
    #: Dantzig–Wolfe column generation over the outputs (tree neighbour graphs).
    COLUMN_GENERATION = "column-generation"
    #: The whole LP through cvxpy.
    FULL = "full"


def check_method(method: Any) -> SolveMethod:
    """``method`` as a `SolveMethod`.

    Examples
    --------
    >>> check_method("full") is SolveMethod.FULL
    True
    """
    names = [m.value for m in SolveMethod]
    if not isinstance(method, str) or method not in names:
        raise ValueError(f"`method` must be one of {names}; got {describe(method)}.")
    return SolveMethod(method)


def _obstacle(graph: nx.Graph | None, *, vertex: bool, solver: str | None) -> str | None:
    """Why column generation does not apply, or ``None``."""
    if vertex:
        return "a vertex (vertex=True) comes from the full LP's simplex"
    if solver is not None and str(solver).upper() != INCREMENTAL_SOLVER:
        return f"its master is solved by {INCREMENTAL_SOLVER}, not solver={solver!r}"
    if graph is not None and RootedTree.of(*edge_pairs(graph), graph.number_of_nodes()) is None:
        return (
            "it needs a tree neighbour graph (such as the count query's path); this one has cycles"
        )
    return None


def admissible_method(
    method: Any, graph: nx.Graph | None, *, vertex: bool, solver: str | None
) -> SolveMethod:
    """``method`` checked against the LP, before anything is built.

    ``"full"`` stays; ``"column-generation"`` stays where it applies and raises elsewhere;
    ``"auto"`` stays ``"auto"`` where column generation applies (then
    `prefer_columns` decides, once the setting is known) and becomes
    ``"full"`` elsewhere.

    ``graph`` ``None`` is the count query's path; ``solver`` is one named by the caller.

    Raises
    ------
    ValueError
        An unknown method, or column generation asked for where it does not apply.

    Examples
    --------
    >>> admissible_method("auto", None, vertex=False, solver=None).value
    'auto'
    >>> admissible_method("auto", None, vertex=True, solver=None).value
    'full'
    """
    chosen = check_method(method)
    if chosen == SolveMethod.FULL:
        return chosen
    obstacle = _obstacle(graph, vertex=vertex, solver=solver)
    if obstacle is None:
        return chosen
    if chosen == SolveMethod.COLUMN_GENERATION:
        raise ValueError(
            f"`method` 'column-generation' does not apply here: {obstacle}. Use method='full' "
            "(or 'auto')."
        )
    return SolveMethod.FULL


def tree_diameter(tree: RootedTree) -> int:
    """An upper bound on the tree's diameter: ``N − 1`` on the path, else twice its height."""
    if tree.is_path:
        return tree.size - 1
    depth = np.zeros(tree.size, dtype=np.int64)
    for v in tree.order[1:]:
        depth[v] = depth[tree.parent[v]] + 1
    return int(2 * depth.max())


def prefer_columns(
    tree: RootedTree, epsilon: float, *, proven_start: bool, full_fits: bool
) -> bool:
    """Whether ``"auto"`` takes column generation rather than the full LP.

    Yes when the theorem's start is optimal (a Bayesian user on a count query with a loss
    monotone in ``|i − r|``: Ghosh, Roughgarden & Sundararajan (2012), Thm. 3.1 — the first
    master is the last), when ``ε`` times the tree's diameter is at least
    `LOCALISED`, or when the full LP does not fit the memory budget; else the full
    LP.

    Examples
    --------
    >>> prefer_columns(RootedTree.path(201), 0.01, proven_start=False, full_fits=True)
    False
    >>> prefer_columns(RootedTree.path(201), 0.5, proven_start=False, full_fits=True)
    True
    """
    return proven_start or not full_fits or epsilon * tree_diameter(tree) >= LOCALISED
