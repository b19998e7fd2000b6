"""The optimal ε-local-DP randomizer of a finite set of inputs: the public entry point."""

from __future__ import annotations

import logging
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from optmech._deprecation import renamed_keyword, warn_deprecated
from optmech._validation import check_flag, check_real
from optmech.constraints import Monotone, as_constraints
from optmech.lp.engine.report import reporting, stage
from optmech.lp.local.result import LocalMechanism, grid_statement
from optmech.lp.matrix.envelope import Objective
from optmech.lp.matrix.envelope_engine import solve_local
from optmech.lp.matrix.envelope_setting import (
    DEFAULT_LOCAL_MEMORY_GB,
    OBJECTIVES,
    LocalSetting,
    check_local_objective,
    resolve_local_setting,
    uniform_prior,
)
from optmech.lp.matrix.result import UserObjective
from optmech.lp.matrix.setting import check_epsilon
from optmech.mechanisms.rr_on_bins import optimal_bins, supported_loss
from optmech.provenance import DEFAULT_ACCURACY, warn_if_uncertified

__all__ = ["OBJECTIVES", "local_mechanism", "resolve_objective"]

_log = logging.getLogger(__name__)


def resolve_objective(prior: Any, objective: Any) -> tuple[str, Any]:
    """The objective and the prior `local_mechanism` solves for (the prior
    ``None`` under minimax; ``"uniform"`` is kept as given, resolved with the inputs).

    ``objective=None`` is Bayesian, except with ``prior=None``: the minimax objective of
    earlier versions, which warns (DeprecationWarning) and asks for ``objective="minimax"``.

    Raises
    ------
    ValueError
        An objective that is not one of `OBJECTIVES`, a prior under minimax (it would be
        ignored), or no prior under the Bayesian objective.
    """
    if objective is None:
        if prior is None:
            warn_deprecated(
                "`local_mechanism(None, ...)` (the minimax objective by omission)",
                '`local_mechanism(None, ..., objective="minimax")`',
                stacklevel=5,
            )
            return "minimax", None
        return "bayesian", prior
    return check_local_objective(prior, objective)


def _continuous_optimum(setting: LocalSetting, epsilon: float, constrained: bool) -> float | None:
    """RR-on-Bins' value when it is the continuous optimum the grid approximates."""
    if constrained or setting.prior is None or setting.cost is None:
        return None
    x, y = setting.inputs, setting.outputs
    if not (y[0] <= x[0] and y[-1] >= x[-1]):
        return None
    try:
        loss = supported_loss(setting.cost)
    except ValueError:
        return None
    return optimal_bins(x, setting.prior, epsilon, loss).value


