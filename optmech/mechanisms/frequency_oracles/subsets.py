"""Subset selection (`SubsetSelection`): the report is a d-subset of the items, likelier when
it holds the user's item (Ye & Barg 2018; Wang et al. 2016).

Examples
--------
>>> SubsetSelection(10, 1.0).d  # next to 10/(e + 1) = 2.69, of the smaller variance
2
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from optmech._floats import FloatArray, IntArray
from optmech._validation import check_int, describe
from optmech.mechanisms.frequency_oracles._base import (
    _FrequencyOracle,
)

__all__ = ["SubsetSelection"]


@dataclass(frozen=True)
class SubsetSelection(_FrequencyOracle):
    r"""Subset selection (Ye & Barg 2018; Wang, Huang, Wang, Xu, Yang & Zhang 2016).

    The report is a d-subset S of the items: $R(S|x) = e/Z$ if $x ∈ S$, $1/Z$ otherwise,
    $Z = \binom{k−1}{d−1} e + \binom{k−1}{d}$. Reports are integer arrays of shape
    ``(..., d)`` (sorted items). Closed forms: γ = $\binom{k}{d}/Z$; clone probability $1/e$
    for d ≥ 2 and $2/(e + 1)$ for d = 1; β = $\binom{k−2}{d−1}(e − 1)/Z$.

    Parameters
    ----------
    k : int
    epsilon : float
    d : int, optional
        Subset size in [1, k − 1]; default next to $k/(e^ε + 1)$, of the smaller variance.

    Examples
    --------
    >>> o = SubsetSelection(6, 0.5)
    >>> o.d, o.output_size
    (2, 15)
    """

    d: int | None = field(default=None)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.d is None:
            centre = self.k / (math.exp(self.epsilon) + 1.0)
            options = {min(self.k - 1, max(1, c)) for c in (math.floor(centre), math.ceil(centre))}
            object.__setattr__(self, "d", min(sorted(options), key=self._variance_at))
        else:
            object.__setattr__(self, "d", check_int("d", self.d, low=1, high=self.k - 1))

    def _variance_at(self, d: int) -> float:
        p, q = self._pq(d)
        return q * (1 - q) / (p - q) ** 2

    def _pq(self, d: int) -> tuple[float, float]:
        e, k = math.exp(self.epsilon), self.k
        # ratios of binomials, so large k does not overflow: C(k−1,d)/C(k−1,d−1) = (k−d)/d
        z = e + (k - d) / d  # Z / C(k−1, d−1)
        p = e / z
        # C(k−2,d−2)/C(k−1,d−1) = (d−1)/(k−1); C(k−2,d−1)/C(k−1,d−1) = (k−d)/(k−1)
        q = (e * (d - 1) / (k - 1) + (k - d) / (k - 1)) / z
        return p, q

    @property
    def _d(self) -> int:
        assert self.d is not None
        return self.d

    @property
    def output_size(self) -> int:
        return math.comb(self.k, self._d)

    def _params(self) -> dict[str, Any]:
        return {"k": self.k, "epsilon": self.epsilon, "d": self.d}

    def _z(self) -> float:
        """$Z / \\binom{k−1}{d−1}$."""
        return math.exp(self.epsilon) + (self.k - self._d) / self._d

    def _support(self) -> tuple[float, float]:
        return self._pq(self._d)

    def _blanket(self) -> float:
        return (self.k / self._d) / self._z()  # C(k,d)/C(k−1,d−1) = k/d

    def _clone(self) -> float:
        e = math.exp(self.epsilon)
        return 1.0 / e if self._d >= 2 else 2.0 / (e + 1.0)

    def _binary(self) -> tuple[float, float] | None:
        # k = 2: the outputs {0} and {1}, binary randomized response
        e = math.exp(self.epsilon)
        return (e / (e + 1.0), 1.0 / (e + 1.0)) if self.k == 2 else None

    def _beta(self) -> float:
        # C(k−2,d−1)/C(k−1,d−1) = (k−d)/(k−1)
        return (self.k - self._d) / (self.k - 1) * (math.exp(self.epsilon) - 1) / self._z()

    def _pair_laws(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        e, k, d, z = math.exp(self.epsilon), self.k, self._d, self._z()
        # S0: the subset holds 0, not 1; S1: 1, not 0; o = 2 and S2: 2, neither 0 nor 1
        one = (k - d) / (k - 1) / z  # C(k−2,d−1)/Z: S holds 0, not 1 (or 1, not 0)
        first = np.array([e * one, one, 0.0, 1.0 - (e + 1) * one])
        others = first
        if k > 2:
            # C(k−3,d−2)/C(k−1,d−1) and C(k−3,d−1)/C(k−1,d−1): S holds 0 and the other
            # input, or 0 and not the other, never 1
            both = (d - 1) * (k - d) / ((k - 1) * (k - 2))
            alone = (k - d) * (k - d - 1) / ((k - 1) * (k - 2))
            c = (e * both + alone) / z
            if 2 * c <= first[0] + first[1]:
                first[2:] = [alone / z, 1.0 - (e + 1) * one - alone / z]
                others = np.array([c, c, e * alone / z, 1.0 - 2 * c - e * alone / z])
        return first, first[[1, 0, 2, 3]], np.clip(others, 0.0, 1.0)

    def _matrix(self) -> tuple[FloatArray, list[Any]]:
        subsets = np.array(list(combinations(range(self.k), self._d)), dtype=np.int64)
        member = np.zeros((subsets.shape[0], self.k), dtype=bool)
        np.put_along_axis(member, subsets, True, axis=1)
        norm = math.comb(self.k - 1, self._d - 1) * self._z()
        m = np.where(member.T, math.exp(self.epsilon), 1.0) / norm
        names = ["{" + ",".join(map(str, s)) + "}" for s in subsets.tolist()]
        return m, names

    def _output_reports(self) -> Any:
        return np.array(list(combinations(range(self.k), self._d)), dtype=np.int64)

    def _draw(self, x: IntArray, gen: np.random.Generator) -> IntArray:
        k, d = self.k, self._d
        flat = x.reshape(-1)
        keys = gen.random((flat.size, k))
        holds = gen.random(flat.size) < self._support()[0]
        # x first when it is in S, last when it is not; the rest in a uniform order
        keys[np.arange(flat.size), flat] = np.where(holds, -1.0, 2.0)
        chosen = np.sort(np.argpartition(keys, d - 1, axis=1)[:, :d], axis=1)
        return chosen.reshape(*x.shape, d)

    def _counts(self, reports: Any) -> tuple[FloatArray, int]:
        arr = np.asarray(reports)
        d = self._d
        ok = arr.dtype.kind in "iu" and arr.ndim >= 1 and arr.shape[-1] == d
        if ok and arr.size:
            ok = bool(arr.min() >= 0 and arr.max() < self.k)
        if not ok:
            raise ValueError(
                f"`reports` must be an integer array of shape (..., {d}) of items in "
                f"0..{self.k - 1}; got {describe(reports)}."
            )
        rows = arr.reshape(-1, d)
        return np.bincount(rows.reshape(-1), minlength=self.k).astype(np.float64), rows.shape[0]
