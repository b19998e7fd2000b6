"""Outward-rounded references for the catalogue: the papers' closed forms in ball arithmetic.

Every function here evaluates a theorem's value from its published formula in Arb ball
arithmetic (python-flint; Johansson, *Arb: efficient arbitrary-precision midpoint-radius
interval arithmetic*, IEEE Trans. Computers 66(8), 2017), for the *floating-point instance* the
LP solved: ``ε``, ``Δ``, priors and losses are floats, converted to balls exactly (a double is
a dyadic rational), and ``e^ε`` is enclosed, never rounded. The result is a ball that contains
the exact value; `bounds` turns it into floats ``lo ≤ value ≤ hi``. Nothing here calls
optmech's own formulas, so a catalogue row comparing optmech with these can fail.

Closed forms:

* continuous staircase (Geng & Viswanath (2016), Thm. 3; Thms. 4 and 6 in §IV): the cost
  of ``f_γ`` for ``|x|`` and ``x²`` summed period by period with ``Σ b^k = 1/(1 − b)``,
  ``Σ k b^k = b/(1 − b)²``, ``Σ k² b^k = b(1 + b)/(1 − b)³``, and the optima
  ``V*_{|x|} = Δ e^(ε/2)/(e^ε − 1)``, ``V*_{x²} = Δ²(u*² + b)/(1 − b)²`` with
  ``u* = (b(1 + b)/2)^(1/3)``;
* discrete staircase (Geng & Viswanath (2016), §VI, Thm. 12): ``min_r Σ_i p_r(i) c(i)`` for
  ``|x|^p`` (closed sums for p = 1, 2; otherwise a partial sum plus a rigorous geometric tail
  bound) and the 0-1 cost;
* range-restricted geometric plus Bayes remap (Ghosh, Roughgarden & Sundararajan (2012),
  Thm. 3.1): ``Σ_z min_r (Gᵀ diag(p) L)[z, r]`` with ``G`` in ball arithmetic;
* uniform plus atom (Geng, Ding, Guo & Kumar (2019), Thm. 3): ``E|X|^p`` of ``P_α``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import flint
import numpy as np
import numpy.typing as npt

__all__ = [
    "arb",
    "bayes_remap_value",
    "bounds",
    "discrete_staircase_costs",
    "discrete_staircase_optimum",
    "geometric_bayes_value",
    "geometric_matrix",
    "mechanism_value",
    "power_class_sum",
    "precision",
    "staircase_cost",
    "staircase_gamma",
    "staircase_optimum",
    "to_fraction",
    "uniform_atom_alpha",
    "uniform_atom_cost",
]

#: Working precision (bits) of the references: the balls come out ~1e-30 wide, far inside the
#: certified intervals they are compared with.
BITS = 106


@contextmanager
def precision(bits: int = BITS) -> Iterator[None]:
    """Evaluate the enclosed block at ``bits`` of working precision."""
    with flint.ctx.workprec(bits):
        yield


def arb(x: Any) -> flint.arb:
    """A ball holding ``x`` exactly (a float, an int, a `Fraction`)."""
    if isinstance(x, Fraction):
        return flint.arb(flint.fmpq(x.numerator, x.denominator))
    if isinstance(x, flint.arb):
        return x
    return flint.arb(float(x)) if isinstance(x, float | np.floating) else flint.arb(x)


def to_fraction(x: flint.arb) -> Fraction:
    """The exact value of an exact ball (e.g. ``x.lower()``) as a fraction."""
    mantissa, exponent = x.mid().man_exp()
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def _float_below(x: Fraction) -> float:
    f = float(x)
    return f if Fraction(f) <= x else math.nextafter(f, -math.inf)


def _float_above(x: Fraction) -> float:
    f = float(x)
    return f if Fraction(f) >= x else math.nextafter(f, math.inf)


def bounds(x: flint.arb) -> tuple[float, float]:
    """Floats ``(lo, hi)`` with ``lo ≤ every point of x ≤ hi`` (rounded outward)."""
    if not x.is_finite():
        return -math.inf, math.inf
    return _float_below(to_fraction(x.lower())), _float_above(to_fraction(x.upper()))


def _exp_neg(eps: float) -> flint.arb:
    return (-arb(eps)).exp()


# -- continuous staircase ------------------------------------------------------------------
def staircase_cost(eps: float, delta: float, gamma: Any, cost: str) -> flint.arb:
    """``E c(X)`` of the staircase density ``f_γ`` for ``c = |x|`` (``"abs"``) or ``x²``.

    ``gamma`` may be a float, a fraction or a ball. On ``x ≥ 0`` the density is ``a b^k`` on
    ``[kΔ, (k + γ)Δ)`` and ``a b^(k+1)`` on ``[(k + γ)Δ, (k + 1)Δ)``, with
    ``a = (1 − b)/(2Δ(γ + (1 − γ)b))`` (Geng & Viswanath (2016), eq. (22)); both halves are
    summed in closed form.
    """
    b = _exp_neg(eps)
    g = arb(gamma)
    d = arb(delta)
    a = (1 - b) / (2 * d * (g + (1 - g) * b))
    s0, s1, s2 = 1 / (1 - b), b / (1 - b) ** 2, b * (1 + b) / (1 - b) ** 3
    if cost == "abs":
        inner = 2 * g * s1 + g**2 * s0
        outer = 2 * (1 - g) * s1 + (1 - g**2) * s0
        return a * d**2 * (inner + b * outer)
    if cost == "squared":
        inner = 3 * g * s2 + 3 * g**2 * s1 + g**3 * s0
        outer = 3 * (1 - g) * s2 + 3 * (1 - g**2) * s1 + (1 - g**3) * s0
        return 2 * a * d**3 / 3 * (inner + b * outer)
    raise ValueError(f"`cost` must be 'abs' or 'squared'; got {cost!r}.")


def staircase_gamma(eps: float, cost: str) -> flint.arb:
    """The optimal γ* (Geng & Viswanath (2016), Thm. 4 (|x|) and Thm. 6 (x²))."""
    b = _exp_neg(eps)
    if cost == "abs":
        return 1 / (1 + (arb(eps) / 2).exp())
    if cost == "squared":
        u = (b * (1 + b) / 2).root(3)
        return (u - b) / (1 - b)
    raise ValueError(f"`cost` must be 'abs' or 'squared'; got {cost!r}.")


def staircase_optimum(eps: float, delta: float, cost: str) -> flint.arb:
    """``V*``: ``Δ e^(ε/2)/(e^ε − 1)`` for |x|, ``Δ²(u*² + b)/(1 − b)²`` for x²."""
    b = _exp_neg(eps)
    d = arb(delta)
    if cost == "abs":
        return d * (arb(eps) / 2).exp() / arb(eps).expm1()
    if cost == "squared":
        u = (b * (1 + b) / 2).root(3)
        return d**2 * (u**2 + b) / (1 - b) ** 2
    raise ValueError(f"`cost` must be 'abs' or 'squared'; got {cost!r}.")


# -- discrete staircase --------------------------------------------------------------------
def power_class_sum(b: flint.arb, delta: int, j: int, p: float) -> flint.arb:
    """``Σ_{k≥0} b^k (kΔ + j)^p``: closed for p = 1, 2, else partial sum + tail bound."""
    d = arb(delta)
    s0, s1, s2 = 1 / (1 - b), b / (1 - b) ** 2, b * (1 + b) / (1 - b) ** 3
    if p == 1.0:
        return d * s1 + j * s0
    if p == 2.0:
        return d**2 * s2 + 2 * d * j * s1 + j**2 * s0
    bf = float(b.mid())
    # Terms t_k = b^k (kΔ + j)^p decrease by at most ρ = b (1 + 1/N)^p after k ≥ N (with
    # (kΔ + j + Δ)/(kΔ + j) ≤ 1 + 1/k); N large enough that ρ < 1 and b^N < 2^-120.
    n = max(math.ceil(120 * math.log(2) / -math.log(bf)) + 8, 16)
    while bf * (1 + 1 / n) ** p >= 1:
        n *= 2
    pp = arb(p)
    total = arb(0)
    for k in range(n):
        base = arb(k * delta + j)
        total += b**k * (base**pp if k * delta + j > 0 else arb(0))
    rho = b * (1 + arb(1) / n) ** pp
    tail = b**n * arb(n * delta + j) ** pp / (1 - rho)
    return total + flint.arb(0, 1) * tail.upper()


def _weights(b: flint.arb, delta: int, r: int) -> list[flint.arb]:
    """``p_r(kΔ + j) = w_j b^k``: ``w_j = a`` for ``j < r``, ``a b`` otherwise."""
    a = (1 - b) / (2 * r + 2 * b * (delta - r) - (1 - b))
    return [a if j < r else a * b for j in range(delta)]


def discrete_staircase_costs(eps: float, delta: int, cost: Any) -> list[flint.arb]:
    """``Σ_i p_r(i) c(i)`` for ``r = 1..Δ``, the discrete staircase ``p_r`` of Geng &
    Viswanath (2016), §VI: ``p_r(i) = a b^k`` if ``|i| − kΔ < r`` else ``a b^(k+1)``
    (``k = ⌊|i|/Δ⌋``), ``a = (1 − b)/(2r + 2b(Δ − r) − (1 − b))``.

    ``cost`` is an optmech cost with a symmetric ``power_law`` (``|x|^p``) or a 0-1 cost
    (``tolerance``).
    """
    b = _exp_neg(eps)
    if hasattr(cost, "tolerance"):  # 0-1 cost: 1 − P(|X| ≤ t)
        t = math.floor(float(cost.tolerance))
        out = []
        for r in range(1, delta + 1):
            w = _weights(b, delta, r)
            inside = sum(
                (w[i % delta] * b ** (i // delta) * (1 if i == 0 else 2) for i in range(t + 1)),
                arb(0),
            )
            out.append(1 - inside)
        return out
    p, over, under = cost.power_law
    if over != under:
        raise ValueError("the discrete staircase reference needs a symmetric cost")
    sums = [power_class_sum(b, delta, j, p) for j in range(delta)]
    # Both half lines; i = 0 is counted twice but c(0) = 0.
    return [
        2
        * arb(over)
        * sum((w * s for w, s in zip(_weights(b, delta, r), sums, strict=True)), arb(0))
        for r in range(1, delta + 1)
    ]


def discrete_staircase_optimum(eps: float, delta: int, cost: Any) -> tuple[flint.arb, int]:
    """``min_r`` of `discrete_staircase_costs` and a minimising ``r``
    (by midpoints)."""
    values = discrete_staircase_costs(eps, delta, cost)
    best = values[0]
    for v in values[1:]:
        best = best.min(v)
    r_star = 1 + int(np.argmin([float(v.mid()) for v in values]))
    return best, r_star


# -- range-restricted geometric ------------------------------------------------------------
def geometric_matrix(n: int, eps: float | None = None, *, alpha: Any = None) -> flint.arb_mat:
    """``G`` on ``{0..n}`` (Ghosh, Roughgarden & Sundararajan (2012), §2) as a ball matrix.

    ``G[i, j] = α^|i−j| (1 − α)/(1 + α)`` inside, ``α^i/(1 + α)`` and ``α^(n−i)/(1 + α)`` in
    the first and last columns; ``α = e^(−ε)`` (enclosed) unless ``alpha`` is given.
    """
    if alpha is not None:
        al = arb(alpha)
    elif eps is not None:
        al = _exp_neg(eps)
    else:
        raise TypeError("geometric_matrix needs `eps` or `alpha`; got neither.")
    powers = [al**k for k in range(n + 1)]
    inner = (1 - al) / (1 + al)
    rows = []
    for i in range(n + 1):
        row = []
        for j in range(n + 1):
            if j == 0:
                row.append(powers[i] / (1 + al))
            elif j == n:
                row.append(powers[n - i] / (1 + al))
            else:
                row.append(powers[abs(i - j)] * inner)
        rows.append(row)
    return flint.arb_mat(rows)


def _ball_matrix(values: npt.ArrayLike) -> flint.arb_mat:
    arr = np.asarray(values, dtype=np.float64)
    return flint.arb_mat([[flint.arb(float(v)) for v in row] for row in arr])


def bayes_remap_value(
    mechanism: flint.arb_mat, prior: npt.ArrayLike, loss: npt.ArrayLike
) -> flint.arb:
    """``Σ_z min_r Σ_i p_i M[i, z] L[i, r]``: a mechanism followed by the user's Bayes remap
    (Ghosh, Roughgarden & Sundararajan (2012), §2.2); ``prior`` and ``loss`` exactly as floats."""
    p = np.asarray(prior, dtype=np.float64)
    weighted = flint.arb_mat(
        [
            [mechanism[i, z] * flint.arb(float(p[i])) for z in range(mechanism.ncols())]
            for i in range(mechanism.nrows())
        ]
    )
    posterior = weighted.transpose() * _ball_matrix(loss)  # (z, r)
    total = arb(0)
    for z in range(posterior.nrows()):
        best = posterior[z, 0]
        for r in range(1, posterior.ncols()):
            best = best.min(posterior[z, r])
        total += best
    return total


def geometric_bayes_value(prior: npt.ArrayLike, loss: npt.ArrayLike, eps: float) -> flint.arb:
    """``G`` plus the user's Bayes remap, the optimum of GRS Thm. 3.1 (``loss`` square)."""
    n = np.asarray(prior).size - 1
    return bayes_remap_value(geometric_matrix(n, eps), prior, loss)


