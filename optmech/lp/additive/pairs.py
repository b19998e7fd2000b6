"""The pairs ``(P(k), P(k + s))`` of a grid noise and its shifts, geometric tails included.

Every guarantee beyond (ε, δ) is a sum over the whole lattice of a function of such pairs, one
sum per shift ``s = 1..m`` (``m`` cells or points per Δ) and direction:

* the hockey-stick divergence ``Σ_k (P(k) − e^ε P(k+s))₊`` (profiles, GDP);
* the Rényi sum ``Σ_k P(k)^α P(k+s)^(1−α)`` and the Kullback–Leibler sum
  ``Σ_k P(k) log(P(k)/P(k+s))`` (Rényi DP, zCDP; Mironov 2017).

On a uniform grid the same sums over cell *masses* are exact for a density at every real shift
``|d| ≤ Δ``: a shift by ``(j + θ)h`` pairs each cell with cells ``k + j`` and ``k + j + 1`` in
proportions ``1 − θ`` and ``θ``, so each sum is linear in θ between whole-cell shifts and its
supremum over ``d`` is taken at one of them (Geng, Ding, Guo & Kumar 2019 for the hockey stick;
the same argument for any sum of a 1-homogeneous function of the pair).

**Tails.** Beyond the grid each side repeats its outermost period times ``ratio`` per period.
All three summands are 1-homogeneous in the pair, so a pair one period further out contributes
exactly ``ratio`` times as much: the infinite sum is the grid's pairs plus the pairs of ``V``
*virtual* periods each side, where the farthest left virtual period and the first right one
stand for all beyond them with weight ``1/(1 − ratio)`` (``V = 3`` covers every shift up to one
period; `optmech.certify.profiles` reads tails the same way). With
``ratio = 0`` (a finite support) the virtual periods are zero and a pair whose partner lies beyond
the grid is a mass facing zero.

`pair_maps` returns, for every shift and direction, the sparse maps from the LP's value
variables to the pair's two members and the pair's weight; a mirror-reduced (symmetric) design
needs one direction only, since a symmetric ``P`` has ``D(P ‖ P_−s) = D(P ‖ P_s)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray, IntArray

__all__ = ["VIRTUAL_PERIODS", "PairMaps", "pair_maps"]


#: Virtual periods each side: the pairs of the farthest one (weight ``1/(1 − ratio)``) must have
#: both members in the tail, and those of the first right one their partners explicit.
VIRTUAL_PERIODS = 3


@dataclass(frozen=True)
class PairMaps:
    """The pairs of all shifts and directions, stacked: ``first`` and ``second`` are ``P(k)`` and
    ``P(k + s)`` as rows over the value variables (grid values ``x = Δ·f`` or ``Δ·pmf``; masses
    are these times ``unit = 1/m``); ``weight`` is 1, or ``1/(1 − ratio)`` for a tail period
    standing for all beyond it; ``group`` indexes the (shift, direction), of ``groups``.
    """

    first: sp.csr_matrix
    second: sp.csr_matrix
    weight: FloatArray
    group: IntArray
    groups: int
    unit: float

    @property
    def size(self) -> int:
        """Number of pairs."""
        return int(self.weight.size)

    def sums(self, coefficients: FloatArray) -> sp.csr_matrix:
        """Rows ``Σ_{pairs of group g} coefficients_p · (term_p)``, one per group."""
        cols = np.arange(self.size)
        return sp.csr_matrix((coefficients, (self.group, cols)), shape=(self.groups, self.size))


def pair_maps(
    n: int, period: int, ratio: float, expand: sp.csr_matrix, *, reduced: bool
) -> PairMaps:
    """The pairs of every shift ``s = 1..period`` and direction (one when ``reduced``: for
    mirror-reduced noise ``−s`` repeats ``+s``) of a grid of ``n`` cells whose tails have the
    ratio ``ratio`` per period; ``expand`` maps the value variables to the grid values.
    """
    e, v = expand.tocsr(), VIRTUAL_PERIODS
    # The grid and V virtual periods each side (the farthest first) over the value variables.
    left = [ratio ** (v - i) * e[:period] for i in range(v)]
    right = [ratio ** (i + 1) * e[n - period :] for i in range(v)]
    ext = sp.vstack([*left, e, *right], format="csr")
    size = ext.shape[0]
    # A pair's weight by the position of its first member: 1/(1 − ratio) for the farthest left
    # virtual period and the first right one (each stands for all beyond it), 0 further right.
    weight, start = np.ones(size), size - v * period
    weight[:period] = weight[start : start + period] = 1.0 / (1.0 - ratio)
    weight[start + period :] = 0.0
    firsts, seconds, weights, groups = [], [], [], []
    directions = (ext,) if reduced else (ext, ext[::-1])
    live = np.diff(ext.indptr) > 0  # rows that are not identically zero
    for d, seq in enumerate(directions):
        alive = live if d == 0 else live[::-1]
        for s in range(1, period + 1):
            k = np.arange(size - s)
            k = k[(weight[k] > 0) & alive[k]]
            firsts.append(seq[k])
            seconds.append(seq[k + s])
            weights.append(weight[k])
            groups.append(np.full(k.size, d * period + s - 1, dtype=np.int64))
    return PairMaps(
        sp.vstack(firsts, format="csr"),
        sp.vstack(seconds, format="csr"),
        np.concatenate(weights),
        np.concatenate(groups),
        len(directions) * period,
        1.0 / period,
    )