@renamed_keyword("loss", "cost")
def local_mechanism(
    prior: npt.ArrayLike | Literal["uniform"] | None,
    cost: Any,
    epsilon: float,
    *,
    objective: Literal["bayesian", "minimax"] | None = None,
    inputs: npt.ArrayLike,
    outputs: npt.ArrayLike | None = None,
    constraints: Any = (),
    solver: str | None = None,
    vertex: bool = False,
    normalize: bool = False,
    max_memory_gb: float = DEFAULT_LOCAL_MEMORY_GB,
    accuracy: float = DEFAULT_ACCURACY,
    progress: bool = False,
) -> LocalMechanism:
    """The optimal ε-local-DP (ε-label-DP) randomizer of ``inputs`` onto ``outputs``.

    Minimises the expected loss $Σ_x p(x) Σ_y Q(y | x) ℓ(y, x)$ (``objective="bayesian"``;
    Ghazi et al. (2023)) or the worst input's $max_x Σ_y Q(y | x) ℓ(y, x)$
    (``objective="minimax"``), over
    all randomizers with ``Q(y | x) ≤ e^ε Q(y | x')`` for *every* pair of inputs (the complete
    neighbour graph; Kairouz, Oh & Viswanath (2016)), subject to the caller's
    ``constraints``. The LP uses the per-column envelope $t_y ≤ Q(y | x) ≤ e^ε t_y$: $2·n·m$
    rows, never $n²·m$ (`optmech.lp.matrix.envelope`).

    Parameters
    ----------
    prior : array_like, "uniform" or None
        Prior over the inputs (non-negative, summing to 1 within 1e-9, or set ``normalize``),
        or ``"uniform"``, for the Bayesian objective; ``None`` for the minimax one, which
        weighs no prior.
    cost : Cost, str, callable or array_like
        The cost of the error: a cost of $output − input$ (``"squared"``, ``Absolute()``,
        ...), a callable ``loss(output, input)`` on numpy arrays (two positional parameters),
        or a loss matrix of shape ``(len(inputs), len(outputs))``. (Formerly ``loss``, still
        accepted as a keyword, with a DeprecationWarning.)
    epsilon : float
        Privacy level, in (0, 50].
    objective : {"bayesian", "minimax"}, optional
        ``"bayesian"``: the prior's expected loss (the default; ``optmech local``'s too);
        ``"minimax"``: the worst input's, with ``prior=None`` (a prior is refused, never
        ignored). Leaving it out with ``prior=None`` is the minimax objective of earlier
        versions, deprecated (DeprecationWarning): pass ``objective="minimax"``.
    inputs : array_like
        The input values (labels): strictly increasing reals, at least 2.
    outputs : array_like, optional
        The output grid: strictly increasing reals, not necessarily the inputs; default the
        inputs. With `Unbiased` it must reach beyond the inputs
        on both sides.
    constraints : constraint, callable or sequence of them
        From `optmech.constraints`: ``Unbiased()``, ``MaxRisk(b)``,
        ``Monotone()``, ``TailBound(t, q)``, ``MaxCost(cost, b)``, or callables receiving the
        cvxpy variables (``variables.mechanism``, ``variables.envelope``) and returning cvxpy
        constraints. The returned mechanism meets each declarative one to a residual of at
        most 1e-9 relative; each is listed with its residual in ``provenance.constraints``.
    solver : str, optional
        LP solver; default by the count-LP policy (HiGHS on small LPs, Clarabel above).
    vertex : bool, default False
        Ask for a vertex (simplex; slower above a few thousand variables). A vertex uses at
        most as many outputs as the LP has equality rows per input: ``n`` without constraints
        (the bins of RR-on-Bins), ``2n`` with ``Unbiased`` (Badanidiyuru et al. (2023)).
    normalize : bool, default False
        Rescale a prior that does not sum to 1.
    max_memory_gb : float, default 1.0
        Refuse LPs whose estimated memory exceeds this (about 250,000 variables), before
        building anything.
    accuracy : float, default 1e-6
        Warn when the certified interval ``[lower_bound, value]`` is wider than this (relative
        to ``max(value, 1)``); in (0, 1].
    progress : bool, default False
        Show a progress bar (tqdm, on stderr) of the stages and solver attempts, with the
        elapsed time; the stages are logged at INFO on the ``"optmech"`` logger either way.

    Returns
    -------
    LocalMechanism
        A `UserMechanism` over the complete graph, plus
        ``grid``: how far the grid's value can be from the continuous optimum.

    Raises
    ------
    ValueError, TypeError
        Bad inputs, outputs, prior, cost, ε, objective or constraints (named); a prior under
        the minimax objective or none under the Bayesian one; outputs that cannot meet
        ``Unbiased``.
    ProblemTooLargeError
        More than ``max_memory_gb`` of estimated memory (200 inputs x 2000 outputs is refused
        by default).
    InfeasibleConstraintsError
        The constraints admit no ε-LDP mechanism on these outputs (the error names them).
    SolverError
        Every solver attempt failed.

    Examples
    --------
    >>> import numpy as np
    >>> res = local_mechanism([0.5, 0.5], "squared", np.log(3.0), inputs=[0.0, 1.0],
    ...                       outputs=[0.0, 0.25, 0.5, 0.75, 1.0])
    >>> round(res.value, 9)   # RR-on-Bins: bins {0}, {1}, outputs 1/4, 3/4
    0.1875
    >>> res.certified_epsilon <= np.log(3.0) and res.lower_bound <= res.value
    True
    >>> worst = local_mechanism(None, "squared", np.log(3.0), objective="minimax",
    ...                         inputs=[0.0, 1.0], outputs=[0.0, 0.25, 0.5, 0.75, 1.0])
    >>> round(worst.value, 9)  # symmetric: the same bins, each label's loss 3/16
    0.1875
    """
    prior = resolve_objective(prior, objective)[1]
    eps = check_epsilon(epsilon)
    normalize = check_flag("normalize", normalize)
    vertex = check_flag("vertex", vertex)
    progress = check_flag("progress", progress)
    acc = check_real("accuracy", accuracy, low=0.0, high=1.0, low_open=True)
    items = as_constraints(constraints)
    extra = 0
    if any(isinstance(c, Monotone) for c in items) and np.ndim(inputs) == 1:
        rows = np.size(inputs) - 1
        extra = rows * (np.size(outputs) if outputs is not None else rows + 1)
    setting = resolve_local_setting(
        uniform_prior(prior, inputs),
        cost,
        inputs=inputs,
        outputs=outputs,
        normalize=normalize,
        extra_variables=extra,
        max_memory_gb=max_memory_gb,
    )
    if setting.prior is None:
        lp_objective = Objective(forms=setting.loss)
        user_objective = UserObjective.MINIMAX
    else:
        lp_objective = Objective(weights=setting.prior[:, None] * setting.loss)
        user_objective = UserObjective.BAYESIAN
    n, m = setting.num_inputs, setting.num_outputs
    with (
        reporting(progress=progress, what="local_mechanism"),
        stage("local LP", _log, inputs=n, outputs=m, constraints=len(items)) as found,
    ):
        solved = solve_local(
            setting, eps, lp_objective, items, solver=solver, accuracy=acc, vertex=vertex
        )
        found.update(value=solved.provenance.value, lower_bound=solved.provenance.lower_bound)
    declared = tuple(c for c in items if c.kind != "custom")
    grid = grid_statement(setting, declared, _continuous_optimum(setting, eps, bool(items)))
    result = LocalMechanism._of(
        solved,
        setting.user_setting(),
        eps,
        user_objective,
        prior=setting.prior,
        side_information=None if setting.prior is not None else np.arange(n),
        grid=grid,
    )
    warn_if_uncertified(result.provenance)
    return result
