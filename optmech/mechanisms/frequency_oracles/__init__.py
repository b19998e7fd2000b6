r"""Frequency oracles: ε-LDP randomizers over ``k`` items with an unbiased frequency estimator.

Each of n users holds an item in ``0..k-1`` and sends one report; the aggregator estimates the
frequency $f_v$ of every item. Every family here is *pure* in the sense of Wang, Blocki, Li &
Jha (USENIX Security 2017): a report $y$ supports a set of items, with
$P(y \text{ supports } v \mid x = v) = p^*$ and $P(y \text{ supports } v \mid x ≠ v) = q^*$ for
every $x ≠ v$, so with $C_v$ the number of reports supporting $v$

$$\hat f_v = \frac{C_v / n − q^*}{p^* − q^*}, \qquad
\mathrm{Var}(\hat f_v) = \frac{1}{n}\Big(\frac{q^*(1 − q^*)}{(p^* − q^*)^2}
 + f_v \frac{1 − p^* − q^*}{p^* − q^*}\Big)$$

exactly, for any fixed dataset (the support indicators of distinct users are independent;
Wang et al. 2017, Theorem 2). The families, with $e = e^ε$:

* `GRR`, generalised randomized response (Warner 1965; Kairouz, Oh & Viswanath 2016):
  $p^* = e/(e + k − 1)$, $q^* = 1/(e + k − 1)$.
* `OUE`, optimised unary encoding (Wang et al. 2017): bit v is 1 with probability 1/2, every
  other bit with $1/(e + 1)$, independently.
* `OLH`, optimised local hashing (Wang et al. 2017): a hash $h$ from ``0..k-1`` to
  ``0..g-1`` drawn from the linear family $h_{a,b}(x) = (⟨a, \mathrm{digits}_g(x)⟩ + b)
  \bmod g$ (g prime, $a ∈ \mathbb{Z}_g^m$, $b ∈ \mathbb{Z}_g$, m the number of base-g digits
  of k − 1), which is exactly pairwise independent, then randomized response on ``0..g-1``:
  $p^* = e/(e + g − 1)$, $q^* = 1/g$ exactly. The default g is the prime next to $e + 1$
  (below or above) of the smaller variance.
* `HadamardResponse` (Acharya, Sun & Zhang, AISTATS 2019): with $K = 2^{⌈\log_2(k+1)⌉}$ and
  $C_x = \{y < K : \mathrm{popcount}((x+1) \,\&\, y) \text{ even}\}$,
  $R(y|x) = 2e/(K(1 + e))$ on $C_x$, $2/(K(1+e))$ off it: $p^* = e/(e+1)$, $q^* = 1/2$.
* `SubsetSelection` (Ye & Barg 2018; Wang et al. 2016): a d-subset S with
  $R(S|x) ∝ e$ if $x ∈ S$, 1 otherwise; $Z = \binom{k−1}{d−1} e + \binom{k−1}{d}$,
  $p^* = \binom{k−1}{d−1} e / Z$, $q^* = (\binom{k−2}{d−2} e + \binom{k−2}{d−1}) / Z$;
  default d next to $k/(e+1)$ of the smaller variance.

Each family also gives, in closed form and without building its matrix, the quantities the
shuffle-model bounds read (`shuffle_description`, used by `optmech.shuffle_epsilon`): ε₀ = ε,
the blanket mass γ, the clone probability relative to a pair, and the variation-ratio
parameters (p, β, q) of Wang et al. (PVLDB 2024) with $p = q = e^{ε}$ (every family reaches the
ratio $e^ε$ between two rows) and β the largest total variation between two rows.
The closed forms of each are listed in the class docstrings; the tests check every one against
the matrix.

Examples
--------
>>> import math
>>> o = OLH(k=1000, epsilon=math.log(3.0))
>>> o.g, round(float(o.variance(10_000)[0]), 8)
(5, 0.00030625)
>>> reports = o.rvs([0] * 50 + [1] * 50, rng=1)
>>> o.estimate(reports).shape
(1000,)
"""

from optmech.mechanisms.frequency_oracles._base import MAX_OUTPUTS
from optmech.mechanisms.frequency_oracles.direct import GRR, OUE
from optmech.mechanisms.frequency_oracles.hashing import OLH, HadamardResponse
from optmech.mechanisms.frequency_oracles.subsets import SubsetSelection

__all__ = [
    "GRR",
    "MAX_OUTPUTS",
    "OLH",
    "OUE",
    "HadamardResponse",
    "SubsetSelection",
]
