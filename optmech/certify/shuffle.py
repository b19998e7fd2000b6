r"""Privacy amplification by shuffling: the central guarantee of n reports of one randomizer.

Setting. Each of n users applies the same ε₀-LDP randomizer, a row-stochastic
matrix ``M[x, y] = P(output y | input x)``; a shuffler releases the histogram of the n reports.
Neighbouring datasets change one user's input, $x^0 → x^1$. The central guarantee is the
privacy curve $δ(ε) = \sup_S P(H ∈ S) − e^ε P(H' ∈ S)$ of the histogram, worst over the pair
and over the other users' inputs. `shuffle_epsilon` returns a certified
upper bound on the ε of a target δ, the ε of a concrete pair of datasets (a lower bound), and
both curves.

Upper bounds (each valid for every pair and every choice of the other users' inputs):

``"exact"`` (matrices with two outputs)
    The histogram is the count of ones, a sum of Bernoullis. By joint convexity of the
    hockey-stick divergence the worst pair is the two extreme rows and every other user sits
    at an extreme row; the curve is the maximum over the number k of others at the upper row
    and both directions, each $Σ_s (P_1(s) − e^ε P_0(s))_+$. For n ≤ ``EXACT_MAX_N`` every k
    at once by FFT; beyond, k in blocks, each charged the exact curve of its first k with the
    block's other users left out (a post-processing), so at most a few thousandths of the
    users are dropped (`optmech.certify.shuffle_exact`).
``"clones"``
    Feldman, McMillan & Talwar (FOCS 2021), Theorem 3.2: every ε₀-LDP randomizer is, for the
    pair, a post-processing of the counts $(A + Δ, C − A + 1 − Δ)$ against
    $(A + 1 − Δ, C − A + Δ)$ with $C \sim \mathrm{Bin}(n − 1, e^{−ε_0})$,
    $A \sim \mathrm{Bin}(C, 1/2)$, $Δ \sim \mathrm{Bern}(e^{ε_0} / (e^{ε_0} + 1))$.
``"blanket"``
    The privacy blanket (Balle, Bell, Gascón & Nissim, CRYPTO 2019), the decomposition Su,
    Cheng & Wang (2025) show optimal: every row is $γ ω + (1 − γ) R_x$ with blanket mass
    $γ = Σ_y \min_x M(y|x)$; revealing the others' non-blanket reports, the pair's δ is
    $Σ_m P(m)\, E[(Σ_{i ≤ m+1} Z_i)_+]/(m + 1)$ with $m \sim \mathrm{Bin}(n − 1, γ)$ blanket
    draws and $Z = (M(Y|x^0) − e^ε M(Y|x^1))/ω(Y)$, $Y \sim ω$, worst over ordered pairs.
    Computed exactly, with certified rounding, when every pair's outputs fall in at most three
    groups of equal ratios (k-ary randomized response, two-output matrices; a frequency oracle
    through its channel when that is small) and the pairs have few distinct group structures
    (`optmech.certify.shuffle_blanket`); for other matrices on a lattice, as Su, Cheng & Wang
    (2025) compute it by FFT: one sum of n copies of $Z \cdot \mathrm{Bern}(γ)$, each Z spread
    onto a lattice with its mean (an upper bound by Jensen's inequality), one FFT power per ε,
    rounding and tails charged (`optmech.certify.shuffle_blanket_fft`), when the matrix and the
    lattice fit a cell budget (not the hashed oracles' channels, nor large matrices at large n).
    Its crossing is looked for first just below the best ε of the other methods (with
    ``"auto"``) or of the clone form.
    The bound is the smaller of that and the clone reduction with the clone probability the
    matrix allows: every row dominates the pair's mean,
    $M(y | x) ≥ \frac{p}{2}(M(y | x^0) + M(y | x^1))$ with
    $p = \min_{x^0, x^1} \min_y 2 \min_x M(y|x) / (M(y|x^0) + M(y|x^1))$, the blanket mass
    relative to the pair, and FMT's proof goes through for any such p (the clone of a
    user is $Q^0$ or $Q^1$, the two halves of the ε₀ pair, with probability p/2 each). For
    k-ary randomized response $p = 2/(e^{ε_0}+1)$, the blanket mass γ of binary randomized
    response. (The stronger clone analysis, FMT SODA 2023, reaches such probabilities only for
    a restricted class of randomizers since its erratum; it is not used here.)
    Fewer clones and a larger pair ε can only lose privacy (adding an independent clone and
    flipping Δ are post-processings), so the worst p over pairs with the matrix's ε₀ bounds
    every pair. Both curves are upper bounds, so is their pointwise minimum.
``"variation-ratio"``
    The variation-ratio decomposition (Wang et al., PVLDB 2024) from the matrix's exact
    (p, β, q), in a sound form: user 1's neutral part is kept apart from the others' (the
    published pooling is not a post-processing in general, and its bound can be too small;
    `optmech.certify.shuffle_variation`).

In both clone bounds the observer sees $C = u + v − 1$, so $δ = Σ_c P(C = c) δ_c$, and for a
fixed c the likelihood ratio is increasing in u: $δ_c$ is a binomial tail, computed from
$\mathrm{Bin}(c, 1/2)$ survival functions. $δ_c$ is non-increasing in c (one more clone is a
post-processing), so grouping c into blocks and charging each block its first $δ_c$ is an
upper bound; the mass of C outside a window of ±12 standard deviations is added to δ whole.

The lower bound: any post-processing of the histogram, for a chosen pair and chosen other
inputs, bounds the curve from below (`optmech.certify.shuffle_lower`). The count of reports
in an output set A is a sum of Bernoullis whose curve is computed termwise from binomial pmfs
(mass outside the window dropped, which can only lower it); the sets tried are the single
outputs of largest spread and the set where the most distant pair's rows differ in sign, the
other users at the set's extreme rows, all but a few at one end. With three or more outputs,
the counts of reports in four sets: S0 and S1 where the most distant pair's rows differ, S2
the other outputs where the other users' row is above the pair's, and the rest, every other
user at one row o (the one putting the least mass on S0 ∪ S1, then either row of the pair).
With $Q_o$ the law of o's report over the four groups, $z_g = (Q_{x^0}(g) − e^ε
Q_{x^1}(g))/Q_o(g)$ and $H \sim \mathrm{Mult}(n; Q_o)$, the curve is exactly
$E[(Σ_g z_g H_g)_+]/n$ (user 1 is any of the n reports of a histogram); given the total in
S0 ∪ S1 the counts in S0 and in S2 are independent binomials, one summed over near the sign
change of $Σ_g z_g H_g$ and the other's part a binomial tail and partial mean
(`_FourSetsCurve`). For k-ary randomized response this is the whole histogram of the pair's
two outputs, o's and the rest.

Numbers: SciPy's binomial functions are accurate to a few units of 1e-15 relative; every upper
curve adds ``_SLACK`` times the mass it sums, every lower curve subtracts it (the four-set
curve: times the magnitudes of the terms it sums). ε for a δ is found
by Brent's method on the monotone curve and kept only once evaluated on the right side: the
upper ε (to 1e-9 relative) where the upper curve is at most δ, the lower ε (to 1e-6) where
the lower curve exceeds δ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray
from optmech.certify.shuffle_blanket import _MinCurve, blanket_groups, blanket_search
from optmech.certify.shuffle_blanket_fft import lattice_pairs, lattice_search
from optmech.certify.shuffle_curves import (
    _clone_p,
    _CloneCurve,
    _crossing,
    _Curve,
    _epsilon_up,
    _ExactBinaryCurve,
)
from optmech.certify.shuffle_exact import _BlockedBinaryCurve
from optmech.certify.shuffle_lower import _lower_curves_of, _lower_epsilon, _lower_laws
from optmech.certify.shuffle_variation import (
    _BUDGET,
    _COARSE_BUDGET,
    _FINE_BUDGET,
    VariationRatio,
    _VariationRatioCurve,
    full_pairs,
    variation_ratio_parameters,
)
from optmech.mechanisms.shuffle_description import ShuffleDescription
from optmech.privacy import PrivacyProfile
from optmech.provenance import Provenance
from optmech.results import BaseResult

__all__ = ["EXACT_MAX_N", "METHODS", "ShuffleGuarantee", "shuffle_epsilon"]

#: The methods of `shuffle_epsilon` (``"auto"`` takes the smallest bound).
METHODS = ("auto", "exact", "clones", "blanket", "variation-ratio")

#: Largest n for which ``"exact"`` evaluates every count of other users (an n × n FFT table);
#: beyond it the counts go in blocks (`optmech.certify.shuffle_exact`).
EXACT_MAX_N = 1000


# -- validation ------------------------------------------------------------------------------
def _matrix_of(mechanism: Any) -> FloatArray:
    """The row-stochastic matrix of ``mechanism`` (an array, or an object carrying one as
    ``.mechanism``, ``.randomizer`` or ``.matrix``)."""
    obj = mechanism
    for _ in range(3):
        if isinstance(obj, np.ndarray | list | tuple):
            break
        for attr in ("mechanism", "randomizer", "matrix"):
            inner = getattr(obj, attr, None)
            if inner is not None:
                obj = inner() if callable(inner) and not hasattr(inner, "shape") else inner
                break
        else:
            break
    try:
        matrix = np.array(obj, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            "`mechanism` must be a row-stochastic matrix (rows: inputs) or an object with a "
            f"`.mechanism`, `.randomizer` or `.matrix`; got {type(mechanism).__name__}."
        ) from exc
    if matrix.ndim != 2 or matrix.shape[0] < 2 or matrix.shape[1] < 1:
        raise ValueError(
            "`mechanism` must be a 2-D matrix with at least 2 rows (inputs) and 1 column; got "
            f"shape {matrix.shape}."
        )
    if not np.all(np.isfinite(matrix)) or np.any(matrix < 0.0):
        raise ValueError("`mechanism` must have finite, non-negative entries.")
    sums = matrix.sum(axis=1)
    worst = float(np.max(np.abs(sums - 1.0)))
    if worst > 1e-9:
        raise ValueError(f"`mechanism` rows must sum to 1 within 1e-9; a row is off by {worst:g}.")
    return matrix


def _local_epsilon(matrix: FloatArray) -> float:
    """ε₀ of the matrix (largest log ratio within a column), rounded up; ValueError for ∞."""
    cols = matrix[:, matrix.max(axis=0) > 0.0]
    low, high = cols.min(axis=0), cols.max(axis=0)
    if np.any(low == 0.0):
        j = int(np.flatnonzero(low == 0.0)[0])
        raise ValueError(
            "`mechanism` must be ε₀-LDP for a finite ε₀: an output has probability 0 for one "
            f"input and {float(high[j]):g} for another (ε₀ = inf), and shuffling cannot "
            "amplify it."
        )
    eps0 = float(np.max(np.log(high) - np.log(low)))
    return float(np.nextafter(eps0 * (1 + 4e-16) + 1e-300, math.inf)) if eps0 > 0 else 0.0


def describe_matrix(matrix: FloatArray) -> ShuffleDescription:
    """The quantities the shuffle bounds read, by brute force over the rows of a validated
    matrix (its columns of zeros dropped)."""
    eps0 = _local_epsilon(matrix)
    keep = matrix[:, matrix.max(axis=0) > 0.0]
    counts, pairs = _lower_laws(keep)
    col = keep[:, -1]
    v = variation_ratio_parameters(keep)
    return ShuffleDescription(
        local_epsilon=eps0,
        clone_probability=_clone_p(keep),
        blanket_mass=max(0.0, float(keep.min(axis=0).sum()) * (1 - 1e-14)),
        variation_ratio=(v.p, v.beta, v.q),
        variation_decomposition=(v.alpha, v.r, v.s, v.residue),
        outputs=keep.shape[1],
        binary=(float(col.max()), float(col.min())) if keep.shape[1] <= 2 else None,
        count_laws=tuple(counts),
        pair_laws=tuple(pairs),
        matrix=matrix,
    )


#: Largest ``inputs² × outputs`` of an oracle's channel built for its variation-ratio
#: decomposition when no closed form is known (the pairs' decomposition reads every pair's rows).
VARIATION_MATRIX_CELLS = 1 << 24


def _variation_of(desc: ShuffleDescription, mechanism: Any) -> VariationRatio | None:
    """The variation-ratio parameters with their pair decomposition: the description's (a
    matrix's, or an oracle's closed form), else from an oracle's channel when it is small
    (`VARIATION_MATRIX_CELLS`); None otherwise."""
    if desc.variation_decomposition is not None:
        p, beta, q = desc.variation_ratio
        alpha, r, s, residue = desc.variation_decomposition
        return VariationRatio(p=p, beta=beta, q=q, alpha=alpha, r=r, s=s, residue=residue)
    matrix = _small_matrix(desc, mechanism)
    return None if matrix is None else variation_ratio_parameters(matrix)


def _small_matrix(desc: ShuffleDescription, mechanism: Any) -> FloatArray | None:
    """The matrix, or an oracle's channel when it is small (`VARIATION_MATRIX_CELLS`), without
    its zero columns; None when there is none."""
    if desc.matrix is not None:
        matrix = np.asarray(desc.matrix, dtype=np.float64)
    else:
        inputs = getattr(mechanism, "k", 0)
        if not isinstance(inputs, int) or inputs**2 * desc.outputs > VARIATION_MATRIX_CELLS:
            return None
        matrix = np.asarray(mechanism.randomizer.matrix, dtype=np.float64)
    return matrix[:, matrix.max(axis=0) > 0.0]


def _blanket_bound(
    desc: ShuffleDescription, mechanism: Any, others: int, delta: float, reference: float
) -> tuple[_Curve, float]:
    """The ``"blanket"`` curve and ε: the pointwise least of the clone form at the matrix's
    clone probability and, when computable, the blanket divergence (its grouped exact form, or
    else its lattice form), whose crossing is looked for first just below ``reference`` (the
    best ε of the other methods) and the clone form's ε."""
    eps0 = desc.local_epsilon
    clone = _CloneCurve(others, desc.clone_probability, eps0)
    eps = min(eps0, _epsilon_up(clone, delta, eps0))
    matrix = _small_matrix(desc, mechanism)
    if matrix is None:
        return clone, eps
    structures = blanket_groups(matrix)
    if structures:
        curve, exact = blanket_search(others, structures, delta, eps0, min(reference, eps))
        return _MinCurve(clone, curve), min(eps, exact)
    pairs = lattice_pairs(matrix)
    if pairs is None:
        return clone, eps
    lattice, exact = lattice_search(others + 1, pairs, delta, eps0, min(reference, eps))
    if lattice is None:
        return clone, eps
    return _MinCurve(clone, lattice), min(eps, exact)


