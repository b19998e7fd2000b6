"""Remaps of a mechanism, and remaps of the geometric mechanism.

Ghosh, Roughgarden & Sundararajan (2012) ("GRS" below), §2.2 and §5. A **remap** ``T``
(row-stochastic, ``T[z, r] = P(report r | mechanism said z)``) turns a mechanism ``M`` into
``M T``, which is as private as ``M`` (post-processing). GRS prove that the range-restricted
geometric mechanism ``G`` (GRS §2) followed by a user's remap is optimal for every user with a
monotone loss:

* **Bayes remap** (Bayesian users, GRS §2.2): for each output ``z`` answer
  ``r(z) = argmin_r Σ_i p_i M[i, z] l(i, r)`` — deterministic, [`bayes_remap`][bayes_remap].
* **Minimax remap** (Gupte & Sundararajan): the best *randomized* ``T`` for
  ``min_T max_{i ∈ S} Σ_r (M T)[i, r] l(i, r)`` — an LP over row-stochastic ``T``,
  [`minimax_remap`][minimax_remap].

And in reverse, deciding whether a given mechanism *is* a remap of ``G``:

* ``G⁻¹`` is tridiagonal (``G = K D`` with ``K[i, j] = α^|i−j|``, whose inverse is
  ``(1 − α²)⁻¹ tridiag(−α, (1, 1 + α², …, 1 + α², 1), −α)``, and ``D`` the diagonal of column
  factors), so ``M = G T`` with ``T`` row-stochastic iff ``G⁻¹ M ≥ 0`` entrywise (rows of
  ``G⁻¹M`` sum to 1 because ``G 1 = 1``): [`remap_of_geometric`][remap_of_geometric] /
  [`is_remap_of_geometric`][is_remap_of_geometric], in O(nm) without forming any inverse.
* The **constraint matrix** of a mechanism (GRS §5, Fig. 3): for each pair of neighbouring
  rows ``(i, i + 1)`` and output ``r``: ``Z`` (zero column), ``L`` (``x[i, r] = e^ε x[i+1, r]``),
  ``H`` (``x[i+1, r] = e^ε x[i, r]``), ``S`` (slack): [`constraint_matrix`][constraint_matrix].
* For an optimal vertex, GRS Lemmas 5.9–5.11 read the remap of ``G`` off that matrix: the k-th
  non-Z column has ``h`` H's, then ``s`` S's, then L's, and ``G``'s outputs ``h … h + s`` are
  mapped to it (Lemma 5.10: mapping the outputs ``a … b`` of ``G`` to one column gives H's in
  rows ``0 … a−1``, S's in ``a … b−1``, L's below):
  [`remap_from_constraint_matrix`][remap_from_constraint_matrix].

Examples
--------
The worked example of GRS (Fig. 2): ``G`` for n = 5, ε = ln 2, with output 1 sent to 2.

>>> import math
>>> import numpy as np
>>> from optmech.mechanisms.geometric import truncated_geometric
>>> G = truncated_geometric(5, math.log(2))
>>> T = np.eye(6); T[1] = np.eye(6)[2]
>>> M = apply_remap(G, T)
>>> print(constraint_matrix(M, math.log(2))[:2])
[['L' 'Z' 'H' 'H' 'H' 'H']
 ['L' 'Z' 'S' 'H' 'H' 'H']]
>>> np.array_equal(remap_from_constraint_matrix(constraint_matrix(M, math.log(2))), T)
True
>>> is_remap_of_geometric(M, math.log(2))[0]
True
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
from optmech._floats import U as _U
from optmech._validation import check_prior, check_real, check_real_array
from optmech.lp.user.remap_lp import (
    BYTES_PER_COEFFICIENT,
    DEFAULT_REMAP_MEMORY_GB,
    solve_minimax_remap,
)
from optmech.lp.user.setting import (
    check_budget,
    check_epsilon,
    check_lp_size,
    resolve_setting,
    side_information_rows,
)
from optmech.mechanisms.geometric import truncated_geometric
from optmech.provenance import DEFAULT_ACCURACY, Provenance, warn_if_uncertified
from optmech.results import MechanismResult

__all__ = [
    "GeometricRemapTest",
    "RemapKind",
    "RemapResult",
    "apply_remap",
    "bayes_remap",
    "check_monotone_loss",
    "constraint_matrix",
    "geometric_bayes",
    "geometric_inverse_apply",
    "geometric_minimax",
    "is_remap_of_geometric",
    "minimax_remap",
    "remap_from_constraint_matrix",
    "remap_of_geometric",
]


#: Default absolute accuracy assumed of a mechanism's entries in the remap-of-G test: a solver's
#: vertex is feasible to about 1e-10 (HiGHS, tolerances 1e-10), so 1e-9 leaves a factor 10.
REMAP_ATOL = 1e-9


def _check_mechanism(mechanism: Any, name: str = "mechanism") -> FloatArray:
    m = check_real_array(name, mechanism, ndim=2, nonnegative=True)
    err = float(np.max(np.abs(m.sum(axis=1) - 1.0)))
    if err > 1e-9:
        raise ValueError(
            f"`{name}` rows must sum to 1 (within 1e-9); the worst is off by {err:.3g}."
        )
    return m


def _loss_for(loss: Any, n_in: int, outputs: Any) -> FloatArray:
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
    """Which remap a [`RemapResult`][RemapResult] holds."""

    #: The Bayes-optimal deterministic remap (GRS §2.2).
    BAYES = "bayes"
    #: The best randomized remap of a minimax user (an LP; Gupte & Sundararajan (2010)).
    MINIMAX = "minimax"


def _exact(value: float) -> Provenance:
    """The provenance of a remap computed exactly, without an LP: ``value == lower_bound``."""
    return Provenance(solver="none", status="exact", attempts=(), value=value, lower_bound=value)


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
        from optmech.lp.user.result import input_index, release

        row = input_index(true_value, self.mechanism.shape[0])
        return release(self.mechanism, row, np.arange(self.mechanism.shape[1]), size, rng)

    @property
    def certified_epsilon(self) -> float:
        """ε of the remapped `mechanism` over neighbouring inputs ``i, i + 1`` (a count
        query), certified from its numbers ([`certified_epsilon`][
        optmech.certify.matrix.certified_epsilon]); a remap is post-processing, so it is at most
        the ε of the mechanism remapped."""
        from optmech.certify.matrix import certified_epsilon

        if self.mechanism.shape[0] < 2:
            return 0.0
        return certified_epsilon(self.mechanism)

    @property
    def privacy_certified(self) -> bool | None:
        """None: a remap is not asked for a privacy level (it keeps the mechanism's)."""
        return None

    def _privacy_requested(self) -> str | None:
        return None

    def _plot_title(self) -> str:
        return f"{self.model}, value {self.value:.6g}"

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

    ``r(z) = argmin_r Σ_i p_i M[i, z] l(i, r)`` for every output ``z`` (vectorised: one matrix
    product ``Mᵀ diag(p) L`` and an argmin per row; ties go to the smallest ``r``).

    Parameters
    ----------
    mechanism : array_like, shape (N, m)
        Rows are the inputs ``0..N−1`` (a count query when ``cost`` is a cost).
    prior : array_like, shape (N,)
        Sums to 1 (or ``normalize=True``).
    cost : Cost, str, callable or array_like
        A cost of ``answer − input``, or a loss matrix ``L[i, r]`` of shape (N, k).
    outputs : array_like, optional
        The answers ``r`` (default ``0..N−1`` for a cost, ``0..k−1`` for a matrix).

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
    value = float(np.sum(p[:, None] * loss_m * mech))
    return RemapResult(
        remap=t, mechanism=mech, assignment=choice, kind=RemapKind.BAYES, provenance=_exact(value)
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

    Minimises ``max_{i ∈ S} Σ_r (M T)[i, r] l(i, r)`` (Gupte & Sundararajan (2010)). Solved
    robustly (rescaled and the other solver on failure) with coefficients below 1e-12 of their
    row's largest left out (``M`` may hold entries like e^-90), and certified on the true LP:
    the value is evaluated at the returned ``T`` (clipped to ``≥ 0``, rows normalised) and
    rounded up, the lower bound is Lagrangian and rounded down
    (`optmech.lp.user.remap_lp`).

    Parameters
    ----------
    mechanism : array_like, shape (N, m)
        Rows are the inputs ``0..N−1``.
    cost : Cost, str, callable or array_like
        A cost of ``answer − input`` or a loss matrix of shape (N, k).
    side_information : collection of int, optional
        The inputs S (default all).
    outputs : array_like, optional
        The answers (default ``0..N−1`` / ``0..k−1``).
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


def check_monotone_loss(loss: npt.ArrayLike, *, context: str = "this theorem") -> FloatArray:
    """Require ``l(i, r)`` non-decreasing in ``|i − r|`` on each side of ``i`` (GRS §2.2).

    For inputs ``0..N−1`` and outputs ``0..m−1``: in every row, non-increasing for ``r ≤ i`` and
    non-decreasing for ``r ≥ i`` (asymmetric losses allowed). Returns the matrix.

    Examples
    --------
    >>> check_monotone_loss([[0, 1], [1, 0]]).shape
    (2, 2)
    >>> check_monotone_loss([[0, 1, 0], [1, 0, 1], [2, 1, 0]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: `loss` must be non-decreasing in |i − r| ...; row 0 decreases from r = 1 to r = 2.
    """
    lm = check_real_array("loss", loss, ndim=2)
    i = np.arange(lm.shape[0])[:, None]
    r = np.arange(lm.shape[1] - 1)[None, :]
    step = np.diff(lm, axis=1)  # l(i, r + 1) − l(i, r)
    tol = 1e-12 * (1.0 + np.abs(lm[:, 1:]))
    bad = ((r >= i) & (step < -tol)) | ((r + 1 <= i) & (step > tol))
    if np.any(bad):
        row, col = (int(v) for v in np.argwhere(bad)[0])
        how = "decreases" if step[row, col] < 0 else "increases"
        raise ValueError(
            f"`loss` must be non-decreasing in |i − r| on each side of i for {context} "
            f"(Ghosh, Roughgarden & Sundararajan (2012)); row {row} {how} from r = {col} to "
            f"r = {col + 1}."
        )
    return lm


@renamed_keyword("loss", "cost")
def geometric_bayes(
    prior: npt.ArrayLike,
    cost: Any,
    epsilon: float,
    *,
    require_monotone: bool = True,
    normalize: bool = False,
) -> RemapResult:
    """``G`` followed by the user's Bayes remap: the GRS optimum (Thm. 3.1) for monotone losses.

    Parameters
    ----------
    prior : array_like, shape (n + 1,)
        Prior over ``{0..n}``.
    cost : Cost, str, callable or array_like
        Cost of ``r − i`` or loss matrix of shape (n + 1, n + 1).
    epsilon : float
        In (0, 50].
    require_monotone : bool, default True
        Raise `ValueError` for a loss the theorem does not cover.

    Examples
    --------
    >>> import numpy as np
    >>> round(geometric_bayes(np.full(3, 1 / 3), "zero-one", 1.0).value, 6)
    0.358589
    """
    eps = check_epsilon(epsilon)
    p_arr = check_real_array("prior", prior, ndim=1)
    loss_m = _loss_for(cost, p_arr.size, None)
    if loss_m.shape[1] != p_arr.size:
        raise ValueError(f"`cost` must be square (outputs {{0..n}}); got shape {loss_m.shape}.")
    if require_monotone:
        check_monotone_loss(loss_m, context="GRS universal optimality")
    return bayes_remap(truncated_geometric(p_arr.size - 1, eps), p_arr, loss_m, normalize=normalize)


@renamed_keyword("loss", "cost")
def geometric_minimax(
    cost: Any,
    epsilon: float,
    *,
    n: int | None = None,
    side_information: Any = None,
    require_monotone: bool = True,
    solver: str | None = None,
    accuracy: float = DEFAULT_ACCURACY,
) -> RemapResult:
    """``G`` followed by the best randomized remap: the minimax optimum (Gupte & Sundararajan).

    Parameters
    ----------
    cost : Cost, str, callable or array_like
        Cost of ``r − i`` (then ``n`` is needed) or a square loss matrix.
    epsilon : float
        In (0, 50].
    n : int, optional
        Largest query result.
    side_information : collection of int, optional
        The inputs S (default all).
    require_monotone : bool, default True
        Raise `ValueError` for a loss the theorem does not cover.
    solver : str, optional
        For the remap LP.
    accuracy : float, default 1e-6
        As for [`minimax_remap`][minimax_remap].

    Examples
    --------
    >>> res = geometric_minimax("abs", 3.0, n=30, side_information=[0, 30])
    >>> res.lower_bound <= res.value < 1e-9
    True
    """
    eps = check_epsilon(epsilon)
    setting = resolve_setting(
        cost, num_inputs=None if n is None else int(n) + 1, max_memory_gb=math.inf
    )
    loss_m = setting.loss
    if loss_m.shape[0] != loss_m.shape[1]:
        raise ValueError(f"`cost` must be square (outputs {{0..n}}); got shape {loss_m.shape}.")
    if require_monotone:
        check_monotone_loss(loss_m, context="the minimax optimality of G")
    g = truncated_geometric(loss_m.shape[0] - 1, eps)
    return minimax_remap(g, loss_m, side_information, solver=solver, accuracy=accuracy)


# --------------------------------------------------------------------------------------------
# Is M a remap of G?  (G⁻¹ tridiagonal)
# --------------------------------------------------------------------------------------------
def _inverse_parts(n: int, eps: float) -> tuple[float, float, FloatArray]:
    """``α``, ``1 − α²`` and the column factors ``d`` of ``G = K diag(d)``."""
    alpha = math.exp(-eps)
    one_minus_a2 = -math.expm1(-2.0 * eps)
    d = np.full(n + 1, math.tanh(eps / 2.0))  # (1 − α)/(1 + α)
    d[0] = d[n] = 1.0 / (1.0 + alpha)
    return alpha, one_minus_a2, d


def geometric_inverse_apply(mechanism: npt.ArrayLike, epsilon: float) -> FloatArray:
    """``G⁻¹ M`` for the range-restricted geometric ``G`` on ``{0..n}`` (tridiagonal, no inverse).

    Row ``i`` is ``((1 + α²) M[i] − α (M[i−1] + M[i+1])) / ((1 − α²) d_i)`` (end rows: ``M[0] −
    α M[1]`` and ``M[n] − α M[n−1]``), with ``d_i`` the column factors of ``G``.

    Examples
    --------
    >>> from optmech.mechanisms.geometric import truncated_geometric
    >>> bool(np.allclose(geometric_inverse_apply(truncated_geometric(4, 0.7), 0.7), np.eye(5)))
    True
    """
    eps = check_epsilon(epsilon)
    m = check_real_array("mechanism", mechanism, ndim=2)
    if m.shape[0] < 2:
        raise ValueError(f"`mechanism` must have at least 2 rows (n ≥ 1); got {m.shape[0]}.")
    n = m.shape[0] - 1
    alpha, one_minus_a2, d = _inverse_parts(n, eps)
    y = (1.0 + alpha * alpha) * m
    y[0] = m[0]
    y[n] = m[n]
    y[:-1] -= alpha * m[1:]
    y[1:] -= alpha * m[:-1]
    return y / (one_minus_a2 * d[:, None])


@dataclass(frozen=True)
class GeometricRemapTest:
    """Outcome of the test "is ``M`` a remap of ``G``?" (``G⁻¹M ≥ 0``).

    Attributes
    ----------
    is_remap : bool
        Every entry of ``G⁻¹M`` is at least ``−tolerance`` (entrywise).
    remap : ndarray, shape (n + 1, m)
        ``G⁻¹M`` clipped at 0 and row-normalised: the row-stochastic ``T`` with ``G T ≈ M``.
    min_entry : float
        The most negative entry of ``G⁻¹M`` (positive if none is negative).
    worst_margin : float
        ``min (G⁻¹M + tolerance)``: negative iff the test fails; its entry's tolerance is
        ``tolerance_at_worst``.
    tolerance_at_worst : float
        The tolerance of the entry where the margin is smallest.
    residual : float
        ``max |G T − M|`` for the returned ``T``.
    """

    is_remap: bool
    remap: FloatArray
    min_entry: float
    worst_margin: float
    tolerance_at_worst: float
    residual: float


def remap_of_geometric(
    mechanism: npt.ArrayLike, epsilon: float, *, atol: float = REMAP_ATOL
) -> GeometricRemapTest:
    """Test whether ``M = G T`` for some row-stochastic ``T``, and return ``T`` (GRS §5).

    ``G⁻¹M ≥ 0`` decides it exactly in exact arithmetic. Numerically, if ``M = G T + E`` with
    ``|E| ≤ atol`` entrywise, then ``G⁻¹M = T + G⁻¹E`` and ``|G⁻¹E|[i, r] ≤ κ_i · atol`` with
    ``κ_i = ‖row i of G⁻¹‖₁`` (``((1 + α)/(1 − α))²`` inside, ``(1 + α)/(1 − α)`` at the ends).
    An entry is accepted as non-negative when it is at least ``−(κ_i atol + 8u s)``, where ``s``
    is the sum of the magnitudes of the three terms that formed it (floating-point rounding,
    ``u = 2^-53``). The tolerance is therefore *relative to the accuracy of M's entries*, not to
    their size: entries of ``G`` as small as e^-45 play no role, and a mechanism that misses
    being a remap by more than the accuracy of its entries is rejected.

    Parameters
    ----------
    mechanism : array_like, shape (n + 1, m)
        Row-stochastic; rows are the inputs ``0..n`` of a count query.
    epsilon : float
        The ε of ``G``, in (0, 50].
    atol : float, default 1e-9
        Absolute accuracy of the entries of ``mechanism``, in [0, 1e-3]: 0 for a mechanism
        computed exactly, about the solver's feasibility tolerance for an LP's vertex.

    Examples
    --------
    >>> merge = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])  # G's outputs 1 and 2 merged
    >>> remap_of_geometric(truncated_geometric(2, 1.0) @ merge, 1.0).is_remap
    True
    """
    eps = check_epsilon(epsilon)
    atol = check_real("atol", atol, low=0.0, high=1e-3)
    m = _check_mechanism(mechanism)
    y = geometric_inverse_apply(m, eps)
    n = m.shape[0] - 1
    alpha, one_minus_a2, d = _inverse_parts(n, eps)
    kappa = np.full(n + 1, ((1.0 + alpha) / (1.0 - alpha)) ** 2 if alpha < 1 else np.inf)
    kappa[0] = kappa[n] = (1.0 + alpha) / (-math.expm1(-eps))
    mag = (1.0 + alpha * alpha) * m
    mag[0] = m[0]
    mag[n] = m[n]
    mag[:-1] += alpha * m[1:]
    mag[1:] += alpha * m[:-1]
    tol = kappa[:, None] * atol + 8.0 * _U * mag / (one_minus_a2 * d[:, None])
    margin = y + tol
    k = int(np.argmin(margin))
    t = np.clip(y, 0.0, None)
    sums = t.sum(axis=1, keepdims=True)
    t = np.divide(t, sums, out=np.full_like(t, 1.0 / t.shape[1]), where=sums > 0)
    residual = float(np.max(np.abs(truncated_geometric(n, eps) @ t - m)))
    return GeometricRemapTest(
        is_remap=bool(margin.flat[k] >= 0),
        remap=t,
        min_entry=float(y.min()),
        worst_margin=float(margin.flat[k]),
        tolerance_at_worst=float(tol.flat[k]),
        residual=residual,
    )


def is_remap_of_geometric(
    mechanism: npt.ArrayLike, epsilon: float, *, atol: float = REMAP_ATOL
) -> tuple[bool, FloatArray]:
    """Whether ``M = G T`` for a row-stochastic ``T`` (within ``atol``); returns ``(ok, T)``.

    See [`remap_of_geometric`][remap_of_geometric] for the test and its tolerance; ``T`` is ``G⁻¹M``
    clipped at 0 and row-normalised.

    Examples
    --------
    Randomized response on {0, 1, 2} is ε-DP but not a remap of ``G``:

    >>> import math
    >>> import numpy as np
    >>> rr = np.full((3, 3), 1.0) + (math.e - 1) * np.eye(3)
    >>> is_remap_of_geometric(rr / rr.sum(axis=1, keepdims=True), 1.0)[0]
    False
    """
    res = remap_of_geometric(mechanism, epsilon, atol=atol)
    return res.is_remap, res.remap


# --------------------------------------------------------------------------------------------
# Constraint matrix and the constructive remap (GRS Lemmas 5.9–5.11)
# --------------------------------------------------------------------------------------------
def constraint_matrix(
    mechanism: npt.ArrayLike,
    epsilon: float,
    *,
    rtol: float = 1e-6,
    atol: float = 1e-9,
) -> npt.NDArray[np.str_]:
    """The GRS constraint matrix (GRS §5, Fig. 3) of a count-query mechanism.

    Entry ``[i, r]`` describes rows ``i, i + 1`` at output ``r``: ``"Z"`` if column ``r`` is zero,
    ``"L"`` if ``x[i, r] = e^ε x[i+1, r]``, ``"H"`` if ``x[i+1, r] = e^ε x[i, r]``, ``"S"``
    otherwise.

    Tolerances: a solver's vertex is exact only to its absolute feasibility tolerance (about
    1e-10 for HiGHS here), so entries at or below ``atol`` are noise. A column whose largest
    entry is at most ``atol`` is ``Z`` (a used column of a remap of ``G`` has an entry of at
    least ``tanh(ε/2)``, far above). A pair of entries both at most ``atol`` is classified by
    its side of the column's maximum — ``H`` above, ``L`` below — which is what every column of
    a remap of ``G`` shows (Lemma 5.10). Other pairs are equal when they agree within ``rtol``
    relative plus ``atol`` absolute.

    Parameters
    ----------
    mechanism : array_like, shape (n + 1, m)
    epsilon : float
    rtol, atol : float
        Tolerances (defaults suit an LP vertex accurate to about 1e-10).

    Returns
    -------
    ndarray of str, shape (n, m)

    Examples
    --------
    >>> constraint_matrix(truncated_geometric(2, 1.0), 1.0).tolist()  # G: H above, L below
    [['L', 'H', 'H'], ['L', 'L', 'H']]
    """
    eps = check_epsilon(epsilon)
    m = check_real_array("mechanism", mechanism, ndim=2, nonnegative=True)
    rtol = check_real("rtol", rtol, low=0.0, high=0.1)
    atol = check_real("atol", atol, low=0.0, high=0.1)
    e = math.exp(eps)
    a, b = m[:-1], m[1:]
    is_l = np.abs(a - e * b) <= rtol * np.maximum(a, e * b) + atol
    is_h = np.abs(b - e * a) <= rtol * np.maximum(b, e * a) + atol
    above = np.arange(m.shape[0] - 1)[:, None] < np.argmax(m, axis=0)[None, :]
    noise = np.maximum(a, b) <= atol
    out = np.full(a.shape, "S", dtype="<U1")
    out[is_l & ~is_h] = "L"
    out[is_h & ~is_l] = "H"
    undecided = noise | (is_l & is_h)
    out[undecided & above] = "H"
    out[undecided & ~above] = "L"
    out[:, m.max(axis=0) <= atol] = "Z"
    return out


def remap_from_constraint_matrix(matrix: npt.ArrayLike) -> FloatArray:
    """The deterministic remap ``T`` of ``G`` that produces a vertex with this constraint matrix.

    GRS Lemmas 5.9–5.11: a non-Z column with ``h`` H's, then ``s`` S's, then L's is produced by
    mapping ``G``'s outputs ``h, …, h + s`` to it (Lemma 5.10). The intervals of the non-Z
    columns must partition ``{0..n}`` (Lemma 5.9 for optimal vertices); ``T[z, r] = 1`` for
    ``z`` in column r's interval.

    Parameters
    ----------
    matrix : array_like of str, shape (n, m)
        From [`constraint_matrix`][constraint_matrix].

    Returns
    -------
    ndarray, shape (n + 1, m)

    Raises
    ------
    ValueError
        A column is not of the form H…H S…S L…L, or the intervals do not partition {0..n}
        (the mechanism is not an optimal vertex for a monotone loss).
    """
    c = np.asarray(matrix, dtype=str)
    if c.ndim != 2 or c.shape[0] < 1:
        raise ValueError(
            f"`matrix` must be a 2-d array of 'Z', 'S', 'L', 'H'; got shape {c.shape}."
        )
    if not np.all(np.isin(c, ["Z", "S", "L", "H"])):
        raise ValueError("`matrix` entries must be 'Z', 'S', 'L' or 'H'.")
    n = c.shape[0]
    t = np.zeros((n + 1, c.shape[1]))
    covered = np.zeros(n + 1, dtype=np.int64)
    codes = {"H": 0, "S": 1, "L": 2, "Z": 3}
    num = np.vectorize(codes.__getitem__)(c)
    zero_col = np.all(num == 3, axis=0)
    if np.any(np.any(num == 3, axis=0) & ~zero_col):
        bad = int(np.argmax(np.any(num == 3, axis=0) & ~zero_col))
        raise ValueError(f"column {bad} of `matrix` mixes Z with other entries.")
    sorted_ok = np.all(np.diff(num, axis=0) >= 0, axis=0) | zero_col
    if not np.all(sorted_ok):
        bad = int(np.argmin(sorted_ok))
        raise ValueError(
            f"column {bad} of `matrix` is {''.join(c[:, bad])}, not of the form H…H S…S L…L "
            "(GRS Lemma 5.5/5.9): not an optimal vertex for a monotone loss."
        )
    h = np.sum(num == 0, axis=0)
    s = np.sum(num == 1, axis=0)
    for r in np.flatnonzero(~zero_col):  # one interval per used output (a few dozen)
        t[h[r] : h[r] + s[r] + 1, r] = 1.0
        covered[h[r] : h[r] + s[r] + 1] += 1
    if not np.all(covered == 1):
        z = int(np.argmax(covered != 1))
        raise ValueError(
            f"the intervals read off `matrix` do not partition {{0..{n}}}: output {z} of G is "
            f"mapped {int(covered[z])} times (GRS Lemma 5.9 fails: not an optimal vertex)."
        )
    return t
