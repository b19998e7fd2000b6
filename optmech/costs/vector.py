"""Costs of a vector error in ℝ²: `VectorCustom`, and what a 2-D design needs of
one.

A 2-D design (`optmech.design_noise` with ``dimension=2``) takes a
`Norm` (``‖x‖_q^p``, exact cell averages for ℓ1 and ℓ∞), a name
(``"l1"``, ``"l2"``, ``"linf"``), or a user's vectorised callable wrapped in
`VectorCustom`. It needs three things of a cost:

* cell averages over boxes, with a stated error where they are not exact
  (`VectorCustom.cell_average`: the tensor Gauss–Legendre rule of
  `optmech.costs.norm.tensor_average`);
* its symmetry group (`symmetry_of`): ``"dihedral"`` (invariant under the 8
symmetries of
  the square, as every norm is), ``"reflections"`` (under sign changes of each coordinate) or
  ``"none"``; the design is solved on one cell per orbit;
* a growth bound ``c(x) ≤ C(1 + ‖x‖∞)^p`` (`growth_of`), which bounds the tails' series
  beyond the rings summed. For a norm power, ``‖x‖_q^p ≤ (2‖x‖∞)^p``; for a callable it is the
  user's declaration (``growth=(C, p)``) — the one statement the tail bound takes on trust.

Examples
--------
>>> import numpy as np
>>> c = VectorCustom(lambda x: np.abs(x[..., 0]) + 2.0 * np.abs(x[..., 1]), growth=(3.0, 1.0))
>>> c.symmetry
'reflections'
>>> round(float(c.cell_average([0.0, 0.0], [1.0, 1.0])), 12)
1.5
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray
from optmech._validation import check_callable, check_real, describe
from optmech.costs.norm import Norm, tensor_average

__all__ = ["SYMMETRIES", "VectorCustom", "as_vector_cost", "growth_of", "symmetry_of"]


#: Symmetry groups a 2-D cost may have, largest first.
SYMMETRIES = ("dihedral", "reflections", "none")
#: Names accepted for a norm cost.
_NAMES = {"l1": 1.0, "l2": 2.0, "linf": math.inf}


def _images(x: FloatArray, group: str) -> list[FloatArray]:
    flips = [x * np.array([sx, sy]) for sx in (1.0, -1.0) for sy in (1.0, -1.0)]
    if group == "dihedral":
        flips += [f[..., ::-1] for f in flips]
    return flips


class VectorCustom:
    """A user cost of a vector error $x ∈ ℝ²$ from a vectorised callable.

    Parameters
    ----------
    fn : callable
        ``fn(x)`` for a float array of shape (..., 2) returns the costs, shape (...), finite and
        ≥ 0.
    symmetry : {'dihedral', 'reflections', 'none'}, optional
        The group the cost is invariant under; inferred by probing ``fn`` at 4096 random points
        (a declared group the probe contradicts raises `ValueError`).
    growth : (float, float), optional
        ``(C, p)`` with $c(x) ≤ C(1 + ‖x‖∞)^p$ everywhere (module docstring); default
        ``(1, 2)`` is *checked* only at the probe points.
    name : str, optional
        Label used in tables.

    Examples
    --------
    >>> import numpy as np
    >>> from optmech.costs import VectorCustom
    >>> euclid = VectorCustom(lambda x: np.hypot(x[..., 0], x[..., 1]), symmetry="dihedral")
    >>> float(euclid(np.array([[3.0, 4.0]]))[0])
    5.0
    """

    def __init__(
        self,
        fn: Callable[[FloatArray], Any],
        *,
        symmetry: str | None = None,
        growth: tuple[float, float] | None = None,
        name: str | None = None,
    ) -> None:
        self._fn = check_callable("fn", fn)
        self.name = "custom" if name is None else str(name)
        gen = np.random.default_rng(20240521)
        probe = gen.standard_cauchy((4096, 2))
        values = self._checked(probe)
        if np.any(values < 0):
            raise ValueError("`fn` must return costs ≥ 0; got a negative value at a probe point.")
        found = next(
            g
            for g in SYMMETRIES
            if g == "none"
            or all(
                np.allclose(self._checked(img), values, rtol=1e-12, atol=1e-12)
                for img in _images(probe, g)
            )
        )
        if symmetry is None:
            symmetry = found
        elif symmetry not in SYMMETRIES:
            raise ValueError(f"`symmetry` must be one of {SYMMETRIES}; got {describe(symmetry)}.")
        elif SYMMETRIES.index(symmetry) < SYMMETRIES.index(found):
            raise ValueError(
                f"`symmetry={symmetry!r}` was declared but the cost is only {found!r} on the "
                "probe points."
            )
        self.symmetry = symmetry
        if growth is None:
            growth = (1.0, 2.0)
        try:
            c_g, p_g = growth
        except (TypeError, ValueError) as exc:
            raise TypeError(f"`growth` must be a pair (C, p); got {describe(growth)}.") from exc
        self.growth = (
            check_real("growth C", c_g, low=0.0, low_open=True),
            check_real("growth p", p_g, low=0.0),
        )
        bound = self.growth[0] * (1.0 + np.max(np.abs(probe), axis=1)) ** self.growth[1]
        if np.any(values > bound):
            raise ValueError(
                f"`growth={self.growth}` fails at a probe point: c(x) > C(1 + ‖x‖∞)^p; declare "
                "a larger C or p."
            )

    def _checked(self, x: FloatArray) -> FloatArray:
        try:
            with np.errstate(all="ignore"):
                out = np.asarray(self._fn(x), dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"`fn` must accept a float array of shape (..., 2) and return real numbers; "
                f"calling it raised {type(exc).__name__}: {exc}"
            ) from exc
        if out.shape != x.shape[:-1]:
            raise ValueError(
                f"`fn` must be vectorised over the last axis: for points of shape {x.shape} it "
                f"returned shape {out.shape} (expected {x.shape[:-1]})."
            )
        if not np.all(np.isfinite(out)):
            raise ValueError("`fn` returned NaN or inf; costs must be finite.")
        return out

    def __call__(self, points: npt.ArrayLike) -> FloatArray:
        """The cost of each vector (shape (..., 2) → (...))."""
        return self._checked(np.asarray(points, dtype=np.float64))

    def __repr__(self) -> str:
        return f"VectorCustom(name={self.name!r}, symmetry={self.symmetry!r})"

    def has_exact_cell_average(self, dimension: int) -> bool:
        """False: the averages are quadratures with a stated error."""
        return False

    def cell_average(
        self, lower: npt.ArrayLike, upper: npt.ArrayLike, *, return_error: bool = False
    ) -> Any:
        """Average over boxes ``[lower, upper]`` (shape (..., 2)) by tensor Gauss–Legendre; with
        ``return_error``, also $|Q_{12} − Q_{24}| + 1e-14|Q_{24}|$."""
        lo = np.asarray(lower, dtype=np.float64)
        hi = np.asarray(upper, dtype=np.float64)
        lo, hi = np.broadcast_arrays(lo, hi)
        avg, err = tensor_average(self._checked, lo, hi)
        out = (avg, err) if return_error else avg
        if lo.ndim == 1:
            return (float(avg), float(err)) if return_error else float(avg)
        return out


def as_vector_cost(cost: Any) -> Norm | VectorCustom:
    """A 2-D cost from a `Norm`, a `VectorCustom`, a name or a callable.

    Examples
    --------
    >>> as_vector_cost("linf")
    Norm(order=math.inf, power=1.0)
    """
    if isinstance(cost, Norm | VectorCustom):
        return cost
    if isinstance(cost, str) and cost in _NAMES:
        return Norm(_NAMES[cost])
    if callable(cost) and not isinstance(cost, str | type):
        return VectorCustom(cost)
    raise TypeError(
        "`cost` must be an optmech.costs.Norm, a VectorCustom, one of 'l1', 'l2', 'linf', or a "
        f"vectorised callable of points (..., 2); got {describe(cost)}."
    )


def symmetry_of(cost: Norm | VectorCustom) -> str:
    """The symmetry group of a 2-D cost (every norm is ``'dihedral'``)."""
    return "dihedral" if isinstance(cost, Norm) else cost.symmetry


def growth_of(cost: Norm | VectorCustom) -> tuple[float, float]:
    """``(C, p)`` with ``c(x) ≤ C(1 + ‖x‖∞)^p`` (``(2^p, p)`` for ``‖x‖_q^p``)."""
    if isinstance(cost, Norm):
        return 2.0**cost.power, cost.power
    return cost.growth