def _description_of(mechanism: Any) -> ShuffleDescription:
    """A frequency oracle's closed-form description, or a matrix's (`describe_matrix`)."""
    describe = getattr(mechanism, "shuffle_description", None)
    if callable(describe):
        out = describe()
        if isinstance(out, ShuffleDescription):
            return out
    return describe_matrix(_matrix_of(mechanism))


#: Relative width below the coarse curve's ε where the next curve's crossing is looked for.
_NEAR = 2e-2
#: Weight of the variation-ratio curve's lightest pairs charged whole, relative to δ.
_NEGLIGIBLE = 1e-6


def _variation_ratio_search(
    others: int, variation: VariationRatio, delta: float, eps0: float
) -> tuple[_Curve, float]:
    """The variation-ratio curve and its certified ε at ``delta``, searched in stages: a curve
    of `_COARSE_BUDGET` pairs (N, c) brackets the crossing, one of `_BUDGET` pairs is searched
    just below it, and, when the others share user 1's neutral law and the curve with one
    integer a bin fits `_FINE_BUDGET` pairs, that one last; pairs weighing `_NEGLIGIBLE` δ
    together are charged whole. A finer curve charges no bin more than a coarser one, so its
    crossing is below; if it is not where expected the search widens (`_crossing`). Every
    stage's ε is certified for its own curve, an upper bound: the least is returned."""
    budgets = [_COARSE_BUDGET, _BUDGET]
    if 0 < full_pairs(others, variation) <= _FINE_BUDGET:
        budgets.append(_FINE_BUDGET)
    best, near, width = eps0, None, _NEAR
    for budget in budgets:
        curve = _VariationRatioCurve(others, variation, budget, _NEGLIGIBLE * delta)
        hi = _crossing(curve, delta, eps0, near=near)[1]
        if hi >= eps0 or hi <= 0.0 or curve.exact_bins:
            return curve, min(best, hi)
        if best < eps0:  # the next stage's shift is a fraction of this one's
            width = max(1e-4, min(_NEAR, 1.0 - hi / best))
        best = min(best, hi)
        near = (best * (1.0 - width), best)
    return curve, best


