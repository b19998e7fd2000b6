"""Neighbour graphs: which inputs of a mechanism must be indistinguishable (Ghosh, Roughgarden &
Sundararajan 2012).

A mechanism matrix ``M[i, r] = P(output r | input i)`` is ε-DP over a neighbour graph when
``M[i, r] ≤ e^ε M[i', r]`` for every edge ``i ~ i'`` (both directions) and every output ``r``
(Ghosh, Roughgarden & Sundararajan 2012, §2.1). The inputs are the graph's nodes, in the order of
``list(graph.nodes)``: that order is the row order of every mechanism built over the graph.

Each node carries the query result it stands for in the node attribute ``"value"`` (a number,
or a tuple for several queries); losses built from a `Cost` are applied to
$output − value$. The graph attribute ``graph.graph["outputs"]`` holds the default output
set: the possible query results (``{0..n}`` for a count query, the grid for a histogram).

Builders
--------
- `path_graph`: A count query on ``{0..n}``: ``i ~ i + 1`` (the GRS setting).
- `sensitivity_graph`: An integer query on ``{0..n}`` with sensitivity Δ: ``i ~ j`` iff
  $0 < |i − j| ≤ Δ$.
- `grid_graph`: A histogram / several count queries: nodes ``(a, b, …)``; adding or removing one row
  moves one coordinate by 1 (``diagonal=True``: a row may move every coordinate by 1, as for several
  count queries over the same rows). Brenner & Nissim's setting.
- `hypercube_graph`: Databases of ``rows`` binary rows, neighbours differing in one row, with the
  count query as node value: the database-level graph on which non-oblivious mechanisms live (GRS
  §6.2).

Examples
--------
>>> g = path_graph(3)
>>> list(g.nodes), sorted(g.edges)
([0, 1, 2, 3], [(0, 1), (1, 2), (2, 3)])
>>> node_values(grid_graph((2, 2))).tolist()
[[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
"""

from __future__ import annotations

import itertools
from typing import Any

import networkx as nx
import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray, IntArray
from optmech._validation import check_int, describe
from optmech.exceptions import ProblemTooLargeError

__all__ = [
    "MAX_NODES",
    "check_graph",
    "default_outputs",
    "edge_incidence",
    "edge_pairs",
    "grid_graph",
    "hypercube_graph",
    "is_path_graph",
    "node_values",
    "parse_graph",
    "path_graph",
    "sensitivity_graph",
]


#: Largest number of nodes a builder creates (a mechanism over more inputs cannot be an LP here).
MAX_NODES = 100_000


def _refuse(nodes: int, what: str, parameter: str) -> None:
    """Refuse a graph of more than `MAX_NODES` nodes, naming the ``parameter`` (with its valid
    range and the value received) that sets its size."""
    if nodes > MAX_NODES:
        raise ProblemTooLargeError(
            f"{what} would have {nodes} nodes; at most {MAX_NODES} are built (an LP over that "
            f"many inputs would not fit in memory): {parameter}."
        )


def path_graph(n: int) -> nx.Graph:
    """The neighbour graph of a count query with results ``{0..n}``: ``i ~ i + 1``.

    Parameters
    ----------
    n : int
        Largest query result (database size), in [1, 100000).

    Examples
    --------
    >>> default_outputs(path_graph(2)).tolist()
    [0.0, 1.0, 2.0]
    """
    n = check_int("n", n, low=1)
    _refuse(n + 1, f"path graph with n = {n}", f"`n` must be in [1, {MAX_NODES - 1}]; got {n}")
    g = nx.path_graph(n + 1)
    nx.set_node_attributes(g, {i: i for i in range(n + 1)}, "value")
    g.graph.update(
        name=f"path(n={n})", kind="path", n=n, outputs=np.arange(n + 1, dtype=np.float64)
    )
    return g


