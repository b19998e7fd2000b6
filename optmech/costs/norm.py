"""Vector costs ``c(x) = ‖x‖_q^p`` on ℝ^d, with exact cell averages over axis-aligned boxes.

The multi-dimensional staircase (Geng, Kairouz, Oh & Viswanath (2015), *The Staircase Mechanism
in Differential Privacy*, IEEE JSTSP; Kulesza, Suresh & Wang (2025), *General Staircase
Mechanisms for Optimal Differential Privacy*, AISTATS) is compared under costs that are powers
of a norm of the error vector. `Norm` evaluates such a cost over the last axis of an
array and averages it over boxes ``[l₁, u₁] × … × [l_d, u_d]`` (the cost of a density that is
uniform on the box, as a discretised design needs).

Exact cell averages (closed forms, correct to rounding):

* ``d = 1``: every norm is ``|x|`` and ``(1/w)∫|t|^p dt`` has an antiderivative;
* ``q = 1, p = 1``: ``Σ_k avg|x_k|`` (the other coordinates integrate to their widths);
* ``q = 1, p = 2``: ``(Σ_k m₁ₖ)² − Σ_k m₁ₖ² + Σ_k m₂ₖ`` with ``m₁ₖ = avg|x_k|``,
  ``m₂ₖ = avg x_k²`` (the coordinates are independent under the uniform law on a box);
* ``q = 2, p = 2``: ``Σ_k avg x_k²``;
* ``q = ∞, d = 2``, ``p = 1``: from ``max(u, v) = (u + v)/2 + |u − v|/2`` with ``u = |x|``,
  ``v = |y|``; the first half is the ℓ1 average, the second is split by sign quadrant, each
  quadrant reflected to ``[a₁, b₁] × [a₂, b₂] ⊂ [0, ∞)²``, where the kink of ``|u − v|`` is the
  diagonal. In local coordinates ``u = c₁ + s``, ``v = c₂ + t`` (centres ``c``, half-widths
  ``h``, and by the symmetries of ``|u − v|`` ``δ = |c₁ − c₂| ≥ 0``, ``h₁ ≤ h₂``), the inner
  integral across the diagonal is ``G(z) = ∫_{−h₂}^{h₂} |z − t| dt = z² + h₂²`` for
  ``|z| ≤ h₂`` and ``2h₂|z|`` beyond, and ``z = δ + s`` never falls below ``−h₂``, so:

      ∫∫ |u − v| = w_L ((z₀² + z₀z₁ + z₁²)/3 + h₂²) + h₂ w_U (z₂ + z₃),
      z₀ = δ − h₁,  w_L = min(2h₁, h₂ − δ + h₁)₊,  z₁ = z₀ + w_L   (the part |z| ≤ h₂)
      z₃ = δ + h₁,  w_U = min(2h₁, δ + h₁ − h₂)₊,  z₂ = z₃ − w_U   (the part z > h₂)

  Every term is non-negative (``z₀² + z₀z₁ + z₁² ≥ (z₀² + z₁²)/2``) and made of local
  quantities, so cells far from the origin, small or elongated, keep full relative precision;
* ``q = ∞, d = 2``, any ``p``: split each reflected quadrant along the diagonal ``v = u``. On
  ``v ≤ u`` the ``v``-length at ``u`` is ``0``, ``u − a₂`` or ``b₂ − a₂`` (below, inside,
  above ``[a₂, b₂]``), so the wedge integral is
  ``∫_{max(a₁,a₂)}^{min(b₁,b₂)} u^p (u − a₂) du + (b₂ − a₂) ∫_{max(a₁,b₂)}^{b₁} u^p du``;
* ``q = ∞``, any ``d``, integer ``p`` with ``p + d ≤ 64``: under the uniform law on the box
  the ``|x_k|`` are independent with cdfs ``F_k(m) = (min(m, u_k) − max(−m, l_k))₊/w_k``, so
  ``M = ‖x‖_∞`` has density ``g = Σ_k F_k' Π_{j≠k} F_j``, a polynomial of degree ``d − 1``
  between consecutive knots ``{0, |l_k|, |u_k|}``. ``E M^p = ∫ m^p g`` is then a 32-node
  Gauss–Legendre rule on each knot interval, exact for degree ``p + d − 1 ≤ 63`` (divided by
  the same rule's ``∫ g = 1``, which cancels the rounding of ``m − l_k`` in far, small cells).

Elsewhere (``q = 1`` or ``2`` with other powers, ``d ≥ 2``) the average is a tensor
Gauss–Legendre rule after splitting the box at the coordinate planes, inside which the cost is
smooth except at the origin (a corner of the pieces that touch it); ``q = ∞`` with non-integer
``p`` and ``d ≥ 3`` uses the knot rule above with 16 and 32 nodes. ``return_error=True``
returns ``|Q_n − Q_2n|`` of the two rules plus a rounding allowance ``1e-14·|Q_2n|``: a bound
on the error of ``Q_2n`` whenever doubling the nodes at least halves the error, as it does
for these integrands (geometric convergence inside the pieces, algebraic at the origin).

Examples
--------
>>> c = Norm(1)
>>> float(c([3.0, -4.0]))
7.0
>>> float(Norm(2)([3.0, -4.0]))
5.0
>>> float(Norm("linf").cell_average([0.0, 0.0], [1.0, 1.0]))  # ∫∫ max(x, y) over [0, 1]²
0.6666666666666666
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray
from optmech._validation import check_flag, check_real, check_vectors, describe

__all__ = ["Norm", "tensor_average"]


#: Names accepted for the norm's order, besides the numbers 1, 2 and inf.
ORDER_NAMES = {"l1": 1.0, "l2": 2.0, "linf": math.inf, "inf": math.inf}
#: Largest dimension for which the tensor quadrature is offered (its node count is n^d).
MAX_QUADRATURE_DIMENSION = 4
# Gauss–Legendre nodes per axis (low, high) by dimension for the quadrature fallback.
_RULES = {1: (16, 32), 2: (12, 24), 3: (8, 16), 4: (6, 12)}
# Points evaluated at once by the quadrature (bounds its memory to a few tens of MB).
_CHUNK_POINTS = 1 << 20
# Relative rounding allowance added to every quadrature error estimate.
_ROUNDING = 1e-14
# Nodes per knot interval of the ℓ∞ order-statistic rule (low, high).
_KNOT_RULES = (16, 32)


def _check_order(order: Any) -> float:
    """The norm order as 1.0, 2.0 or inf, from a number or one of `ORDER_NAMES`."""
    if isinstance(order, str) and order.lower() in ORDER_NAMES:
        return ORDER_NAMES[order.lower()]
    if isinstance(order, numbers.Real) and not isinstance(order, bool | np.bool_):
        if float(order) in (1.0, 2.0, math.inf):
            return float(order)
    raise ValueError(
        f"`order` must be one of 1, 2, inf (or 'l1', 'l2', 'linf'); got {describe(order)}."
    )


def _out(x: FloatArray) -> FloatArray | float:
    return float(x) if np.ndim(x) == 0 else x


# -- exact one-dimensional averages over [lo, hi] (lo < hi; formulas trust their inputs) -------
def _abs_mean(lo: FloatArray, hi: FloatArray) -> FloatArray:
    """``(1/w)∫|t| dt``: ``|c|`` when the cell misses 0, else ``(c² + h²)/(2h)``."""
    c, h = 0.5 * (lo + hi), 0.5 * (hi - lo)
    inside = np.abs(c) < h
    return np.where(inside, (c * c + h * h) / (2.0 * np.where(inside, h, 1.0)), np.abs(c))


def _square_mean(lo: FloatArray, hi: FloatArray) -> FloatArray:
    """``(1/w)∫t² dt = c² + h²/3`` (no cancellation)."""
    c, h = 0.5 * (lo + hi), 0.5 * (hi - lo)
    return c * c + h * h / 3.0


_GL16 = np.polynomial.legendre.leggauss(16)


def _power_mean(lo: FloatArray, hi: FloatArray, p: float) -> FloatArray:
    """``(1/w)∫|t|^p dt``.

    Cells with ``|c| ≥ 4h`` (away from the kink at 0) use a 16-node Gauss–Legendre rule: ``|t|^p``
    is analytic there with its singularity at least ``3h`` away, so the rule's error is below
    ``(4 + √15)^(−32) < 1e-28`` relative. Other cells use the antiderivative
    ``sign(t)|t|^(p+1)/(p+1)``, whose difference loses at most a factor ~5 to cancellation there.
    """
    if p == 1.0:
        return _abs_mean(lo, hi)
    if p == 2.0:
        return _square_mean(lo, hi)
    c, h = 0.5 * (lo + hi), 0.5 * (hi - lo)
    far = np.abs(c) >= 4.0 * h
    nodes, weights = _GL16
    gl = 0.5 * np.sum(weights * np.abs(c[..., None] + h[..., None] * nodes) ** p, axis=-1)

    def anti(t: FloatArray) -> FloatArray:
        return np.sign(t) * np.abs(t) ** (p + 1.0) / (p + 1.0)

    width = np.where(far, 1.0, hi - lo)
    return np.where(far, gl, (anti(hi) - anti(lo)) / width)


def _abs_diff_integral(
    a1: FloatArray, b1: FloatArray, a2: FloatArray, b2: FloatArray
) -> FloatArray:
    """``∫_{a₁}^{b₁}∫_{a₂}^{b₂} |u − v| dv du`` across the diagonal (module docstring)."""
    h1, h2 = 0.5 * (b1 - a1), 0.5 * (b2 - a2)
    delta = np.abs(0.5 * (a1 + b1) - 0.5 * (a2 + b2))
    short, long = np.minimum(h1, h2), np.maximum(h1, h2)
    z0 = delta - short
    w_low = np.clip(np.minimum(2.0 * short, long - delta + short), 0.0, None)
    z1 = z0 + w_low
    lower = w_low * ((z0 * z0 + z0 * z1 + z1 * z1) / 3.0 + long * long)
    z3 = delta + short
    w_up = np.clip(np.minimum(2.0 * short, delta + short - long), 0.0, None)
    upper = long * w_up * ((z3 - w_up) + z3)
    return lower + upper


def _quadrant_pieces(
    lo: FloatArray, hi: FloatArray
) -> list[tuple[FloatArray, FloatArray, FloatArray, FloatArray]]:
    """The four sign-quadrant pieces of 2-D boxes, each reflected onto ``[0, inf)²``.

    Each piece is ``(a₁, b₁, a₂, b₂)`` with ``0 ≤ a ≤ b``; a piece missing its quadrant has zero
    width. ``max(|x|, |y|)`` is even in each coordinate, so a piece's integral is unchanged.
    """

    def part(low: FloatArray, up: FloatArray, positive: bool) -> tuple[FloatArray, FloatArray]:
        if positive:
            return np.maximum(low, 0.0), np.maximum(up, 0.0)
        return np.maximum(-up, 0.0), np.maximum(-low, 0.0)

    pieces = []
    for sx, sy in itertools.product((True, False), repeat=2):
        a1, b1 = part(lo[..., 0], hi[..., 0], sx)
        a2, b2 = part(lo[..., 1], hi[..., 1], sy)
        pieces.append((a1, b1, a2, b2))
    return pieces


def _linf_mean_2d(lo: FloatArray, hi: FloatArray) -> FloatArray:
    """Average of ``max(|x|, |y|)`` over boxes (..., 2): ``(|x| + |y|)/2 + ||x| − |y||/2``."""
    half_l1 = 0.5 * (_abs_mean(lo[..., 0], hi[..., 0]) + _abs_mean(lo[..., 1], hi[..., 1]))
    total = np.zeros(lo.shape[:-1])
    for a1, b1, a2, b2 in _quadrant_pieces(lo, hi):
        total = total + _abs_diff_integral(a1, b1, a2, b2)
    area = (hi[..., 0] - lo[..., 0]) * (hi[..., 1] - lo[..., 1])
    return half_l1 + 0.5 * total / area


def _power_integral(
    alpha: FloatArray, beta: FloatArray, p: float, shift: FloatArray | None = None
) -> FloatArray:
    """``∫_α^β u^p (u − shift) du`` (``∫_α^β u^p du`` without ``shift``); 0 where ``β ≤ α``.

    Needs ``0 ≤ α`` and ``shift ≤ α``. As in `_power_mean`: a 16-node Gauss–Legendre
    rule where the interval lies at least four half-widths from 0, else the antiderivatives.
    """
    beta = np.maximum(beta, alpha)
    c, h = 0.5 * (alpha + beta), 0.5 * (beta - alpha)
    far = c >= 4.0 * h
    nodes, weights = _GL16
    u = c[..., None] + h[..., None] * nodes
    g = u**p if shift is None else u**p * (u - shift[..., None])
    gl = h * np.sum(weights * g, axis=-1)
    anti = (beta ** (p + 2.0) - alpha ** (p + 2.0)) / (p + 2.0)
    if shift is None:
        anti = (beta ** (p + 1.0) - alpha ** (p + 1.0)) / (p + 1.0)
    else:
        anti = anti - shift * (beta ** (p + 1.0) - alpha ** (p + 1.0)) / (p + 1.0)
    return np.where(far, gl, anti)


def _upper_wedge(a1: FloatArray, b1: FloatArray, a2: FloatArray, b2: FloatArray, p: float) -> Any:
    """``∫∫ u^p`` over ``{(u, v) ∈ [a₁, b₁] × [a₂, b₂] : v ≤ u}`` (``0 ≤ a ≤ b``).

    For fixed ``u`` the ``v``-length is ``0`` below ``a₂``, ``u − a₂`` on ``[a₂, b₂]`` and
    ``b₂ − a₂`` above ``b₂``: the split along the diagonal ``v = u``.
    """
    middle = _power_integral(np.maximum(a1, a2), np.minimum(b1, b2), p, shift=a2)
    return middle + (b2 - a2) * _power_integral(np.maximum(a1, b2), b1, p)


def _linf_power_mean_2d(lo: FloatArray, hi: FloatArray, p: float) -> FloatArray:
    """Average of ``max(|x|, |y|)^p`` over boxes (..., 2): per quadrant, both diagonal wedges."""
    total = np.zeros(lo.shape[:-1])
    for a1, b1, a2, b2 in _quadrant_pieces(lo, hi):
        total = total + _upper_wedge(a1, b1, a2, b2, p) + _upper_wedge(a2, b2, a1, b1, p)
    area = (hi[..., 0] - lo[..., 0]) * (hi[..., 1] - lo[..., 1])
    return total / area


def _max_abs_power_mean(lo: FloatArray, hi: FloatArray, p: float, n: int) -> FloatArray:
    """``E max_k |U_k|^p`` for independent ``U_k ~ U[lo_k, hi_k]`` (rows of (M, d) boxes).

    The knot rule of the module docstring, ``n`` Gauss–Legendre nodes per knot interval.
    """
    m_boxes = lo.shape[0]
    width = hi - lo
    zeros = np.zeros((m_boxes, 1))
    knots = np.sort(np.concatenate([zeros, np.abs(lo), np.abs(hi)], axis=1), axis=1)
    centre = 0.5 * (knots[:, 1:] + knots[:, :-1])  # (M, 2d)
    half = 0.5 * (knots[:, 1:] - knots[:, :-1])
    nodes, weights = np.polynomial.legendre.leggauss(n)
    m = centre[..., None] + half[..., None] * nodes  # (M, 2d, n)
    mm = m[..., None]
    low, up, w = (v[:, None, None, :] for v in (lo, hi, width))
    cdf = np.clip(np.minimum(mm, up) - np.maximum(-mm, low), 0.0, None) / w  # (M, 2d, n, d)
    density = (((mm > low) & (mm < up)).astype(np.float64) + ((-mm > low) & (-mm < up))) / w
    ones = np.ones((*cdf.shape[:-1], 1))
    before = np.cumprod(np.concatenate([ones, cdf[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, cdf[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    g = np.sum(density * before * after, axis=-1)  # density of max_k |U_k| at the nodes
    scale = half[..., None] * weights
    return np.sum(scale * m**p * g, axis=(1, 2)) / np.sum(scale * g, axis=(1, 2))


def _tensor_rule(n: int, d: int) -> tuple[FloatArray, FloatArray]:
    """Nodes (n^d, d) on [−1, 1]^d and weights (n^d,) summing to 1 (an average, not a sum)."""
    nodes, weights = np.polynomial.legendre.leggauss(n)
    grid = np.stack(np.meshgrid(*([nodes] * d), indexing="ij"), axis=-1).reshape(-1, d)
    wgrid = np.prod(np.stack(np.meshgrid(*([weights] * d), indexing="ij"), -1), -1).reshape(-1)
    return grid, wgrid / 2.0**d


class Norm:
    """The vector cost $c(x) = ‖x‖_q^p$ for $x ∈ ℝ^d$, ``q ∈ {1, 2, ∞}``, ``p > 0``.

    A separate class from `optmech.costs.Cost` (whose costs are of a scalar
    error): it is the cost of the multi-dimensional staircase (Kulesza, Suresh & Wang (2025)),
    evaluated over the last axis of its argument.

    Parameters
    ----------
    order : {1, 2, inf} or {'l1', 'l2', 'linf'}
        The norm ``q``.
    power : float, default 1
        The exponent ``p``, in (0, inf).

    Examples
    --------
    >>> Norm(2, power=2)
    Norm(order=2, power=2.0)
    >>> Norm("linf").name
    'linf'
    >>> Norm(2, power=2)([[1.0, 2.0], [3.0, 4.0]])
    array([ 5., 25.])
    """

    def __init__(self, order: float | str, power: float = 1.0) -> None:
        self._order = _check_order(order)
        self._power = check_real("power", power, low=0.0, low_open=True)

    @property
    def order(self) -> float:
        """``q``: 1.0, 2.0 or inf."""
        return self._order

    @property
    def power(self) -> float:
        """``p``."""
        return self._power

    @property
    def name(self) -> str:
        """Short label, e.g. ``'l1'``, ``'l2^2'``, ``'linf^0.5'``."""
        base = "linf" if self._order == math.inf else f"l{int(self._order)}"
        if self._power == 1.0:
            return base
        p = int(self._power) if self._power.is_integer() else self._power
        return f"{base}^{p}"

    def __repr__(self) -> str:
        order = "math.inf" if self._order == math.inf else str(int(self._order))
        return f"Norm(order={order}, power={self._power!r})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and repr(self) == repr(other)

    def __hash__(self) -> int:
        return hash(repr(self))

    # -- values ------------------------------------------------------------------------------
    def _value(self, x: FloatArray) -> FloatArray:
        if self._order == 2.0 and self._power == 2.0:
            return np.sum(x * x, axis=-1)
        if self._order == 1.0:
            norm = np.sum(np.abs(x), axis=-1)
        elif self._order == 2.0:
            norm = np.sqrt(np.sum(x * x, axis=-1))
        else:
            norm = np.max(np.abs(x), axis=-1)
        return norm if self._power == 1.0 else norm**self._power

    def __call__(self, points: npt.ArrayLike) -> FloatArray | float:
        """The cost of each vector.

        Parameters
        ----------
        points : array_like, shape (..., d)
            Real vectors along the last axis (±inf allowed, NaN refused).

        Returns
        -------
        float or ndarray, shape (...)
            A float for a single vector of shape (d,).
        """
        x = check_vectors("points", points)
        with np.errstate(over="ignore"):
            return _out(np.asarray(self._value(x), dtype=np.float64))

    # -- cell averages -----------------------------------------------------------------------
    def has_exact_cell_average(self, dimension: int) -> bool:
        """Whether `cell_average` is exact (to rounding) in this dimension."""
        q, p, d = self._order, self._power, dimension
        return (
            d == 1
            or (q == math.inf and d == 2)
            or (q == 1.0 and p in (1.0, 2.0))
            or (q == 2.0 and p == 2.0)
            or (q == math.inf and p.is_integer() and p + d <= 64)
        )

    def cell_average(
        self, lower: npt.ArrayLike, upper: npt.ArrayLike, *, return_error: bool = False
    ) -> FloatArray | float | tuple[FloatArray | float, FloatArray | float]:
        """Average of the cost over boxes ``[lower, upper]`` (shape (..., d), broadcast).

        Parameters
        ----------
        lower, upper : array_like, shape (..., d)
            Finite corners with ``upper > lower`` in every coordinate.
        return_error : bool, default False
            Also return an error estimate: 0 where the average is exact (see
            `has_exact_cell_average`), else $|Q_n − Q_2n| + 1e-14|Q_2n|$
            of the two Gauss–Legendre rules (tensor rules over the sign orthants for orders 1 and 2,
            the knot rule for order inf; module docstring).

        Returns
        -------
        float or ndarray, shape (...)
            The averages (a float for a single box); with ``return_error``, a pair
            ``(average, error)``.

        Raises
        ------
        ValueError
            Bad shapes, non-finite corners, $upper ≤ lower$.
        NotImplementedError
            No closed form and ``d > 4`` (the tensor rule would need $n^d$ nodes per box).
        """
        return_error = check_flag("return_error", return_error)
        lo, hi = self._boxes(lower, upper)
        d = lo.shape[-1]
        with np.errstate(over="ignore"):
            if self.has_exact_cell_average(d):
                avg = self._exact_average(lo, hi)
                err = np.zeros_like(avg)
            elif self._order == math.inf:
                avg, err = self._knot_average(lo, hi)
            elif d <= MAX_QUADRATURE_DIMENSION:
                avg, err = self._quadrature_average(lo, hi)
            else:
                raise NotImplementedError(
                    f"the cell average of {self!r} has no closed form in dimension {d}, and "
                    f"the tensor quadrature is offered up to dimension "
                    f"{MAX_QUADRATURE_DIMENSION}; exact cases: d = 1, order 1 with power 1 "
                    "or 2, order 2 with power 2, order inf in d = 2 or with an integer power."
                )
        if return_error:
            return _out(avg), _out(err)
        return _out(avg)

    @staticmethod
    def _boxes(lower: npt.ArrayLike, upper: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
        lo, hi = check_vectors("lower", lower), check_vectors("upper", upper)
        if lo.shape[-1] != hi.shape[-1]:
            raise ValueError(
                "`lower` and `upper` must have the same last axis (the dimension d); "
                f"got shapes {lo.shape} and {hi.shape}."
            )
        try:
            lo, hi = np.broadcast_arrays(lo, hi)
        except ValueError as exc:
            raise ValueError(
                f"`lower` and `upper` must broadcast; got shapes {lo.shape} and {hi.shape}."
            ) from exc
        if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
            raise ValueError("`lower` and `upper` must be finite; got inf.")
        if np.any(hi <= lo):
            raise ValueError(
                "`upper` must exceed `lower` in every coordinate of every box; got "
                f"upper − lower = {float(np.min(hi - lo))!r} somewhere."
            )
        return lo, hi

    def _exact_average(self, lo: FloatArray, hi: FloatArray) -> FloatArray:
        q, p, d = self._order, self._power, lo.shape[-1]
        if d == 1:
            return _power_mean(lo[..., 0], hi[..., 0], p)
        if q == math.inf and d == 2:
            return _linf_mean_2d(lo, hi) if p == 1.0 else _linf_power_mean_2d(lo, hi, p)
        if q == math.inf:
            return self._knot_average(lo, hi)[0]
        m2 = np.sum(_square_mean(lo, hi), axis=-1)
        if q == 2.0:
            return m2
        m1 = _abs_mean(lo, hi)
        if p == 1.0:
            return np.sum(m1, axis=-1)
        s1 = np.sum(m1, axis=-1)
        return s1 * s1 - np.sum(m1 * m1, axis=-1) + m2

    def _knot_average(self, lo: FloatArray, hi: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The ℓ∞ knot rule (module docstring) with 16 and 32 nodes, in chunks of boxes."""
        shape, d = lo.shape[:-1], lo.shape[-1]
        lo, hi = lo.reshape(-1, d), hi.reshape(-1, d)
        step = max(1, _CHUNK_POINTS // (2 * d * d * _KNOT_RULES[1]))
        avg, err = np.empty(lo.shape[0]), np.empty(lo.shape[0])
        for start in range(0, lo.shape[0], step):
            sl = slice(start, start + step)
            coarse, fine = (
                _max_abs_power_mean(lo[sl], hi[sl], self._power, n) for n in _KNOT_RULES
            )
            avg[sl] = fine
            err[sl] = np.abs(fine - coarse) + _ROUNDING * np.abs(fine)
        return avg.reshape(shape), err.reshape(shape)

    def _quadrature_average(self, lo: FloatArray, hi: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Tensor Gauss–Legendre on the sub-boxes cut by the coordinate planes."""
        return tensor_average(self._value, lo, hi)


def _rule_average(
    value: Callable[[FloatArray], FloatArray],
    lo: FloatArray,
    hi: FloatArray,
    rule: tuple[FloatArray, FloatArray],
) -> FloatArray:
    nodes, weights = rule
    centre, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
    step = max(1, _CHUNK_POINTS // nodes.shape[0])
    out = np.empty(lo.shape[0])
    for start in range(0, lo.shape[0], step):
        sl = slice(start, start + step)
        points = centre[sl, None, :] + half[sl, None, :] * nodes
        out[sl] = value(points) @ weights
    return out


def tensor_average(
    value: Callable[[FloatArray], FloatArray], lo: FloatArray, hi: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Average of ``value`` over boxes ``[lo, hi]`` (shape (..., d), d ≤ 4) and its error.

    Tensor Gauss–Legendre rules of two orders (`_RULES`) on the sub-boxes cut by the
    coordinate planes, inside which a norm-like cost is smooth except at the origin; the error
    is ``|Q_n − Q_2n| + 1e-14|Q_2n|`` (module docstring). ``value`` maps points (..., d) to
    costs (...).
    """
    shape, d = lo.shape[:-1], lo.shape[-1]
    lo, hi = lo.reshape(-1, d), hi.reshape(-1, d)
    n_lo, n_hi = _RULES[d]
    rules = (_tensor_rule(n_lo, d), _tensor_rule(n_hi, d))
    avg = np.zeros(lo.shape[0])
    err = np.zeros(lo.shape[0])
    width = hi - lo
    for sides in itertools.product((False, True), repeat=d):
        positive = np.array(sides)
        sub_lo = np.where(positive, np.maximum(lo, 0.0), lo)
        sub_hi = np.where(positive, hi, np.minimum(hi, 0.0))
        fraction = np.prod(np.clip(sub_hi - sub_lo, 0.0, None) / width, axis=-1)
        rows = np.nonzero(fraction > 0.0)[0]
        if rows.size == 0:
            continue
        coarse, fine = (_rule_average(value, sub_lo[rows], sub_hi[rows], r) for r in rules)
        avg[rows] += fraction[rows] * fine
        err[rows] += fraction[rows] * (np.abs(fine - coarse) + _ROUNDING * np.abs(fine))
    return avg.reshape(shape), err.reshape(shape)
