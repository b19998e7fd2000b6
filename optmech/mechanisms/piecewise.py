"""Tabulated noise on a uniform grid with geometric tails: what the LP designer returns.

Two families share one description (the exact discretisation of the theory pages):

* `PiecewiseConstantNoise` — a density on ℝ, constant on cells
  ``[s + jh, s + (j+1)h)`` of a finite grid, optionally with an atom at the origin (the (0, δ)
  optimum has one, Geng, Ding, Guo & Kumar 2019);
* `LatticeNoise` — a pmf on the integers ``s, s+1, ..., s+N−1`` (noise for integer
  queries, the discrete setting of Geng & Viswanath 2016).

Beyond the grid each side carries a **geometric tail**: one base period of ``P`` cells, repeated
outwards and multiplied by ``ratio`` per period (``P = m`` cells per Δ and ``ratio = e^−ε``
continue a staircase-like density exactly; ``ratio = 0`` is a finite support). Everything is
exact: ``cdf``, ``sf`` and ``ppf`` sum the geometric series in closed form (non-negative terms
only, so the tails keep their relative precision; ``logcdf``/``logsf``/``logpdf``/``logpmf``
add ``k log(ratio)`` for the ``k``-th period and stay finite where the values underflow; the
engine is `optmech.mechanisms._grid_law`), ``expected_cost`` integrates
the cost over each cell (`optmech.costs.Cost.integral`) and over each
tail (`periodic_integral` /
`periodic_sum`),
``rvs`` samples by composition (a cell by its mass, a geometric number of periods, a uniform
position in the cell).

The ``privacy`` given to the constructor is the guarantee *claimed*; it is not checked here.
`optmech.certify.certify_noise` certifies it from the
numbers alone (it reads the `GridDescription` of
`grid_description`), and `optmech.design_noise` only
hands out certified noise.

Examples
--------
A Laplace-like density on cells of width 1/2 with geometric tails (ratio ``e^-1`` per Δ = 1):

>>> import numpy as np
>>> from optmech.privacy import PureDP
>>> b = np.exp(-1.0)
>>> dens = np.array([b, 1.0, 1.0, b])           # cells [-1, -0.5), ..., [0.5, 1)
>>> tail = (dens[:2] * b, b)                    # the first left period, b times cells 0-1
>>> right = (dens[2:] * b, b)
>>> total = 0.5 * dens.sum() + 0.5 * (dens[:2].sum() + dens[2:].sum()) * b / (1 - b)
>>> noise = PiecewiseConstantNoise(
...     start=-1.0, width=0.5, densities=dens / total, period=2,
...     left_tail=(tail[0] / total, b), right_tail=(right[0] / total, b),
...     sensitivity=1.0, privacy=PureDP(1.0))
>>> round(noise.cdf(0.0), 12)
0.5
>>> bool(abs(noise.pdf(1.25) / noise.pdf(0.25) - b) < 1e-12)
True
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray
from optmech._validation import (
    check_int,
    check_real,
    check_real_array,
    check_tail,
)
from optmech.costs import Cost
from optmech.mechanisms._exact_moments import Cells, Table, TableStatistics
from optmech.mechanisms._grid_law import GridLaw
from optmech.mechanisms.base import ContinuousNoise, DiscreteNoise
from optmech.mechanisms.description import GridDescription, PrivacySource, SourceKind
from optmech.mechanisms.exact_sampling import draw_many, lattice_draw
from optmech.privacy import Privacy, check_privacy

__all__ = ["LatticeNoise", "PiecewiseConstantNoise"]


#: Largest accepted ``|total mass − 1|`` of a constructed noise.
MASS_TOLERANCE = 1e-9


def _check_privacy(privacy: Any) -> Privacy:
    """The claimed guarantee: any of `optmech.privacy` (designs beyond (ε, δ)
    claim theirs)."""
    return check_privacy(privacy, beyond=True)  # type: ignore[no-any-return]


class _TabulatedMixin:
    """Shared attributes and repr of the two tabulated families."""

    _law: GridLaw
    _privacy: Privacy
    sensitivity: float

    @property
    def privacy(self) -> Privacy:
        """The guarantee claimed at construction (certify it with
        `optmech.certify.noise`)."""
        return self._privacy

    def grid_description(self) -> GridDescription:  # implemented by each family
        raise NotImplementedError

    def privacy_source(self) -> PrivacySource:
        """A table on a grid with geometric tails, its numbers stored: certify them
        (`PrivacySource` of kind ``grid``,
        tabulated)."""
        return self._source(  # type: ignore[attr-defined, no-any-return]
            SourceKind.GRID, tabulated=True, grid=self.grid_description()
        )

    @property
    def start(self) -> float:
        """Left edge of the grid (first point, for lattice noise)."""
        return self._law.start

    @property
    def width(self) -> float:
        """Cell width ``h`` (1 for lattice noise)."""
        return self._law.h

    @property
    def period(self) -> int:
        """Cells per tail period."""
        return self._law.period

    @property
    def left_tail(self) -> tuple[FloatArray, float]:
        """``(base values, ratio)`` of the left tail (values in the family's units)."""
        return self._law.left_base.copy(), self._law.left_ratio

    @property
    def right_tail(self) -> tuple[FloatArray, float]:
        """``(base values, ratio)`` of the right tail."""
        return self._law.right_base.copy(), self._law.right_ratio

    @property
    def num_cells(self) -> int:
        """Cells (points) of the grid."""
        return self._law.n

    @property
    def is_symmetric(self) -> bool:
        """Whether the noise is symmetric about 0, to 1e-12 relative (values, tails and grid)."""
        law = self._law
        mirrored_start = -law.end if not isinstance(self, LatticeNoise) else -(law.end - 1.0)
        if abs(law.start - mirrored_start) > 1e-12 * max(1.0, abs(law.start)):
            return False
        scale = 1e-12 * max(float(np.max(law.values)), 1e-300)
        return bool(
            np.all(np.abs(law.values - law.values[::-1]) <= scale)
            and np.all(np.abs(law.left_base - law.right_base[::-1]) <= scale)
            and abs(law.left_ratio - law.right_ratio) <= 1e-12
        )


class PiecewiseConstantNoise(_TabulatedMixin, TableStatistics, ContinuousNoise):
    """A density constant on the cells of a uniform grid, with geometric tails and an atom at 0.

    Parameters
    ----------
    start : float
        Left edge of the grid, finite.
    width : float
        Cell width ``h``, in (0, inf).
    densities : array_like
        Density on each cell, non-negative, length N ≥ 1.
    period : int
        Cells per tail period, in [1, inf) (``m`` cells per Δ for the LP designs).
    left_tail, right_tail : (array_like, float) or None
        ``(base densities, ratio)``: the ``period`` cells just beyond the grid have these
        densities, each further period ``ratio`` (in [0, 1)) times the previous. ``None``: zero.
    atom : float, default 0
        Mass of a point mass at the origin, in [0, 1].
    sensitivity : float
        The Δ the noise is calibrated for, in (0, inf).
    privacy : PureDP, ApproxDP or a guarantee beyond (ε, δ)
        The guarantee claimed for that Δ.

    Notes
    -----
    The total mass must be 1 to within `MASS_TOLERANCE`.

    Examples
    --------
    >>> import optmech
    >>> from optmech.mechanisms import PiecewiseConstantNoise
    >>> noise = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="abs",
    ...                              resolution=4, periods=2, symmetric=True)
    >>> isinstance(noise, PiecewiseConstantNoise), noise.width, len(noise.densities)
    (True, 0.25, 16)
    """

    def __init__(
        self,
        *,
        start: float,
        width: float,
        densities: npt.ArrayLike,
        period: int,
        left_tail: Any = None,
        right_tail: Any = None,
        atom: float = 0.0,
        sensitivity: float,
        privacy: Privacy,
    ) -> None:
        s = check_real("start", start)
        h = check_real("width", width, low=0.0, low_open=True)
        values = check_real_array("densities", densities, ndim=1, nonnegative=True)
        p = check_int("period", period, low=1)
        self._atom = check_real("atom", atom, low=0.0, high=1.0)
        self.sensitivity = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
        self._privacy = _check_privacy(privacy)
        self._law = GridLaw(
            s,
            h,
            values,
            p,
            check_tail("left_tail", left_tail, p),
            check_tail("right_tail", right_tail, p),
        )
        total = self._law.total + self._atom
        if not abs(total - 1.0) <= MASS_TOLERANCE:
            raise ValueError(
                f"the masses must sum to 1 (within {MASS_TOLERANCE:g}); got {total!r}. "
                "Normalise `densities`, the tails and `atom` together."
            )

    @property
    def atom(self) -> float:
        """``P(X = 0)``."""
        return self._atom

    @property
    def edges(self) -> FloatArray:
        """Cell edges of the grid, $start + h·(0..N)$."""
        return np.asarray(self._law.start + self._law.h * np.arange(self._law.n + 1), np.float64)

    @property
    def densities(self) -> FloatArray:
        """Density on each grid cell (a copy)."""
        return self._law.values.copy()

    def grid_description(self) -> GridDescription:
        """Cell masses, tails (masses), atom and the exact reach $Δ/h$ in cells: what
        `optmech.certify.noise` reads
        (`GridDescription`; its mapping access
        ``desc["masses"]`` of earlier versions is deprecated)."""
        masses, left, right = self._law.masses()
        reach = Fraction(self.sensitivity) / Fraction(self._law.h)
        return GridDescription(
            masses, left, right, self._atom, reach, self.sensitivity, self._law.h, discrete=False
        )

    def __repr__(self) -> str:
        return (
            f"PiecewiseConstantNoise(start={self.start!r}, width={self.width!r}, "
            f"cells={self.num_cells}, period={self.period}, atom={self._atom!r}, "
            f"sensitivity={self.sensitivity!r}, privacy={self._privacy!r})"
        )

    # -- formulas -----------------------------------------------------------------------------
    def _pdf(self, x: FloatArray) -> FloatArray:
        return self._law.density(x)

    def _logpdf(self, x: FloatArray) -> FloatArray:
        return self._law.log_density(x)

    def _cdf(self, x: FloatArray) -> FloatArray:
        out = self._law.cumulative(x) + self._atom * (x >= 0)
        return np.clip(out, 0.0, 1.0)

    def _sf(self, x: FloatArray) -> FloatArray:
        out = self._law.upper(x) + self._atom * (x < 0)
        return np.clip(out, 0.0, 1.0)

    def _log_atom(self, where: npt.NDArray[np.bool_]) -> FloatArray:
        log_atom = math.log(self._atom) if self._atom > 0 else -math.inf
        return np.where(where, log_atom, -np.inf)

    def _logcdf(self, x: FloatArray) -> FloatArray:
        out = np.logaddexp(self._law.log_lower(x), self._log_atom(x >= 0))
        return np.minimum(out, 0.0)

    def _logsf(self, x: FloatArray) -> FloatArray:
        out = np.logaddexp(self._law.log_upper(x), self._log_atom(x < 0))
        return np.minimum(out, 0.0)

    def _ppf(self, q: FloatArray) -> FloatArray:
        below = float(self._law.cumulative(np.zeros(1))[0])  # continuous mass left of 0
        a = self._atom
        in_atom = (q > below) & (q <= below + a)
        shifted = np.where(q > below + a, q - a, q)
        x = self._law.quantile(np.clip(shifted, 0.0, self._law.total))
        # q = 1 is the upper end of the support (scipy's convention), not where cdf rounds to 1.
        return np.where(in_atom, 0.0, np.where(q >= 1.0, self._support()[1], x))

    def _rvs(self, size: tuple[int, ...] | None, rng: np.random.Generator) -> FloatArray:
        count = 1 if size is None else int(np.prod(size))
        draws = self._law.sample(count, rng)
        if self._atom > 0:
            # The grid law is sampled conditionally on its own mass 1 − atom; the atom replaces
            # a draw with probability `atom`: the mixture is exact.
            draws = np.where(rng.random(count) < self._atom, 0.0, draws)
        return draws.reshape(() if size is None else size)

    def _expected_cost(self, cost: Cost) -> float:
        law = self._law
        edges = self.edges
        grid = float(np.dot(law.values, np.asarray(cost.integral(edges[:-1], edges[1:]))))
        p, h = law.period, law.h
        total = grid + self._atom * float(cost(0.0))
        if law.right_ratio > 0 or np.any(law.right_base > 0):
            a = law.end + h * np.arange(p)
            ints = np.asarray(cost.periodic_integral(a, a + h, period=p * h, ratio=law.right_ratio))
            total += float(np.dot(law.right_base, ints))
        if law.left_ratio > 0 or np.any(law.left_base > 0):
            a = law.start - p * h + h * np.arange(p)
            ints = np.asarray(cost.periodic_integral(a, a + h, period=-p * h, ratio=law.left_ratio))
            total += float(np.dot(law.left_base, ints))
        return total

    # -- scipy.stats parity: the cells and tails that the exact moments sum over -------------
    def _table(self) -> Table:
        law = self._law
        h, p = law.h, law.period

        def cells(lo: FloatArray, values: FloatArray) -> Cells:
            return Cells(lo, lo + h, np.full(lo.size, h), values)

        offsets = h * np.arange(p, dtype=np.float64)
        return Table(
            cells(law.start + h * np.arange(law.n, dtype=np.float64), law.values),
            (cells(law.start - p * h + offsets, law.left_base), -p * h, law.left_ratio),
            (cells(law.end + offsets, law.right_base), p * h, law.right_ratio),
            self._atom,
        )


class LatticeNoise(_TabulatedMixin, TableStatistics, DiscreteNoise):
    """A pmf on consecutive integers with geometric tails: noise for integer queries.

    Parameters
    ----------
    start : int
        The first integer of the table.
    pmf : array_like
        ``P(X = start + i)``, non-negative, length N ≥ 1.
    period : int
        Points per tail period, in [1, inf) (Δ for the LP designs).
    left_tail, right_tail : (array_like, float) or None
        ``(base pmf, ratio)``: the ``period`` integers just beyond the table have these
        probabilities, each further period ``ratio`` times the previous. ``None``: zero.
    sensitivity : int
        The Δ the noise is calibrated for, in [1, inf).
    privacy : PureDP, ApproxDP or a guarantee beyond (ε, δ)
        The guarantee claimed for that Δ.

    Examples
    --------
    >>> import numpy as np
    >>> from optmech.privacy import PureDP
    >>> b = np.exp(-1.0)
    >>> c = (1 - b) / (1 + b)
    >>> pmf = c * b ** np.abs(np.arange(-2, 3))
    >>> noise = LatticeNoise(start=-2, pmf=pmf, period=1, left_tail=([pmf[0] * b], b),
    ...                      right_tail=([pmf[-1] * b], b), sensitivity=1, privacy=PureDP(1.0))
    >>> bool(abs(noise.pmf(-7) / noise.pmf(-6) - b) < 1e-12)
    True
    >>> bool(abs(noise.expected_cost("abs") - 2 * b / (1 - b * b)) < 1e-12)
    True
    """

    def __init__(
        self,
        *,
        start: int,
        pmf: npt.ArrayLike,
        period: int,
        left_tail: Any = None,
        right_tail: Any = None,
        sensitivity: int,
        privacy: Privacy,
    ) -> None:
        s = check_int("start", start)
        values = check_real_array("pmf", pmf, ndim=1, nonnegative=True)
        p = check_int("period", period, low=1)
        self.sensitivity = float(check_int("sensitivity", sensitivity, low=1))
        self._privacy = _check_privacy(privacy)
        self._law = GridLaw(
            float(s),
            1.0,
            values,
            p,
            check_tail("left_tail", left_tail, p),
            check_tail("right_tail", right_tail, p),
        )
        if not abs(self._law.total - 1.0) <= MASS_TOLERANCE:
            raise ValueError(
                f"the probabilities must sum to 1 (within {MASS_TOLERANCE:g}); got "
                f"{self._law.total!r}. Normalise `pmf` and the tails together."
            )

    @property
    def points(self) -> FloatArray:
        """The integers of the table."""
        return self._law.start + np.arange(self._law.n, dtype=np.float64)

    @property
    def support(self) -> _PointsAndSupport:
        """Call it: ``support()`` gives ``(a, b)``, the first and last integers with positive
        mass ($±inf$ with a geometric tail), as ``scipy.stats``.

        Read as an array (the table's integers) it is deprecated: use `points`.
        """
        view = self.points.view(_PointsAndSupport)
        view._bounds = self._support()
        return view

    @property
    def probabilities(self) -> FloatArray:
        """``P(X = start + i)`` on the table (a copy)."""
        return self._law.values.copy()

    @property
    def atom(self) -> float:
        """Lattice noise has no atom outside its pmf: 0 (for code handling any grid noise)."""
        return 0.0

    def grid_description(self) -> GridDescription:
        """The pmf, its tails and the reach Δ (points): what
        `optmech.certify.noise` and
        `optmech.certify.profiles` read
        (`GridDescription`)."""
        masses, left, right = self._law.masses()
        reach = Fraction(int(self.sensitivity))
        return GridDescription(masses, left, right, 0.0, reach, self.sensitivity, 1.0, True)

    def sample_exact(self, size: Any = None, rng: Any = None) -> Any:
        """Draws of the pmf exactly as stored, by integer and rational arithmetic alone.

        The table and the tails' base values are floats, hence dyadic rationals; the tails'
        ratio too.
        `optmech.mechanisms.exact_sampling.lattice_draw`
        picks the table point or a tail exactly, then the tail's period (geometric of the stored
        ratio) and the point in it. The law sampled is the stored one divided by its exact total
        (`exact_total`, 1 up to float rounding): its pure ε is exactly the one
        certified from the stored numbers (`optmech.certify`), which reads the same ratios; a δ
        certified from them holds within the factor ``1/exact_total``.

        Parameters and returns as
        `DiscreteNoise.sample_exact`.
        """
        return draw_many(self._exact_draw()[0], size, rng)

    @property
    def exact_total(self) -> Fraction:
        """The exact sum of the stored probabilities (tails included), as a fraction."""
        return self._exact_draw()[1]

    def _exact_draw(self) -> tuple[Any, Fraction]:
        cached = getattr(self, "_exact", None)
        if cached is None:
            law = self._law
            cached = lattice_draw(
                int(law.start),
                law.values,
                law.period,
                (law.left_base, law.left_ratio),
                (law.right_base, law.right_ratio),
            )
            self._exact = cached
        return cached

    def __repr__(self) -> str:
        return (
            f"LatticeNoise(start={int(self.start)}, points={self.num_cells}, period={self.period}, "
            f"sensitivity={int(self.sensitivity)}, privacy={self._privacy!r})"
        )

    # -- formulas (point i is the cell [i, i+1) of a width-1 grid) -----------------------------
    def _pmf(self, k: FloatArray) -> FloatArray:
        return self._law.density(k + 0.5)

    def _logpmf(self, k: FloatArray) -> FloatArray:
        return self._law.log_density(k + 0.5)

    def _cdf(self, x: FloatArray) -> FloatArray:
        return np.clip(self._law.cumulative(x + 1.0), 0.0, 1.0)

    # x integral (floored by DiscreteNoise) or ±inf: P(X > x) is the mass from cell x + 1 on.
    def _sf(self, x: FloatArray) -> FloatArray:
        return np.clip(self._law.upper(x + 1.0), 0.0, 1.0)

    def _logcdf(self, x: FloatArray) -> FloatArray:
        return np.minimum(self._law.log_lower(x + 1.0), 0.0)

    def _logsf(self, x: FloatArray) -> FloatArray:
        return np.minimum(self._law.log_upper(x + 1.0), 0.0)

    def _ppf(self, q: FloatArray) -> FloatArray:
        # P(X ≤ k) = G(k + 1) for the law spread uniformly over [i, i+1): smallest k with
        # G(k + 1) ≥ q is ceil(G⁻¹(q)) − 1.
        law = self._law
        x = law.quantile(np.clip(q, 0.0, law.total))
        finite = np.isfinite(x)
        k = np.where(finite, np.ceil(np.where(finite, x, 0.0)) - 1.0, 0.0)
        # One correction step against rounding in x: the answer is k - 1, k or k + 1.
        k = np.where(law.cumulative(k) >= q, k - 1.0, k)  # F(k - 1) = G(k)
        k = np.where(law.cumulative(k + 1.0) < q, k + 1.0, k)
        # q = 1 is the upper end of the support (scipy's convention), not where cdf rounds to 1.
        return np.where(q >= 1.0, self._support()[1], np.where(finite, k, x))

    def _rvs(self, size: tuple[int, ...] | None, rng: np.random.Generator) -> FloatArray:
        count = 1 if size is None else int(np.prod(size))
        draws = self._law.start + self._law.sample_cells(count, rng).astype(np.float64)
        return draws.reshape(() if size is None else size)

    def _expected_cost(self, cost: Cost) -> float:
        law = self._law
        total = float(np.dot(law.values, np.asarray(cost(self.points), dtype=np.float64)))
        p = law.period
        if law.right_ratio > 0 or np.any(law.right_base > 0):
            pts = law.end + np.arange(p, dtype=np.float64)
            sums = np.asarray(cost.periodic_sum(pts, period=p, ratio=law.right_ratio))
            total += float(np.dot(law.right_base, sums))
        if law.left_ratio > 0 or np.any(law.left_base > 0):
            pts = law.start - p + np.arange(p, dtype=np.float64)
            sums = np.asarray(cost.periodic_sum(pts, period=-p, ratio=law.left_ratio))
            total += float(np.dot(law.left_base, sums))
        return total

    # -- scipy.stats parity: the points and tails that the exact moments sum over ------------
    def _table(self) -> Table:
        law = self._law
        p = law.period

        def points(at: FloatArray, values: FloatArray) -> Cells:
            return Cells(at, at, None, values)

        offsets = np.arange(p, dtype=np.float64)
        return Table(
            points(self.points, law.values),
            (points(law.start - p + offsets, law.left_base), -float(p), law.left_ratio),
            (points(law.end + offsets, law.right_base), float(p), law.right_ratio),
        )


class _PointsAndSupport(np.ndarray):  # type: ignore[type-arg]
    """The table's integers (the deprecated reading of ``LatticeNoise.support``) that, called,
    give ``support()``, the ends of the support, as ``scipy.stats``."""

    _bounds: tuple[float, float] = (-math.inf, math.inf)

    def __array_finalize__(self, obj: Any) -> None:
        self._bounds = getattr(obj, "_bounds", (-math.inf, math.inf))

    def __call__(self) -> tuple[float, float]:
        return self._bounds

    @staticmethod
    def _deprecated() -> None:
        warnings.warn(
            "reading LatticeNoise.support as the array of the table's integers is deprecated; "
            "use LatticeNoise.points (support() gives the ends of the support, as scipy.stats).",
            DeprecationWarning,
            stacklevel=3,
        )

    def __getitem__(self, key: Any) -> Any:
        self._deprecated()
        return np.asarray(self)[key]

    def __iter__(self) -> Any:
        self._deprecated()
        return iter(np.asarray(self))

    def __len__(self) -> int:
        self._deprecated()
        return len(np.asarray(self))

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        self._deprecated()
        plain = [np.asarray(x) if isinstance(x, _PointsAndSupport) else x for x in inputs]
        return getattr(ufunc, method)(*plain, **kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        self._deprecated()
        return super().__array_function__(func, (np.ndarray,), args, kwargs)
