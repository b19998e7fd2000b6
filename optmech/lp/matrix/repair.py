"""From a solver's point to a certified ε-DP mechanism: clip, lower closure, mixture.

No solver's point is exactly private (interior-point points sit a hair outside the feasible
set, simplex vertices leave zeros facing entries of 1e-20), so every mechanism optmech hands
out goes through `repair_point`, and the result is certified by the independent
`optmech.certify.matrix.certify_mechanism` to satisfy
``certified ε ≤ ε`` exactly — the certifier rounds every logarithm pessimistically, so that is a
proof for the given floats.

The repair raises entries to the *lower closure* ``max_j x[j, r] e^(−t d(i, j))`` along the
neighbour graph (only violating entries move, by about the violation) and, should that not
suffice, mixes with the uniform (0-DP) mechanism, ``(1 − λ)X + λU`` (Dwork & Roth (2014): a
mixture with a 0-DP mechanism keeps the ratio bound where it holds and closes it elsewhere).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass

import networkx as nx
import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from scipy.sparse import csgraph

from optmech._floats import FloatArray, IntArray
from optmech._validation import check_real_array
from optmech.certify.matrix import certify_mechanism
from optmech.exceptions import SolverError
from optmech.graphs import edge_pairs, is_path_graph, path_graph
from optmech.lp.engine.mixing import MixingSearch, least_mixture
from optmech.lp.engine.report import stage
from optmech.lp.matrix.setting import check_epsilon
from optmech.provenance import RepairKind

__all__ = [
    "PRIVACY_MARGIN",
    "ZERO_COLUMN",
    "RepairOutcome",
    "clip_normalise",
    "lower_closure",
    "make_private",
    "max_violation",
    "repair_point",
    "uniform_mixture",
]


#: Relative margin by which the repair aims below ε when the closure at ε itself does not
#: certify (a vertex where ``x[i, r] = e^ε x[i', r]`` holds exactly certifies a few ulps above
#: ε, because the certifier rounds each logarithm up).
PRIVACY_MARGIN = 1e-10
#: A column whose largest entry is below this is solver noise on an unused output: zeroed.
ZERO_COLUMN = 1e-9
#: The smallest positive float (subnormal).
_TINY = 5e-324
#: The search for the uniform mixture's weight: doubling from the closed form, from 1e-15 on.
_MIXING = MixingSearch(growth=2.0, floor=1e-15)

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RepairOutcome:
    """A certified mechanism and how it was obtained.

    Attributes
    ----------
    mechanism : ndarray
        Certified ε-DP (``certified ε ≤ ε``).
    kind : RepairKind
        ``NONE``, ``LOWER_CLOSURE`` or ``UNIFORM_MIXTURE``.
    weight : float
        ``λ`` of the uniform mixture (0 otherwise).
    certified_epsilon : float
        The certifier's ε of `mechanism`.
    """

    mechanism: FloatArray
    kind: RepairKind
    weight: float
    certified_epsilon: float


def clip_normalise(point: FloatArray) -> FloatArray:
    """The solver's point clipped to ``x ≥ 0`` with rows normalised (the *raw* mechanism).

    Raises
    ------
    SolverError
        A row is all zeros after clipping (not a point of the LP).
    """
    x = np.clip(np.asarray(point, dtype=np.float64), 0.0, None)
    sums = x.sum(axis=1, keepdims=True)
    if np.any(sums <= 0):
        raise SolverError("LP", "invalid_point", "a row of the returned mechanism is all zeros")
    return x / sums


def max_violation(x: FloatArray, epsilon: float, src: IntArray, dst: IntArray) -> float:
    """Largest violation of the LP's constraints (sign, row sums, privacy rows), absolute."""
    e = math.exp(epsilon)
    a, b = x[src], x[dst]
    return float(
        max(
            0.0,
            -float(x.min()),
            float(np.max(np.abs(x.sum(axis=1) - 1.0))),
            float(np.max(a - e * b, initial=0.0)),
            float(np.max(b - e * a, initial=0.0)),
        )
    )


def _decayed(alpha: float, row: FloatArray) -> FloatArray:
    """``α · row``, with products that underflow to 0 raised to the smallest subnormal.

    At ε = 50 a column decays by e^-50 per step and reaches 0 in floating point within 15
    steps: a 0 facing a positive entry is not private at any ε, while the smallest subnormal
    (5e-324) keeps every ratio finite and bounded by the one it replaces.
    """
    out = alpha * row
    out[(out == 0) & (row > 0)] = _TINY
    return out


