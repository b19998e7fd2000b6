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
parameters (p, β, q) of Wang et al. (CCS 2024) with $p = q = e^{ε}$ (every family reaches the
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

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray, IntArray
from optmech._validation import check_int, check_real, check_rng, check_size, describe
from optmech.mechanisms.local_randomizer import LocalRandomizer
from optmech.mechanisms.shuffle_description import ShuffleDescription

__all__ = [
    "GRR",
    "MAX_OUTPUTS",
    "OLH",
    "OUE",
    "HadamardResponse",
    "SubsetSelection",
]

#: Most outputs of a matrix built by ``.randomizer`` (2^16).
MAX_OUTPUTS = 1 << 16
#: Largest ε accepted (as `optmech.mechanisms.randomized_response`).
_MAX_EPSILON = 50.0
#: Largest number of draws of one call of ``rvs``.
_MAX_SAMPLES = 500_000_000
#: Relative rounding of the closed forms (a few flops each): down for γ and the clone
#: probability, up for β and the ratios.
_ROUND = 1e-14


def _down(x: float) -> float:
    return max(0.0, x * (1.0 - _ROUND))


def _up(x: float) -> float:
    return x * (1.0 + _ROUND)


def _is_prime(g: int) -> bool:
    if g < 2:
        return False
    if g < 4:
        return True
    if g % 2 == 0:
        return False
    return all(g % f for f in range(3, math.isqrt(g) + 1, 2))


def _pure_variance(p: float, q: float, n: int, f: FloatArray) -> FloatArray:
    """Var of the pure estimator (module docstring; Wang et al. 2017, Theorem 2)."""
    return (q * (1.0 - q) / (p - q) ** 2 + f * (1.0 - p - q) / (p - q)) / n


@dataclass(frozen=True)
class _FrequencyOracle:
    """Shared machinery: validation, estimator, variance, shuffle description, display."""

    k: int
    epsilon: float

    _name: ClassVar[str] = "frequency oracle"

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int("k", self.k, low=2))
        object.__setattr__(
            self,
            "epsilon",
            check_real("epsilon", self.epsilon, low=0.0, high=_MAX_EPSILON, low_open=True),
        )

    # -- to be given by each family ------------------------------------------------------------
    @property
    def output_size(self) -> int:
        """Number of outputs of the channel."""
        raise NotImplementedError

    def _support(self) -> tuple[float, float]:
        """``(p*, q*)``: P(a report supports v) when x = v, and when x ≠ v."""
        raise NotImplementedError

    def _blanket(self) -> float:
        raise NotImplementedError

    def _clone(self) -> float:
        raise NotImplementedError

    def _beta(self) -> float:
        raise NotImplementedError

    def _pair_laws(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Laws over (S0, S1, rest) of inputs 0 and 1 and of the other input of least mass on
        S0 ∪ S1, with S0 (S1) the outputs likelier under input 0 (1)."""
        raise NotImplementedError

    def _matrix(self) -> tuple[FloatArray, list[Any]]:
        raise NotImplementedError

    def _output_reports(self) -> Any:
        """One report per column of the matrix, in its order, in the format of `rvs`."""
        raise NotImplementedError

    def _draw(self, x: IntArray, gen: np.random.Generator) -> Any:
        raise NotImplementedError

    def _counts(self, reports: Any) -> tuple[FloatArray, int]:
        """``(C, n)``: the number of reports supporting each item, and of reports."""
        raise NotImplementedError

    # -- privacy and amplification -------------------------------------------------------------
    @property
    def local_epsilon(self) -> float:
        """ε₀ over every pair of inputs: ε exactly for the channel in real arithmetic, rounded up
        by a few ulps (as `optmech.shuffle_epsilon` rounds a matrix's ε₀)."""
        return float(np.nextafter(self.epsilon * (1 + 4e-16) + 1e-300, math.inf))

    @property
    def blanket_mass(self) -> float:
        """$γ = Σ_y \\min_x R(y|x)$, closed form (class docstring), rounded down."""
        return _down(self._blanket())

    @property
    def clone_probability(self) -> float:
        """The largest $p$ with $R(y|x) ≥ \\frac{p}{2}(R(y|x^0) + R(y|x^1))$ for all y, x and
        pairs $x^0 ≠ x^1$ (the ``"blanket"`` method of `optmech.shuffle_epsilon`), rounded
        down."""
        return _down(min(1.0, self._clone()))

    @property
    def variation_ratio(self) -> tuple[float, float, float]:
        """$(p, β, q)$ of Wang et al. (CCS 2024): largest ratio between two rows, largest total
        variation between two rows, largest ratio of a row to any row; rounded up."""
        ratio = _up(math.exp(self.epsilon))
        return ratio, min(1.0, _up(self._beta())), ratio

    def shuffle_description(self) -> ShuffleDescription:
        """The quantities `optmech.shuffle_epsilon` reads, in closed form (no matrix).

        Examples
        --------
        >>> d = GRR(3, 1.0).shuffle_description()
        >>> round(d.blanket_mass, 12) == round(3 / (math.e + 2), 12)
        True
        """
        first, second, others = self._pair_laws()
        pair = ((first, second, others), (second, first, others))
        return ShuffleDescription(
            local_epsilon=self.local_epsilon,
            clone_probability=self.clone_probability,
            blanket_mass=self.blanket_mass,
            variation_ratio=self.variation_ratio,
            outputs=self.output_size,
            binary=self._binary(),
            count_laws=self._count_laws(),
            pair_laws=pair if self.output_size > 2 else (),
        )

    def _binary(self) -> tuple[float, float] | None:
        return None

    def _count_laws(self) -> tuple[tuple[float, float], ...]:
        """``(lo, hi)`` of output sets for the lower bound: the reports supporting an item."""
        p, q = self._support()
        return ((q, p),)

    # -- the channel ---------------------------------------------------------------------------
    @property
    def randomizer(self) -> LocalRandomizer:
        """The channel as an `optmech.LocalRandomizer` (inputs ``0..k-1``, outputs named by
        what they report); ValueError beyond `MAX_OUTPUTS` outputs."""
        size = self.output_size
        if size > MAX_OUTPUTS:
            raise ValueError(
                f"`k` = {self.k} gives {type(self).__name__} {size} outputs, more than the "
                f"{MAX_OUTPUTS} a matrix is built for; use `rvs`, `estimate` and "
                "`shuffle_description` (no matrix) instead."
            )
        matrix, names = self._matrix()
        return LocalRandomizer(matrix, inputs=np.arange(self.k), outputs=names)

    def _items(self, x: Any) -> IntArray:
        arr = np.asarray(x)
        if arr.dtype.kind not in "iu" or (arr.size and (arr.min() < 0 or arr.max() >= self.k)):
            if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
                return self._items(arr.astype(np.int64))
            raise ValueError(f"`x` must hold items in 0..{self.k - 1}; got {describe(x)}.")
        return arr.astype(np.int64)

    def rvs(self, x: Any, size: Any = None, rng: Any = None) -> Any:
        """Reports for the item(s) ``x``, drawn without building the matrix.

        Parameters
        ----------
        x : int or array_like of int
            Items in ``0..k-1``.
        size : int or tuple of ints, optional
            Shape of the draws, ``x`` broadcast to it (default ``x``'s shape).
        rng : None, int, SeedSequence, BitGenerator or Generator

        Returns
        -------
        int or ndarray
            One report per draw, in the family's format (class docstring): the leading axes
            are the draws' shape (a scalar ``x`` without ``size``: one report, an int for
            the families whose report is one integer).

        Examples
        --------
        >>> SubsetSelection(6, 0.5).rvs(2, rng=1).shape  # one report: a 2-subset
        (2,)
        >>> GRR(4, 1.0).rvs([0, 1, 2], size=(2, 3), rng=0).shape
        (2, 3)
        """
        items = self._items(x)
        shape = check_size(size)
        if shape is None:
            shape = items.shape
        elif math.prod(shape) > _MAX_SAMPLES:
            raise ValueError(
                f"`size` must have at most {_MAX_SAMPLES:.0e} elements in all; got {size!r}."
            )
        try:
            items = np.broadcast_to(items, shape)
        except ValueError:
            raise ValueError(
                f"`size` must be a shape `x` broadcasts to; got size={size!r} for x of shape "
                f"{items.shape}."
            ) from None
        out = self._draw(np.array(items, dtype=np.int64), check_rng(rng))
        return out.item() if out.ndim == 0 else out

    # -- estimation ----------------------------------------------------------------------------
    def estimate(self, reports: Any) -> FloatArray:
        """The unbiased frequency estimate $\\hat f_v = (C_v/n − q^*)/(p^* − q^*)$ of every item
        (module docstring), from reports as `rvs` draws them.

        Returns
        -------
        ndarray, shape (k,)
        """
        counts, n = self._counts(reports)
        if n == 0:
            raise ValueError("`reports` must hold at least one report; got none.")
        p, q = self._support()
        return (counts / n - q) / (p - q)

    def variance(self, n: int, frequencies: npt.ArrayLike | None = None) -> FloatArray:
        """Exact variance of `estimate` for each item over ``n`` reports (Wang et al. 2017,
        Theorem 2; module docstring).

        Parameters
        ----------
        n : int
            Number of reports, at least 1.
        frequencies : array_like, shape (k,), optional
            The true frequencies $f_v$ (non-negative, summing to at most 1); default 0 for
            every item (the variance of an item nobody holds, as the papers report).

        Returns
        -------
        ndarray, shape (k,)
        """
        n = check_int("n", n, low=1)
        if frequencies is None:
            f = np.zeros(self.k)
        else:
            f = np.asarray(frequencies, dtype=np.float64)
            if (
                f.shape != (self.k,)
                or not np.all(np.isfinite(f))
                or np.any(f < 0)
                or f.sum() > 1 + 1e-9
            ):
                raise ValueError(
                    f"`frequencies` must be {self.k} non-negative reals summing to at most 1; "
                    f"got {describe(frequencies)}."
                )
        p, q = self._support()
        return _pure_variance(p, q, n, f)

    # -- display -------------------------------------------------------------------------------
    def _params(self) -> dict[str, Any]:
        return {"k": self.k, "epsilon": self.epsilon}

    def _rows_shown(self) -> list[tuple[str, Any]]:
        p, beta, q = self.variation_ratio
        return [
            *self._params().items(),
            ("outputs", self.output_size),
            ("epsilon (local)", self.local_epsilon),
            ("variance (n = 1, f = 0)", float(self.variance(1)[0])),
            ("blanket mass", self.blanket_mass),
            ("clone probability", self.clone_probability),
            ("variation ratio (p, beta, q)", f"({p:.6g}, {beta:.6g}, {q:.6g})"),
        ]

    def summary(self) -> str:
        """The display as text: the class, then one ``name  value`` row each."""
        from optmech._display import text_summary

        return text_summary(type(self).__name__, self._rows_shown())

    def _repr_html_(self) -> str:
        from optmech._display import html_summary

        return html_summary(type(self).__name__, self._rows_shown())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict: the class, its parameters and its closed-form quantities."""
        p, beta, q = self.variation_ratio
        return {
            "result": type(self).__name__,
            **self._params(),
            "outputs": self.output_size,
            "local_epsilon": self.local_epsilon,
            "blanket_mass": self.blanket_mass,
            "clone_probability": self.clone_probability,
            "variation_ratio": [p, beta, q],
            "variance": float(self.variance(1)[0]),
        }

    def plot(self, ax: Any = None) -> Any:
        """Heat map of the channel (`randomizer`, small outputs only); returns the Axes."""
        return self.randomizer.plot(ax)


def _check_reports_1d(reports: Any, high: int) -> IntArray:
    arr = np.asarray(reports)
    if arr.dtype.kind not in "iu" or (arr.size and (arr.min() < 0 or arr.max() >= high)):
        raise ValueError(f"`reports` must hold integers in 0..{high - 1}; got {describe(reports)}.")
    return arr.reshape(-1).astype(np.int64)


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

    def _pair_laws(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        a, b = self._ab()
        first = np.array([a, b, 1.0 - a - b])
        others = np.array([b, b, 1.0 - 2 * b]) if self.k > 2 else first
        return first, first[[1, 0, 2]], others

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
        q = self._q()
        first = np.array([0.5 * (1 - q), 0.5 * q, 0.5])
        if self.k > 2:
            others = np.array([q * (1 - q), q * (1 - q), 1 - 2 * q * (1 - q)])
        else:
            others = first
        return first, first[[1, 0, 2]], others

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
        g = self._g
        high, low = self._hl()
        split = 1.0 - 1.0 / g  # P(h(0) ≠ h(1))
        first = np.array([split * high, split * low, 1.0 - split * (high + low)])
        if self.k > 2 and g > 2:
            # item 2: h(2) − h(0) = 2(h(1) − h(0)) on the digits, so it never meets h(0) or h(1)
            # when they differ (g an odd prime)
            others = np.array([split * low, split * low, 1.0 - 2 * split * low])
        elif self.k > 2:  # g = 2: item 2's hash independent of (h(0), h(1)), all uniform
            c = split / g
            others = np.array([c, c, 1.0 - 2 * c])
        else:
            others = first
        if others[0] + others[1] > first[0] + first[1]:
            others = first
        return first, first[[1, 0, 2]], others

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
        e = math.exp(self.epsilon)
        first = np.array([e / (2 * (1 + e)), 1 / (2 * (1 + e)), 0.5])
        if self.k >= 3:  # item 2 (row 3 = 1 xor 2): −1 on S0 and on S1
            low = 1 / (2 * (1 + e))
            others = np.array([low, low, 1.0 - 2 * low])
        else:
            others = first
        return first, first[[1, 0, 2]], others

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

    def _beta(self) -> float:
        # C(k−2,d−1)/C(k−1,d−1) = (k−d)/(k−1)
        return (self.k - self._d) / (self.k - 1) * (math.exp(self.epsilon) - 1) / self._z()

    def _pair_laws(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        e, k, d, z = math.exp(self.epsilon), self.k, self._d, self._z()
        one = (k - d) / (k - 1) / z  # C(k−2,d−1)/Z: S holds 0, not 1 (or 1, not 0)
        first = np.array([e * one, one, 1.0 - (e + 1) * one])
        if k > 2:
            # C(k−3,d−2)/C(k−1,d−1) and C(k−3,d−1)/C(k−1,d−1): S holds 0 and the other
            # input, or 0 and not the other, never 1
            both = (d - 1) * (k - d) / ((k - 1) * (k - 2))
            alone = (k - d) * (k - d - 1) / ((k - 1) * (k - 2))
            c = (e * both + alone) / z
            others = np.array([c, c, 1.0 - 2 * c])
            if 2 * c > first[0] + first[1]:
                others = first
        else:
            others = first
        return first, first[[1, 0, 2]], others

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
