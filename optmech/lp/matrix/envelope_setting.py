"""The setting of a local randomizer: inputs, outputs, loss matrix and prior, validated once.

In the local model (equivalently, label DP for one label) every pair of inputs is a pair of
neighbours: ``Q(y | x) ≤ e^ε Q(y | x')`` for all ``x, x'`` and every output ``y``
(Kairouz, Oh & Viswanath (2016); Ghazi et al. (2023)). The inputs are any
strictly increasing reals (labels), the outputs any strictly increasing finite grid of reals,
not necessarily the inputs.

`resolve_local_setting` turns a caller's loss (an optmech cost of
``output − input``, a callable ``loss(output, input)`` on arrays, or a loss matrix) into the
matrix ``L[i, r] = ℓ(y_r, x_i)``, and refuses an LP whose size would exceed the memory budget
*before* anything is built (`check_local_size`).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from optmech._floats import FloatArray
from optmech._validation import check_prior, check_real_array, describe
from optmech.costs import Cost, as_cost
from optmech.exceptions import ProblemTooLargeError
from optmech.graphs import edge_pairs
from optmech.lp.limits import LOCAL_BYTES_PER_VARIABLE, LOCAL_MEMORY_GB
from optmech.lp.matrix.setting import UserSetting, check_budget, check_lp_size
from optmech.mechanisms.rr_on_bins import check_labels

__all__ = [
    "DEFAULT_LOCAL_MEMORY_GB",
    "MAX_CERTIFIED_ENTRIES",
    "OBJECTIVES",
    "LocalSetting",
    "check_local_objective",
    "check_local_size",
    "resolve_local_setting",
    "uniform_prior",
]

#: The objectives of the local designers: the prior's expected loss, or the worst input's.
OBJECTIVES = ("bayesian", "minimax")


def check_local_objective(prior: Any, objective: Any) -> tuple[str, Any]:
    """The objective named (one of `OBJECTIVES`) and the prior it solves for: the prior
    ``None`` under minimax, a prior under the Bayesian objective (``"uniform"`` is kept as
    given, `uniform_prior` resolves it with the inputs).

    Raises
    ------
    ValueError
        An objective that is not one of `OBJECTIVES`, a prior under minimax (it would be
        ignored), or no prior under the Bayesian objective.
    """
    if not isinstance(objective, str) or objective.lower() not in OBJECTIVES:
        raise ValueError(
            f"`objective` must be one of {', '.join(repr(o) for o in OBJECTIVES)}; got "
            f"{objective!r}."
        )
    kind = objective.lower()
    if kind == "minimax" and prior is not None:
        raise ValueError(
            "`prior` does not apply to objective='minimax' (the worst input's loss weighs no "
            f"prior); pass prior=None, or objective='bayesian' for the prior's expected loss; got "
            f"a prior of type {type(prior).__name__}."
        )
    if kind == "bayesian" and prior is None:
        raise ValueError(
            "`prior` must be given for objective='bayesian' (probabilities of the inputs, or "
            "'uniform'); got None. For the worst input's loss pass objective='minimax'."
        )
    return kind, prior


def uniform_prior(prior: Any, inputs: Any) -> Any:
    """The uniform prior over ``inputs`` for ``prior="uniform"``; any other prior as given."""
    if isinstance(prior, str):
        if prior.strip().lower() != "uniform":
            raise ValueError(
                f"`prior` must be probabilities of the inputs or 'uniform'; got {prior!r}."
            )
        count = np.size(inputs)
        return np.full(count, 1.0 / count) if count else np.zeros(0)
    return prior


#: Default budget of the local LP (`optmech.lp.limits.LOCAL_MEMORY_GB`).
DEFAULT_LOCAL_MEMORY_GB = LOCAL_MEMORY_GB
#: Largest number of (pair of inputs, output) ratios the certifier compares over the complete
#: graph (``n(n − 1)/2 · m``); about 10 s of certification at the limit.
MAX_CERTIFIED_ENTRIES = 100_000_000


@dataclass(frozen=True)
class LocalSetting:
    """Inputs (labels) and output grid, both strictly increasing, loss matrix ``loss[i, r] =
    ℓ(y_r, x_i)`` (finite, non-negative) and prior of a local randomizer, resolved and
    validated. ``cost`` is the cost of ``output − input`` the loss was built from (None for a
    callable of two arguments or a matrix); ``prior`` is None for the minimax objective."""

    inputs: FloatArray
    outputs: FloatArray
    loss: FloatArray
    cost: Cost | None
    prior: FloatArray | None

    @property
    def num_inputs(self) -> int:
        """``n``."""
        return int(self.inputs.size)

    @property
    def num_outputs(self) -> int:
        """``m``."""
        return int(self.outputs.size)

    def user_setting(self) -> UserSetting:
        """The same setting as the user LPs describe it: the complete graph on the inputs."""
        graph = nx.complete_graph(self.num_inputs)
        nx.set_node_attributes(graph, dict(enumerate(self.inputs.tolist())), "value")
        return UserSetting(
            graph, self.inputs, self.outputs, self.loss, self.cost, *edge_pairs(graph)
        )


def _two_arguments(function: Any) -> bool:
    """Whether ``function`` takes two positional arguments (``loss(output, input)``)."""
    try:
        params = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature: a cost of one argument
        return False
    positional = [
        p
        for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    return len(positional) == 2


def _loss_matrix(loss: Any, x: FloatArray, y: FloatArray) -> tuple[FloatArray, Cost | None]:
    """``L[i, r] = ℓ(y_r, x_i)`` from a cost, a two-argument callable or a matrix."""
    shape = (x.size, y.size)
    if isinstance(loss, np.ndarray | list | tuple):
        matrix = check_real_array("loss", loss, ndim=2)
        if matrix.shape != shape:
            raise ValueError(
                f"`loss` matrix must have one row per input and one column per output {shape}; "
                f"got shape {matrix.shape}."
            )
        cost = None
    elif callable(loss) and not isinstance(loss, Cost) and _two_arguments(loss):
        try:
            values = loss(y[None, :], x[:, None])
        except Exception as exc:
            raise ValueError(
                f"`loss(output, input)` must accept numpy arrays; calling it raised "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        matrix = np.broadcast_to(np.asarray(values, dtype=np.float64), shape).copy()
        cost = None
    else:
        cost = as_cost(loss)
        matrix = cost.loss_matrix(x, y)
    if not np.all(np.isfinite(matrix)) or np.any(matrix < 0):
        raise ValueError(
            f"`loss` must be finite and non-negative on the inputs and outputs; got "
            f"{describe(loss)} with values in [{float(np.nanmin(matrix))}, "
            f"{float(np.nanmax(matrix))}]."
        )
    return matrix, cost


def check_local_size(
    num_inputs: int,
    num_outputs: int,
    *,
    extra_variables: int = 0,
    max_memory_gb: Any = DEFAULT_LOCAL_MEMORY_GB,
) -> None:
    """Refuse a local LP that would exceed ``max_memory_gb`` (estimated) or whose certification
    over the complete graph would compare more than `MAX_CERTIFIED_ENTRIES` ratios.

    Raises
    ------
    ProblemTooLargeError
        Naming the size, the estimate and the limit, before anything is built.
    """
    budget, _ = check_budget(max_memory_gb)
    n, m = num_inputs, num_outputs
    check_lp_size(
        f"the local LP would have {n} inputs x {m} outputs = {n * m} mechanism entries "
        f"({n * m + m + extra_variables} variables)",
        n * m + m + extra_variables,
        max_memory_gb=budget,
        bytes_per_variable=LOCAL_BYTES_PER_VARIABLE,
        hint="(140 x 1400 takes about 30 s and 1 GB; a coarser output grid or fewer, binned "
        "labels shrink it.) ",
    )
    entries = n * (n - 1) // 2 * m
    if entries > MAX_CERTIFIED_ENTRIES:
        raise ProblemTooLargeError(
            f"certifying a local mechanism with {n} inputs and {m} outputs compares "
            f"{entries} ratios over every pair of inputs, more than {MAX_CERTIFIED_ENTRIES}; "
            "refused before building anything. Bin the labels into fewer inputs."
        )


def resolve_local_setting(
    prior: Any,
    loss: Any,
    *,
    inputs: Any,
    outputs: Any = None,
    normalize: bool = False,
    extra_variables: int = 0,
    max_memory_gb: Any = DEFAULT_LOCAL_MEMORY_GB,
) -> LocalSetting:
    """Validate and resolve a local randomizer's setting (module docstring).

    Parameters
    ----------
    prior : array_like or None
        Prior over the inputs (``None``: the minimax objective).
    loss : Cost, str, callable or array_like
        A cost of ``output − input``, a callable ``loss(output, input)`` on arrays (two
        positional parameters; a callable of one is a cost of the error), or a matrix of shape
        ``(len(inputs), len(outputs))``.
    inputs : array_like
        Input values, strictly increasing, at least 2.
    outputs : array_like, optional
        Output grid, strictly increasing; default the inputs.
    normalize : bool
        Rescale a prior that does not sum to 1.
    extra_variables : int
        Variables beyond the mechanism and its envelope (a monotonicity constraint's).
    max_memory_gb : float
        Memory budget of the LP, in (0, inf].
    """
    x = check_labels(inputs, "inputs")
    y = x.copy() if outputs is None else check_labels(outputs, "outputs")
    check_local_size(x.size, y.size, extra_variables=extra_variables, max_memory_gb=max_memory_gb)
    p = None
    if prior is not None:
        p = check_prior(check_real_array("prior", prior, ndim=1), x.size, normalize=normalize)
    matrix, cost = _loss_matrix(loss, x, y)
    return LocalSetting(inputs=x, outputs=y, loss=matrix, cost=cost, prior=p)
