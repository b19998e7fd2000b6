"""Privacy on a neighbour graph for the constrained mechanism-matrix LP (the user LPs).

The local LP states ε-LDP over the complete graph through the column envelope
(`envelope_rows`). The count-query and graph user LPs
(Ghosh, Roughgarden & Sundararajan (2012), LP (2)–(6)) state ε-DP only on the edges ``i ~ i'``
of their neighbour graph: ``Q[i, r] ≤ e^ε Q[i', r]`` in both directions. A
`NeighbourGraph` hands the constrained engine
(`optmech.lp.matrix.envelope_engine`) those rows on the LP's
variable ``z``
(the same sparse rows as the unconstrained user LP, ``privacy_matrix`` of
``optmech.lp.matrix.build``), the graph's lower closure for the
repair (`lower_closure`) and its pairs for the
certifier. The envelope variables of ``z`` are then unused (no row holds them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray, IntArray
from optmech.graphs import edge_pairs, is_path_graph
from optmech.lp.matrix.build import privacy_matrix
from optmech.lp.matrix.repair import lower_closure
from optmech.lp.matrix.rows import Layout, RowFamily

__all__ = ["NeighbourGraph"]


@dataclass(frozen=True)
class NeighbourGraph:
    """The neighbour graph whose edges carry the privacy rows (its node order is the row order
    of ``Q``), its edges as row-index pairs and whether it is the path ``0 ~ 1 ~ … ~ n`` (a
    faster closure)."""

    graph: nx.Graph = field(repr=False)
    src: IntArray = field(repr=False)
    dst: IntArray = field(repr=False)
    path: bool

    @classmethod
    def of(cls, graph: nx.Graph) -> NeighbourGraph:
        """The graph's edges and shape."""
        return cls(graph, *edge_pairs(graph), is_path_graph(graph))

    @property
    def pairs(self) -> IntArray:
        """The edges as an ``(|E|, 2)`` array, for the certifier."""
        return np.stack([self.src, self.dst], axis=1)

    def rows(self, layout: Layout, epsilon: float, rescaled: bool) -> tuple[RowFamily, ...]:
        """``Q[a, r] − e^ε Q[b, r] ≤ 0`` on every edge, both directions (divided by ``e^ε``
        when ``rescaled``), on ``z``."""
        lo, hi = (math.exp(-epsilon), 1.0) if rescaled else (1.0, math.exp(epsilon))
        a = privacy_matrix(self.graph, layout.num_outputs, lo, hi)
        on_z = sp.csr_matrix((a.data, a.indices, a.indptr), shape=(a.shape[0], layout.size))
        return (RowFamily("privacy", on_z, np.zeros(a.shape[0]), False),)

    def closure(self, x: FloatArray, level: float) -> FloatArray:
        """The smallest ``Y ≥ x`` with ratio ``e^level`` on every edge."""
        return lower_closure(x, level, self.src, self.dst, self.path)
