"""Frequency oracles that report the item or its indicator vector: generalised randomized
response (`GRR`) and optimised unary encoding (`OUE`).

Examples
--------
>>> GRR(3, 1.0).output_size, OUE(3, 1.0).output_size
(3, 8)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray, IntArray, U
from optmech._validation import describe
from optmech.mechanisms.frequency_oracles._base import (
    _check_reports_1d,
    _down,
    _FrequencyOracle,
    _up,
)

__all__ = ["GRR", "OUE"]


@dataclass(frozen=True)
class GRR(_FrequencyOracle):
    r"""Generalised (k-ary) randomized response as a frequency oracle (Warner 1965; Kairouz, Oh
    & Viswanath 2016; Wang et al. 2017).

    The report is an item: the true one with probability $a = e/(e + k − 1)$, each other with
    $b = 1/(e + k − 1)$ ($e = e^ε$). Closed forms: γ = k b; clone probability
    $2/(e + 1)$; β = $(e − 1)/(e + k − 1)$.

    Parameters
    ----------
    k : int
        Number of items, at least 2.
    epsilon : float
        ε, in (0, 50].

    Examples
    --------
    >>> o = GRR(4, math.log(3.0))
    >>> o.randomizer.matrix[0].round(6).tolist()
    [0.5, 0.166667, 0.166667, 0.166667]
    >>> o.estimate([0, 0, 1, 3]).round(6).tolist()
    [1.0, 0.25, -0.5, 0.25]
    """

    @property
    def output_size(self) -> int:
        return self.k

    def _ab(self) -> tuple[float, float]:
        e = math.exp(self.epsilon)
        return e / (e + self.k - 1), 1.0 / (e + self.k - 1)

    def _support(self) -> tuple[float, float]:
        return self._ab()

    def _blanket(self) -> float:
        return self.k * self._ab()[1]

    def _clone(self) -> float:
        return 2.0 / (math.exp(self.epsilon) + 1.0)

    def _beta(self) -> float:
        a, b = self._ab()
        return a - b

    def _binary(self) -> tuple[float, float] | None:
        return self._ab() if self.k == 2 else None

    def _variation_decomposition(self) -> tuple[float, float, float, float]:
        # With b = 1/(e + k − 1): a pair (x⁰, x¹) differs on its two outputs only, by
        # β = (e − 1) b, so α = β/(p − 1) = b; Q⁰ + Q¹ is the indicator of the two outputs, which
        # every row holds with at least b (r = b); the neutral part min(M₀, M₁) − |M₀ − M₁|/(p − 1)
        # is b on the other k − 2 outputs, which every row holds with b (s = (k − 2) b).
        b = self._ab()[1]
        return _up(b), _down(b), _down((self.k - 2) * b), 4.0 * U * self.k

    def _pair_laws(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        # S0 = {0}, S1 = {1}; o = 2 and S2 = {2}
        a, b = self._ab()
        rest = max(0.0, 1.0 - a - 2 * b)
        first = np.array([a, b, b, rest])
        others = np.array([b, b, a, rest]) if self.k > 2 else first
        return first, first[[1, 0, 2, 3]], others

    def _matrix(self) -> tuple[FloatArray, list[Any]]:
        a, b = self._ab()
        m = np.full((self.k, self.k), b)
        np.fill_diagonal(m, a)
        return m, list(range(self.k))

    def _output_reports(self) -> Any:
        return np.arange(self.k)

    def _draw(self, x: IntArray, gen: np.random.Generator) -> IntArray:
        a, _ = self._ab()
        keep = gen.random(x.shape) < a
        other = gen.integers(0, self.k - 1, size=x.shape)
        other = other + (other >= x)  # uniform over the other k − 1 items
        return np.where(keep, x, other)

    def _counts(self, reports: Any) -> tuple[FloatArray, int]:
        r = _check_reports_1d(reports, self.k)
        return np.bincount(r, minlength=self.k).astype(np.float64), r.size


@dataclass(frozen=True)
class OUE(_FrequencyOracle):
    r"""Optimised unary encoding (Wang, Blocki, Li & Jha, USENIX Security 2017).

    The report is a bit vector of length k: bit x is 1 with probability 1/2, every other bit
    with $q = 1/(e + 1)$, independently. Reports are boolean arrays of shape ``(..., k)``;
    the matrix's outputs are the $2^k$ bit strings (bit v at position v). Closed forms, with
    $r_1 = (e+1)/2$, $r_0 = (e+1)/(2e)$: γ = $r_0 (1 − q^k) + r_1 q^k$; clone probability
    $1/e$ for k ≥ 3 and $2/(e + 1)$ for k = 2; β = $(e − 1)/(2(e + 1))$.

    Examples
    --------
    >>> o = OUE(3, 1.0)
    >>> o.rvs([0, 2], rng=0).shape
    (2, 3)
    >>> o.randomizer.outputs[:3].tolist()
    ['000', '100', '010']
    """

    @property
    def output_size(self) -> int:
        return 1 << self.k

    def _q(self) -> float:
        return 1.0 / (math.exp(self.epsilon) + 1.0)

    def _support(self) -> tuple[float, float]:
        return 0.5, self._q()

    def _blanket(self) -> float:
        e = math.exp(self.epsilon)
        qk = self._q() ** self.k
        return (e + 1) / (2 * e) * (1.0 - qk) + (e + 1) / 2 * qk

    def _clone(self) -> float:
        e = math.exp(self.epsilon)
        return 1.0 / e if self.k >= 3 else 2.0 / (e + 1.0)

    def _beta(self) -> float:
        return 0.5 * (1.0 - 2.0 * self._q())

    def _pair_laws(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        # S0: bits (1, 0) at items (0, 1), S1: (0, 1); o = 2 and S2: bits (0, 0, 1) at (0, 1, 2)
        q = self._q()
        if self.k > 2:
            s2 = 0.5 * q * (1 - q)
            first = np.array([0.5 * (1 - q), 0.5 * q, s2, 0.5 - s2])
            s2 = 0.5 * (1 - q) ** 2
            others = np.array([q * (1 - q), q * (1 - q), s2, 1 - 2 * q * (1 - q) - s2])
        else:
            first = np.array([0.5 * (1 - q), 0.5 * q, 0.0, 0.5])
            others = first
        return first, first[[1, 0, 2, 3]], others

    def _matrix(self) -> tuple[FloatArray, list[Any]]:
        k, q = self.k, self._q()
        bits = (np.arange(1 << k)[:, None] >> np.arange(k)[None, :]) & 1  # (2^k, k)
        base = np.prod(np.where(bits == 1, q, 1 - q), axis=1)  # every bit at q
        ratio = np.where(bits == 1, 0.5 / q, 0.5 / (1 - q))  # bit x at 1/2 instead
        names = ["".join(map(str, row)) for row in bits.tolist()]
        return base[None, :] * ratio.T, names

    def _output_reports(self) -> Any:
        return ((np.arange(1 << self.k)[:, None] >> np.arange(self.k)[None, :]) & 1) == 1

    def _draw(self, x: IntArray, gen: np.random.Generator) -> npt.NDArray[np.bool_]:
        out = gen.random((*x.shape, self.k)) < self._q()
        own = gen.random(x.shape) < 0.5
        np.put_along_axis(out, x[..., None], own[..., None], axis=-1)
        return out

    def _counts(self, reports: Any) -> tuple[FloatArray, int]:
        arr = np.asarray(reports)
        if arr.dtype != np.bool_ or arr.ndim < 1 or arr.shape[-1] != self.k:
            raise ValueError(
                f"`reports` must be a boolean array of shape (..., {self.k}); got "
                f"{describe(reports)}."
            )
        rows = arr.reshape(-1, self.k)
        return rows.sum(axis=0).astype(np.float64), rows.shape[0]