def sensitivity_graph(n: int, sensitivity: int) -> nx.Graph:
    """An integer query on ``{0..n}`` with sensitivity Δ: ``i ~ j`` iff $0 < |i − j| ≤ Δ$.

    With Δ = 1 this is `path_graph`.

    Parameters
    ----------
    n : int
        Largest query result, in [1, 100000).
    sensitivity : int
        Δ, in [1, n].

    Examples
    --------
    >>> sorted(sensitivity_graph(3, 2).edges)
    [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)]
    """
    n = check_int("n", n, low=1)
    delta = check_int("sensitivity", sensitivity, low=1, high=n)
    _refuse(
        n + 1, f"sensitivity graph with n = {n}", f"`n` must be in [1, {MAX_NODES - 1}]; got {n}"
    )
    g = nx.Graph()
    g.add_nodes_from((i, {"value": i}) for i in range(n + 1))
    i = np.arange(n + 1)
    for d in range(1, delta + 1):
        g.add_edges_from(zip(i[:-d].tolist(), i[d:].tolist(), strict=True))
    g.graph.update(
        name=f"sensitivity(n={n}, D={delta})",
        kind="sensitivity",
        n=n,
        sensitivity=delta,
        outputs=np.arange(n + 1, dtype=np.float64),
    )
    return g


def grid_graph(shape: Any, *, diagonal: bool = False) -> nx.Graph:
    """Several count queries / a histogram: nodes ``(a_1, …, a_k)`` with $0 ≤ a_j < shape[j]$.

    Parameters
    ----------
    shape : sequence of int
        Number of values of each query (each at least 2), e.g. ``(4, 4)`` for two counts in
        ``{0..3}``.
    diagonal : bool, default False
        ``False``: neighbours differ by 1 in exactly one coordinate (a histogram under adding or
        removing one row). ``True``: neighbours differ by at most 1 in every coordinate (several
        count queries over the same rows: one row may change all of them).

    Examples
    --------
    >>> g = grid_graph((2, 3))
    >>> g.number_of_nodes(), g.number_of_edges()
    (6, 7)
    >>> grid_graph((2, 2), diagonal=True).number_of_edges()
    6
    """
    if isinstance(shape, int | np.integer) or not hasattr(shape, "__iter__"):
        raise TypeError(
            f"`shape` must be a sequence of integers such as (4, 4); got {describe(shape)}."
        )
    dims = tuple(_shape_entry(j, s) for j, s in enumerate(shape))
    if not dims:
        raise ValueError("`shape` must have at least one dimension; got ().")
    _refuse(
        int(np.prod(np.asarray(dims, dtype=np.float64))),
        f"grid of shape {dims}",
        f"the product of `shape` must be in [2, {MAX_NODES}]; got {dims}",
    )
    g = nx.Graph()
    nodes = list(itertools.product(*(range(s) for s in dims)))
    g.add_nodes_from((v, {"value": v}) for v in nodes)
    if diagonal:
        steps = [s for s in itertools.product((-1, 0, 1), repeat=len(dims)) if any(s)]
    else:
        steps = [tuple(int(k == j) for k in range(len(dims))) for j in range(len(dims))]
    coords = np.asarray(nodes, dtype=np.int64)
    for step in steps:
        other = coords + np.asarray(step)
        ok = np.all((other >= 0) & (other < np.asarray(dims)), axis=1)
        g.add_edges_from(
            zip(map(tuple, coords[ok].tolist()), map(tuple, other[ok].tolist()), strict=True)
        )
    g.graph.update(
        name=f"grid{dims}{' diagonal' if diagonal else ''}",
        kind="grid",
        shape=dims,
        diagonal=diagonal,
        outputs=coords.astype(np.float64),
    )
    return g


def _shape_entry(index: int, size: Any) -> int:
    """``shape[index]`` as an integer ≥ 2, or an error naming `shape`, the entry and the range."""
    try:
        return check_int("shape", size, low=2)
    except (TypeError, ValueError) as exc:
        raise type(exc)(
            f"each entry of `shape` must be an integer in [2, inf); got shape[{index}] = {size!r}."
        ) from None


