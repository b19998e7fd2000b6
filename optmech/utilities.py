"""Information-theoretic utilities of a local randomizer (Kairouz, Oh & Viswanath (2016)).

A randomizer ``Q[x, y] = P(output y | input x)`` over k inputs is judged by a utility that is a
sum over its output columns, $U(Q) = Σ_y μ(Q[:, y])$, of a **sublinear** function $μ$:
convex and positively homogeneous, $μ(c s) = c μ(s)$ for $c ≥ 0$. Kairouz, Oh & Viswanath
(2016) prove that such a utility is maximised over ε-LDP randomizers by a *staircase*
mechanism, every column of which is $θ · S$ with a pattern ``S ∈ {1, e^ε}^k``; their
linear-programming theorem turns the maximisation into a linear programme over the $2^k$ patterns
(`optmech.extremal_mechanism`).

* `MutualInformation` — ``I(X; Y)`` for ``X ~ p``, in nats:
  $μ(s) = Σ_x p(x) s(x) log(s(x) / ⟨p, s⟩)$ (information preservation).
* `KLDivergence` — $D(M₀ ‖ M₁)$ between the output laws under two hypotheses
  $p₀, p₁$ over the inputs, in nats: $μ(s) = ⟨p₀, s⟩ log(⟨p₀, s⟩ / ⟨p₁, s⟩)$ (
  hypothesis testing; the Chernoff–Stein exponent of a test on the released data).

Examples
--------
>>> import numpy as np
>>> mi = MutualInformation([0.5, 0.5])
>>> abs(mi.value(np.eye(2)) - float(np.log(2))) < 1e-15   # the identity: I = H(X)
True
>>> float(mi.value(np.full((2, 2), 0.5)))                     # a constant: no information
0.0
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray
from optmech._validation import check_prior, check_real_array

__all__ = ["KLDivergence", "MutualInformation", "Utility"]


def _xlogy(x: FloatArray, y: FloatArray) -> FloatArray:
    """``x log y`` with ``0 log y = 0`` (also for ``y = 0``)."""
    out = np.zeros(np.broadcast(x, y).shape)
    positive = np.broadcast_to(x > 0, out.shape)
    xb = np.broadcast_to(x, out.shape)
    yb = np.broadcast_to(y, out.shape)
    out[positive] = xb[positive] * np.log(yb[positive])
    return out


# -- outward-rounded interval arithmetic on arrays of positive intervals -------------------------
Interval = tuple[FloatArray, FloatArray]


def _down(x: FloatArray, ulps: int = 1) -> FloatArray:
    for _ in range(ulps):
        x = np.nextafter(x, -np.inf)
    return x


def _up(x: FloatArray, ulps: int = 1) -> FloatArray:
    for _ in range(ulps):
        x = np.nextafter(x, np.inf)
    return x


def _mul(a: Interval, b: Interval) -> Interval:
    """Product of intervals of non-negative numbers."""
    return _down(a[0] * b[0]), _up(a[1] * b[1])


def _sum(a: Interval, axis: int = 0) -> Interval:
    """Sum along ``axis``, widened by ``γ_k`` of the magnitude (Higham (2002), §3.1)."""
    k = a[0].shape[axis]
    gamma = 1.01 * k * 2.0**-53
    lo, hi = a[0].sum(axis=axis), a[1].sum(axis=axis)
    return _down(lo - gamma * np.abs(a[0]).sum(axis=axis)), _up(
        hi + gamma * np.abs(a[1]).sum(axis=axis)
    )


def _log(a: Interval) -> Interval:
    """``log`` of positive intervals, four ulps of slack each way (numpy's log is within a few
    ulps; the convention of `optmech.certify.matrix`)."""
    la, lb = np.log(a[0]), np.log(a[1])
    return _down(la - 4 * np.spacing(np.abs(la))), _up(lb + 4 * np.spacing(np.abs(lb)))


def _div(a: Interval, b: Interval) -> Interval:
    """Quotient of positive intervals."""
    return _down(a[0] / b[1]), _up(a[1] / b[0])


def _xlog(a: Interval, b: Interval) -> Interval:
    """``a · log b`` for ``a ≥ 0`` and ``b > 0``: the four corners' extremes."""
    lb = _log(b)
    corners = np.stack([a[0] * lb[0], a[0] * lb[1], a[1] * lb[0], a[1] * lb[1]])
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    return _down(lo - np.spacing(np.abs(lo))), _up(hi + np.spacing(np.abs(hi)))


