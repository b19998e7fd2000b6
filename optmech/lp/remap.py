"""Remaps of a mechanism: the remap result, the Bayes remap and the minimax remap LP.

Ghosh, Roughgarden & Sundararajan (2012) ("GRS" below), §2.2 and §5. A **remap** ``T``
(row-stochastic, ``T[z, r] = P(report r | mechanism said z)``) turns a mechanism ``M`` into
``M T``, which is as private as ``M`` (post-processing). GRS prove that the range-restricted
geometric mechanism ``G`` (GRS §2) followed by a user's remap is optimal for every user with a
monotone loss:

* **Bayes remap** (Bayesian users, GRS §2.2): for each output ``z`` answer
  ``r(z) = argmin_r Σ_i p_i M[i, z] l(i, r)`` — deterministic, `bayes_remap`.
* **Minimax remap** (Gupte & Sundararajan): the best *randomized* ``T`` for
  ``min_T max_{i ∈ S} Σ_r (M T)[i, r] l(i, r)`` — an LP over row-stochastic ``T``,
  `minimax_remap`.

Remaps of ``G`` itself live in ``optmech.lp.geometric_remaps``
(``G`` + the user's remap, the GRS optimum), and the reverse question — is a given mechanism a
remap of ``G``? — in ``optmech.lp.remap_of_geometric``.

Examples
--------
>>> apply_remap([[0.5, 0.5], [0.25, 0.75]], [[1, 0], [1, 0]]).tolist()
[[1.0, 0.0], [1.0, 0.0]]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._deprecation import renamed_keyword
from optmech._floats import FloatArray, IntArray
from optmech._validation import check_prior, check_real, check_real_array
from optmech.lp.matrix.setting import (
    check_budget,
    check_lp_size,
    resolve_setting,
    side_information_rows,
)
from optmech.lp.user.remap_lp import (
    BYTES_PER_COEFFICIENT,
    DEFAULT_REMAP_MEMORY_GB,
    solve_minimax_remap,
)
from optmech.provenance import DEFAULT_ACCURACY, Provenance, warn_if_uncertified
from optmech.results import MechanismResult

__all__ = [
    "RemapKind",
    "RemapResult",
    "apply_remap",
    "bayes_remap",
    "minimax_remap",
]


def _check_mechanism(mechanism: Any, name: str = "mechanism") -> FloatArray:
    m = check_real_array(name, mechanism, ndim=2, nonnegative=True)
    err = float(np.max(np.abs(m.sum(axis=1) - 1.0)))
    if err > 1e-9:
        raise ValueError(
            f"`{name}` rows must sum to 1 (within 1e-9); the worst is off by {err:.3g}."
        )
    return m


def _loss_for(loss: Any, n_in: int | None, outputs: Any) -> FloatArray:
    """Loss matrix for inputs ``0..n_in−1`` (a count query) from a cost or a matrix."""
    return resolve_setting(loss, outputs=outputs, num_inputs=n_in, max_memory_gb=math.inf).loss


def apply_remap(mechanism: npt.ArrayLike, remap: npt.ArrayLike) -> FloatArray:
    """``M T``: the mechanism that runs ``M`` and reports ``r`` with probability ``T[z, r]``.

    Parameters
    ----------
    mechanism : array_like, shape (N, m)
        Row-stochastic.
    remap : array_like, shape (m, k)
        Row-stochastic (rows sum to 1 within 1e-9).

    Examples
    --------
    >>> apply_remap([[0.5, 0.5], [0.25, 0.75]], [[0, 1], [0, 1]]).tolist()
    [[0.0, 1.0], [0.0, 1.0]]
    """
    m = _check_mechanism(mechanism)
    t = _check_mechanism(remap, "remap")
    if t.shape[0] != m.shape[1]:
        raise ValueError(
            f"`remap` must have one row per output of `mechanism` ({m.shape[1]}); "
            f"got shape {t.shape}."
        )
    return m @ t


class RemapKind(StrEnum):
    """Which remap a `RemapResult` holds."""

    #: The Bayes-optimal deterministic remap (GRS §2.2).
    BAYES = "bayes"
    #: The best randomized remap of a minimax user (an LP; Gupte & Sundararajan (2010)).
    MINIMAX = "minimax"


@dataclass(frozen=True, repr=False)
class RemapResult(MechanismResult):
    """A remap and what it does for the user.

    Attributes
    ----------
    remap : ndarray, shape (m, k)
        Row-stochastic ``T``.
    mechanism : ndarray, shape (N, k)
        ``M T``.
    assignment : ndarray of int or None
        Deterministic remaps: the answer ``r(z)`` for each output ``z``.
    kind : RemapKind
        ``"bayes"`` or ``"minimax"``.
    provenance : Provenance
        The interval ``[lower_bound, value]`` containing the best value over *all* remaps of
        this mechanism, and how it was obtained. Bayes remaps are exact (no LP): solver
        ``"none"``, status ``"exact"``, ``value == lower_bound`` — the argmin remap is optimal
        among randomized remaps too, the objective being linear and separable in the rows of
        ``T`` (the value is one floating-point sum, exact to about 1e-16 relative). Minimax
        remaps solve an LP (`optmech.lp.user.remap_lp`): the value is evaluated at the
        returned ``T`` on the true coefficients and rounded up; the lower bound is Lagrangian,
        rounded down.

    Examples
    --------
    >>> import optmech
    >>> best = optmech.geometric_bayes([0.25, 0.25, 0.25, 0.25], "abs", 1.0)
    >>> best.kind, best.remap.shape, best.mechanism.shape
    (<RemapKind.BAYES: 'bayes'>, (4, 4), (4, 4))
    >>> bool(best.lower_bound <= best.value)
    True
    """

    remap: FloatArray
    mechanism: FloatArray
    assignment: IntArray | None
    kind: RemapKind
    provenance: Provenance

    _dict_fields = ("kind", "remap", "assignment", "mechanism")

    @property
    def model(self) -> str:
        """``"Bayes remap"`` or ``"minimax remap"``."""
        return "Bayes remap" if self.kind == RemapKind.BAYES else "minimax remap"

    def rvs(self, true_value: Any, size: Any = None, rng: Any = None) -> Any:
        """Release answers of the remapped `mechanism` for the input of index ``true_value``
        (``0..N − 1``): answer indices (columns of `remap`), drawn exactly from its row."""
        from optmech.lp.matrix.result import input_index, release

        row = input_index(true_value, self.mechanism.shape[0])
        return release(self.mechanism, row, np.arange(self.mechanism.shape[1]), size, rng)

    @property
    def certified_epsilon(self) -> float:
        """ε of the remapped `mechanism` over neighbouring inputs ``i, i + 1`` (a count
        query), certified from its numbers (`certified_epsilon`); a remap is post-processing, so it
        is at most
        the ε of the mechanism remapped."""
        from optmech.certify.matrix import certified_epsilon

        if self.mechanism.shape[0] < 2:
            return 0.0
        return certified_epsilon(self.mechanism)

    def _own_rows(self) -> list[tuple[str, Any]]:
        return [("size", f"{self.remap.shape[0]} outputs → {self.remap.shape[1]} answers")]

    def __repr__(self) -> str:
        return (
            f"RemapResult({self.kind}, {self.remap.shape[0]}x{self.remap.shape[1]}, "
            f"value={self.value:.10g}, lower_bound={self.lower_bound:.10g}, "
            f"solver={self.solver}, status={self.status})"
        )


@renamed_keyword("loss", "cost")
def bayes_remap(
    mechanism: npt.ArrayLike,
    prior: npt.ArrayLike,
    cost: Any,
    *,
    outputs: Any = None,
    normalize: bool = False,
) -> RemapResult:
    """The Bayes-optimal deterministic remap of ``mechanism`` for ``(prior, cost)`` (GRS §2.2).

    $r(z) = argmin_r Σ_i p_i M[i, z] l(i, r)$ for every output ``z`` (vectorised: one matrix
    product ``Mᵀ diag(p) L`` and an argmin per row; ties go to the smallest ``r``).

    Parameters
    ----------
    mechanism : array_like, shape (N, m)
        Rows are the inputs $0..N−1$ (a count query when ``cost`` is a cost).
    prior : array_like, shape (N,)
        Sums to 1 (or ``normalize=True``).
    cost : Cost, str, callable or array_like
        A cost of $answer − input$, or a loss matrix ``L[i, r]`` of shape (N, k).
    outputs : array_like, optional
        The answers ``r`` (default $0..N−1$ for a cost, $0..k−1$ for a matrix).

    Examples
    --------
    >>> import numpy as np
    >>> res = bayes_remap(np.full((3, 3), 1 / 3), [0.1, 0.3, 0.6], "abs")  # posterior = prior
    >>> res.assignment.tolist(), round(res.value, 12)  # the posterior median, always
    ([2, 2, 2], 0.5)
    >>> res
    RemapResult(bayes, 3x3, value=0.5, lower_bound=0.5, solver=none, status=exact)
    """
    m = _check_mechanism(mechanism)
    p = check_prior(prior, m.shape[0], normalize=normalize)
    loss_m = _loss_for(cost, m.shape[0], outputs)
    posterior_loss = m.T @ (p[:, None] * loss_m)  # (m, k): Σ_i p_i M[i, z] L[i, r]
    choice = np.argmin(posterior_loss, axis=1)
    t = np.zeros((m.shape[1], loss_m.shape[1]))
    t[np.arange(m.shape[1]), choice] = 1.0
    mech = m @ t
    value = float(np.sum(p[:, None] * loss_m * mech))  # exact, without an LP: no interval
    exact = Provenance(solver="none", status="exact", attempts=(), value=value, lower_bound=value)
    return RemapResult(
        remap=t, mechanism=mech, assignment=choice, kind=RemapKind.BAYES, provenance=exact
    )


@renamed_keyword("loss", "cost")
def minimax_remap(
    mechanism: npt.ArrayLike,
    cost: Any,
    side_information: Any = None,
    *,
    outputs: Any = None,
    solver: str | None = None,
    accuracy: float = DEFAULT_ACCURACY,
    max_memory_gb: float = DEFAULT_REMAP_MEMORY_GB,
) -> RemapResult:
    """The best randomized remap for a minimax user: an LP over row-stochastic ``T``.

    Minimises $max_{i ∈ S} Σ_r (M T)[i, r] l(i, r)$ (Gupte & Sundararajan (2010)). Solved
    robustly (rescaled and the other solver on failure) with coefficients below 1e-12 of their
    row's largest left out (``M`` may hold entries like e^-90), and certified on the true LP:
    the value is evaluated at the returned ``T`` (clipped to $≥ 0$, rows normalised) and
    rounded up, the lower bound is Lagrangian and rounded down
    (`optmech.lp.user.remap_lp`).

    Parameters
    ----------
    mechanism : array_like, shape (N, m)
        Rows are the inputs $0..N−1$.
    cost : Cost, str, callable or array_like
        A cost of $answer − input$ or a loss matrix of shape (N, k).
    side_information : collection of int, optional
        The inputs S (default all).
    outputs : array_like, optional
        The answers (default $0..N−1$ / $0..k−1$).
    solver : str, optional
        LP solver (default by `optmech.lp.solve.SOLVER_POLICY` ``["remap"]``).
    accuracy : float, default 1e-6
        Warn when ``[lower_bound, value]`` is wider than this (relative to ``max(value, 1)``).
    max_memory_gb : float, default 5.0
        Refuse LPs whose estimated memory (|S| × m × k dense coefficients, 250 bytes each)
        exceeds this.

    Examples
    --------
    >>> import numpy as np
    >>> res = minimax_remap(np.full((3, 3), 1 / 3), "abs", [0, 2])
    >>> round(res.value, 6)  # answer 1 always: worst loss 1
    1.0
    """
    m = _check_mechanism(mechanism)
    acc = check_real("accuracy", accuracy, low=0.0, high=1.0, low_open=True)
    budget, _ = check_budget(max_memory_gb)
    setting = resolve_setting(cost, outputs=outputs, num_inputs=m.shape[0], max_memory_gb=math.inf)
    loss_m = setting.loss
    rows = side_information_rows(side_information, setting.graph)
    coefficients = rows.size * m.shape[1] * loss_m.shape[1]  # the constraint rows are dense
    check_lp_size(
        f"the minimax remap LP would have {coefficients} constraint coefficients "
        "(|S| x outputs x answers)",
        coefficients,
        max_memory_gb=budget,
        bytes_per_variable=BYTES_PER_COEFFICIENT,
        hint="Use fewer side-information inputs or a smaller n. ",
    )
    t, provenance = solve_minimax_remap(m[rows], loss_m[rows], solver=solver, accuracy=acc)
    warn_if_uncertified(provenance)
    return RemapResult(
        remap=t, mechanism=m @ t, assignment=None, kind=RemapKind.MINIMAX, provenance=provenance
    )
