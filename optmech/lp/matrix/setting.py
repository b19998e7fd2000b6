"""The setting of a user LP: inputs, outputs, neighbour graph and loss matrix, validated once.

A **user** of a query with results (inputs) ``i`` has a loss ``l(i, r)`` for answer ``r``
(Ghosh, Roughgarden & Sundararajan (2012), §2.2). `resolve_setting` turns what a
caller gives (a cost of ``output − input`` or a loss matrix, a neighbour graph or a count-query
size, an output set) into a `UserSetting`, and refuses an LP whose estimated solver
memory exceeds the caller's budget *before* any loss matrix or graph is built.

Size limits follow one convention throughout `optmech.lp.user`: the estimated peak memory
of the solve against ``max_memory_gb``; every refusal quotes the estimate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from optmech._floats import FloatArray, IntArray
from optmech._validation import check_epsilon as _check_epsilon
from optmech._validation import check_int, check_real, check_real_array, describe
from optmech.costs import Cost, as_cost
from optmech.exceptions import ProblemTooLargeError
from optmech.graphs import (
    check_graph,
    default_outputs,
    edge_pairs,
    is_path_graph,
    node_values,
    path_graph,
)
from optmech.lp.limits import USER_BYTES_PER_VARIABLE, USER_MEMORY_GB, budget_to_run
from optmech.lp.matrix.size_model import FULL_LP, SizeModel

__all__ = [
    "BYTES_PER_VARIABLE",
    "DEFAULT_MAX_MEMORY_GB",
    "EPSILON_MAX",
    "UserSetting",
    "check_budget",
    "check_epsilon",
    "check_lp_size",
    "resolve_setting",
    "side_information_rows",
    "size_remedy",
]


#: Largest ε accepted: beyond it ``e^ε`` exceeds 1e21 and the LP's coefficients are meaningless.
EPSILON_MAX = 50.0
#: Peak resident memory per LP variable (`optmech.lp.limits.USER_BYTES_PER_VARIABLE`).
BYTES_PER_VARIABLE = USER_BYTES_PER_VARIABLE
#: Default memory budget of a user LP (`optmech.lp.limits.USER_MEMORY_GB`).
DEFAULT_MAX_MEMORY_GB = USER_MEMORY_GB


def check_epsilon(epsilon: Any) -> float:
    """``epsilon`` as a float in (0, 50] (`EPSILON_MAX`)."""
    return _check_epsilon(
        epsilon, high=EPSILON_MAX, hint="larger ε makes e^ε exceed 1e21 and the LP meaningless"
    )


def _gb(value: float) -> str:
    return f"{value:.1f}" if value >= 0.1 else f"{value:.2g}"


def check_lp_size(
    what: str,
    num_variables: int,
    *,
    max_memory_gb: float,
    max_variables: int | None = None,
    bytes_per_variable: float = BYTES_PER_VARIABLE,
    hint: str = "",
    remedy: str = "",
) -> None:
    """Refuse an LP whose estimated memory exceeds ``max_memory_gb`` (or ``max_variables``):
    `ProblemTooLargeError` naming the LP, its size, the memory estimate and the limit that
    refused it. ``remedy`` (a sentence) replaces the closing advice to raise ``max_memory_gb``.
    """
    need = num_variables * bytes_per_variable / 1e9  # peak solver memory, GB
    estimate = f"about {_gb(need)} GB of solver memory"
    if max_variables is not None and num_variables > max_variables:
        limit = f"more than max_variables = {max_variables}"
    elif need > max_memory_gb:
        limit = f"more than max_memory_gb = {_gb(max_memory_gb)}"
    else:
        return
    advice = remedy or (
        f"To run it: max_memory_gb={budget_to_run(need)}, if the machine has the memory."
    )
    raise ProblemTooLargeError(
        f"{what} ({estimate}), {limit}; refused before building anything. {hint}{advice}"
    )


def size_remedy(
    model: SizeModel, shape: tuple[int, int], alternatives: tuple[SizeModel, ...] = ()
) -> str:
    """What lets a refused LP run: the ``max_memory_gb`` its estimate needs, and each other
    admissible method with its own estimate.

    Examples
    --------
    >>> from optmech.lp.matrix.size_model import COLUMN_GENERATION_BAYESIAN, FULL_LP
    >>> for part in size_remedy(FULL_LP, (1001, 1001), (COLUMN_GENERATION_BAYESIAN,)).split(", "):
    ...     print(part)
    To run it: max_memory_gb=2.4 (the estimate of the full LP)
    or method='column-generation' (column generation
    about 0.2 GB).
    """
    need = model.memory_gb(*shape)
    text = f"To run it: max_memory_gb={budget_to_run(need)} (the estimate of {model.method})"
    for other in alternatives:
        text += (
            f", or method='{other.option}' ({other.method}, about "
            f"{_gb(other.memory_gb(*shape))} GB)"
        )
    return text + "."


def check_matrix_lp_size(
    name: str,
    shape: tuple[int, int],
    *,
    max_memory_gb: float,
    max_variables: int | None = None,
    size_model: SizeModel | None = None,
    alternatives: tuple[SizeModel, ...] = (),
) -> None:
    """`check_lp_size` of the ``name`` LP whose variables are a mechanism
    matrix of ``shape`` (inputs, outputs), estimated by ``size_model`` (the refusal names its
    method, quotes its note and says which ``max_memory_gb``, or which of the other admissible
    methods ``alternatives``, would let it run) or, without one, at `BYTES_PER_VARIABLE`."""
    n_in, n_out = shape
    what = f"the {name} LP would have {n_in} x {n_out} = {n_in * n_out} variables"
    if size_model is None:
        check_lp_size(what, n_in * n_out, max_memory_gb=max_memory_gb, max_variables=max_variables)
        return
    check_lp_size(
        f"{what}, solved by {size_model.method}",
        n_in * n_out,
        max_memory_gb=max_memory_gb,
        max_variables=max_variables,
        bytes_per_variable=size_model.bytes_per_variable(*shape),
        hint=size_model.note(*shape),
        remedy=size_remedy(size_model, shape, alternatives),
    )


def check_budget(max_memory_gb: Any, max_variables: Any = None) -> tuple[float, int | None]:
    """``max_memory_gb`` as a float in (0, inf] and ``max_variables`` as an int ≥ 1 or None."""
    if isinstance(max_memory_gb, float | int) and max_memory_gb == math.inf:
        budget = math.inf
    else:
        budget = check_real(
            "max_memory_gb", max_memory_gb, low=0.0, low_open=True, hint="or math.inf"
        )
    cap = None if max_variables is None else check_int("max_variables", max_variables, low=1)
    return budget, cap


@dataclass(frozen=True)
class UserSetting:
    """Inputs, outputs, neighbour graph and loss matrix of a user LP, resolved and validated.

    Attributes
    ----------
    graph : networkx.Graph
        The neighbour graph; its node order is the row order.
    values : ndarray
        Query result of each input (node values).
    outputs : ndarray
        The output set (labels of the mechanism's columns).
    loss : ndarray, shape (N, m)
        ``loss[i, r]``: the loss of answering output ``r`` on input ``i``.
    cost : Cost or None
        The cost the loss was built from (``None`` for a loss matrix given directly).
    src, dst : ndarray of int
        Edges as row-index pairs.
    """

    graph: nx.Graph
    values: FloatArray
    outputs: FloatArray
    loss: FloatArray
    cost: Cost | None
    src: IntArray
    dst: IntArray

    @property
    def num_inputs(self) -> int:
        """``N``, the number of rows."""
        return int(self.loss.shape[0])

    @property
    def num_outputs(self) -> int:
        """``m``, the number of columns."""
        return int(self.loss.shape[1])

    @property
    def is_path(self) -> bool:
        """Whether the graph is the path ``0 ~ 1 ~ … ~ n`` in node order."""
        return is_path_graph(self.graph)

    @property
    def is_count_query(self) -> bool:
        """The GRS setting: the path graph on ``{0..n}`` with outputs ``{0..n}``."""
        n1 = self.num_inputs
        return (
            self.is_path
            and self.outputs.ndim == 1
            and self.outputs.size == n1
            and bool(np.array_equal(self.outputs, np.arange(n1)))
            and bool(np.array_equal(self.values, np.arange(n1)))
        )

    @property
    def pairs(self) -> IntArray:
        """Edges as an ``(|E|, 2)`` array of row indices (for the certifier)."""
        return np.stack([self.src, self.dst], axis=1)


def _cost_loss(cost: Cost, values: FloatArray, outputs: FloatArray) -> FloatArray:
    """``L[i, r] = Σ_k c(outputs[r, k] − values[i, k])`` (one term for a single query)."""
    if values.ndim == 1 and outputs.ndim == 1:
        return cost.loss_matrix(values, outputs)
    v = values.reshape(values.shape[0], -1)
    o = outputs.reshape(outputs.shape[0], -1)
    if v.shape[1] != o.shape[1]:
        raise ValueError(
            f"`outputs` must have the dimension of the query results ({v.shape[1]}); got "
            f"{o.shape[1]}."
        )
    out = np.zeros((v.shape[0], o.shape[0]))
    for k in range(v.shape[1]):  # one term per query (a handful), vectorised over the matrix
        out += cost.loss_matrix(v[:, k], o[:, k])
    return out


def _num_inputs(graph: nx.Graph | None, num_inputs: int | None, matrix: Any) -> int:
    if graph is not None:
        return graph.number_of_nodes()
    if num_inputs is not None:
        return num_inputs
    if matrix is not None:
        return int(matrix.shape[0])
    raise ValueError("the number of inputs is unknown: give `n`, a `graph` or a loss matrix.")


def _outputs(outputs: Any, matrix: Any, graph: nx.Graph | None) -> FloatArray | None:
    if outputs is not None:
        out_arr = check_real_array("outputs", outputs)
        if out_arr.ndim not in (1, 2):
            raise ValueError(f"`outputs` must be 1- or 2-dimensional; got shape {out_arr.shape}.")
        return out_arr
    if matrix is not None:
        return np.arange(matrix.shape[1], dtype=np.float64)
    if graph is not None:
        return default_outputs(graph)
    return None


def _loss_matrix(
    matrix: FloatArray | None, cost: Cost | None, graph: nx.Graph, outputs: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """The loss matrix and the node values (validated non-negative and finite)."""
    if matrix is None:
        values = node_values(graph)
        loss = _cost_loss(cost, values, outputs)  # type: ignore[arg-type]
        if not np.all(np.isfinite(loss)) or np.any(loss < 0):
            raise ValueError(f"the loss {cost!r} must be finite and non-negative on the outputs.")
        return loss, values
    if np.any(matrix < 0):
        raise ValueError(f"`loss` must be non-negative; smallest entry {float(matrix.min())!r}.")
    try:
        values = node_values(graph)
    except TypeError:  # nodes without numeric values: a loss matrix needs none
        values = np.arange(matrix.shape[0], dtype=np.float64)
    return matrix, values


def resolve_setting(
    loss: Any,
    *,
    graph: nx.Graph | None = None,
    outputs: Any = None,
    num_inputs: int | None = None,
    max_memory_gb: float = DEFAULT_MAX_MEMORY_GB,
    max_variables: int | None = None,
    size_model: SizeModel = FULL_LP,
    alternatives: tuple[SizeModel, ...] = (),
) -> UserSetting:
    """Resolve a user's loss, graph and outputs into a `UserSetting`, validating sizes.

    The number of inputs comes from ``graph``, else ``num_inputs``, else the rows of a loss
    matrix; the LP's estimated memory (inputs × outputs variables) is checked against
    ``max_memory_gb`` *before* any loss matrix or graph is built (`ProblemTooLargeError`,
    quoting the estimate of ``size_model`` and its source).

    Parameters
    ----------
    loss : Cost, str, callable or array_like
        A cost of ``output − input`` (`optmech.costs.as_cost`), or a loss matrix ``L[i, r]`` of
        shape (inputs, outputs).
    graph : networkx.Graph, optional
        Neighbour graph; default the count-query path on ``{0..N−1}``.
    outputs : array_like, optional
        Output set (numbers, or rows of numbers for several queries); default the graph's
        (`optmech.graphs.default_outputs`), or ``0..m−1`` for a loss matrix with m columns.
    num_inputs : int, optional
        Number of inputs when no graph is given.
    max_memory_gb : float
        Refuse LPs whose estimated solver memory exceeds this many GB, in (0, inf].
    max_variables : int, optional
        Also refuse LPs with more variables than this (kept for backward compatibility).
    size_model : SizeModel
        How the LP will be solved, for the memory estimate (`optmech.lp.matrix.size_model`);
        default the full LP.
    alternatives : tuple of SizeModel
        The other methods that would solve it (named in a refusal with their estimates).
    """
    budget, cap = check_budget(max_memory_gb, max_variables)
    matrix = None
    if isinstance(loss, np.ndarray) or (isinstance(loss, list | tuple) and np.ndim(loss) == 2):
        matrix = check_real_array("loss", loss, ndim=2)
    cost = None if matrix is not None else as_cost(loss)
    if graph is not None:
        graph = check_graph(graph)
    n_in = _num_inputs(graph, num_inputs, matrix)
    if n_in < 2:
        raise ValueError(f"a mechanism needs at least 2 inputs (n ≥ 1); got {n_in}.")
    if matrix is not None and matrix.shape[0] != n_in:
        raise ValueError(
            f"`loss` matrix must have one row per input ({n_in}); got shape {matrix.shape}."
        )
    out_arr = _outputs(outputs, matrix, graph)
    n_out = n_in if out_arr is None else out_arr.shape[0]
    check_matrix_lp_size(
        "user",
        (n_in, n_out),
        max_memory_gb=budget,
        max_variables=cap,
        size_model=size_model,
        alternatives=alternatives,
    )
    if matrix is not None and matrix.shape[1] != n_out:
        raise ValueError(
            f"`loss` matrix must have one column per output ({n_out}); got shape {matrix.shape}."
        )
    if graph is None:
        graph = path_graph(n_in - 1)
    if out_arr is None:
        out_arr = default_outputs(graph)
    loss_m, values = _loss_matrix(matrix, cost, graph, out_arr)
    return UserSetting(graph, values, out_arr, loss_m, cost, *edge_pairs(graph))


def side_information_rows(side_information: Any, graph: nx.Graph) -> IntArray:
    """Row indices of the side-information set S (node labels of ``graph``); all rows if None.

    Examples
    --------
    >>> side_information_rows([3, 1, 3], path_graph(4)).tolist()
    [1, 3]
    """
    nodes = list(graph.nodes)
    if side_information is None:
        return np.arange(len(nodes), dtype=np.int64)
    if isinstance(side_information, str | bytes) or not hasattr(side_information, "__iter__"):
        raise TypeError(
            f"`side_information` must be a collection of inputs such as [0, 3, 5]; got "
            f"{describe(side_information)}."
        )
    index = {v: k for k, v in enumerate(nodes)}
    items = list(side_information)
    if not items:
        raise ValueError("`side_information` must contain at least one input; got an empty set.")
    rows = []
    for item in items:
        key = tuple(item) if isinstance(item, list | np.ndarray) else item
        if isinstance(key, np.integer):
            key = int(key)
        if key not in index:
            raise ValueError(
                f"`side_information` must contain inputs of the graph ({nodes[0]!r} … "
                f"{nodes[-1]!r}); got {describe(item)}."
            )
        rows.append(index[key])
    return np.unique(np.asarray(rows, dtype=np.int64))
