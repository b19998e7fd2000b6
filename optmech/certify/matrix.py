"""Independent certification of a mechanism matrix over a neighbour graph (Ghosh, Roughgarden &
Sundararajan 2012; the measured pitfalls of the performance page).

A mechanism ``M[i, r] = P(output r | input i)`` is ε-DP over a neighbour graph iff
``M[i, r] ≤ e^ε M[i', r]`` for every edge ``i ~ i'`` (both directions) and every output ``r``
(Ghosh, Roughgarden & Sundararajan 2012, constraints (3)–(4)). The **achieved ε** is therefore

    ε(M) = max over edges {i, i'} and outputs r of |log M[i, r] − log M[i', r]|,

with the conventions ``|log 0 − log 0| = 0`` (an output neither input can produce) and
``|log x − log 0| = inf`` for ``x > 0`` (a zero facing a positive entry: no finite ε).

The computation trusts nothing but the numbers given: not the LP, not its status. It is
**pessimistic**: each ``log`` of numpy is within a few ulps, so four ulps of each log and one
of the difference are added to every term, and the result is rounded up; the certified ε is
never below the exact one for the given floats. (Four ulps of a log of size 700 are about
5e-13: far below the ``1e-9`` relative slack optmech allows between requested and certified ε.)
With ``exact=True`` the largest ratio is found in exact rational arithmetic and its logarithm
enclosed in an Arb interval (Johansson, 2017): the certified ε is the exact one rounded up to
the next float (`optmech.certify.exact_arithmetic`).

Examples
--------
The range-restricted geometric mechanism for n = 2, ε = ln 2 (Ghosh, Roughgarden & Sundararajan
2012):

>>> import numpy as np
>>> G = np.array([[4, 1, 1], [2, 2, 2], [1, 1, 4]]) / 6
>>> round(certified_epsilon(G), 12)
0.69314718056
>>> check_dp(G, 0.7)
True

Its neighbouring ratios are exactly 2 in the floats too; the exact certificate is ln 2 rounded up
to the next float:

>>> certified_epsilon(G, exact=True)
0.6931471805599454

With ``debug=True`` a failing check raises, naming the worst pair:

>>> check_dp(np.array([[1.0, 0.0], [0.5, 0.5]]), 5.0, debug=True)
Traceback (most recent call last):
...
optmech.exceptions.PrivacyViolationError: not 5-DP: certified epsilon = inf at edge (0, 1), ...
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray, IntArray
from optmech._validation import check_flag, check_real, check_real_array, describe
from optmech.certify.report import (
    FLOAT_RTOL,
    DeltaAtEpsilonReport,
    PureEpsilonReport,
    verdict,
)
from optmech.privacy import ApproxDP, PureDP

__all__ = [
    "MatrixCertificate",
    "MatrixDeltaCertificate",
    "certified_epsilon",
    "certify_mechanism",
    "check_dp",
    "log_ratio_bound",
]


#: Largest deviation of a row sum from 1 accepted as a probability distribution.
ROW_SUM_TOL = 1e-9
#: Default relative slack of ``check_dp``: certified ε ≤ ε·(1 + 1e-9), for the rounding
#: of mechanisms that are exactly private in exact arithmetic (the convention of
#: `optmech.certify.report`: ``FLOAT_RTOL``).
DEFAULT_RTOL = FLOAT_RTOL
#: Entries compared per block (memory bound of the vectorised comparison).
_BLOCK = 4_000_000


@dataclass(frozen=True)
class MatrixCertificate(PureEpsilonReport):
    """The achieved ε of a mechanism matrix and where it is attained.

    Attributes
    ----------
    epsilon : float
        Certified (pessimistic) achieved ε; ``inf`` when a zero faces a positive entry.
    edge : tuple of int or None
        Row indices ``(i, i')`` of the worst neighbouring pair (``None`` for a constant mechanism).
    output : int or None
        Column of the worst pair.
    values : tuple of float or None
        ``(M[i, r], M[i', r])`` at the worst pair.
    zero_facing_positive : int
        Number of (edge, output) pairs where exactly one of the two entries is zero.
    max_row_error : float
        $max_i |Σ_r M[i, r] − 1|$.
    num_edges : int
        Edges checked.
    exact : bool
        Certified in exact rational arithmetic.
    guarantee, value, reason
        ``PureDP(epsilon)`` (None for an infinite or zero ε), `epsilon`, and
        `explain`'s line
        (`PrivacyReport`).

    Examples
    --------
    >>> import numpy as np
    >>> from optmech.certify import certify_mechanism
    >>> cert = certify_mechanism(np.array([[2, 1], [1, 2]]) / 3)
    >>> round(cert.epsilon, 9) == round(float(np.log(2)), 9), cert.edge
    (True, (0, 1))
    """

    epsilon: float
    edge: tuple[int, int] | None
    output: int | None
    values: tuple[float, float] | None
    zero_facing_positive: int
    max_row_error: float
    num_edges: int
    exact: bool = False

    def explain(self) -> str:
        """One line: the certified ε, the worst pair of neighbours, the output and the ratio."""
        head = f"certified epsilon = {self.epsilon:.10g}"
        if self.edge is None or self.values is None:
            return f"{head} (no two neighbouring rows differ)"
        a, b = self.values
        i, j = self.edge
        if math.isinf(self.epsilon):
            zero, pos = (a, b) if a == 0 else (b, a)
            return (
                f"{head} at edge ({i}, {j}), output {self.output}: {zero:.6g} faces "
                f"{pos:.6g} (a zero facing a positive entry)"
            )
        return (
            f"{head} at edge ({i}, {j}), output {self.output}: {a:.6g} vs {b:.6g}, "
            f"ratio {max(a, b) / min(a, b):.10g}"
        )

    @property
    def reason(self) -> str:
        """The worst pair of neighbours, the output and the ratio (`explain`)."""
        return self.explain()


def log_ratio_bound(a: npt.ArrayLike, b: npt.ArrayLike) -> FloatArray:
    """Pessimistic $|log a − log b|$ elementwise for non-negative ``a``, ``b``.

    ``0`` where both are zero or equal, ``inf`` where exactly one is zero, otherwise the computed
    value plus four ulps of each log and one ulp of the difference (never below the exact value).

    Examples
    --------
    >>> float(log_ratio_bound(2.0, 1.0)) >= float(np.log(2.0))
    True
    >>> log_ratio_bound([0.0, 0.0], [0.0, 1.0]).tolist()
    [0.0, inf]
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    pos_a = a > 0
    pos_b = b > 0
    both = pos_a & pos_b
    with np.errstate(divide="ignore"):
        la = np.log(np.where(both, a, 1.0))
        lb = np.log(np.where(both, b, 1.0))
    diff = np.abs(la - lb)
    bound = diff + 4.0 * (np.spacing(np.abs(la)) + np.spacing(np.abs(lb))) + np.spacing(diff)
    out = np.where(both & (a != b), np.nextafter(bound, np.inf), 0.0)  # equal: exactly 0
    return np.where(pos_a ^ pos_b, np.inf, out)


def _edges_from(graph: Any, n_rows: int) -> tuple[IntArray, IntArray]:
    """Edges as row-index arrays from a graph, an (E, 2) array of pairs, or None (the path)."""
    if graph is None:
        idx = np.arange(n_rows - 1, dtype=np.int64)
        return idx, idx + 1
    if isinstance(graph, nx.Graph):
        if graph.number_of_nodes() != n_rows:
            raise ValueError(
                f"`graph` must have one node per row of `mechanism` ({n_rows}); got "
                f"{graph.number_of_nodes()} nodes."
            )
        index = {v: k for k, v in enumerate(graph.nodes)}
        pairs = np.asarray(
            [(index[u], index[v]) for u, v in graph.edges if u != v], dtype=np.int64
        ).reshape(-1, 2)
    else:
        try:
            pairs = np.asarray(graph)
        except Exception as exc:
            raise TypeError(
                f"`graph` must be a networkx.Graph, an (E, 2) array of row index "
                f"pairs or None; got {describe(graph)}."
            ) from exc
        if pairs.dtype.kind not in "iu" or pairs.ndim != 2 or pairs.shape[1] != 2:
            raise TypeError(
                f"`graph` must be a networkx.Graph, an (E, 2) integer array of row "
                f"index pairs or None; got {describe(graph)}."
            )
        pairs = pairs.astype(np.int64)
        if pairs.size and (pairs.min() < 0 or pairs.max() >= n_rows):
            raise ValueError(
                f"`graph` pairs must index rows 0..{n_rows - 1}; got "
                f"[{pairs.min()}, {pairs.max()}]."
            )
    return pairs[:, 0], pairs[:, 1]


def _check_mechanism(mechanism: Any) -> FloatArray:
    m = check_real_array("mechanism", mechanism, ndim=2, nonnegative=True)
    if m.shape[0] < 1 or m.shape[1] < 1:
        raise ValueError(f"`mechanism` must have at least one row and column; got {m.shape}.")
    err = float(np.max(np.abs(m.sum(axis=1) - 1.0)))
    if err > ROW_SUM_TOL:
        raise ValueError(
            f"`mechanism` rows must sum to 1 (within {ROW_SUM_TOL:g}); the worst row is off "
            f"by {err:.3g}. Normalise the rows first."
        )
    return m


def _float_worst(
    m: FloatArray, src: IntArray, dst: IntArray
) -> tuple[float, tuple[int, int, int, float, float] | None, int]:
    """Float path: (pessimistic ε, worst pair, zero-facing-positive count)."""
    worst = -1.0
    best: tuple[int, int, int, float, float] | None = None
    zeros = 0
    cols = m.shape[1]
    step = max(1, _BLOCK // cols)
    for start in range(0, src.size, step):  # blocks of edges, vectorised over outputs
        s, d = src[start : start + step], dst[start : start + step]
        a, b = m[s], m[d]
        bound = log_ratio_bound(a, b)
        zeros += int(np.count_nonzero(np.isinf(bound)))
        k = int(np.argmax(bound))
        if bound.flat[k] > worst:
            e, r = divmod(k, cols)
            worst = float(bound.flat[k])
            best = (int(s[e]), int(d[e]), r, float(a[e, r]), float(b[e, r]))
    return max(worst, 0.0), best if worst > 0.0 else None, zeros


def certify_mechanism(
    mechanism: npt.ArrayLike, graph: Any = None, *, exact: bool = False
) -> MatrixCertificate:
    """Achieved ε of ``mechanism`` over ``graph``, pessimistic, with the worst pair.

    Parameters
    ----------
    mechanism : array_like, shape (N, m)
        ``M[i, r] = P(output r | input i)``: non-negative, rows summing to 1 (within 1e-9).
    graph : networkx.Graph, (E, 2) int array, or None
        Neighbour graph over the rows (node order = row order), explicit pairs of row indices,
        or ``None`` for the count-query path ``i ~ i + 1``.
    exact : bool, default False
        Find the largest ratio in exact rational arithmetic and enclose its logarithm in an
        interval
        (`optmech.certify.exact_arithmetic.matrix_epsilon_exact`):
        ε is then the exact value rounded up to the next float. Costs about one more pass over the
        entries; meant for matrices up to a few thousand rows.

    Returns
    -------
    MatrixCertificate

    Examples
    --------
    Randomized response on two inputs, ``e^ε/(1 + e^ε)`` on the diagonal, is exactly ε-DP
    (Warner (1965)); the certificate rounds up, by a few units of the last place:

    >>> import math
    >>> import numpy as np
    >>> keep = math.e / (1 + math.e)
    >>> cert = certify_mechanism(np.array([[keep, 1 - keep], [1 - keep, keep]]))
    >>> bool(1.0 <= cert.epsilon <= 1.0 + 1e-12), cert.edge
    (True, (0, 1))
    """
    m = _check_mechanism(mechanism)
    src, dst = _edges_from(graph, m.shape[0])
    exact = check_flag("exact", exact)
    if exact:
        from optmech.certify.exact_arithmetic import matrix_epsilon_exact  # needs python-flint

        worst, best, zeros = matrix_epsilon_exact(m, src, dst, _BLOCK)
    else:
        worst, best, zeros = _float_worst(m, src, dst)
    row_err = float(np.max(np.abs(m.sum(axis=1) - 1.0)))
    if best is None:  # no edges, or every neighbouring pair of rows identical
        return MatrixCertificate(
            epsilon=0.0,
            edge=None,
            output=None,
            values=None,
            zero_facing_positive=0,
            max_row_error=row_err,
            num_edges=int(src.size),
            exact=exact,
        )
    i, j, r, va, vb = best
    return MatrixCertificate(
        epsilon=worst,
        edge=(i, j),
        output=r,
        values=(va, vb),
        zero_facing_positive=zeros,
        max_row_error=row_err,
        num_edges=int(src.size),
        exact=exact,
    )


def certified_epsilon(mechanism: npt.ArrayLike, graph: Any = None, *, exact: bool = False) -> float:
    """Certified (pessimistic) achieved ε of ``mechanism`` over ``graph``.

    See `certify_mechanism` (also for ``exact``), which also names the worst
    pair.

    Examples
    --------
    >>> import numpy as np
    >>> from optmech.certify import certified_epsilon
    >>> G = np.array([[2, 1], [1, 2]]) / 3  # randomized response, ε = log 2
    >>> round(certified_epsilon(G), 9) == round(float(np.log(2)), 9)
    True
    >>> M = np.array([[0.6, 0.3, 0.1], [0.3, 0.4, 0.3], [0.1, 0.3, 0.6]])
    >>> pairs = np.array([[0, 1], [1, 2], [0, 2]])  # every pair neighbours, not just i ~ i + 1
    >>> bool(certified_epsilon(M) < certified_epsilon(M, pairs))
    True
    """
    return certify_mechanism(mechanism, graph, exact=exact).epsilon


def check_dp(
    mechanism: npt.ArrayLike,
    epsilon: float,
    graph: Any = None,
    debug: bool = False,
    *,
    rtol: float = DEFAULT_RTOL,
    exact: bool = False,
) -> bool:
    """Whether ``mechanism`` is ε-DP over ``graph`` (certified ε ≤ ε·(1 + rtol)).

    Parameters
    ----------
    mechanism : array_like, shape (N, m)
        Rows are inputs, columns outputs; rows sum to 1.
    epsilon : float
        Claimed privacy level, in (0, inf).
    graph : networkx.Graph, (E, 2) int array, or None
        Neighbour graph (``None``: the count-query path).
    debug : bool, default False
        Return True when ε-DP holds and otherwise raise
        `PrivacyViolationError`, whose message names
        the worst pair of neighbours, the output and the ratio and whose ``report`` is the
        `MatrixCertificate`. (Earlier versions returned
        ``(ok, explanation)`` instead; ``certify_mechanism(...).explain()`` gives that line.)
    rtol : float, default 1e-9
        Relative slack for the floating-point rounding of a mechanism that is exactly private
        in exact arithmetic (``FLOAT_RTOL``, `optmech.certify.report`);
        in [0, 1e-3]. ``0`` demands certified ε ≤ ε.
    exact : bool, default False
        Certify in exact rational arithmetic (`certify_mechanism`).

    Returns
    -------
    bool

    Examples
    --------
    >>> import math
    >>> import numpy as np
    >>> keep = math.e / (1 + math.e)  # randomized response, exactly 1-DP
    >>> rr = np.array([[keep, 1 - keep], [1 - keep, keep]])
    >>> check_dp(rr, 1.0), check_dp(rr, 0.9)
    (True, False)
    """
    eps = check_real("epsilon", epsilon, low=0.0, low_open=True)
    rtol = check_real("rtol", rtol, low=0.0, high=1e-3)
    debug = check_flag("debug", debug)
    cert = certify_mechanism(mechanism, graph, exact=exact)
    return verdict(cert.epsilon <= eps * (1.0 + rtol), cert, PureDP(eps), debug)


@dataclass(frozen=True)
class MatrixDeltaCertificate(DeltaAtEpsilonReport):
    """The achieved δ of a mechanism matrix at a given ε over a neighbour graph, and a claim's
    verdict.

    ``δ(ε) = max over edges {i, i'} (both directions) of Σ_r max(0, M[i, r] − e^ε M[i', r])``,
    the largest hockey-stick divergence between neighbouring rows (Dwork & Roth (2014), §3.5): a
    mechanism is (ε, δ)-DP over the graph iff δ(ε) ≤ δ. Pessimistic: ``e^ε`` is rounded down and
    the sum is raised by a bound on its rounding, so the certified δ is never below the exact
    one for the stored floats.

    Attributes
    ----------
    delta : float
        Certified δ(ε), in [0, 1].
    epsilon : float
        The ε it is computed at.
    edge : tuple of int or None
        The ordered pair of rows ``(i, i')`` attaining it (None when δ = 0).
    num_edges : int
        Edges checked.
    holds : bool or None
        Whether a claimed (ε, δ) holds (``delta ≤ claim.delta·(1 + rtol)``); None without one.
    exact : bool
        False: floating point, rounded up.
    guarantee, value, reason
        ``ApproxDP(epsilon, delta)`` (``PureDP`` when δ = 0), `delta`, and the worst pair.

    Examples
    --------
    >>> import numpy as np
    >>> cert = certify_mechanism_delta(np.array([[1.0, 0.0], [0.5, 0.5]]), 1.0)
    >>> round(cert.delta, 12), cert.edge  # row 1 puts 0.5 where row 0 puts nothing
    (0.5, (1, 0))
    """

    delta: float
    epsilon: float
    edge: tuple[int, int] | None
    num_edges: int
    holds: bool | None = None
    exact: bool = False

    @property
    def reason(self) -> str:
        """The worst ordered pair of neighbouring rows."""
        if self.edge is None:
            return f"every neighbouring pair of rows within e^{self.epsilon:g} of each other"
        i, j = self.edge
        return f"rows {i} against {j}: hockey-stick divergence at epsilon = {self.epsilon:g}"


def certify_mechanism_delta(
    mechanism: npt.ArrayLike,
    epsilon: float,
    graph: Any = None,
    *,
    claim: ApproxDP | None = None,
    rtol: float = FLOAT_RTOL,
) -> MatrixDeltaCertificate:
    """Achieved δ of ``mechanism`` at ``epsilon`` over ``graph`` (`MatrixDeltaCertificate`).

    Parameters
    ----------
    mechanism : array_like, shape (N, m)
        Non-negative, rows summing to 1 (within 1e-9).
    epsilon : float
        ε, in [0, inf).
    graph : networkx.Graph, (E, 2) int array, or None
        As in `certify_mechanism` (None: the path ``i ~ i + 1``).
    claim : ApproxDP, optional
        A claim to give a verdict on (`holds`).
    rtol : float, default 1e-9
        Slack of the verdict, in [0, 1).

    Returns
    -------
    MatrixDeltaCertificate

    Examples
    --------
    >>> import math
    >>> import numpy as np
    >>> keep = math.e / (1 + math.e)  # randomized response at ε = 1
    >>> rr = np.array([[keep, 1 - keep], [1 - keep, keep]])
    >>> certify_mechanism_delta(rr, 1.0).delta < 1e-14  # its rounding margin only
    True
    >>> round(certify_mechanism_delta(rr, 0.0).delta, 12) == round(2 * keep - 1, 12)
    True
    """
    m = _check_mechanism(mechanism)
    eps = check_real("epsilon", epsilon, low=0.0)
    tol = check_real("rtol", rtol, low=0.0, high=1.0, high_open=True)
    src, dst = _edges_from(graph, m.shape[0])
    factor = math.nextafter(math.exp(eps), 0.0)  # e^ε rounded down: each term rounded up
    margin = (m.shape[1] + 4) * 2.0**-52  # the products', differences' and sum's rounding
    worst, best = 0.0, None
    step = max(1, _BLOCK // m.shape[1])
    for start in range(0, src.size, step):
        s, d = src[start : start + step], dst[start : start + step]
        for a, b, pair in ((m[s], m[d], (s, d)), (m[d], m[s], (d, s))):
            sums = np.sum(np.maximum(a - factor * b, 0.0), axis=1)
            k = int(np.argmax(sums)) if sums.size else 0
            if sums.size and sums[k] > worst:
                worst, best = float(sums[k]), (int(pair[0][k]), int(pair[1][k]))
    delta = 0.0 if best is None else min(1.0, math.nextafter(worst + margin, math.inf))
    holds = None if claim is None else bool(delta <= claim.delta * (1.0 + tol))
    return MatrixDeltaCertificate(delta, eps, best, int(src.size), holds)