def _check_consistent(
    lower_curves: list[_Curve], lower: float, upper: float, delta: float, method: str
) -> None:
    """Raise `PrivacyViolationError` if a concrete pair's curve exceeds δ at the certified ε
    (the lower search stops at ``upper``, so it would otherwise read as ``lower = upper``): a
    certified bound below a concrete pair's ε is a fault, never a number."""
    if lower < upper * (1.0 - 1e-9):
        return
    worst = max((float(c(upper)) for c in lower_curves), default=0.0)
    if worst > delta * (1.0 + 1e-9):
        from optmech.exceptions import PrivacyViolationError

        raise PrivacyViolationError(
            f"shuffle_epsilon: the {method!r} bound ε = {upper:.10g} is below the ε of a "
            f"concrete pair of datasets (its δ there is {worst:.6g} > δ = {delta:g}); this is a "
            "fault in the bound: use another `method` and report the randomizer."
        )


def _check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 2:
        raise ValueError(f"`n` must be an integer in [2, inf); got {n!r}.")
    return int(n)


def _check_delta(delta: Any) -> float:
    try:
        value = float(delta)
    except (TypeError, ValueError):
        value = math.nan
    if not 0.0 < value < 1.0:
        raise ValueError(f"`delta` must be a real number in (0, 1); got {delta!r}.")
    return value


