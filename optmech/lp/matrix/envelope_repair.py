"""From a solver's point to a certified ε-LDP mechanism that keeps the caller's constraints.

No solver's point is exactly private: an interior-point solver leaves every entry a hair off its
bound (entries of 1e-12 beside zeros of 1e-13 in unused columns), a simplex vertex rounds
``e^ε t``. On the complete graph the least private mechanism above a point is its **envelope
closure**: each entry raised to ``e^(−t)`` times its column's largest, ``Y[i, r] =
max(X[i, r], e^(−t) max_j X[j, r])`` (the lower closure of
`lower_closure` for graph distance 1).

The closure breaks what the rows must satisfy by about the solver's tolerance: row sums and, with
`Unbiased`, the row means. Each row is then restored *exactly*
by a relative correction affine in the output, ``Y'[i, r] = Y[i, r](1 + α_i + β_i (y_r − c_i))``
with ``c_i`` the row's mean: ``α_i`` restores the sum, ``β_i`` the mean (the two decouple because
the row is centred at ``c_i``). Every entry moves by the factor ``1 + δ``, ``|δ| ≤ |α_i| +
|β_i| max |y − c_i|``, so each column's ratio grows by at most ``(1 + δ)/(1 − δ)``: the closure
is taken at ``t`` below ε by that much, and redone until the independent certifier
(`certify_mechanism`, over every pair of inputs)
proves ``certified ε ≤ ε``. Inequalities (risk caps, tail bounds, a second cost) move by the
same relative amount, about 1e-10; the engine re-solves with a margin when one does not hold.

A mixture with the uniform mechanism (Dwork & Roth (2014)) is used only when no equality
constraint or bound forbids it: it keeps monotonicity (the uniform rows are equal) but not
unbiasedness or a cap.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from optmech._floats import FloatArray, IntArray
from optmech.certify.matrix import certify_mechanism
from optmech.lp.matrix.repair import uniform_mixture
from optmech.provenance import RepairKind

__all__ = [
    "ZERO_COLUMN",
    "LocalRepair",
    "certify_local",
    "envelope_closure",
    "repair_local",
    "shrunk_until_certified",
]

#: A column whose largest entry is below this is solver noise on an unused output: zeroed
#: (the correction then restores the rows exactly).
ZERO_COLUMN = 1e-9
#: The smallest positive float (subnormal).
_TINY = 5e-324
#: Closures tried before giving up (the engine then re-solves with a privacy margin).
_ATTEMPTS = 8
#: Lowest closure level tried, relative: below ``ε(1 − 1e-6)`` a re-solve is cheaper.
_LOWEST = 1e-6


@dataclass(frozen=True)
class LocalRepair:
    """A certified mechanism and how it was obtained (``mechanism`` is None when no closure
    down to ``ε(1 − 1e-6)`` certified and mixing was not allowed).

    Attributes
    ----------
    mechanism : ndarray or None
    kind : RepairKind
    weight : float
        ``λ`` of a uniform mixture (0 otherwise).
    certified_epsilon : float
    level : float
        The ``t`` of the closure used.
    """

    mechanism: FloatArray | None
    kind: RepairKind
    weight: float
    certified_epsilon: float
    level: float


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


def correct_rows(
    y: FloatArray, outputs: FloatArray, means: FloatArray | None
) -> tuple[FloatArray, float]:
    """Rows rescaled to sum 1 and, when ``means`` is given, shifted to those means, by the
    relative correction ``1 + α + β (y − c)`` (module docstring); returns the corrected matrix and
    the largest relative change ``δ`` of an entry."""
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
    return out, delta


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
    (`correct_rows`) keeps every entry non-negative. Here row ``i``, whose
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


def _corrected(
    y: FloatArray, outputs: FloatArray, means: FloatArray | None
) -> tuple[FloatArray, float]:
    """`correct_rows`, or `bracket_means` when a mean
    correction would make an entry negative (a row's mean on the edge of its support)."""
    out, delta = correct_rows(y, outputs, means)
    if means is None or (np.all(out >= 0.0) and np.all(np.isfinite(out))):
        return out, delta
    return bracket_means(y, outputs, means) or (out, delta)


def _mix(y: FloatArray, epsilon: float, pairs: IntArray | None) -> tuple[FloatArray, float, float]:
    """``(1 − λ)Y + λU`` with the least λ from the closed form of the worst column
    (`uniform_mixture`)."""
    m = y.shape[1]
    top, bottom = y.max(axis=0), y.min(axis=0)
    e = math.exp(epsilon * (1.0 - 1e-10))
    worst = float(np.max(top - e * bottom))
    lam = 0.0 if worst <= 0 else (worst * m / math.expm1(epsilon)) / (1.0 + worst * m)
    return uniform_mixture(y, epsilon, lambda z: certify_local(z, pairs), lam)


def repair_local(
    point: FloatArray,
    epsilon: float,
    outputs: FloatArray,
    means: FloatArray | None,
    *,
    allow_mixture: bool,
    closure: Callable[[FloatArray, float], FloatArray] = envelope_closure,
    pairs: IntArray | None = None,
) -> LocalRepair:
    """Make a solver's point certified ε-LDP, keeping row sums and (given ``means``) row means.

    ``closure`` and ``pairs`` default to the complete graph's envelope closure and every pair of
    rows; a neighbour graph's lower closure and edges make the same repair certify ε-DP on that
    graph (`NeighbourGraph`).

    1. Clip to ``X ≥ 0``, zero the columns below `ZERO_COLUMN`, correct the rows; done if that
       certifies.
    2. Envelope closure at ``t = ε``, correction; lower ``t`` by the overshoot of the
       certificate and repeat (at most 8 times, never below ``ε(1 − 1e-6)``).
    3. When allowed, mix with the uniform mechanism; otherwise return no mechanism (the
       engine re-solves with a privacy margin).
    """
    x = np.clip(np.asarray(point, dtype=np.float64), 0.0, None)
    x[:, x.max(axis=0) < ZERO_COLUMN] = 0.0
    if np.any(x.sum(axis=1) <= 0):
        return LocalRepair(None, RepairKind.NONE, 0.0, math.inf, epsilon)
    y, _ = _corrected(x, outputs, means)
    if np.any(y < 0.0):  # no correction keeps every entry non-negative: re-solve
        return LocalRepair(None, RepairKind.NONE, 0.0, math.inf, epsilon)
    cert = certify_local(y, pairs)
    if cert <= epsilon:
        return LocalRepair(y, RepairKind.NONE, 0.0, cert, epsilon)
    level = epsilon
    for _ in range(_ATTEMPTS):
        y, delta = _corrected(closure(x, level), outputs, means)
        if np.any(y < 0.0):
            break
        cert = certify_local(y, pairs)
        if cert <= epsilon:
            return LocalRepair(y, RepairKind.LOWER_CLOSURE, 0.0, cert, level)
        over = max(cert - epsilon, 2.0 * delta)
        level = min(level - 1.5 * over, level * (1.0 - 1e-15)) - 4.0 * math.ulp(epsilon)
        if level < epsilon * (1.0 - _LOWEST):
            break
    if allow_mixture:
        z, lam, cert = _mix(closure(x, epsilon), epsilon, pairs)
        return LocalRepair(z, RepairKind.UNIFORM_MIXTURE, lam, cert, epsilon)
    return LocalRepair(None, RepairKind.LOWER_CLOSURE, 0.0, cert, level)
