"""Neighbour graphs (optmech.graphs): structure checked against brute-force neighbour relations."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from optmech.exceptions import ProblemTooLargeError
from optmech.graphs import (
    check_graph,
    default_outputs,
    edge_incidence,
    edge_pairs,
    grid_graph,
    hypercube_graph,
    is_path_graph,
    node_values,
    parse_graph,
    path_graph,
    sensitivity_graph,
)


def _edge_set(graph: nx.Graph) -> set[frozenset]:
    return {frozenset(e) for e in graph.edges}


@pytest.mark.parametrize("n", [1, 2, 7])
def test_path_graph_is_the_count_query_relation(n: int) -> None:
    g = path_graph(n)
    assert list(g.nodes) == list(range(n + 1))
    expected = {frozenset((i, j)) for i in range(n + 1) for j in range(n + 1) if abs(i - j) == 1}
    assert _edge_set(g) == expected
    assert node_values(g).tolist() == list(range(n + 1))
    assert default_outputs(g).tolist() == list(range(n + 1))
    assert is_path_graph(g)


@pytest.mark.parametrize(("n", "delta"), [(4, 1), (6, 2), (5, 5)])
def test_sensitivity_graph_matches_brute_force(n: int, delta: int) -> None:
    g = sensitivity_graph(n, delta)
    expected = {
        frozenset((i, j)) for i in range(n + 1) for j in range(n + 1) if 0 < abs(i - j) <= delta
    }
    assert _edge_set(g) == expected
    assert is_path_graph(g) == (delta == 1)


@pytest.mark.parametrize("shape", [(2, 3), (3, 3, 2)])
@pytest.mark.parametrize("diagonal", [False, True])
def test_grid_graph_matches_brute_force(shape: tuple[int, ...], diagonal: bool) -> None:
    g = grid_graph(shape, diagonal=diagonal)
    nodes = list(itertools.product(*(range(s) for s in shape)))
    assert list(g.nodes) == nodes

    def neighbours(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
        diff = [abs(x - y) for x, y in zip(a, b, strict=True)]
        if diagonal:
            return max(diff) == 1
        return sum(diff) == 1

    expected = {frozenset((a, b)) for a in nodes for b in nodes if neighbours(a, b)}
    assert _edge_set(g) == expected
    assert np.array_equal(node_values(g), np.asarray(nodes, dtype=float))
    assert np.array_equal(default_outputs(g), np.asarray(nodes, dtype=float))
    assert not is_path_graph(g)


def test_hypercube_graph_rows_differ_in_one_place() -> None:
    rows = 3
    g = hypercube_graph(rows)
    nodes = list(itertools.product((0, 1), repeat=rows))
    expected = {
        frozenset((a, b))
        for a in nodes
        for b in nodes
        if sum(x != y for x, y in zip(a, b, strict=True)) == 1
    }
    assert _edge_set(g) == expected
    assert node_values(g).tolist() == [float(sum(v)) for v in nodes]
    assert default_outputs(g).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_edge_incidence_selects_endpoints() -> None:
    g = grid_graph((2, 3))
    s_src, s_dst = edge_incidence(g)
    src, dst = edge_pairs(g)
    x = np.random.default_rng(0).random((g.number_of_nodes(), 4))
    assert np.array_equal(s_src @ x, x[src])
    assert np.array_equal(s_dst @ x, x[dst])
    index = {v: k for k, v in enumerate(g.nodes)}
    assert {frozenset((index[a], index[b])) for a, b in g.edges} == {
        frozenset((int(a), int(b))) for a, b in zip(src, dst, strict=True)
    }


def test_parse_graph_specs() -> None:
    assert _edge_set(parse_graph("path", 3)) == _edge_set(path_graph(3))
    assert _edge_set(parse_graph("sensitivity:2", 4)) == _edge_set(sensitivity_graph(4, 2))
    assert parse_graph("grid:3x2").graph["shape"] == (3, 2)
    assert parse_graph("king:2x2").number_of_edges() == 6
    assert parse_graph("hypercube:2").number_of_nodes() == 4
    with pytest.raises(ValueError, match="needs n"):
        parse_graph("path")
    with pytest.raises(ValueError, match="must be one of"):
        parse_graph("star:3")
    with pytest.raises(ValueError, match="malformed"):
        parse_graph("grid:3xq")
    with pytest.raises(TypeError, match="spec must be a string"):
        parse_graph(3)  # type: ignore[arg-type]


def test_check_graph_rejects_bad_graphs() -> None:
    with pytest.raises(TypeError, match=r"networkx\.Graph"):
        check_graph([(0, 1)])
    with pytest.raises(ValueError, match="at least 2 nodes"):
        check_graph(nx.Graph())
    with pytest.raises(ValueError, match="connected"):
        check_graph(nx.empty_graph(3))
    g = nx.Graph([(0, 1), (2, 3)])
    with pytest.raises(ValueError, match="2 components"):
        check_graph(g)
    with pytest.raises(ValueError, match="undirected"):
        check_graph(nx.DiGraph([(0, 1)]))
    path = path_graph(2)
    assert check_graph(path) is path  # a valid graph comes back as given


def test_builders_validate_and_refuse_huge_graphs() -> None:
    with pytest.raises(ValueError, match="`n` must be an integer in \\[1, inf\\)"):
        path_graph(0)
    with pytest.raises(ValueError, match="`sensitivity`"):
        sensitivity_graph(3, 4)
    with pytest.raises(ValueError, match="`shape`"):
        grid_graph((1, 3))
    with pytest.raises(TypeError, match="sequence of integers"):
        grid_graph(4)
    with pytest.raises(ValueError, match="`rows`"):
        hypercube_graph(17)
    with pytest.raises(ProblemTooLargeError, match="nodes"):
        path_graph(10**7)
    with pytest.raises(ProblemTooLargeError, match="nodes"):
        grid_graph((1000, 1000))


def test_node_values_need_numbers() -> None:
    g = nx.path_graph(["a", "b"])
    with pytest.raises(TypeError, match="numeric 'value'"):
        node_values(g)