# -- the result ----------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class ShuffleGuarantee(BaseResult):
    """The central guarantee of n shuffled reports of one randomizer, certified.

    A result of the one protocol (`optmech.results.Result`) computed without an LP: `value` is
    the certified upper bound `epsilon`, `lower_bound` the ε of a concrete pair of neighbouring
    datasets, so the true central ε at `delta` lies in ``[lower_bound, epsilon]``.

    Attributes
    ----------
    epsilon : float
        Certified upper bound on the central ε at `delta` (rounded up), at most
        `local_epsilon`.
    lower_bound : float
        The ε of a concrete pair of datasets, computed exactly (rounded down).
    local_epsilon : float
        ε₀ of the randomizer.
    n : int
        Number of users.
    delta : float
    method : str
        The method whose bound is `epsilon`: ``"exact"``, ``"clones"``, ``"blanket"``,
        ``"variation-ratio"`` or ``"local"`` (no amplification proven below ε₀).
    bounds : dict
        The ε each valid method certified (``"local"`` included).
    randomizer : ndarray or None
        The randomizer's matrix ``M[x, y] = P(output y | input x)``; None for a frequency oracle
        (`optmech.mechanisms.frequency_oracles`), described in closed form.

    Examples
    --------
    >>> import numpy as np, optmech
    >>> rr = np.array([[3.0, 1.0], [1.0, 3.0]]) / 4  # binary randomized response, ε₀ = ln 3
    >>> g = optmech.shuffle_epsilon(rr, n=1000, delta=1e-6)
    >>> g.method, bool(g.lower_bound <= g.epsilon < g.local_epsilon)
    ('exact', True)
    """

    epsilon: float
    lower_bound: float
    local_epsilon: float
    n: int
    delta: float
    method: str
    bounds: dict[str, float]
    randomizer: FloatArray | None = field(repr=False)
    _upper: tuple[_Curve, ...] = field(repr=False, compare=False)
    _lower: tuple[_Curve, ...] = field(repr=False, compare=False)

    _model = "shuffle (central, from local)"
    _dict_fields = ("epsilon", "local_epsilon", "n", "delta", "method", "bounds", "randomizer")

    @property
    def value(self) -> float:
        """`epsilon`, the certified upper bound."""
        return self.epsilon

    @property
    def upper_bound(self) -> float:
        """`epsilon`."""
        return self.epsilon

    @property
    def certified_epsilon(self) -> float:
        """`epsilon`: the central ε certified at `delta`."""
        return self.epsilon

    @property
    def provenance(self) -> Provenance:
        """Without an LP: solver ``"none"``, status ``"bound"``, the interval
        ``[lower_bound, epsilon]``."""
        return Provenance(
            solver="none",
            status="bound",
            attempts=(),
            value=self.epsilon,
            lower_bound=self.lower_bound,
        )

    def _privacy_met(self, rtol: float) -> bool | None:
        return None  # nothing but δ was asked for

    def _privacy_requested(self) -> str | None:
        return f"δ = {self.delta:g}"

    def _privacy_rows(self) -> list[tuple[str, Any]]:
        return [("certified ε", self.epsilon), ("local ε₀", self.local_epsilon)]

    def _own_rows(self) -> list[tuple[str, Any]]:
        return [("users n", self.n), ("method", self.method)]

    def curve(self, epsilons: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
        """The privacy curve at ``epsilons``: (upper, lower) arrays of δ(ε).

        The upper curve is the smallest of the valid methods' (0 at and above ε₀), the lower
        curve the largest over the concrete pairs tried; both are made monotone over the
        points asked (a bound at ε' ≤ ε holds at ε for the upper curve, at ε' ≥ ε for the
        lower).

        Examples
        --------
        >>> import numpy as np, optmech
        >>> g = optmech.shuffle_epsilon(np.array([[0.75, 0.25], [0.25, 0.75]]), 100, 1e-3)
        >>> up, low = g.curve([0.0, 0.5, 2.0])
        >>> bool(np.all(low <= up)), up[-1]
        (True, np.float64(0.0))
        """
        eps = np.atleast_1d(np.asarray(epsilons, dtype=np.float64))
        if eps.ndim != 1 or not np.all(np.isfinite(eps)) or np.any(eps < 0.0):
            raise ValueError("`epsilons` must be finite reals in [0, inf).")
        order = np.argsort(eps, kind="stable")
        ascending = eps[order]
        up = np.array([min([1.0, *(c(float(e)) for c in self._upper)]) for e in ascending])
        up[ascending >= self.local_epsilon] = 0.0
        low = np.array([max([0.0, *(c(float(e)) for c in self._lower)]) for e in ascending])
        # δ(ε) is non-increasing: a bound at ε' ≤ ε holds at ε, one at ε' ≥ ε below it.
        up = np.minimum.accumulate(up)
        low = np.maximum.accumulate(low[::-1])[::-1]
        out_up, out_low = np.empty_like(up), np.empty_like(low)
        out_up[order], out_low[order] = up, np.minimum(low, up)
        return out_up, out_low

    def to_profile(self, points: int = 32) -> PrivacyProfile:
        """The upper curve as an `optmech.PrivacyProfile` on ``points`` ε in [0, ε₀]
        (`optmech.accounting` composes it).

        Examples
        --------
        >>> import numpy as np, optmech
        >>> g = optmech.shuffle_epsilon(np.array([[0.75, 0.25], [0.25, 0.75]]), 100, 1e-3)
        >>> p = g.to_profile(8)
        >>> len(p.epsilons), p.deltas[-1]
        (8, 0.0)
        """
        if isinstance(points, bool) or not isinstance(points, int) or points < 2:
            raise ValueError(f"`points` must be an integer in [2, inf); got {points!r}.")
        eps = np.linspace(0.0, self.local_epsilon, points)
        eps = eps[np.concatenate([[True], np.diff(eps) > 0])]
        up, _ = self.curve(eps)
        return PrivacyProfile(eps.tolist(), np.minimum.accumulate(up).tolist())

    def plot(self, ax: Any = None) -> Any:
        """The upper and lower curves δ(ε) on a log scale, the target δ and the two ε marked;
        returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        top = max(self.local_epsilon, 1e-9)
        eps = np.linspace(0.0, top, 60)
        up, low = self.curve(eps)
        floor = self.delta * 1e-3
        ax.semilogy(eps, np.maximum(up, floor), label=f"upper ({self.method})")
        ax.semilogy(eps, np.maximum(low, floor), "--", label="lower (a concrete pair)")
        ax.axhline(self.delta, color="grey", lw=0.8)
        ax.axvline(self.epsilon, color="C0", lw=0.8, ls=":")
        ax.set_xlabel("ε")
        ax.set_ylabel("δ(ε)")
        ax.set_title(f"{self.model}, n = {self.n}: ε ≤ {self.epsilon:.4g}")
        ax.legend()
        return ax

    def __repr__(self) -> str:
        return (
            f"ShuffleGuarantee(epsilon={self.epsilon:.6g}, lower_bound={self.lower_bound:.6g}, "
            f"local_epsilon={self.local_epsilon:.6g}, n={self.n}, delta={self.delta:g}, "
            f"method={self.method!r})"
        )


def shuffle_epsilon(
    mechanism: Any, n: int, delta: float, *, method: str = "auto"
) -> ShuffleGuarantee:
    r"""The central (ε, δ) guarantee of n shuffled reports of one ε₀-LDP randomizer.

    Each of ``n`` users applies ``mechanism`` to its input and a shuffler releases the
    histogram of the reports; neighbouring datasets change one user's input. The result holds
    a certified upper bound on the central ε at ``delta`` (worst over the pair and the other
    users' inputs) and the ε of a concrete pair of datasets below it.

    Parameters
    ----------
    mechanism : array_like, shape (k_in, k_out), or an object carrying one
        ``M[x, y] = P(output y | input x)``: finite, non-negative, rows summing to 1 within
        1e-9, at least 2 rows, with a finite ε₀ (no zero facing a positive entry in a column).
        A local result's ``.mechanism``, a randomizer's ``.randomizer`` or ``.matrix`` are read;
        a frequency oracle (`optmech.mechanisms.frequency_oracles`, e.g. ``OLH(k, ε)``) is read
        from its closed-form ``shuffle_description()``, without a matrix, at any k.
    n : int
        Number of users, in [2, inf).
    delta : float
        Target δ, in (0, 1).
    method : {"auto", "exact", "clones", "blanket", "variation-ratio"}
        ``"exact"``: two-output matrices (the worst case computed exactly for n ≤
        ``EXACT_MAX_N``, by blocks of the count beyond); ``"clones"``: Feldman, McMillan &
        Talwar (FOCS 2021), from ε₀ alone; ``"blanket"``: the privacy blanket (Balle et al.
        2019), computed exactly where every pair's outputs fall in at most three groups (k-ary
        randomized response, two outputs), on a certified lattice for other matrices within a
        cell budget (Su, Cheng & Wang 2025), or else the clone reduction with the clone
        probability the matrix allows (the smaller of the two where both are computed);
        ``"variation-ratio"``: Wang et al. (PVLDB 2024) from the matrix's (p, β, q), in
        a sound form. ``"auto"``: the smallest certified bound among the valid methods.

    Returns
    -------
    ShuffleGuarantee
        ``epsilon`` (certified, ≤ ε₀; ``method == "local"`` when no method beats ε₀),
        ``lower_bound``, ``local_epsilon``, ``curve(epsilons)``, ``to_profile()``.

    Raises
    ------
    ValueError
        A bad matrix (naming ``mechanism``), ``n`` or ``delta``, or ``method="exact"`` for a
        matrix with more than two outputs.

    Examples
    --------
    >>> import numpy as np, optmech
    >>> rr = np.array([[3.0, 1.0], [1.0, 3.0]]) / 4  # binary randomized response, ε₀ = ln 3
    >>> g = optmech.shuffle_epsilon(rr, n=10_000, delta=1e-6)
    >>> g.method, round(g.epsilon, 3), bool(g.lower_bound <= g.epsilon)
    ('exact', 0.04, True)
    >>> optmech.shuffle_epsilon(rr, n=10_000, delta=1e-6, method="clones").epsilon > g.epsilon
    True
    """
    desc = _description_of(mechanism)
    n = _check_n(n)
    delta = _check_delta(delta)
    if method not in METHODS:
        raise ValueError(f"`method` must be one of {METHODS}; got {method!r}.")
    eps0 = desc.local_epsilon
    others = n - 1
    exact_ok = desc.binary is not None
    if method == "exact" and not exact_ok:
        raise ValueError(
            f"`method` 'exact' needs a matrix with two outputs; got {desc.outputs} outputs. "
            "Use 'auto', 'blanket', 'clones' or 'variation-ratio'."
        )
    variation = _variation_of(desc, mechanism)
    if method == "variation-ratio" and variation is None:
        raise ValueError(
            "`method` 'variation-ratio' needs a matrix, an oracle whose decomposition is known in "
            f"closed form (GRR) or a channel of at most {VARIATION_MATRIX_CELLS} inputs² × "
            "outputs; got none of them. Use 'auto', 'blanket' or 'clones'."
        )
    wanted = [m for m in METHODS[1:] if method in ("auto", m)]
    if not exact_ok:
        wanted = [m for m in wanted if m != "exact"]
    if variation is None:
        wanted = [m for m in wanted if m != "variation-ratio"]
    curves: dict[str, _Curve] = {}
    bounds: dict[str, float] = {"local": eps0}
    if eps0 > 0.0:
        for name in wanted:
            if name == "exact":
                assert desc.binary is not None
                exact = _ExactBinaryCurve if n <= EXACT_MAX_N else _BlockedBinaryCurve
                curves[name] = exact(others, *desc.binary)
            elif name == "clones":
                curves[name] = _CloneCurve(others, math.exp(-eps0), eps0)
            elif name == "blanket":
                continue  # last: its exact form is searched below the others' best
            else:
                assert variation is not None
                curves[name], bounds[name] = _variation_ratio_search(others, variation, delta, eps0)
                continue
            bounds[name] = min(eps0, _epsilon_up(curves[name], delta, eps0))
        if "blanket" in wanted:
            curves["blanket"], bounds["blanket"] = _blanket_bound(
                desc, mechanism, others, delta, min(bounds.values())
            )
    best = min((m for m in bounds if m != "local"), key=bounds.__getitem__, default="local")
    if bounds.get(best, math.inf) >= eps0:
        best = "local"
    lower_curves = _lower_curves_of(desc.count_laws, desc.pair_laws, others) if eps0 > 0.0 else []
    upper = bounds[best]
    lower = _lower_epsilon(lower_curves, delta, eps0, upper)
    _check_consistent(lower_curves, lower, upper, delta, best)
    return ShuffleGuarantee(
        epsilon=upper,
        lower_bound=min(lower, upper),
        local_epsilon=eps0,
        n=n,
        delta=delta,
        method=best,
        bounds=bounds,
        randomizer=desc.matrix,
        _upper=tuple(curves.values()),
        _lower=tuple(lower_curves),
    )
