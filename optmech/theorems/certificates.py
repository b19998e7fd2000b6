"""Dual certificates: GRS universal optimality proved at sizes no LP solver reaches.

For a count query on ``{0..n}``, a Bayesian user (prior ``p``, loss ``l(i, r) = c(r − i)``
non-decreasing in ``|r − i|``) and ε-DP, Ghosh, Roughgarden & Sundararajan (2012, Thm. 3.1)
prove that the range-restricted geometric mechanism ``G`` followed by the user's Bayes remap is
an optimum of the user LP

    minimise   Σ_i p_i Σ_r x[i, r] l(i, r)
    subject to Σ_r x[i, r] = 1,  x ≥ 0,
               x[i, r] ≤ e^ε x[i + 1, r],  x[i + 1, r] ≤ e^ε x[i, r]      (0 ≤ i < n, all r).

Solving that LP (``(n + 1)²`` variables) stops near n = 800. This module needs no solve: it
builds the candidate and a dual point, and weak duality gives an interval
``[lower_bound, value]`` that contains the LP's optimum.

**Minimax users** (Gupte & Sundararajan 2010): for weights ``μ ≥ 0`` on the side information S,
``max_{i ∈ S} risk_i ≥ Σ_i μ_i risk_i / Σ_i μ_i`` for every mechanism, so the minimax optimum is
at least the Bayesian optimum for the prior ``μ / Σ μ``, which the certificate above bounds.
`minimax_certificate` takes the candidate (``G`` and the best randomized
remap) and ``μ`` from the remap LP, whose result it does not trust.

The dual point and its outward rounding are built in ``optmech.theorems.dual_point`` (time
O(n²) in vectorised sweeps, memory O(n · chunk)); the result is a
`DualCertificate`. The rows of ``optmech
verify --certificates`` are built in ``optmech.theorems.certificate_rows``; they are not part
of the default catalogue.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray, IntArray, U
from optmech._validation import check_int, check_prior, check_real, check_real_array
from optmech.costs import as_cost
from optmech.lp.matrix.setting import check_epsilon
from optmech.theorems.dual_certificate import DualCertificate
from optmech.theorems.dual_point import (
    _bayes_remap,
    _candidate_value,
    _dual_bound,
    _loss_diagonals,
    _row_duals,
)
from optmech.theorems.minimax_columns import minimax_remap_columns, worst_risk_up

__all__ = [
    "CERTIFICATE_ACCURACY",
    "DualCertificate",
    "grs_certificate",
    "minimax_certificate",
]

#: Default requested relative accuracy of a dual certificate: the interval is found about 1e-12
#: wide (relative) on every instance measured, so 1e-9 leaves three orders of room.
CERTIFICATE_ACCURACY = 1e-9


def grs_certificate(
    prior: npt.ArrayLike,
    loss: Any,
    epsilon: float,
    *,
    accuracy: float = CERTIFICATE_ACCURACY,
    assignment: npt.ArrayLike | None = None,
    normalize: bool = False,
) -> DualCertificate:
    """Prove ``G`` + Bayes remap optimal for a Bayesian user by a dual certificate (no LP).

    Ghosh, Roughgarden & Sundararajan (2012), Thm. 3.1: for every prior and every loss
    non-decreasing in ``|r − i|``, the range-restricted geometric mechanism followed by the
    user's Bayes remap attains the optimum of the user LP over all ε-DP mechanisms on
    ``{0..n}``. The certificate builds that candidate and a dual point from complementary
    slackness (module docstring) and returns the interval ``[lower_bound, value]`` that holds
    the LP's optimum, with rigorous outward rounding.

    Parameters
    ----------
    prior : array_like, shape (n + 1,)
        Prior over ``{0..n}``, summing to 1 (or ``normalize=True``); n ≥ 1.
    loss : Cost or str or callable
        Cost of the error ``r − i`` (``"abs"``, ``"squared"``, a `Cost`),
        non-decreasing in ``|r − i|`` on each side of 0.
    epsilon : float
        In (0, 50].
    accuracy : float, default 1e-9
        Relative accuracy: the result is `certified` when ``value − lower_bound ≤
        accuracy·|value|``. In (0, 1).
    assignment : array_like of int, shape (n + 1,), optional
        A remap ``T(z) ∈ {0..n}`` to certify instead of the Bayes remap (a test of the
        certificate itself: a non-optimal remap must fail).
    normalize : bool, default False
        Divide the prior by its sum.

    Returns
    -------
    DualCertificate

    Examples
    --------
    >>> import numpy as np
    >>> cert = grs_certificate(np.full(41, 1 / 41), "abs", 0.5)
    >>> cert.certified, cert.lower_bound <= cert.value, cert.relative_gap < 1e-11
    (True, True, True)
    >>> bad = cert.assignment.copy(); bad[20] += 1  # the middle output answered one too high
    >>> grs_certificate(np.full(41, 1 / 41), "abs", 0.5, assignment=bad).certified
    False
    """
    start = time.perf_counter()
    eps = check_epsilon(epsilon)
    acc = check_real("accuracy", accuracy, low=0.0, high=1.0, low_open=True, high_open=True)
    p_raw = check_real_array("prior", prior, ndim=1)
    if p_raw.size < 2:
        raise ValueError(f"`prior` must have at least 2 entries (n ≥ 1); got {p_raw.size}.")
    p = check_prior(p_raw, normalize=normalize)
    n = p.size - 1
    cost = as_cost(loss)
    diag = _loss_diagonals(cost, n)
    if assignment is None:
        remap, _ = _bayes_remap(p, diag, n, eps)
    else:
        remap = np.asarray(assignment)
        if remap.shape != (n + 1,) or not np.issubdtype(remap.dtype, np.integer):
            raise ValueError(
                f"`assignment` must be {n + 1} integers (one answer per output of G); got "
                f"shape {remap.shape}, dtype {remap.dtype}."
            )
        for k in (int(remap.min()), int(remap.max())):
            check_int("assignment", k, low=0, high=n)
        remap = remap.astype(np.int64)
    value, v = _candidate_value(p, diag, n, eps, remap)
    u = _row_duals(v, n, eps)
    lower, worst, worst_row = _dual_bound(p, diag, n, eps, u, acc)
    return DualCertificate(
        theorem="GRS universal optimality",
        n=n,
        epsilon=eps,
        loss=cost.name,
        value=value,
        lower_bound=lower,
        accuracy=acc,
        assignment=remap,
        row_duals=u,
        worst_violation=worst,
        worst_row=worst_row,
        seconds=time.perf_counter() - start,
    )


# ------------------------------------------------------------------------------------------
# Minimax users (Gupte & Sundararajan 2010)
# ------------------------------------------------------------------------------------------
#: Largest n of `minimax_certificate`: its candidate solves the remap LP by column generation
#: (``optmech.theorems.minimax_columns``, at most 40 s of solver time), and the Bayesian
#: bound is a `grs_certificate`, O(n²) time (37 s alone at n = 10^4).
MINIMAX_MAX_N = 10_000


def _heaviest_answers(z: IntArray, r: IntArray, t: FloatArray, n: int) -> IntArray:
    """``argmax_r T[z, r]`` for each output ``z`` of a remap given by its columns."""
    order = np.lexsort((-t, z))  # by output, heaviest first
    first = np.ones(order.size, dtype=bool)
    first[1:] = z[order][1:] != z[order][:-1]
    answers = np.arange(n + 1, dtype=np.int64)
    answers[z[order][first]] = r[order][first]
    return answers


def minimax_certificate(
    loss: Any,
    epsilon: float,
    *,
    n: int,
    side_information: Any = None,
    accuracy: float = CERTIFICATE_ACCURACY,
    remap: npt.ArrayLike | None = None,
) -> DualCertificate:
    """Prove ``G`` + the best randomized remap optimal for a minimax user, by a dual certificate.

    Gupte & Sundararajan (2010): for a loss non-decreasing in ``|r − i|`` and side information
    ``S``, the range-restricted geometric mechanism followed by the best randomized remap
    attains ``min_x max_{i ∈ S} Σ_r x[i, r] l(i, r)`` over all ε-DP mechanisms on ``{0..n}``.
    The candidate's remap and the weights ``μ`` of the inputs come from the remap LP
    (``(n + 1)²`` variables, not the user LP's ``(n + 1)²`` with its privacy rows), solved by
    column generation on the few columns its optimum uses (``optmech.theorems.minimax_columns``);
    nothing of that solve is trusted. For any weights ``μ ≥ 0`` on S, every mechanism has
    ``max_{i ∈ S} risk_i ≥ Σ_i μ_i risk_i / Σ_i μ_i``, so the minimax optimum is at least the
    Bayesian optimum for the prior ``μ / Σ μ`` divided by ``Σ μ`` rounded up, and that is
    bounded below by `grs_certificate`. The value is the candidate's worst
    risk, rounded up (its remap's rows are normalised exactly by bounding ``1 / row sum``).

    Parameters
    ----------
    loss : Cost or str or callable
        Cost of ``r − i``, non-decreasing in ``|r − i|`` on each side, non-negative.
    epsilon : float
        In (0, 50].
    n : int
        Largest query result, in [1, 10^4] (at n = 1000, S = all: 10 s with ``"abs"``,
        40 s with ``"squared"``, where the solver's time limit stops the remap LP).
    side_information : collection of int, optional
        The inputs S (default all of ``{0..n}``).
    accuracy : float, default 1e-9
        As for `grs_certificate`.
    remap : array_like, shape (n + 1, n + 1), optional
        A row-stochastic remap to certify instead of the optimal one (a test of the
        certificate: a remap that is not optimal must fail).

    Examples
    --------
    >>> cert = minimax_certificate("abs", 1.0, n=12, side_information=[0, 12])
    >>> cert.certified, cert.lower_bound <= cert.value
    (True, True)
    """
    start = time.perf_counter()
    eps = check_epsilon(epsilon)
    acc = check_real("accuracy", accuracy, low=0.0, high=1.0, low_open=True, high_open=True)
    size = check_int("n", n, low=1, high=MINIMAX_MAX_N, hint="the certificate takes O(n²) time")
    cost = as_cost(loss)
    diag = _loss_diagonals(cost, size)
    if np.any(diag < 0):
        raise ValueError("`loss` must be non-negative for the minimax certificate; it is not.")
    inputs = np.arange(size + 1)
    rows = inputs if side_information is None else np.unique(np.asarray(side_information))
    if (
        rows.size == 0
        or not np.issubdtype(rows.dtype, np.integer)
        or rows.min() < 0
        or (rows.max() > size)
    ):
        raise ValueError(
            f"`side_information` must be integers in [0, {size}]; got {side_information!r}."
        )
    if remap is None:
        z, r, t, mu = minimax_remap_columns(rows, diag, size, eps)
        # the LP's remap is optimal to the solver's tolerance; the identity and the Bayes
        # remap of the weights found are candidates too (each value is an upper bound)
        weighted = _bayes_remap(np.where(np.isin(inputs, rows), mu, 0.0), diag, size, eps)[0]
        value = worst_risk_up(rows, z, r, t, diag, size, eps)
        ones = np.ones(size + 1)
        for other in (inputs, weighted):
            risk = worst_risk_up(rows, inputs, other, ones, diag, size, eps)
            if risk < value:
                z, r, t, value = inputs, other, ones, risk
    else:
        dense = check_real_array("remap", remap, ndim=2, nonnegative=True)
        if dense.shape != (size + 1, size + 1) or np.any(dense.sum(axis=1) <= 0):
            raise ValueError(
                f"`remap` must be a non-negative ({size + 1}, {size + 1}) matrix with positive row "
                f"sums; got shape {dense.shape}."
            )
        z, r = np.nonzero(dense)
        t = dense[z, r]
        mu = minimax_remap_columns(rows, diag, size, eps)[3]
        value = worst_risk_up(rows, z, r, t, diag, size, eps)
    # lower bound: the Bayesian optimum for the weights μ on S, divided by Σ μ rounded up
    weights = np.zeros(size + 1)
    weights[rows] = mu[rows]
    if not np.all(np.isfinite(weights)) or weights.sum() <= 0:
        weights[rows] = 1.0  # any weights give a valid (weaker) bound
    prior = weights / weights.sum()
    bayes = grs_certificate(prior, cost, eps, accuracy=acc, normalize=True)
    p_used = prior / prior.sum()  # what grs_certificate certified (normalize=True)
    total_up = math.fsum(p_used.tolist()) * (1.0 + 2 * U)
    lower = math.nextafter(max(bayes.lower_bound, 0.0) / total_up, -math.inf)
    return DualCertificate(
        theorem="Gupte-Sundararajan minimax optimality",
        n=size,
        epsilon=eps,
        loss=cost.name,
        value=value,
        lower_bound=lower,
        accuracy=acc,
        assignment=_heaviest_answers(z, r, t, size),
        row_duals=bayes.row_duals,
        worst_violation=bayes.worst_violation,
        worst_row=bayes.worst_row,
        seconds=time.perf_counter() - start,
    )