class Utility:
    """A sublinear utility $U(Q) = Σ_y μ(Q[:, y])$ over ``num_inputs`` inputs (base class).

    Examples
    --------
    >>> import numpy as np
    >>> from optmech.utilities import MutualInformation, Utility
    >>> mi = MutualInformation(np.full(2, 0.5))
    >>> isinstance(mi, Utility), mi.num_inputs
    (True, 2)
    >>> bool(abs(mi.value(np.eye(2)) - np.log(2)) < 1e-12)  # releasing X keeps all of H(X)
    True
    """

    @property
    def num_inputs(self) -> int:  # pragma: no cover - every utility overrides it
        """``k``, the number of inputs."""
        raise NotImplementedError

    def column_values(self, columns: npt.ArrayLike) -> FloatArray:  # pragma: no cover
        """$μ$ of each column of ``columns`` (shape ``(k, N)``, non-negative)."""
        raise NotImplementedError

    def value(self, mechanism: npt.ArrayLike) -> float:
        """``U(Q)`` in nats for a mechanism ``Q`` (rows: inputs, summing to 1)."""
        q = check_real_array("mechanism", mechanism, ndim=2, nonnegative=True)
        if q.shape[0] != self.num_inputs:
            raise ValueError(
                f"`mechanism` must have one row per input ({self.num_inputs}); got shape {q.shape}."
            )
        return float(np.sum(self.column_values(q)))

    def column_interval(self, low: FloatArray, high: FloatArray) -> Interval:  # pragma: no cover
        """An enclosure ``(lo, hi)`` of $μ$ for every column whose entries lie between ``low``
        and ``high`` (shape ``(k, N)``, positive), rounded outward."""
        raise NotImplementedError

    def value_interval(self, mechanism: npt.ArrayLike) -> tuple[float, float]:
        """An enclosure of ``U(Q)`` for the mechanism as stored (its zero columns add 0)."""
        q = check_real_array("mechanism", mechanism, ndim=2, nonnegative=True)
        used = q[:, q.max(axis=0) > 0]
        if np.any(used <= 0):
            raise ValueError("`mechanism` must have positive entries in every used column.")
        lo, hi = self.column_interval(used, used)
        total = _sum((lo[None, :], hi[None, :]), axis=1)
        return float(total[0][0]), float(total[1][0])