def mechanism_value(mechanism: Any, weights: npt.ArrayLike) -> flint.arb:
    """``Σ W ⊙ M`` for a ball matrix ``M`` and float weights ``W`` (exact conversion)."""
    w = np.asarray(weights, dtype=np.float64)
    total = arb(0)
    for i in range(w.shape[0]):
        for r in range(w.shape[1]):
            if w[i, r] != 0:
                total += mechanism[i, r] * flint.arb(float(w[i, r]))
    return total


# -- uniform plus atom ---------------------------------------------------------------------
def uniform_atom_cost(delta: float, sensitivity: float, p: float, alpha: Any) -> flint.arb:
    """``E|X|^p`` of ``P_α``: mass α at 0, density ``(δ − α)/Δ`` on ``[−L, L]``,
    ``L = (1 − α)Δ/(2(δ − α))`` (Geng, Ding, Guo & Kumar (2019), §3)."""
    d, s, al, pp = arb(delta), arb(sensitivity), arb(alpha), arb(p)
    half = (1 - al) * s / (2 * (d - al))
    return 2 * (d - al) / s * half ** (pp + 1) / (pp + 1)


def uniform_atom_alpha(delta: float, p: float) -> flint.arb:
    """``α* = 0`` if ``δ ≤ p/(p + 1)``, else ``(p + 1)δ − p`` (ibid., Thm. 3)."""
    if Fraction(delta) <= Fraction(p) / (Fraction(p) + 1):
        return arb(0)
    return (arb(p) + 1) * arb(delta) - arb(p)
