"""The machinery every frequency oracle shares: validation, the sampler's shapes, the pure
estimator and its exact variance (Wang, Blocki, Li & Jha, USENIX Security 2017, Theorem 2),
the closed-form shuffle description and the display. The families are in `direct`
(`GRR`, `OUE`), `hashing` (`OLH`, `HadamardResponse`) and `subsets` (`SubsetSelection`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray, IntArray
from optmech._validation import check_int, check_real, check_rng, describe
from optmech.mechanisms.local_randomizer import LocalRandomizer, broadcast_inputs
from optmech.mechanisms.shuffle_description import ShuffleDescription

__all__ = ["MAX_OUTPUTS"]

#: Most outputs of a matrix built by ``.randomizer`` (2^16).
MAX_OUTPUTS = 1 << 16
#: Largest ε accepted (as `optmech.mechanisms.randomized_response`).
_MAX_EPSILON = 50.0
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
        """Laws over (S0, S1, S2, rest) of inputs 0 and 1 and of the other input o of least
        mass on S0 ∪ S1, with S0 (S1) the outputs likelier under input 0 (1) and S2 the other
        outputs likelier under o than under input 0 (empty when o is input 0)."""
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
        """$(p, β, q)$ of Wang et al. (PVLDB 2024): largest ratio between two rows, largest total
        variation between two rows, largest ratio of a row to any row; rounded up."""
        ratio = _up(math.exp(self.epsilon))
        return ratio, min(1.0, _up(self._beta())), ratio

    def shuffle_description(self) -> ShuffleDescription:
        """The quantities `optmech.shuffle_epsilon` reads, in closed form (no matrix).

        Examples
        --------
        >>> from optmech.mechanisms.frequency_oracles import GRR
        >>> d = GRR(3, 1.0).shuffle_description()
        >>> round(d.blanket_mass, 12) == round(3 / (math.e + 2), 12)
        True
        """
        first, second, others = self._pair_laws()
        # and every other user at input 0 (S2 empty)
        one, two = (np.array([x[0], x[1], 0.0, x[2] + x[3]]) for x in (first, second))
        pair = ((first, second, others), (second, first, others), (one, two, one), (two, one, one))
        return ShuffleDescription(
            local_epsilon=self.local_epsilon,
            clone_probability=self.clone_probability,
            blanket_mass=self.blanket_mass,
            variation_ratio=self.variation_ratio,
            outputs=self.output_size,
            binary=self._binary(),
            count_laws=self._count_laws(),
            pair_laws=pair if self.output_size > 2 else (),
            variation_decomposition=self._variation_decomposition(),
        )

    def _variation_decomposition(self) -> tuple[float, float, float, float] | None:
        """``(α, r, s, residue)`` of the sound variation-ratio bound in closed form, where one
        is derived (`ShuffleDescription`); None by default."""
        return None

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
        >>> from optmech.mechanisms.frequency_oracles import GRR, SubsetSelection
        >>> SubsetSelection(6, 0.5).rvs(2, rng=1).shape  # one report: a 2-subset
        (2,)
        >>> GRR(4, 1.0).rvs([0, 1, 2], size=(2, 3), rng=0).shape
        (2, 3)
        """
        items = broadcast_inputs(self._items(x), size)
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
