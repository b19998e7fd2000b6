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

The envelope LP with the caller's constraints is repaired by `repair_local`, which keeps them.
On the complete graph the least private mechanism above a point is its **envelope closure**
``Y[i, r] = max(X[i, r], e^(−t) max_j X[j, r])`` (the lower closure for graph distance 1). The
closure breaks the rows' sums and, with `Unbiased`, their means, by about the solver's
tolerance; each row is restored *exactly* by a relative correction affine in the output,
``Y'[i, r] = Y[i, r](1 + α_i + β_i (y_r − c_i))`` with ``c_i`` the row's mean: ``α_i`` restores
the sum, ``β_i`` the mean (the two decouple because the row is centred at ``c_i``). Every entry
moves by the factor ``1 + δ``, ``|δ| ≤ |α_i| + |β_i| max |y − c_i|``, so each column's ratio
grows by at most ``(1 + δ)/(1 − δ)``: the closure is taken at ``t`` below ε by that much, and
redone until the certifier proves ``certified ε ≤ ε``. Inequalities (risk caps, tail bounds, a
second cost) move by the same relative amount, about 1e-10; the engine re-solves with a margin
when one does not hold. The uniform mixture is used there only when no equality constraint or
bound forbids it: it keeps monotonicity (the uniform rows are equal) but not unbiasedness or a
cap.
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
    "bracket_means",
    "certify_local",
    "clip_normalise",
    "envelope_closure",
    "lower_closure",
    "make_private",
    "max_violation",
    "repair_local",
    "repair_point",
    "shrunk_until_certified",
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
#: Envelope closures `repair_local` tries before giving up (the engine then re-solves with a
#: privacy margin), and its lowest closure level, relative: below ``ε(1 − 1e-6)`` a re-solve is
#: cheaper.
_ATTEMPTS = 8
_LOWEST = 1e-6

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RepairOutcome:
    """A certified mechanism (``certified ε ≤ ε``), how it was obtained and the weight ``λ``
    of the uniform mixture (0 without one)."""

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


def _edge_excess(x: FloatArray, log_ratio: float, src: IntArray, dst: IntArray) -> float:
    """``max(0, x[a, r] − e^t x[b, r])`` over the edges, both directions."""
    e = math.exp(log_ratio)
    a, b = x[src], x[dst]
    return float(max(np.max(a - e * b, initial=0.0), np.max(b - e * a, initial=0.0)))


