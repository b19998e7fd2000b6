"""Noise in ℝ² constant on square cells of a box, closed by ε-DP tail shapes outside it.

What the 2-D LP designer returns (`optmech.design_noise` with
``dimension=2``): the density ``f`` is ``densities[a, b]`` on the cell ``(i, j) = (a − n₀, b −
n₀)``, i.e. on
``[ih, (i+1)h) × [jh, (j+1)h)`` of the box ``[−n₀h, n₀h)²``, and ``Σ_l t_l S_l(i, j)`` on the
cells outside it, with the shapes of `optmech.mechanisms.tails2d` (a
gauge staircase of the ball the grid resolves, and a product of two 1-D staircases). Everything is
exact:
``pdf`` reads the cell, ``rvs`` draws a cell by its mass (box cells by a categorical draw, tail
cells by exact rejection samplers) and a uniform point in it, ``expected_cost`` sums exact cell
averages of the cost
(`optmech.costs.norm.Norm.cell_average`) over the box and
the tails' series (`optmech.mechanisms.tails2d.tail_sums`).

The ``privacy`` given is the guarantee *claimed*;
`optmech.certify.noise2d.noise2d_epsilon` certifies it
from `PiecewiseConstantNoise2D.description` alone.

Examples
--------
A box of one period (two cells per Δ) closed by the ℓ∞ gauge staircase:

>>> import numpy as np
>>> from fractions import Fraction
>>> from optmech.certify.noise2d import footprint
>>> from optmech.mechanisms.tails2d import GaugeTail, gauge_polygon
>>> tail = GaugeTail(*gauge_polygon(footprint("linf", 2)), Fraction(1, 2), float(np.exp(-1)))
>>> i, j = np.meshgrid(np.arange(-2, 2), np.arange(-2, 2), indexing="ij")
>>> noise = PiecewiseConstantNoise2D(tail.values(i, j), width=0.5, sensitivity=1.0,
...                                  norm="linf", tails=[(tail, 1.0)], epsilon=1.0)
>>> bool(abs(noise.total_mass - 1.0) < 1e-15)
True
>>> bool(noise.pdf([[0.1, 0.2]])[0] > noise.pdf([[5.0, 0.0]])[0])
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray, IntArray
from optmech._validation import check_real, check_real_array, check_rng, check_size, describe
from optmech.costs.norm import Norm
from optmech.costs.vector import VectorCustom, as_vector_cost
from optmech.mechanisms.description import PrivacySource, SourceKind
from optmech.mechanisms.tails2d import (
    GaugeTail,
    ProductTail,
    TailSums,
    sample_outside,
    tail_sums,
)
from optmech.mechanisms.vector import VectorNoise
from optmech.privacy import PureDP

__all__ = ["NORMS", "PiecewiseConstantNoise2D"]

Tail = GaugeTail | ProductTail

#: Norms of the ball of shifts.
NORMS = ("l1", "l2", "linf")
#: Largest number of points drawn by one call of ``rvs``.
MAX_SAMPLES = 100_000_000
#: Cell indices are clipped here (far beyond any representable density).
_FAR = 2**40


def _as_points(points: Any) -> FloatArray:
    try:
        arr = np.asarray(points, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"`points` must be an array of shape (N, 2); got {describe(points)}."
        ) from exc
    if arr.ndim == 0 or arr.shape[-1] != 2:
        raise ValueError(f"`points` must have shape (..., 2); got shape {arr.shape}.")
    if np.any(np.isnan(arr)):
        raise ValueError("`points` must not contain NaN.")
    return arr


class PiecewiseConstantNoise2D(VectorNoise):
    """A density on ℝ² constant on square cells, with tail shapes outside a box.

    Parameters
    ----------
    densities : array_like, shape (2n₀, 2n₀)
        Non-negative values on the box cells (module docstring), in any common scale: the
        density is normalised here (tails included).
    width : float
        Cell side ``h``, in (0, inf).
    sensitivity : float
        Δ, in (0, inf).
    norm : {'l1', 'l2', 'linf'}
        Norm of the ball of shifts the privacy refers to.
    tails : sequence of (shape, scale)
        Tail shapes (`GaugeTail`,
        `ProductTail`) and their scales, ≥ 0, in the
        units of ``densities``.
    epsilon : float
        The ε claimed (``privacy``), in (0, inf).
    tail_masses : sequence of float, optional
        Each shape's mass outside the box (`tail_sums`),
        when already computed for this box and width (not checked).

    Examples
    --------
    >>> import numpy as np
    >>> import optmech
    >>> noise = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="l1",
    ...                              dimension=2, sensitivity_norm="l1", resolution=2, periods=1)
    >>> isinstance(noise, optmech.PiecewiseConstantNoise2D), noise.pdf(np.zeros((1, 2))).shape
    (True, (1,))
    """

    def __init__(
        self,
        densities: npt.ArrayLike,
        *,
        width: float,
        sensitivity: float,
        norm: str,
        tails: Sequence[tuple[Tail, float]],
        epsilon: float,
        tail_masses: Sequence[float] | None = None,
    ) -> None:
        self.dimension = 2
        dens = check_real_array("densities", densities, ndim=2, nonnegative=True)
        if dens.shape[0] != dens.shape[1] or dens.shape[0] % 2:
            raise ValueError(f"`densities` must be square with an even side; got {dens.shape}.")
        self.width = check_real("width", width, low=0.0, low_open=True)
        self.sensitivity = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
        if not isinstance(norm, str) or norm not in NORMS:
            raise ValueError(f"`norm` must be one of {NORMS}; got {describe(norm)}.")
        self.norm = norm
        self.epsilon = check_real("epsilon", epsilon, low=0.0, low_open=True)
        self.cells = dens.shape[0] // 2
        items = []
        for shape, scale in tails:
            if not isinstance(shape, GaugeTail | ProductTail):
                raise TypeError(f"tail shapes must be GaugeTail or ProductTail; got {shape!r}.")
            items.append((shape, check_real("tail scale", scale, low=0.0)))
        if tail_masses is None:
            sums = tail_sums([shape for shape, _ in items], self.cells, self.width) if items else []
            tail_masses = [t.mass for t in sums]  # type: ignore[union-attr]
        self._tail_mass = [float(m) for m in tail_masses]
        if len(self._tail_mass) != len(items):
            raise ValueError("`tail_masses` must give one mass per tail shape.")
        total = self.width**2 * math.fsum(dens.ravel().tolist()) + math.fsum(
            s * m for (_, s), m in zip(items, self._tail_mass, strict=True)
        )
        if not total > 0:
            raise ValueError("`densities` and the tails are all zero: not a distribution.")
        self.densities = dens / total
        self.tails = tuple((shape, s / total) for shape, s in items)
        self._cost_cache: dict[Any, list[TailSums]] = {}

    # -- description ------------------------------------------------------------------------
    @property
    def privacy(self) -> PureDP:
        """The guarantee claimed
        (`optmech.certify.noise2d.noise2d_epsilon`
        certifies it)."""
        return PureDP(self.epsilon)

    @property
    def total_mass(self) -> float:
        """Box mass plus tail masses (1 up to rounding)."""
        box = self.width**2 * float(np.sum(self.densities))
        return box + sum(s * m for (_, s), m in zip(self.tails, self._tail_mass, strict=True))

    @property
    def box_mass(self) -> float:
        """Mass of the box $[−n₀h, n₀h)²$."""
        return self.width**2 * float(np.sum(self.densities))

    def description(self) -> dict[str, Any]:
        """The numbers
        `optmech.certify.noise2d.noise2d_epsilon` reads.
        """
        return {
            "densities": self.densities,
            "sensitivity": self.sensitivity,
            "width": self.width,
            "norm": self.norm,
            "tails": [shape.description(s) for shape, s in self.tails],
        }

    # -- self-description (certification reads it) -------------------------------------------
    def privacy_source(self) -> PrivacySource:
        """Densities on the cells of a box closed by tail shapes, stored: certify them
        (`PrivacySource` of kind ``grid2d``, its
        ``grid2d`` the keywords of `description`)."""
        return PrivacySource(
            kind=SourceKind.GRID_2D,
            family=type(self).__name__,
            guarantee=self.privacy,
            sensitivity=self.sensitivity,
            dimension=2,
            tabulated=True,
            parameters={"norm": self.norm, "width": self.width},
            grid2d=self.description(),
            sample_float=self.rvs,
        )

    def __repr__(self) -> str:
        n = 2 * self.cells
        return (
            f"{type(self).__name__}({n}x{n} cells of width {self.width:.6g}, "
            f"sensitivity={self.sensitivity!r}, norm={self.norm!r}, epsilon={self.epsilon!r})"
        )

    # -- density ------------------------------------------------------------------------------
    def _cell_values(self, i: IntArray, j: IntArray) -> FloatArray:
        n0 = self.cells
        inside = (i >= -n0) & (i < n0) & (j >= -n0) & (j < n0)
        out = np.zeros(i.shape)
        for shape, scale in self.tails:
            if scale > 0:
                out = out + scale * shape.values(i, j)
        a = np.clip(i + n0, 0, 2 * n0 - 1)
        b = np.clip(j + n0, 0, 2 * n0 - 1)
        return np.where(inside, self.densities[a, b], out)

    def pdf(self, points: npt.ArrayLike) -> FloatArray | float:
        """The density at points of shape (..., 2) (a float for one point of shape (2,))."""
        x = _as_points(points)
        with np.errstate(invalid="ignore", over="ignore"):
            cell = np.floor(x / self.width)
        finite = np.all(np.isfinite(cell), axis=-1)
        cell = np.clip(np.where(np.isfinite(cell), cell, 0.0), -_FAR, _FAR).astype(np.int64)
        with np.errstate(under="ignore"):
            values = self._cell_values(cell[..., 0], cell[..., 1])
        out = np.where(finite, values, 0.0)
        return float(out) if out.ndim == 0 else out

    def logpdf(self, points: npt.ArrayLike) -> FloatArray | float:
        """``log pdf`` (−inf where the density is 0)."""
        with np.errstate(divide="ignore"):
            out = np.log(self.pdf(points))
        return float(out) if np.ndim(out) == 0 else out

    # -- sampling -----------------------------------------------------------------------------
    def rvs(self, size: Any = None, *, rng: Any = None) -> FloatArray:
        """Exact samples, shape ``(*size, 2)`` (``(2,)`` for ``size=None``).

        A component by its mass (the box, or a tail shape), then a cell (box cells by their
        masses, tail cells by
        `optmech.mechanisms.tails2d.sample_outside`)
        and a uniform point in it.
        """
        shape = check_size(size)
        n = 1 if shape is None else math.prod(shape)
        if n > MAX_SAMPLES:
            raise ValueError(f"`size` must give at most {MAX_SAMPLES:.0e} points; got {size!r}.")
        gen = check_rng(rng)
        weights = np.array(
            [self.box_mass] + [s * m for (_, s), m in zip(self.tails, self._tail_mass, strict=True)]
        )
        which = gen.choice(weights.size, size=n, p=weights / weights.sum())
        i = np.zeros(n, dtype=np.int64)
        j = np.zeros(n, dtype=np.int64)
        box = np.flatnonzero(which == 0)
        flat = self.densities.ravel()
        cell = gen.choice(flat.size, size=box.size, p=flat / flat.sum())
        i[box], j[box] = np.divmod(cell, 2 * self.cells)
        i[box] -= self.cells
        j[box] -= self.cells
        for k, (tail, _) in enumerate(self.tails, start=1):
            rows = np.flatnonzero(which == k)
            i[rows], j[rows] = sample_outside(tail, self.cells, rows.size, gen)
        x = (np.column_stack([i, j]) + gen.random((n, 2))) * self.width
        return x.reshape((2,) if shape is None else (*shape, 2))

    # -- costs --------------------------------------------------------------------------------
    def tail_sums(self, cost: Any) -> list[TailSums]:
        """Per tail shape: mass and cost over the cells outside the box, per unit of scale."""
        key = repr(cost)
        if key not in self._cost_cache:
            shapes = [shape for shape, _ in self.tails]
            self._cost_cache[key] = (
                tail_sums(shapes, self.cells, self.width, cost) if shapes else []  # type: ignore[assignment]
            )
        return self._cost_cache[key]

    def cell_costs(self, cost: Any) -> tuple[FloatArray, FloatArray]:
        """Average of ``cost`` over each box cell and its stated error (0 where exact)."""
        n0, h = self.cells, self.width
        edges = np.arange(-n0, n0, dtype=np.float64) * h
        lo = np.stack(np.meshgrid(edges, edges, indexing="ij"), axis=-1)
        avg, err = cost.cell_average(lo, lo + h, return_error=True)
        return np.asarray(avg, dtype=np.float64), np.asarray(err, dtype=np.float64)

    def cost_interval(self, cost: Any) -> tuple[float, float]:
        """``E cost(X)`` in an interval: quadrature errors and the tails' rest (see
        `tail_sums`) widen it; exact costs give a width of
        a few ulps. ``cost`` as for `expected_cost` (names included)."""
        cost = as_vector_cost(cost)
        avg, err = self.cell_costs(cost)
        box = self.width**2 * self.densities
        mid = math.fsum((box * avg).ravel().tolist())
        spread = math.fsum((box * err).ravel().tolist())
        low, high = mid - spread, mid + spread
        for (_, scale), sums in zip(self.tails, self.tail_sums(cost), strict=True):
            low += scale * sums.cost_low
            high += scale * sums.cost_high
        slack = 1e-14 * abs(mid)
        return low - slack, high + slack

    def expected_cost(self, cost: Norm | VectorCustom | str) -> float:
        """``E cost(X)`` (exact for the ℓ1 and ℓ∞ norms; the midpoint of
        `cost_interval` in general): a
        `Norm`, a `VectorCustom`
        or a name (``"l1"``, ``"l2"``, ``"linf"``)."""
        return self._expected_cost(as_vector_cost(cost))

    def _expected_cost(self, cost: Norm | VectorCustom) -> float:
        lo, hi = self.cost_interval(cost)
        return 0.5 * (lo + hi)

    # -- plotting -----------------------------------------------------------------------------
    def plot(self, ax: Any = None, *, log: bool = True, periods: float | None = None) -> Any:
        """Heat map of the density over the box (``log10`` by default); returns the Axes.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (a new figure by default).
        log : bool
            Colour by ``log10`` of the density.
        periods : float, optional
            Half-width of the view in units of Δ (default: the box).
        """
        import matplotlib.pyplot as plt

        from optmech.plotting import privacy_title

        if ax is None:
            _, ax = plt.subplots(figsize=(4.5, 4))
        half = self.cells * self.width
        view = half if periods is None else min(half, periods * self.sensitivity)
        data = np.log10(np.maximum(self.densities, 1e-300)) if log else self.densities
        image = ax.imshow(
            data.T,
            origin="lower",
            extent=(-half, half, -half, half),
            cmap="viridis",
            interpolation="nearest",
        )
        ax.set_xlim(-view, view)
        ax.set_ylim(-view, view)
        ax.set_xlabel("x₁")
        ax.set_ylabel("x₂")
        ax.figure.colorbar(image, ax=ax, label="log10 density" if log else "density")
        ax.set_title(
            f"{privacy_title(self.privacy, self.sensitivity)}, {self.norm} ball", fontsize=9
        )
        return ax