def lower_closure(
    x: FloatArray, log_ratio: float, src: IntArray, dst: IntArray, path: bool
) -> FloatArray:
    """The smallest ``y ≥ x`` with ``y[i, r] ≥ e^(−t) y[i', r]`` on every edge.

    That is ``y[i, r] = max_j x[j, r] e^(−t d(i, j))`` (graph distance d). Every column of the
    result satisfies the ratio bound ``e^t`` (before row normalisation): ``y[i] ≥ e^(−t) y[i']``
    for neighbours because ``d(i, j) ≤ d(i', j) + 1``.

    Examples
    --------
    >>> lower_closure(np.eye(3), math.log(2), np.array([0, 1]), np.array([1, 2]), True)[0]
    array([1.  , 0.5 , 0.25])
    """
    alpha = math.exp(-log_ratio)
    y = x.copy()
    if path:  # two sweeps along the path, vectorised over the outputs
        for i in range(1, y.shape[0]):
            np.maximum(y[i], _decayed(alpha, y[i - 1]), out=y[i])
        for i in range(y.shape[0] - 2, -1, -1):
            np.maximum(y[i], _decayed(alpha, y[i + 1]), out=y[i])
        return y
    n = x.shape[0]
    adj = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    dist = csgraph.shortest_path(adj, directed=False, unweighted=True)
    decay = np.exp(-log_ratio * dist)  # (N, N); the graph is connected
    block = max(1, 4_000_000 // max(1, n * x.shape[1]))
    for start in range(0, n, block):  # (max, ×) product, blocks of rows
        stop = min(n, start + block)
        y[start:stop] = np.max(decay[start:stop, :, None] * x[None, :, :], axis=1)
    # Underflowed entries of used columns (the exact closure is positive there) rounded up.
    y[(y == 0) & (y.max(axis=0) > 0)[None, :]] = _TINY
    return y


def _violation_lambda(y: FloatArray, log_ratio: float, src: IntArray, dst: IntArray) -> float:
    """Smallest λ with ``(1 − λ)y + λU`` satisfying ratio ``e^t`` on every edge (U uniform rows).

    For a pair ``a > e^t b`` the mixture needs ``(1 − λ)(a − e^t b) ≤ λ (e^t − 1)/m``, i.e.
    ``λ/(1 − λ) ≥ v = (a − e^t b) m/(e^t − 1)``: ``λ = v/(1 + v)`` at the worst pair.
    """
    e = math.exp(log_ratio)
    a, b = y[src], y[dst]
    worst = float(max(np.max(a - e * b, initial=0.0), np.max(b - e * a, initial=0.0)))
    if worst <= 0:
        return 0.0
    v = worst * y.shape[1] / math.expm1(log_ratio)
    return v / (1.0 + v)


def _closure_attempts(
    x: FloatArray, eps: float, src: IntArray, dst: IntArray, path: bool
) -> tuple[RepairOutcome | None, tuple[FloatArray, float]]:
    """Lower closures at ``t = ε`` and, when the row normalisation breaks ε, slightly below.

    Returns the first certified closure (or ``None``) and the closure needing the least mixing.
    """
    pairs = np.stack([src, dst], axis=1)
    target = eps
    best: tuple[FloatArray, float] | None = None
    for _ in range(4):
        y = lower_closure(x, target, src, dst, path)
        sums = y.sum(axis=1)
        y /= sums[:, None]
        cert = certify_mechanism(y, pairs).epsilon
        if cert <= eps:
            return RepairOutcome(y, RepairKind.LOWER_CLOSURE, 0.0, cert), (y, 0.0)
        lam = _violation_lambda(y, eps * (1.0 - PRIVACY_MARGIN), src, dst)
        if best is None or lam < best[1]:
            best = (y, lam)
        # Normalising distorts each ratio by s_j/s_i (the spread of the row sums).
        spread = float(np.max(np.abs(np.log(sums[src]) - np.log(sums[dst]))))
        if not 2.0 * spread < 1e-3 * eps:
            break  # far from private: mix with the uniform mechanism
        # Leave room for the distortion and for the certifier's rounding. (Lowering the target
        # also raises chains of tight ratios, which can widen the spread: the best is kept.)
        target = min(target, eps - 2.0 * spread) * (1.0 - PRIVACY_MARGIN)
    assert best is not None
    return None, best


def repair_point(
    raw: FloatArray, epsilon: float, src: IntArray, dst: IntArray, path: bool
) -> RepairOutcome:
    """Make a clipped, row-normalised point certified ε-DP (``certified ε ≤ ε``).

    1. Zero the columns whose largest entry is below 1e-9 (solver noise on an unused output;
       a zero column is private), renormalise; done if that certifies.
    2. Lower closures (`lower_closure`), first at ``t = ε``; normalising rows
    distorts
       ratios by the spread of the row sums, so ``t`` is lowered by twice the spread and the
       closure redone (a few times, keeping the attempt that needs the least mixing).
    3. Otherwise mix with the uniform (0-DP) mechanism with the closed-form ``λ`` of the
       worst remaining violation, doubled until the certifier accepts.

    Returns
    -------
    RepairOutcome
    """
    pairs = np.stack([src, dst], axis=1)
    with stage("certify", _log) as found:
        x = raw.copy()
        x[:, x.max(axis=0) < ZERO_COLUMN] = 0.0
        x /= x.sum(axis=1, keepdims=True)
        cert = certify_mechanism(x, pairs).epsilon
        found.update(certified_epsilon=cert, holds=cert <= epsilon)
    if cert <= epsilon:
        return RepairOutcome(x, RepairKind.NONE, 0.0, cert)
    with stage("repair", _log) as found:
        outcome = _repaired(x, epsilon, src, dst, path)
        found.update(kind=str(outcome.kind), weight=outcome.weight)
    return outcome


def _repaired(
    x: FloatArray, epsilon: float, src: IntArray, dst: IntArray, path: bool
) -> RepairOutcome:
    """Steps 2 and 3 of `repair_point`: a lower closure, else the least uniform
    mixture that certifies (`least_mixture`)."""
    done, (y, lam) = _closure_attempts(x, epsilon, src, dst, path)
    if done is not None:
        return done
    pairs = np.stack([src, dst], axis=1)
    z, weight, cert = uniform_mixture(  # λ = 1 gives the uniform mechanism, 0-DP
        y, epsilon, lambda z: certify_mechanism(z, pairs).epsilon, lam
    )
    return RepairOutcome(z, RepairKind.UNIFORM_MIXTURE, weight, cert)


def uniform_mixture(
    y: FloatArray, epsilon: float, certify: Callable[[FloatArray], float], start: float
) -> tuple[FloatArray, float, float]:
    """``(1 − λ)Y + λU`` (U the uniform rows, 0-DP; Dwork & Roth (2014)) with the least λ found
    from ``start``, doubled until ``certify`` (the certified ε of a matrix: on a graph's edges
    for the user LPs, over every pair for the local model) is at most ε; rows renormalised.
    Returns the mixture, λ and its certified ε.

    Examples
    --------
    >>> y = np.array([[1.0, 0.0], [0.0, 1.0]])  # 0 facing 1: no finite ε
    >>> pairs = np.array([[0, 1]])
    >>> z, lam, eps = uniform_mixture(y, 1.0, lambda z: certify_mechanism(z, pairs).epsilon, 0.1)
    >>> bool(eps <= 1.0 and 0 < lam < 1)
    True
    """

    def certified(weight: float) -> tuple[FloatArray, float] | None:
        z = (1.0 - weight) * y + weight / y.shape[1]
        z /= z.sum(axis=1, keepdims=True)
        cert = certify(z)
        return (z, cert) if cert <= epsilon else None

    failure = "the repair did not reach the privacy target; this is a bug"
    weight, (z, cert) = least_mixture(certified, start, _MIXING, failure=failure)
    return z, weight, cert


def make_private(
    mechanism: npt.ArrayLike, epsilon: float, graph: nx.Graph | None = None
) -> tuple[FloatArray, float]:
    """Turn a nearly private mechanism into a certified ε-DP one; return it and the mixing λ.

    Clips to $x ≥ 0$, normalises rows and repairs (`repair_point`: unused columns
    zeroed, lower closure, uniform mixture as a last resort). The result is certified by
    `optmech.certify.matrix.certify_mechanism`:
    $certified ε ≤ ε$.

    Parameters
    ----------
    mechanism : array_like, shape (N, m)
        A solver's point (may be slightly negative or unnormalised).
    epsilon : float
        Target privacy level, in (0, 50].
    graph : networkx.Graph, optional
        Neighbour graph over the rows (default: the count-query path).

    Returns
    -------
    (mechanism, lam) : (ndarray, float)
        ``lam = 0`` when no mixing was needed.

    Examples
    --------
    >>> m, lam = make_private(np.array([[1.0, 1e-11], [0.4, 0.6]]), 1.0)
    >>> bool(lam > 0), float(m.sum(axis=1).max()) == 1.0
    (True, True)
    """
    eps = check_epsilon(epsilon)
    x = check_real_array("mechanism", mechanism, ndim=2)
    if graph is None:
        graph = path_graph(x.shape[0] - 1)
    src, dst = edge_pairs(graph)
    outcome = repair_point(clip_normalise(x), eps, src, dst, is_path_graph(graph))
    return outcome.mechanism, outcome.weight
