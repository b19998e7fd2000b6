"""How a user LP is solved: the whole LP, or by column generation over its outputs.

* ``"full"`` — the LP as one problem through cvxpy
  (`optmech.lp.user.engine`; on a mirror-symmetric Bayesian instance
  over the mirror orbits).
* ``"column-generation"`` — Dantzig–Wolfe decomposition over the cone of ε-DP columns
  ([`optmech.lp.user.column_engine`][optmech.lp.user.column_engine]): for a tree neighbour graph
  (the count query's path), a Bayesian or minimax user, no vertex requested, and the master's
  solver.
* ``"auto"`` (the default) — column generation where it applies, else the full LP.

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

from optmech._validation import describe
from optmech.graphs import edge_pairs
from optmech.lp.solve import INCREMENTAL_SOLVER
from optmech.lp.user.cone import RootedTree

__all__ = ["SolveMethod", "check_method", "choose_method"]


class SolveMethod(StrEnum):
    """How a user LP is solved (module docstring)."""

    #: Column generation where it applies, else the full LP.
    AUTO = "auto"
    #: Dantzig–Wolfe column generation over the outputs (tree neighbour graphs).
    COLUMN_GENERATION = "column-generation"
    #: The whole LP through cvxpy.
    FULL = "full"


def check_method(method: Any) -> SolveMethod:
    """``method`` as a [`SolveMethod`][SolveMethod].

    Examples
    --------
    >>> check_method("full") is SolveMethod.FULL
    True
    """
    names = [m.value for m in SolveMethod]
    if not isinstance(method, str) or method not in names:
        raise ValueError(f"`method` must be one of {names}; got {describe(method)}.")
    return SolveMethod(method)


def _is_tree(graph: nx.Graph | None) -> bool:
    if graph is None:  # the count query's path
        return True
    src, dst = edge_pairs(graph)
    return RootedTree.of(src, dst, graph.number_of_nodes()) is not None


def _obstacle(graph: nx.Graph | None, *, vertex: bool, solver: str | None) -> str | None:
    """Why column generation does not apply, or ``None``."""
    if vertex:
        return "a vertex (vertex=True) comes from the full LP's simplex"
    if solver is not None and str(solver).upper() != INCREMENTAL_SOLVER:
        return f"its master is solved by {INCREMENTAL_SOLVER}, not solver={solver!r}"
    if not _is_tree(graph):
        return (
            "it needs a tree neighbour graph (such as the count query's path); this one has cycles"
        )
    return None


def choose_method(
    method: Any, graph: nx.Graph | None, *, vertex: bool, solver: str | None
) -> SolveMethod:
    """The method that solves this LP: ``"column-generation"`` or ``"full"`` (never ``"auto"``).

    Parameters
    ----------
    method : {"auto", "column-generation", "full"}
        What the caller asked for.
    graph : networkx.Graph or None
        The neighbour graph (``None``: the count query's path).
    vertex : bool
        Whether a vertex is asked for.
    solver : str or None
        A solver named by the caller.

    Raises
    ------
    ValueError
        An unknown method, or column generation asked for where it does not apply.

    Examples
    --------
    >>> choose_method("auto", None, vertex=False, solver=None).value
    'column-generation'
    >>> choose_method("auto", None, vertex=True, solver=None).value
    'full'
    """
    chosen = check_method(method)
    obstacle = (
        None if chosen == SolveMethod.FULL else _obstacle(graph, vertex=vertex, solver=solver)
    )
    if chosen == SolveMethod.COLUMN_GENERATION and obstacle is not None:
        raise ValueError(
            f"`method` 'column-generation' does not apply here: {obstacle}. Use method='full' "
            "(or 'auto')."
        )
    if chosen == SolveMethod.AUTO:
        return SolveMethod.FULL if obstacle is not None else SolveMethod.COLUMN_GENERATION
    return chosen