def hypercube_graph(rows: int) -> nx.Graph:
    """Databases of ``rows`` binary rows; neighbours differ in one row; value = the count query.

    Nodes are tuples of bits; the node value is the number of ones (the count query), and the
    default outputs are the query results ``{0..rows}``. A mechanism over this graph may treat
    two databases with the same count differently (non-oblivious, GRS §6.2).

    Parameters
    ----------
    rows : int
        Number of rows, in [1, 16].

    Examples
    --------
    >>> g = hypercube_graph(2)
    >>> node_values(g).tolist()
    [0.0, 1.0, 1.0, 2.0]
    """
    rows = check_int("rows", rows, low=1, high=16, hint="2**rows databases are built")
    g = nx.Graph()
    nodes = list(itertools.product((0, 1), repeat=rows))
    g.add_nodes_from((v, {"value": sum(v)}) for v in nodes)
    bits = np.asarray(nodes, dtype=np.int64)
    for j in range(rows):
        low = bits[bits[:, j] == 0]
        high = low.copy()
        high[:, j] = 1
        g.add_edges_from(zip(map(tuple, low.tolist()), map(tuple, high.tolist()), strict=True))
    g.graph.update(
        name=f"hypercube(rows={rows})",
        kind="hypercube",
        rows=rows,
        outputs=np.arange(rows + 1, dtype=np.float64),
    )
    return g


def parse_graph(spec: str, n: int | None = None) -> nx.Graph:
    """Build a graph from a CLI spec.

    ``path`` (needs ``n``), ``sensitivity:D`` (needs ``n``), ``grid:AxB[xC…]`` (A values of
    the first query, …), ``king:AxB`` (grid with diagonals), ``hypercube:R``.

    Examples
    --------
    >>> parse_graph("grid:3x2").graph["shape"]
    (3, 2)
    """
    if not isinstance(spec, str):
        raise TypeError(f"`graph` spec must be a string; got {describe(spec)}.")
    name, _, arg = spec.strip().lower().partition(":")
    valid = "'path', 'sensitivity:D', 'grid:AxB', 'king:AxB', 'hypercube:R'"
    needs_n = f"`n` (in [1, {MAX_NODES - 1}]) is needed: '{name}' needs n"
    try:
        if name == "path" and not arg:
            if n is None:
                raise ValueError(needs_n)
            return path_graph(n)
        if name == "sensitivity" and arg:
            if n is None:
                raise ValueError(needs_n)
            return sensitivity_graph(n, _spec_int("D", "sensitivity", "[1, n]", arg))
        if name in ("grid", "king") and arg:
            sizes = tuple(_spec_int("A, B, ...", "shape", "[2, inf)", s) for s in arg.split("x"))
            return grid_graph(sizes, diagonal=name == "king")
        if name == "hypercube" and arg:
            return hypercube_graph(_spec_int("R", "rows", "[1, 16]", arg))
    except ValueError as exc:
        raise ValueError(
            f"`graph` spec {spec!r} is malformed ({exc}); valid specs: {valid}."
        ) from exc
    raise ValueError(f"`graph` spec must be one of {valid}; got {spec!r}.")


def _spec_int(letter: str, parameter: str, valid: str, text: str) -> int:
    """An integer of a graph spec, or a ValueError naming it (``letter``, the ``parameter`` of
    the builder it goes to), its ``valid`` range and the text received."""
    try:
        return int(text)
    except ValueError:
        raise ValueError(
            f"{letter} (`{parameter}`) must be an integer in {valid}; got {text.strip()!r}"
        ) from None


def check_graph(graph: Any, *, min_nodes: int = 2) -> nx.Graph:
    """Validate a neighbour graph: a networkx graph, at least two nodes, connected, with edges.

    A disconnected graph is refused: inputs in different components would be unrelated by
    privacy, which is almost always a mistake in building the graph. Self-loops are ignored.

    Raises
    ------
    TypeError
        ``graph`` is not a networkx graph.
    ValueError
        Empty, a single node, no edges, directed, or disconnected.

    Examples
    --------
    >>> check_graph(nx.empty_graph(3))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: `graph` must be connected ...; got 3 components, e.g. nodes [0] and [1].
    """
    if not isinstance(graph, nx.Graph):
        raise TypeError(f"`graph` must be a networkx.Graph; got {describe(graph)}.")
    if graph.is_directed():
        raise ValueError("`graph` must be undirected (neighbouring is symmetric); got a DiGraph.")
    count = graph.number_of_nodes()
    if count < min_nodes:
        raise ValueError(f"`graph` must have at least {min_nodes} nodes; got {count}.")
    _refuse(count, "the graph", f"`graph` must have at most {MAX_NODES} nodes; got {count}")
    if not nx.is_connected(graph):
        comps = list(nx.connected_components(graph))
        first = sorted(comps[0], key=str)[:3]
        second = sorted(comps[1], key=str)[:3]
        raise ValueError(
            "`graph` must be connected (every input related to every other by a chain of "
            f"neighbours); got {len(comps)} components, e.g. nodes {first} and {second}."
        )
    return graph


