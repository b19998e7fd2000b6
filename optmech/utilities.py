"""Information-theoretic utilities of a local randomizer (Kairouz, Oh & Viswanath (2016)).

A randomizer ``Q[x, y] = P(output y | input x)`` over k inputs is judged by a utility that is a
sum over its output columns, ``U(Q) = Σ_y μ(Q[:, y])``, of a **sublinear** function ``μ``:
convex and positively homogeneous, ``μ(c s) = c μ(s)`` for ``c ≥ 0``. Kairouz, Oh & Viswanath
(2016), Thm. 2, prove that such a utility is maximised over ε-LDP randomizers by a *staircase*
mechanism, every column of which is ``θ · S`` with a pattern ``S ∈ {1, e^ε}^k``; their Thm. 4
turns the maximisation into a linear programme over the ``2^k`` patterns
([`optmech.extremal_mechanism`][optmech.extremal_mechanism]).

* [`MutualInformation`][MutualInformation] — ``I(X; Y)`` for ``X ~ p``, in nats:
  ``μ(s) = Σ_x p(x) s(x) log(s(x) / ⟨p, s⟩)`` (their §5, information preservation).
* [`KLDivergence`][KLDivergence] — ``D(M₀ ‖ M₁)`` between the output laws under two hypotheses
  ``p₀, p₁`` over the inputs, in nats: ``μ(s) = ⟨p₀, s⟩ log(⟨p₀, s⟩ / ⟨p₁, s⟩)`` (their §4,
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

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import flint
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


class Utility:
    """A sublinear utility ``U(Q) = Σ_y μ(Q[:, y])`` over ``num_inputs`` inputs (base class)."""

    @property
    def num_inputs(self) -> int:  # pragma: no cover - every utility overrides it
        """``k``, the number of inputs."""
        raise NotImplementedError

    def column_values(self, columns: npt.ArrayLike) -> FloatArray:  # pragma: no cover
        """``μ`` of each column of ``columns`` (shape ``(k, N)``, non-negative)."""
        raise NotImplementedError

    def value(self, mechanism: npt.ArrayLike) -> float:
        """``U(Q)`` in nats for a mechanism ``Q`` (rows: inputs, summing to 1)."""
        q = check_real_array("mechanism", mechanism, ndim=2, nonnegative=True)
        if q.shape[0] != self.num_inputs:
            raise ValueError(
                f"`mechanism` must have one row per input ({self.num_inputs}); got shape {q.shape}."
            )
        return float(np.sum(self.column_values(q)))

    def column_ball(self, column: Sequence[Any]) -> Any:  # pragma: no cover
        """``μ`` of one column given as Arb balls (python-flint), as a ball."""
        raise NotImplementedError


@dataclass(frozen=True)
class MutualInformation(Utility):
    """Mutual information ``I(X; Y)`` in nats, ``X ~ prior`` (Kairouz, Oh & Viswanath (2016), §5).

    Parameters
    ----------
    prior : array_like, shape (k,)
        Probabilities of the k ≥ 2 inputs: non-negative, summing to 1 within 1e-9.
    """

    prior: FloatArray = field(repr=False)

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
        """``μ(s) = Σ_x p(x) s(x) log(s(x) / ⟨p, s⟩)`` for each column ``s``."""
        s = np.asarray(columns, dtype=np.float64)
        p = self.prior[:, None]
        mean = np.sum(p * s, axis=0, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(mean > 0, s / np.where(mean > 0, mean, 1.0), 0.0)
        return np.sum(_xlogy(p * s, ratio), axis=0)

    def column_ball(self, column: Sequence[Any]) -> Any:
        """``μ`` of one column of Arb balls, as a ball (for rigorous bounds)."""
        p = [flint.arb(float(v)) for v in self.prior]
        mean = sum((pi * si for pi, si in zip(p, column, strict=True)), flint.arb(0))
        total = flint.arb(0)
        for pi, si in zip(p, column, strict=True):
            if pi != 0:
                total += pi * si * (si / mean).log()
        return total

    def __repr__(self) -> str:
        return f"MutualInformation(prior={np.round(self.prior, 6).tolist()})"


@dataclass(frozen=True)
class KLDivergence(Utility):
    """``D(M₀ ‖ M₁)`` in nats between the output laws under ``p0`` and ``p1`` (Kairouz, Oh &
    Viswanath (2016), §4).

    Parameters
    ----------
    p0, p1 : array_like, shape (k,)
        The two hypotheses over the same k ≥ 2 inputs; ``p1`` must be positive wherever ``p0``
        is (else the divergence is infinite for every mechanism that keeps the difference).
    """

    p0: FloatArray = field(repr=False)
    p1: FloatArray = field(repr=False)

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
        """``μ(s) = ⟨p₀, s⟩ log(⟨p₀, s⟩ / ⟨p₁, s⟩)`` for each column ``s``."""
        s = np.asarray(columns, dtype=np.float64)
        m0 = self.p0 @ s
        m1 = self.p1 @ s
        if np.any((m0 > 0) & (m1 <= 0)):
            return np.full(s.shape[1], np.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(m0 > 0, m0 / np.where(m1 > 0, m1, 1.0), 1.0)
        return _xlogy(m0, ratio)

    def column_ball(self, column: Sequence[Any]) -> Any:
        """``μ`` of one column of Arb balls, as a ball (for rigorous bounds)."""
        m0 = sum(
            (flint.arb(float(a)) * s for a, s in zip(self.p0, column, strict=True)), flint.arb(0)
        )
        m1 = sum(
            (flint.arb(float(a)) * s for a, s in zip(self.p1, column, strict=True)), flint.arb(0)
        )
        return m0 * (m0 / m1).log()

    def __repr__(self) -> str:
        return (
            f"KLDivergence(p0={np.round(self.p0, 6).tolist()}, p1={np.round(self.p1, 6).tolist()})"
        )
