"""Exact rational references for geometric tail sums and for the cost of tabulated noise.

Built from the float inputs with `fractions.Fraction`, never from optmech's tail code: the
moments ``S_i = Σ_k k^i ρ^k`` from the recurrence
``(1 − ρ)S_i = [i = 0] + Σ_{j<i} C(i, j)(−1)^(i−j+1)(S_j − [j = 0])`` (a telescoping of
``k^i − (k − 1)^i``), the periods whose cells reach the near half line (or cross ``±t``) summed
one by one, and the rest expanded binomially.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from optmech.costs import Cost

__all__ = [
    "exact_piecewise_cost",
    "exact_power_integral",
    "exact_power_sum",
    "exact_zero_one_integral",
    "exact_zero_one_sum",
    "moments",
    "relative_error",
]


def moments(ratio: Fraction, order: int) -> list[Fraction]:
    """``S_i = Σ_{k≥0} k^i ρ^k`` for ``i ≤ order``, exactly (recurrence in the module text)."""
    out: list[Fraction] = []
    for i in range(order + 1):
        acc = Fraction(1 if i == 0 else 0)
        for j in range(i):
            acc += math.comb(i, j) * (-1) ** (i - j + 1) * (out[j] - (1 if j == 0 else 0))
        out.append(acc / (1 - ratio))
    return out


def power_law(cost: Cost) -> tuple[int, Fraction, Fraction]:
    p, over, under = cost.power_law  # type: ignore[misc]
    assert float(p).is_integer()
    return int(p), Fraction(over), Fraction(under)


def exact_power_integral(cost: Cost, a: float, b: float, period: float, ratio: float) -> Fraction:
    """``Σ_k ρ^k ∫_{a+kT}^{b+kT} c``, exactly, for ``c = over·e^p`` (e ≥ 0), ``under·|e|^p``."""
    p, over, under = power_law(cost)
    fa, fb, t, r = Fraction(a), Fraction(b), Fraction(period), Fraction(ratio)

    def anti(x: Fraction) -> Fraction:
        return over * x ** (p + 1) / (p + 1) if x >= 0 else -under * (-x) ** (p + 1) / (p + 1)

    sign = 1 if fb >= fa else -1
    lo, hi = min(fa, fb), max(fa, fb)
    if t < 0:  # walk towards +∞ on the mirror image (over and under swap)
        lo, hi, t, over, under = -hi, -lo, -t, under, over
    total, k = Fraction(0), 0
    while lo + k * t < 0:  # cells reaching the negative half line: one by one
        total += r**k * (anti(hi + k * t) - anti(lo + k * t))
        k += 1
    if r == 0 and k > 0:
        return sign * total
    s = moments(r, p)
    y, w = lo + k * t, hi - lo
    far = sum(
        math.comb(p, i) * t**i * s[i] * ((y + w) ** (p - i + 1) - y ** (p - i + 1)) / (p - i + 1)
        for i in range(p + 1)
    )
    return sign * (total + r**k * over * far)


def exact_power_sum(cost: Cost, x: float, period: float, ratio: float) -> Fraction:
    """``Σ_k ρ^k c(x + kT)``, exactly."""
    p, over, under = power_law(cost)
    y, t, r = Fraction(x), Fraction(period), Fraction(ratio)
    if t < 0:
        y, t, over, under = -y, -t, under, over
    total, k = Fraction(0), 0
    while y + k * t < 0:
        total += r**k * under * (-(y + k * t)) ** p
        k += 1
    if r == 0 and k > 0:
        return total
    s = moments(r, p)
    z = y + k * t
    far = sum(math.comb(p, i) * z ** (p - i) * t**i * s[i] for i in range(p + 1))
    return total + r**k * over * far


def exact_zero_one_integral(
    tol: float, a: float, b: float, period: float, ratio: float
) -> Fraction:
    """``Σ_k ρ^k |[a+kT, b+kT] \\ [−t, t]|``, exactly: once the cell is past ``t`` for good each
    period adds ``w ρ^k``."""
    lo, hi, t, r, tt = Fraction(a), Fraction(b), Fraction(period), Fraction(ratio), Fraction(tol)
    sign = 1 if hi >= lo else -1
    lo, hi = min(lo, hi), max(lo, hi)
    if t < 0:
        lo, hi, t = -hi, -lo, -t
    w, total, k = hi - lo, Fraction(0), 0
    while lo + k * t < tt:
        c_lo, c_hi = lo + k * t, hi + k * t
        outside = max(Fraction(0), min(c_hi, -tt) - c_lo) + max(Fraction(0), c_hi - max(c_lo, tt))
        total += r**k * outside
        k += 1
    if r == 0 and k > 0:
        return sign * total
    return sign * (total + w * r**k / (1 - r))


def exact_zero_one_sum(tol: float, x: float, period: float, ratio: float) -> Fraction:
    y, t, r, tt = Fraction(x), Fraction(period), Fraction(ratio), Fraction(tol)
    if t < 0:
        y, t = -y, -t
    total, k = Fraction(0), 0
    while y + k * t <= tt:
        total += r**k * (1 if abs(y + k * t) > tt else 0)
        k += 1
    if r == 0 and k > 0:
        return total
    return total + r**k / (1 - r)


def relative_error(got: float, exact: Fraction) -> float:
    if exact == 0:
        return 0.0 if got == 0 else math.inf
    return abs(float((Fraction(got) - exact) / exact))


def exact_piecewise_cost(noise: Any, cost: Cost) -> Fraction:
    """The exact expected cost of a `PiecewiseConstantNoise` for an integer power-law cost:
    ``Σ f_j ∫_cell c`` over the grid plus both geometric tails, over the exact total mass
    (the law's own floats: grid edges ``start + jh``, tail cells from the grid's ends)."""
    p, over, under = power_law(cost)
    law = noise._law
    h = law.h

    def anti(x: Fraction) -> Fraction:
        return over * x ** (p + 1) / (p + 1) if x >= 0 else -under * (-x) ** (p + 1) / (p + 1)

    edges = [Fraction(e) for e in noise.edges.tolist()]
    total = sum(
        (
            Fraction(v) * (anti(hi) - anti(lo))
            for v, lo, hi in zip(law.values.tolist(), edges[:-1], edges[1:], strict=True)
        ),
        Fraction(0),
    )
    mass = sum(
        (
            Fraction(v) * (hi - lo)
            for v, lo, hi in zip(law.values.tolist(), edges[:-1], edges[1:], strict=True)
        ),
        Fraction(0),
    )
    count = law.period
    for base, ratio, first, period in (
        (law.right_base, law.right_ratio, law.end, count * h),
        (law.left_base, law.left_ratio, law.start - count * h, -count * h),
    ):
        for j, v in enumerate(base.tolist()):
            if v:
                a = first + h * j
                total += Fraction(v) * exact_power_integral(cost, a, a + h, period, ratio)
                mass += Fraction(v) * Fraction(h) / (1 - Fraction(ratio))
    return total / mass