def max_violation(x: FloatArray, epsilon: float, src: IntArray, dst: IntArray) -> float:
    """Largest violation of the LP's constraints (sign, row sums, privacy rows), absolute."""
    return max(
        0.0,
        -float(x.min()),
        float(np.max(np.abs(x.sum(axis=1) - 1.0))),
        _edge_excess(x, epsilon, src, dst),
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
    worst = _edge_excess(y, log_ratio, src, dst)
    if worst <= 0:
        return 0.0
    v = worst * y.shape[1] / math.expm1(log_ratio)
    return v / (1.0 + v)


def repair_point(
    raw: FloatArray, epsilon: float, src: IntArray, dst: IntArray, path: bool
) -> RepairOutcome:
    """Make a clipped, row-normalised point certified ε-DP (``certified ε ≤ ε``).

    1. Zero the columns whose largest entry is below 1e-9 (solver noise on an unused output;
       a zero column is private), renormalise; done if that certifies.
    2. Lower closures (`lower_closure`), first at ``t = ε``; normalising rows distorts
       ratios by the spread of the row sums, so ``t`` is lowered by twice the spread and the
       closure redone (a few times, keeping the attempt that needs the least mixing).
    3. Otherwise mix with the uniform (0-DP) mechanism with the closed-form ``λ`` of the
       worst remaining violation, doubled until the certifier accepts.
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
        outcome = _repaired(x, epsilon, src, dst, path, pairs)
        found.update(kind=str(outcome.kind), weight=outcome.weight)
    return outcome


def _repaired(
    x: FloatArray, eps: float, src: IntArray, dst: IntArray, path: bool, pairs: IntArray
) -> RepairOutcome:
    """Steps 2 and 3 of `repair_point`: the first lower closure that certifies, else the least
    uniform mixture (`least_mixture`) of the closure needing the least mixing."""
    target = eps
    best: tuple[FloatArray, float] | None = None
    for _ in range(4):
        y = lower_closure(x, target, src, dst, path)
        sums = y.sum(axis=1)
        y /= sums[:, None]
        cert = certify_mechanism(y, pairs).epsilon
        if cert <= eps:
            return RepairOutcome(y, RepairKind.LOWER_CLOSURE, 0.0, cert)
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
    z, weight, cert = uniform_mixture(  # λ = 1 gives the uniform mechanism, 0-DP
        best[0], eps, lambda z: certify_mechanism(z, pairs).epsilon, best[1]
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
    outcome = repair_point(clip_normalise(x), eps, *edge_pairs(graph), is_path_graph(graph))
    return outcome.mechanism, outcome.weight


def certify_local(mechanism: FloatArray, pairs: IntArray | None = None) -> float:
    """The certified ε of ``mechanism`` over ``pairs`` of rows (default: every pair, the
    complete graph)."""
    if pairs is None:
        i, j = np.triu_indices(mechanism.shape[0], k=1)
        pairs = np.stack([i, j], axis=1)
    return certify_mechanism(mechanism, pairs).epsilon


def shrunk_until_certified(
    build: Callable[[float], FloatArray], epsilon: float, shrink: float
) -> tuple[FloatArray, float]:
    """``build(ratio)`` at ``ratio = e^ε (1 − shrink)``, the shrink doubled until the matrix
    certifies ε (`certify_local`): room for the rows' normalisation and the certifier's
    rounding. Returns the matrix and its certified ε.

    Examples
    --------
    >>> def rr(ratio):  # binary randomized response at that ratio
    ...     return np.array([[ratio, 1.0], [1.0, ratio]]) / (1.0 + ratio)
    >>> q, eps = shrunk_until_certified(rr, 1.0, 2.0**-40)
    >>> bool(eps <= 1.0), bool(q[0, 0] / q[0, 1] < math.e)
    (True, True)
    """
    for _ in range(40):
        q = build(math.exp(epsilon) * (1.0 - shrink))
        cert = certify_local(q)
        if cert <= epsilon:
            return q, cert
        shrink *= 2.0
    raise AssertionError("a ratio below e^ε certifies")  # pragma: no cover


def envelope_closure(x: FloatArray, level: float) -> FloatArray:
    """``max(X[i, r], e^(−level) max_j X[j, r])`` (module docstring); products that underflow
    in a used column are raised to the smallest subnormal (a zero facing a positive entry has
    no finite ε)."""
    top = x.max(axis=0)
    floor = math.exp(-level) * top
    floor[(floor == 0) & (top > 0)] = _TINY
    return np.maximum(x, floor[None, :])


def bracket_means(
    y: FloatArray, outputs: FloatArray, means: FloatArray
) -> tuple[FloatArray, float] | None:
    """Rows brought to sum 1 and to the ``means`` by adding mass at two outputs only: ``b``, the
    nearest output below the smallest mean, and ``a``, the nearest above the largest (``None``
    when the grid has no such outputs). Returns the matrix and the largest relative change of
    a row's sum.

    At a large ε the solver resolves the debiasing outputs' masses (about ``e^(−ε)``) as zeros,
    and the closure then raises the row of the smallest input on outputs above it only: its
    mean lies on the edge of its support, where no relative correction ``1 + α + β(y − c)``
    keeps every entry non-negative. Here row ``i``, whose
    mass-weighted excess is ``e_i = Σ_r y[i, r](y_r − m_i)``, receives ``v`` at ``a`` (the same
    in every row) and ``u_i = (e_i + v (y_a − m_i)) / (m_i − y_b)`` at ``b``, which makes its
    mean exactly ``m_i``; ``v = 2 max_i |e_i| / (y_a − m_i)`` keeps every ``u_i`` at least half
    its share of ``v``, so the two columns' ratios stay within a factor set by the grid's
    distances alone. Scaling a row to sum 1 keeps its mean; the certifier then judges the
    result.
    """
    below = np.flatnonzero(outputs < means.min())
    above = np.flatnonzero(outputs > means.max())
    if not below.size or not above.size:
        return None
    b, a = int(below[-1]), int(above[0])
    to_b, to_a = means - outputs[b], outputs[a] - means
    excess = y @ outputs - y.sum(axis=1) * means
    v = 2.0 * float(np.max(np.abs(excess) / to_a))
    out = y.copy()
    out[:, a] += v
    out[:, b] += (excess + v * to_a) / to_b
    sums = out.sum(axis=1, keepdims=True)
    return out / sums, float(np.max(np.abs(1.0 / sums - 1.0)))


def correct_rows(
    y: FloatArray, outputs: FloatArray, means: FloatArray | None
) -> tuple[FloatArray, float]:
    """Rows rescaled to sum 1 and, when ``means`` is given, shifted to those means, by the
    relative correction ``1 + α + β (y − c)`` (module docstring), or by `bracket_means` when
    that would make an entry negative (a row's mean on the edge of its support); returns the
    corrected matrix and the largest relative change ``δ`` of an entry."""
    sums = y.sum(axis=1, keepdims=True)
    alpha = 1.0 / sums - 1.0
    if means is None:
        return y / sums, float(np.max(np.abs(alpha)))
    p = y / sums
    centre = p @ outputs
    dev = outputs[None, :] - centre[:, None]
    spread = np.sum(p * dev * dev, axis=1)
    beta = np.where(spread > 0, (means - centre) / np.where(spread > 0, spread, 1.0), 0.0)
    factor = 1.0 + beta[:, None] * dev
    out = p * factor
    # The exact identities hold up to rounding; one more pass of the same correction on the
    # result leaves the sums and means within a few ulps.
    out /= out.sum(axis=1, keepdims=True)
    delta = float(np.max(np.abs(factor - 1.0) + np.abs(alpha)))
    if np.all(out >= 0.0) and np.all(np.isfinite(out)):
        return out, delta
    return bracket_means(y, outputs, means) or (out, delta)


def repair_local(
    point: FloatArray,
    epsilon: float,
    outputs: FloatArray,
    means: FloatArray | None,
    *,
    allow_mixture: bool,
    closure: Callable[[FloatArray, float], FloatArray] = envelope_closure,
    pairs: IntArray | None = None,
) -> RepairOutcome | None:
    """Make a solver's point certified ε-LDP, keeping row sums and (given ``means``) row means.

    ``closure`` and ``pairs`` default to the complete graph's envelope closure and every pair of
    rows; a neighbour graph's lower closure and edges make the same repair certify ε-DP on that
    graph (`NeighbourGraph`).

    1. Clip to ``X ≥ 0``, zero the columns below `ZERO_COLUMN`, correct the rows; done if that
       certifies.
    2. Envelope closure at ``t = ε``, correction; lower ``t`` by the overshoot of the
       certificate and repeat (at most 8 times, never below ``ε(1 − 1e-6)``).
    3. When allowed, mix with the uniform mechanism (the least λ from the closed form of the
       worst column, `uniform_mixture`); otherwise return None (the engine re-solves with a
       privacy margin).
    """
    x = np.clip(np.asarray(point, dtype=np.float64), 0.0, None)
    x[:, x.max(axis=0) < ZERO_COLUMN] = 0.0
    if np.any(x.sum(axis=1) <= 0):
        return None
    y, _ = correct_rows(x, outputs, means)
    if np.any(y < 0.0):  # no correction keeps every entry non-negative: re-solve
        return None
    cert = certify_local(y, pairs)
    if cert <= epsilon:
        return RepairOutcome(y, RepairKind.NONE, 0.0, cert)
    level = epsilon
    for _ in range(_ATTEMPTS):
        y, delta = correct_rows(closure(x, level), outputs, means)
        if np.any(y < 0.0):
            break
        cert = certify_local(y, pairs)
        if cert <= epsilon:
            return RepairOutcome(y, RepairKind.LOWER_CLOSURE, 0.0, cert)
        over = max(cert - epsilon, 2.0 * delta)
        level = min(level - 1.5 * over, level * (1.0 - 1e-15)) - 4.0 * math.ulp(epsilon)
        if level < epsilon * (1.0 - _LOWEST):
            break
    if not allow_mixture:
        return None
    y = closure(x, epsilon)
    top, bottom = y.max(axis=0), y.min(axis=0)
    worst = float(np.max(top - math.exp(epsilon * (1.0 - 1e-10)) * bottom))
    m = y.shape[1]
    lam = 0.0 if worst <= 0 else (worst * m / math.expm1(epsilon)) / (1.0 + worst * m)
    z, lam, cert = uniform_mixture(y, epsilon, lambda z: certify_local(z, pairs), lam)
    return RepairOutcome(z, RepairKind.UNIFORM_MIXTURE, lam, cert)