def is_path_graph(graph: nx.Graph) -> bool:
    """Whether ``graph`` is the count-query path ``0 ~ 1 ~ … ~ n`` in node order (GRS setting).

    Examples
    --------
    >>> from optmech.graphs import grid_graph, is_path_graph, path_graph
    >>> is_path_graph(path_graph(4)), is_path_graph(grid_graph((2, 2)))
    (True, False)
    """
    nodes = list(graph.nodes)
    m = len(nodes)
    if nodes != list(range(m)) or graph.number_of_edges() != m - 1:
        return False
    src, dst = edge_pairs(graph)
    return bool(np.all(np.abs(src - dst) == 1))


def node_values(graph: nx.Graph) -> FloatArray:
    """Query result of each node, in node order: shape ``(N,)`` or ``(N, k)`` for k queries.

    Uses the node attribute ``"value"`` when every node has one, else the node labels (which
    must then be numbers or tuples of numbers).

    Examples
    --------
    >>> from optmech.graphs import node_values, path_graph
    >>> node_values(path_graph(3)).tolist()
    [0.0, 1.0, 2.0, 3.0]
    """
    data = [graph.nodes[v].get("value", v) for v in graph.nodes]
    try:
        return np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            "nodes of `graph` need a numeric 'value' attribute (the query result) to build a "
            f"loss from a cost; got e.g. {describe(data[0])}. Pass a loss matrix instead."
        ) from exc


def default_outputs(graph: nx.Graph) -> FloatArray:
    """The default output set of a graph: ``graph.graph['outputs']`` or the distinct node values.

    Examples
    --------
    >>> from optmech.graphs import default_outputs, path_graph
    >>> default_outputs(path_graph(3)).tolist()  # the counts 0..3
    [0.0, 1.0, 2.0, 3.0]
    """
    outs = graph.graph.get("outputs")
    if outs is not None:
        return np.asarray(outs, dtype=np.float64)
    values = node_values(graph)
    return np.unique(values, axis=0)


def edge_pairs(graph: nx.Graph) -> tuple[IntArray, IntArray]:
    """Edges as two arrays of row indices ``(src, dst)`` (node order), self-loops dropped.

    Examples
    --------
    >>> from optmech.graphs import edge_pairs, path_graph
    >>> src, dst = edge_pairs(path_graph(2))  # 0 ~ 1 ~ 2
    >>> src.tolist(), dst.tolist()
    ([0, 1], [1, 2])
    """
    index = {v: k for k, v in enumerate(graph.nodes)}
    pairs = np.asarray([(index[a], index[b]) for a, b in graph.edges if a != b], dtype=np.int64)
    if pairs.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return pairs[:, 0], pairs[:, 1]


def edge_incidence(graph: nx.Graph) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """Sparse edge selections ``S_src, S_dst``, shape ``(|E|, N)``: ``(S_src X)[e] = X[src(e)]``.

    The DP constraints of a mechanism ``X`` over the graph are then the two whole-matrix
    inequalities ``S_src X ≤ e^ε S_dst X`` and ``S_dst X ≤ e^ε S_src X`` (Ghosh, Roughgarden &
    Sundararajan 2012).

    Examples
    --------
    >>> s, d = edge_incidence(path_graph(2))
    >>> (s.toarray().tolist(), d.toarray().tolist())
    ([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    """
    src, dst = edge_pairs(graph)
    n_nodes = graph.number_of_nodes()
    rows = np.arange(src.size)
    ones = np.ones(src.size)
    s_src = sp.csr_matrix((ones, (rows, src)), shape=(src.size, n_nodes))
    s_dst = sp.csr_matrix((ones, (rows, dst)), shape=(src.size, n_nodes))
    return s_src, s_dst