@dataclass(frozen=True)
class MutualInformation(Utility):
    """Mutual information ``I(X; Y)`` in nats, ``X ~ prior`` (Kairouz, Oh & Viswanath (2016)).

    Parameters
    ----------
    prior : array_like, shape (k,)
        Probabilities of the k ≥ 2 inputs: non-negative, summing to 1 within 1e-9.

    Examples
    --------
    >>> import numpy as np
    >>> import optmech
    >>> from optmech.utilities import MutualInformation
    >>> best = optmech.extremal_mechanism(MutualInformation(np.full(2, 0.5)), 1.0)
    >>> bool(0 < best.value <= np.log(2))  # at most H(X) = log 2 nats
    True
    """

    prior: FloatArray = field(repr=False)

    if TYPE_CHECKING:  # any array_like is accepted, and stored as a float array

        def __init__(self, prior: npt.ArrayLike) -> None: ...

    def __post_init__(self) -> None:
        p = check_prior(self.prior)
        if p.size < 2:
            raise ValueError(f"`prior` must have at least 2 entries; got {p.size}.")
        object.__setattr__(self, "prior", p)

    @property
    def num_inputs(self) -> int:
        """``k``."""
        return int(self.prior.size)

    def column_values(self, columns: npt.ArrayLike) -> FloatArray:
        """$μ(s) = Σ_x p(x) s(x) log(s(x) / ⟨p, s⟩)$ for each column ``s``."""
        s = np.asarray(columns, dtype=np.float64)
        p = self.prior[:, None]
        mean = np.sum(p * s, axis=0, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(mean > 0, s / np.where(mean > 0, mean, 1.0), 0.0)
        return np.sum(_xlogy(p * s, ratio), axis=0)

    def column_interval(self, low: FloatArray, high: FloatArray) -> Interval:
        """An enclosure of $μ$ for every column between ``low`` and ``high`` (positive)."""
        p = self.prior[:, None]
        weights = _mul((p, p), (low, high))
        mean = _sum(weights)
        terms = _xlog(weights, _div((low, high), (mean[0][None, :], mean[1][None, :])))
        return _sum(terms)

    def __repr__(self) -> str:
        return f"MutualInformation(prior={np.round(self.prior, 6).tolist()})"


@dataclass(frozen=True)
class KLDivergence(Utility):
    """$D(M₀ ‖ M₁)$ in nats between the output laws under ``p0`` and ``p1`` (Kairouz, Oh &
    Viswanath (2016)).

    Parameters
    ----------
    p0, p1 : array_like, shape (k,)
        The two hypotheses over the same k ≥ 2 inputs; ``p1`` must be positive wherever ``p0``
        is (else the divergence is infinite for every mechanism that keeps the difference).

    Examples
    --------
    >>> import numpy as np
    >>> import optmech
    >>> from optmech.utilities import KLDivergence
    >>> kl = KLDivergence(np.array([0.9, 0.1]), np.array([0.1, 0.9]))  # tell p0 from p1
    >>> best = optmech.extremal_mechanism(kl, 1.0)
    >>> bool(best.value <= best.upper_bound), best.mechanism.shape[0]
    (True, 2)
    """

    p0: FloatArray = field(repr=False)
    p1: FloatArray = field(repr=False)

    if TYPE_CHECKING:  # any array_like is accepted, and stored as a float array

        def __init__(self, p0: npt.ArrayLike, p1: npt.ArrayLike) -> None: ...

    def __post_init__(self) -> None:
        p0 = check_prior(self.p0)
        p1 = check_prior(self.p1, p0.size)
        if p0.size < 2:
            raise ValueError(f"`p0` must have at least 2 entries; got {p0.size}.")
        if np.array_equal(p0, p1):
            raise ValueError("`p0` and `p1` must differ: equal hypotheses give 0 for every Q.")
        object.__setattr__(self, "p0", p0)
        object.__setattr__(self, "p1", p1)

    @property
    def num_inputs(self) -> int:
        """``k``."""
        return int(self.p0.size)

    def column_values(self, columns: npt.ArrayLike) -> FloatArray:
        """$μ(s) = ⟨p₀, s⟩ log(⟨p₀, s⟩ / ⟨p₁, s⟩)$ for each column ``s``."""
        s = np.asarray(columns, dtype=np.float64)
        m0 = self.p0 @ s
        m1 = self.p1 @ s
        if np.any((m0 > 0) & (m1 <= 0)):
            return np.full(s.shape[1], np.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(m0 > 0, m0 / np.where(m1 > 0, m1, 1.0), 1.0)
        return _xlogy(m0, ratio)

    def column_interval(self, low: FloatArray, high: FloatArray) -> Interval:
        """An enclosure of $μ$ for every column between ``low`` and ``high`` (positive)."""
        p0, p1 = self.p0[:, None], self.p1[:, None]
        m0 = _sum(_mul((p0, p0), (low, high)))
        m1 = _sum(_mul((p1, p1), (low, high)))
        if np.any(m1[0] <= 0):
            raise ValueError(
                "`p1` must be positive where the columns are: the divergence is infinite."
            )
        return _xlog(m0, _div(m0, m1))

    def __repr__(self) -> str:
        return (
            f"KLDivergence(p0={np.round(self.p0, 6).tolist()}, p1={np.round(self.p1, 6).tolist()})"
        )
