r"""The variation-ratio bound on shuffled reports (Wang et al., PVLDB 2024), in a sound form.

Wang, Peng, Li, Wen, Li, Yu, Wang & Yang ("Privacy amplification via shuffling: unified,
simplified, and tightened", PVLDB 17(8), 2024; preprint "Unified, tight and fast privacy
amplification in the shuffle model of differential privacy"; public code
wangsw/PrivacyAmplification) describe a randomizer by three numbers, computed here exactly
from the matrix (`variation_ratio_parameters`):

- p, the largest ratio $M(y|x^0)/M(y|x^1)$ over pairs of inputs and outputs ($e^{ε_0}$);
- β, the largest total variation $\tfrac12 Σ_y |M(y|x^0) − M(y|x^1)|$ over pairs;
- q, the largest ratio $\max(M(y|x^0), M(y|x^1)) / M(y|x)$ over pairs, third inputs x and
  outputs y (again $e^{ε_0}$ for a matrix).

Their Lemma 4.4 splits, for a pair with total variation β' and $α = β'/(p − 1)$, user 1's
rows as $M(\cdot|x^0) = pα Q^0 + α Q^1 + m Q^*$ and $M(\cdot|x^1) = α Q^0 + pα Q^1 + m Q^*$,
$m = 1 − (p + 1)α$, and every other row as $r Q^0 + r Q^1 + (1 − 2r) Q_i$ with
$r = αp/q$. Their Lemma 4.5 then compares the counts of $Q^0$ and $Q^1$ draws with user 1's
neutral draw $Q^*$ pooled with the others' $Q_i$. That pooling is a post-processing only when
every $Q_i$ equals $Q^*$: in general the histogram can tell user 1's neutral draw apart, and
the published bound is then too small. For 3-ary randomized response (ε₀ = 1, n = 2, the
other user at $x^0$) the histogram's δ at ε = 0.82 is 0.054 while the published bound gives
0.020 (the test file reproduces both); with ε₀ = 4 and n = 300 the gap persists at δ ≈ 1e-4.

The sound form used here keeps user 1's neutral draw labelled. On that event both datasets
give the same law, so

$$ δ(ε) ≤ (p + 1)α \; D_{e^ε}\bigl(\text{clone pair: } C \sim \mathrm{Bin}(n − 1, 2r),\;
Δ \sim \mathrm{Bern}(p/(p + 1))\bigr), $$

the clone pair of Feldman, McMillan & Talwar (FOCS 2021, Theorem 3.2) computed by
``_CloneCurve``. Over all pairs, with $α_\max, α_\min$ from the largest and smallest positive
total variation, the bound is charged $(p + 1)α_\max$ times the clone pair at
$2α_\min p/q$ (fewer clones can only lose privacy). When $m = 0$ (binary randomized response)
it is the published bound and the blanket bound of `optmech.certify.shuffle`.

Rounding: p and q are rounded up, the clone probability down, the factor up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from optmech._floats import FloatArray
from optmech.certify.shuffle_curves import _CloneCurve

__all__ = ["VariationRatio", "variation_ratio_parameters"]

#: Relative rounding allowance of the parameters (a few ulps of each operation).
_ROUND = 1e-14


@dataclass(frozen=True)
class VariationRatio:
    """The variation-ratio parameters of a randomizer's matrix (Wang et al., PVLDB 2024).

    Attributes
    ----------
    p : float
        Largest ratio between two rows' entries of the same output (``e^ε₀``), rounded up.
    beta : float
        Largest total variation between two rows, rounded up.
    q : float
        Largest ratio of a pair's larger entry to a third row's entry, rounded up.
    beta_min : float
        Smallest positive total variation between two rows, rounded down (the sound bound
        charges the fewest clones any pair allows).
    """

    p: float
    beta: float
    q: float
    beta_min: float

    @property
    def clone_probability(self) -> float:
        """``2r = 2 β_min p / ((p − 1) q)``, the smallest over pairs, rounded down."""
        if self.p <= 1.0:
            return 1.0
        value = 2.0 * self.beta_min * self.p / ((self.p - 1.0) * self.q)
        return min(1.0, max(0.0, value * (1.0 - 4 * _ROUND)))

    @property
    def factor(self) -> float:
        """``(p + 1) α_max = (p + 1) β / (p − 1)``, the mass of user 1's non-neutral draw,
        rounded up (at most 1)."""
        if self.p <= 1.0:
            return 0.0
        return min(1.0, (self.p + 1.0) * self.beta / (self.p - 1.0) * (1.0 + 4 * _ROUND))


def variation_ratio_parameters(matrix: FloatArray) -> VariationRatio:
    """p, β, q (and the smallest positive β) of a row-stochastic matrix, computed exactly from
    its entries and rounded outward.

    Parameters
    ----------
    matrix : ndarray, shape (k_in, k_out)
        ``M[x, y] = P(output y | input x)`` with a finite ε₀ (no zero facing a positive
        entry in a column); validated by `optmech.shuffle_epsilon`.

    Returns
    -------
    VariationRatio

    Examples
    --------
    >>> import math, numpy as np
    >>> e = math.exp(1.0)
    >>> krr = (e * np.eye(4) + (1 - np.eye(4))) / (e + 3)  # 4-ary randomized response
    >>> v = variation_ratio_parameters(krr)
    >>> bool(math.isclose(v.beta, (e - 1) / (e + 3))), bool(math.isclose(v.p, e))
    (True, True)
    """
    m = np.asarray(matrix, dtype=np.float64)
    m = m[:, m.max(axis=0) > 0.0]
    top, bottom = m.max(axis=0), m.min(axis=0)
    p = float(np.max(top / bottom))
    # q: max over pairs, third rows and outputs of max(M(y|x0), M(y|x1)) / M(y|x); the pair may
    # hold the column's largest entry, so q is the column's largest over smallest, as p.
    q = p
    tv = 0.5 * np.abs(m[:, None, :] - m[None, :, :]).sum(axis=2)
    positive = tv[tv > 0.0]
    beta = float(np.max(tv))
    beta_min = float(np.min(positive)) if positive.size else 0.0
    up, down = 1.0 + _ROUND * m.shape[1], 1.0 - _ROUND * m.shape[1]
    return VariationRatio(p=p * up, beta=min(1.0, beta * up), q=q * up, beta_min=beta_min * down)


class _VariationRatioCurve:
    """δ(ε) of the sound variation-ratio bound over ``others`` other users (module
    docstring): the factor times the clone pair's curve."""

    def __init__(self, others: int, params: VariationRatio) -> None:
        self.factor = params.factor
        self.eps0 = math.log(params.p)
        self.clone = _CloneCurve(others, params.clone_probability, self.eps0)

    def __call__(self, eps: float) -> float:
        if eps >= self.eps0:
            return 0.0
        return min(1.0, self.factor * self.clone(eps) * (1.0 + 1e-12))
