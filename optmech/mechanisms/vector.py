"""The base of the noise families on ℝ^d: one interface for vector-valued additive noise.

`VectorNoise` is what `StaircaseND`
(the staircase of Geng, Kairouz, Oh & Viswanath 2015 for a norm ball of shifts) and
`PiecewiseConstantNoise2D` (the LP
designs in ℝ²) share, with the conventions of the 1-D families
(`NoiseDistribution`):

* ``epsilon`` is given by keyword (a positional ε still works, with a `DeprecationWarning`);
* ``pdf``/``logpdf`` take points of shape ``(..., d)`` and return a float for one point;
* ``rvs(size, *, rng)`` draws an array of shape ``(*size, d)``, randomness only through ``rng``;
* ``expected_cost(cost)`` needs the cost: a `Norm`, a
  `VectorCustom` (in ℝ²), or one of the names ``"l1"``,
  ``"l2"``, ``"linf"`` (as the 1-D families take ``"abs"``);
* ``dimension``, ``sensitivity`` (the radius Δ of the ball of shifts), ``norm`` (its norm),
  ``privacy`` and ``epsilon``.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import numpy.typing as npt

from optmech._deprecation import warn_deprecated
from optmech._floats import FloatArray
from optmech.costs.norm import Norm
from optmech.costs.vector import VectorCustom, as_vector_cost
from optmech.privacy import PureDP

__all__ = ["VectorNoise", "keyword_epsilon"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def keyword_epsilon(where: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Let a function whose ``epsilon`` is keyword-only still take it positionally, with a
    `DeprecationWarning` (the calling convention of the 1-D families: ``epsilon=`` by keyword).

    Parameters
    ----------
    where : str
        How the call reads, for the message (e.g. ``"StaircaseND"``).
    """

    def decorate(fn: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if len(args) > 1:  # (self or cls, epsilon)
                if "epsilon" in kwargs or len(args) > 2:
                    raise TypeError(
                        f"{where}() takes `epsilon` by keyword and no other positional "
                        f"argument; got {len(args) - 1} positional argument(s)"
                        + (" besides epsilon=." if "epsilon" in kwargs else ".")
                    )
                warn_deprecated(
                    f"{where}(epsilon) with a positional epsilon", f"{where}(epsilon=…)"
                )
                args, kwargs = args[:1], {"epsilon": args[1], **kwargs}
            return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


class VectorNoise(ABC):
    """Additive noise on ℝ^d, ε-DP for shifts in the ball of radius Δ of a norm.

    Attributes
    ----------
    dimension : int
        ``d``.
    sensitivity : float
        Δ, the radius of the ball of shifts.
    norm : str
        ``'l1'``, ``'l2'`` or ``'linf'``: the norm of that ball.
    epsilon : float
        The ε of `privacy`.
    """

    dimension: int
    sensitivity: float
    norm: str
    epsilon: float

    @property
    def privacy(self) -> PureDP:
        """``PureDP(epsilon)`` for shifts in the ball of radius `sensitivity` of `norm`."""
        return PureDP(self.epsilon)

    @abstractmethod
    def pdf(self, points: npt.ArrayLike) -> FloatArray | float:
        """The density at points of shape ``(..., d)`` (a float for one point of shape (d,))."""

    @abstractmethod
    def logpdf(self, points: npt.ArrayLike) -> FloatArray | float:
        """``log pdf`` at points of shape ``(..., d)`` (``−inf`` where the density is 0)."""

    @abstractmethod
    def rvs(self, size: Any = None, *, rng: Any = None) -> FloatArray:
        """Samples of shape ``(*size, d)`` (``(d,)`` for ``size=None``)."""

    @abstractmethod
    def _expected_cost(self, cost: Norm | VectorCustom) -> float: ...

    def plot(self, ax: Any = None, *, periods: float | None = None) -> Any:
        """Draw the density within ``periods``·Δ of 0: a ``log10`` heat map in ℝ², the density
        along the first axis otherwise; returns the Axes.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (a new figure by default).
        periods : float, optional
            Half-width of the view in units of Δ, in (0, 1000] (default 3).
        """
        import matplotlib.pyplot as plt
        import numpy as np

        from optmech._validation import check_real
        from optmech.plotting import privacy_title

        view = 3.0 if periods is None else periods
        half = check_real("periods", view, low=0.0, high=1000.0, low_open=True) * self.sensitivity
        axis = np.linspace(-half, half, 201)
        if ax is None:
            _, ax = plt.subplots(figsize=(4.5, 4))
        title = f"{privacy_title(self.privacy, self.sensitivity)}, {self.norm} ball"
        if self.dimension == 2:
            grid = np.stack(np.meshgrid(axis, axis, indexing="xy"), axis=-1)
            data = np.log10(np.maximum(np.asarray(self.pdf(grid)), 1e-300))
            extent = (-half, half, -half, half)
            image = ax.imshow(data, origin="lower", extent=extent, cmap="viridis")
            ax.figure.colorbar(image, ax=ax, label="log10 density")
            ax.set_xlabel("x₁")
            ax.set_ylabel("x₂")
        else:
            ray = np.zeros((axis.size, self.dimension))
            ray[:, 0] = axis
            ax.semilogy(axis, np.asarray(self.pdf(ray)), label="density at (x₁, 0, …, 0)")
            ax.set_xlabel("x₁")
            ax.legend(fontsize=8)
            title += f", d = {self.dimension}"
        ax.set_title(title, fontsize=9)
        return ax

    def _repr_html_(self) -> str:
        from optmech._display import html_summary

        return html_summary(type(self).__name__, [("guarantee", self.privacy), ("norm", self.norm)])

    def expected_cost(self, cost: Norm | VectorCustom | str) -> float:
        """``E cost(X)``: a `Norm`, a
        `VectorCustom` or a name (``"l1"``, ``"l2"``,
        ``"linf"``).

        Raises
        ------
        TypeError
            For anything else (every family states which costs it evaluates exactly).
        """
        return self._expected_cost(as_vector_cost(cost))
