"""Frequency oracles that hash the item: optimised local hashing (`OLH`, with an exactly
pairwise-independent linear hash family) and Hadamard response (`HadamardResponse`).

Examples
--------
>>> OLH(16, 1.0).g, HadamardResponse(16, 1.0).output_size
(3, 32)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray, IntArray
from optmech._validation import check_int, describe
from optmech.mechanisms.frequency_oracles._base import (
    _check_reports_1d,
    _FrequencyOracle,
    _is_prime,
)

__all__ = ["OLH", "HadamardResponse"]


@dataclass(frozen=True)
class OLH(_FrequencyOracle):
    r"""Optimised local hashing (Wang, Blocki, Li & Jha, USENIX Security 2017), with an exactly
    pairwise-independent hash family (module docstring).

    A report is ``(s, y)``: the hash index $s = b + g \sum_j a_j g^j$ and the value y, drawn by
    randomized response on ``0..g-1`` around $h_s(x)$. Reports are integer arrays of shape
    ``(..., 2)``. With $m$ the number of base-g digits of k − 1, $H = e + g − 1$: γ =
    $g^{−m} + (1 − g^{−m}) g / H$ (the g constant hashes, a = 0, put mass e/H + (g−1)/H on
    their columns' minimum); clone probability $1/e$ when k > g (two items collide under a
    non-constant hash) and $2/(e + 1)$ otherwise; β = $(1 − 1/g)(e − 1)/H$.

    Parameters
    ----------
    k : int
    epsilon : float
    g : int, optional
        Hash range, a prime (the family is exactly pairwise independent only then); default
        the prime next to $e^ε + 1$ of the smaller variance.

    Examples
    --------
    >>> o = OLH(5, 1.0)
    >>> o.g, o.output_size
    (3, 81)
    """

    g: int | None = field(default=None)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.g is None:
            object.__setattr__(self, "g", self._best_g())
        else:
            g = check_int("g", self.g, low=2, high=1 << 31)
            if not _is_prime(g):
                raise ValueError(
                    f"`g` must be a prime in [2, 2^31] (the linear hash family is exactly "
                    f"pairwise independent only then); got {g}."
                )
            object.__setattr__(self, "g", g)

    def _best_g(self) -> int:
        target = math.exp(self.epsilon) + 1.0
        if target > 1 << 31:
            raise ValueError(
                f"`epsilon` must be at most {math.log((1 << 31) - 1):.4g} for OLH (its hash range "
                f"e^ε + 1 must stay below 2^31); got {self.epsilon!r}."
            )
        below = max(2, math.floor(target))
        while not _is_prime(below) and below > 2:
            below -= 1
        above = max(2, math.ceil(target))
        while not _is_prime(above):
            above += 1
        e = math.exp(self.epsilon)

        def var(g: int) -> float:
            p, q = e / (e + g - 1), 1.0 / g
            return q * (1 - q) / (p - q) ** 2

        return min((below, above), key=var)

    @property
    def _g(self) -> int:
        assert self.g is not None
        return self.g

    @property
    def digits(self) -> int:
        """m, the number of base-g digits of k − 1 (at least 1)."""
        m, top = 1, self._g
        while top < self.k:
            m, top = m + 1, top * self._g
        return m

    @property
    def hashes(self) -> int:
        """Size of the hash family, $g^{m+1}$."""
        return int(self._g ** (self.digits + 1))

    @property
    def output_size(self) -> int:
        return self.hashes * self._g

    def _params(self) -> dict[str, Any]:
        return {"k": self.k, "epsilon": self.epsilon, "g": self.g}

    def _hl(self) -> tuple[float, float]:
        e = math.exp(self.epsilon)
        return e / (e + self._g - 1), 1.0 / (e + self._g - 1)

    def _support(self) -> tuple[float, float]:
        return self._hl()[0], 1.0 / self._g

    def _blanket(self) -> float:
        g, m = self._g, self.digits
        const = float(g) ** -m
        return const + (1.0 - const) * g * self._hl()[1]

    def _clone(self) -> float:
        e = math.exp(self.epsilon)
        return 1.0 / e if self.k > self._g else 2.0 / (e + 1.0)

    def _beta(self) -> float:
        high, low = self._hl()
        return (1.0 - 1.0 / self._g) * (high - low)

    def _count_laws(self) -> tuple[tuple[float, float], ...]:
        # and one output (s, y) of a non-constant hash: high or low over the hashes
        high, low = self._hl()
        return (*super()._count_laws(), (low / self.hashes, high / self.hashes))

    def _pair_laws(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        # S0: y = h(0) ≠ h(1), S1: y = h(1) ≠ h(0); o = 2 and S2: y = h(2) ∉ {h(0), h(1)}
        # when h(0) ≠ h(1) (g odd), y = h(2) ≠ h(0) = h(1) (g = 2)
        g = self._g
        high, low = self._hl()
        split = 1.0 - 1.0 / g  # P(h(0) ≠ h(1))
        if self.k > 2 and g > 2:
            # item 2: h(2) − h(0) = 2(h(1) − h(0)) on the digits, so it never meets h(0) or h(1)
            # when they differ (g an odd prime)
            s2, o2 = split * low, split * high
            others = np.array([split * low, split * low, o2, 1.0 - split * (2 * low + high)])
        elif self.k > 2:  # g = 2: item 2's hash independent of (h(0), h(1)), all uniform
            c = split / g
            s2, o2 = low / 4, high / 4  # h(0) = h(1) ≠ h(2), a quarter of the hashes
            others = np.array([c, c, o2, 1.0 - 2 * c - o2])
        else:
            s2 = o2 = 0.0
        first = np.array([split * high, split * low, s2, 1.0 - split * (high + low) - s2])
        if self.k <= 2 or others[0] + others[1] > first[0] + first[1]:
            first[2:] = [0.0, 1.0 - split * (high + low)]  # o = 0: S2 empty
            others = first
        return first, first[[1, 0, 2, 3]], np.clip(others, 0.0, 1.0)

    def _hash(self, s: IntArray, v: IntArray) -> IntArray:
        """$h_s(v)$, broadcasting ``s`` against ``v``."""
        g = self._g
        h = s % g
        rest, rv = s // g, v.copy()
        for _ in range(self.digits):
            h = h + (rest % g) * (rv % g)
            rest, rv = rest // g, rv // g
        return h % g

    def _matrix(self) -> tuple[FloatArray, list[Any]]:
        g, hashes = self._g, self.hashes
        high, low = self._hl()
        s = np.arange(hashes)
        h = self._hash(s[None, :], np.arange(self.k)[:, None])  # (k, hashes)
        m = np.full((self.k, hashes, g), low / hashes)
        np.put_along_axis(m, h[:, :, None], high / hashes, axis=2)
        names = [f"h{i}:{y}" for i in range(hashes) for y in range(g)]
        return m.reshape(self.k, hashes * g), names

    def _output_reports(self) -> Any:
        s, y = np.divmod(np.arange(self.output_size), self._g)
        return np.stack([s, y], axis=1)

    def _draw(self, x: IntArray, gen: np.random.Generator) -> IntArray:
        g = self._g
        s = gen.integers(0, self.hashes, size=x.shape)
        h = self._hash(s, x)
        keep = gen.random(x.shape) < self._hl()[0]
        other = gen.integers(0, g - 1, size=x.shape)
        y = np.where(keep, h, other + (other >= h))
        return np.stack([s, y], axis=-1)

    def _counts(self, reports: Any) -> tuple[FloatArray, int]:
        arr = np.asarray(reports)
        ok = arr.dtype.kind in "iu" and arr.ndim >= 1 and arr.shape[-1] == 2
        rows = arr.reshape(-1, 2).astype(np.int64) if ok else arr
        if ok and rows.size:
            ok = bool(
                rows[:, 0].min() >= 0
                and rows[:, 0].max() < self.hashes
                and rows[:, 1].min() >= 0
                and rows[:, 1].max() < self._g
            )
        if not ok:
            raise ValueError(
                f"`reports` must be an integer array of shape (..., 2) of (hash in "
                f"0..{self.hashes - 1}, value in 0..{self._g - 1}); got {describe(reports)}."
            )
        counts = np.zeros(self.k)
        items = np.arange(self.k)
        step = max(1, (1 << 22) // self.k)
        for start in range(0, rows.shape[0], step):
            chunk = rows[start : start + step]
            h = self._hash(chunk[:, :1], items[None, :])
            counts += (h == chunk[:, 1:]).sum(axis=0)
        return counts, rows.shape[0]


@dataclass(frozen=True)
class HadamardResponse(_FrequencyOracle):
    r"""Hadamard response (Acharya, Sun & Zhang, AISTATS 2019).

    With $K = 2^{⌈\log_2(k+1)⌉}$, item x owns the half $C_x$ of ``0..K-1`` where row x + 1 of
    the Sylvester–Hadamard matrix is +1; the report is a column y, with probability
    $h = 2e/(K(1 + e))$ on $C_x$ and $l = 2/(K(1 + e))$ off it. Reports are integers in
    ``0..K-1``. Closed forms: γ = $h + (K − 1) l$ (only column 0 is +1 on every row);
    clone probability $1/e$ for k ≥ 4 and $2/(e + 1)$ for k ≤ 3; β = $(e − 1)/(2(e + 1))$.

    Examples
    --------
    >>> o = HadamardResponse(3, 1.0)
    >>> o.output_size, o.randomizer.matrix.shape
    (4, (3, 4))
    """

    @property
    def output_size(self) -> int:
        return 1 << self.k.bit_length()

    def _hl(self) -> tuple[float, float]:
        e, big = math.exp(self.epsilon), self.output_size
        return 2 * e / (big * (1 + e)), 2 / (big * (1 + e))

    def _support(self) -> tuple[float, float]:
        e = math.exp(self.epsilon)
        return e / (1 + e), 0.5

    def _blanket(self) -> float:
        high, low = self._hl()
        return high + (self.output_size - 1) * low

    def _clone(self) -> float:
        e = math.exp(self.epsilon)
        return 1.0 / e if self.k >= 4 else 2.0 / (e + 1.0)

    def _beta(self) -> float:
        e = math.exp(self.epsilon)
        return (e - 1) / (2 * (e + 1))

    def _pair_laws(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        # S0: bits (0, 1) of y at 0 and 1 (item 0 even, item 1 odd), S1: (1, 0); o = 2
        # (row 3 = 1 xor 2, odd on S0 and S1) and S2: bits (1, 1)
        e = math.exp(self.epsilon)
        high, low = e / (2 * (1 + e)), 1 / (2 * (1 + e))
        if self.k >= 3:
            first = np.array([high, low, low, high])
            others = np.array([low, low, high, high])
        else:
            first = np.array([high, low, 0.0, 0.5])
            others = first
        return first, first[[1, 0, 2, 3]], others

    @staticmethod
    def _even(a: IntArray, b: IntArray) -> npt.NDArray[np.bool_]:
        """Whether popcount(a & b) is even, elementwise."""
        v = np.bitwise_and(a, b).astype(np.uint64)
        parity = np.zeros(v.shape, dtype=np.uint64)
        while np.any(v):
            parity ^= v & np.uint64(1)
            v = v >> np.uint64(1)
        return parity == 0

    def _matrix(self) -> tuple[FloatArray, list[Any]]:
        high, low = self._hl()
        big = self.output_size
        even = self._even(np.arange(1, self.k + 1)[:, None], np.arange(big)[None, :])
        return np.where(even, high, low), list(range(big))

    def _output_reports(self) -> Any:
        return np.arange(self.output_size)

    def _draw(self, x: IntArray, gen: np.random.Generator) -> IntArray:
        row = x + 1
        y = gen.integers(0, self.output_size, size=x.shape)
        inside = gen.random(x.shape) < self._support()[0]
        # flipping the lowest set bit of the row changes the parity: a bijection between C_x
        # and its complement, so y stays uniform on the chosen half
        wrong = self._even(row, y) != inside
        return np.where(wrong, y ^ (row & -row), y)

    def _counts(self, reports: Any) -> tuple[FloatArray, int]:
        big = self.output_size
        r = _check_reports_1d(reports, big)
        c = np.bincount(r, minlength=big).astype(np.float64)
        h = 1
        while h < big:  # fast Walsh–Hadamard transform
            c = c.reshape(-1, 2, h)
            c = np.stack([c[:, 0] + c[:, 1], c[:, 0] - c[:, 1]], axis=1).reshape(-1)
            h *= 2
        return (r.size + c[1 : self.k + 1]) / 2.0, r.size
